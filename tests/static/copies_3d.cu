// 3D pitched memory through the runtime: cudaMalloc3D, cudaMemset3D, cudaMemcpy3D from a host
// volume into a sub-box of the device volume, cudaMemset2D on one slice, and cudaMemcpy3DAsync
// of the whole volume back. Checked against the same steps done on the host (chevron's own
// runtime does not provide cudaMemset2D/3D, so this program is only built with nvcc's
// defaults).
#include <cstring>
#include "check.h"
const int W = 20, H = 9, D = 4;  // the device volume, in bytes x rows x slices
const int BW = 13, BH = 5, BD = 3;  // the box copied in, at (4, 2, 1)
int main() {
    cudaPitchedPtr volume;
    CHECK(cudaMalloc3D(&volume, make_cudaExtent(W, H, D)));
    CHECK(cudaMemset3D(volume, 7, make_cudaExtent(W, H, D)));
    static unsigned char box[BD][BH][BW], expect[D][H][W], back[D][H][W];
    for (int z = 0; z < BD; ++z)
        for (int y = 0; y < BH; ++y)
            for (int x = 0; x < BW; ++x) box[z][y][x] = (unsigned char)(z * 50 + y * 9 + x);
    std::memset(expect, 7, sizeof expect);
    cudaMemcpy3DParms in = {};
    in.srcPtr = make_cudaPitchedPtr(box, BW, BW, BH);
    in.dstPtr = volume;
    in.dstPos = make_cudaPos(4, 2, 1);
    in.extent = make_cudaExtent(BW, BH, BD);
    in.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&in));
    for (int z = 0; z < BD; ++z)
        for (int y = 0; y < BH; ++y)
            for (int x = 0; x < BW; ++x) expect[z + 1][y + 2][x + 4] = box[z][y][x];
    // Slice 3, rows 1..3, bytes 0..9 set to 0x42.
    char* slice3 = static_cast<char*>(volume.ptr) + 3 * volume.pitch * H;
    CHECK(cudaMemset2D(slice3 + volume.pitch, volume.pitch, 0x42, 10, 3));
    for (int y = 1; y < 4; ++y)
        for (int x = 0; x < 10; ++x) expect[3][y][x] = 0x42;
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    cudaMemcpy3DParms out = {};
    out.srcPtr = volume;
    out.dstPtr = make_cudaPitchedPtr(back, W, W, H);
    out.extent = make_cudaExtent(W, H, D);
    out.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaMemcpy3DAsync(&out, stream));
    CHECK(cudaStreamSynchronize(stream));
    int wrong = 0;
    long sum = 0;
    for (int z = 0; z < D; ++z)
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
                wrong += back[z][y][x] != expect[z][y][x];
                sum += back[z][y][x];
            }
    std::printf("pitch >= width: %d, byte sum %ld, wrong %d\n", volume.pitch >= W, sum, wrong);
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(volume.ptr));
    std::printf("copies_3d: %s\n", wrong == 0 ? "ok" : "FAILED");
    return wrong != 0;
}
