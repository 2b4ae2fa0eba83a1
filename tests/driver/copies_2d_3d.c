// Pitched copies through CUDA_MEMCPY2D / CUDA_MEMCPY3D: host to pitched device memory (with an
// offset position), device to device (cuMemcpy2DUnaligned), device to host, asynchronous forms
// on a stream, a 3D box between slices of different heights, unified (pinned) memory, and
// CUDA_ERROR_INVALID_VALUE for a NULL struct, a row wider than its pitch, a memory type that
// is none and 3D slices shorter than the copy.
#include <string.h>

#include "check.h"

enum { W = 37, H = 11, D = 3 };

int main(void) {
    CHECK(cuInit(0));
    CUdevice dev;
    CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CHECK(cuCtxCreate(&ctx, NULL, 0, dev));

    unsigned char host[H][W], back[H + 2][W + 5];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) host[y][x] = (unsigned char)(y * 31 + x);
    CUdeviceptr pitched, copy;
    size_t pitch;
    CHECK(cuMemAllocPitch(&pitched, &pitch, W, H + 1, 4));
    CHECK(cuMemAllocPitch(&copy, &pitch, W, H + 1, 4));
    CHECK(cuMemsetD8(pitched, 0, pitch * (H + 1)));

    // Host rows into device rows 1..H.
    CUDA_MEMCPY2D up;
    memset(&up, 0, sizeof up);
    up.srcMemoryType = CU_MEMORYTYPE_HOST;
    up.srcHost = host;
    up.srcPitch = W;
    up.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    up.dstDevice = pitched;
    up.dstPitch = pitch;
    up.dstY = 1;
    up.WidthInBytes = W;
    up.Height = H;
    CHECK(cuMemcpy2D(&up));

    // Device to device, unaligned form.
    CUDA_MEMCPY2D across;
    memset(&across, 0, sizeof across);
    across.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    across.srcDevice = pitched;
    across.srcPitch = pitch;
    across.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    across.dstDevice = copy;
    across.dstPitch = pitch;
    across.WidthInBytes = W;
    across.Height = H + 1;
    CHECK(cuMemcpy2DUnaligned(&across));

    // Back to the host asynchronously, into a wider host array at column 2, row 1.
    memset(back, 0xee, sizeof back);
    CUstream stream;
    CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    CUDA_MEMCPY2D down;
    memset(&down, 0, sizeof down);
    down.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    down.srcDevice = copy;
    down.srcPitch = pitch;
    down.srcY = 1;
    down.dstMemoryType = CU_MEMORYTYPE_HOST;
    down.dstHost = back;
    down.dstPitch = W + 5;
    down.dstXInBytes = 2;
    down.dstY = 1;
    down.WidthInBytes = W;
    down.Height = H;
    CHECK(cuMemcpy2DAsync(&down, stream));
    CHECK(cuStreamSynchronize(stream));
    int wrong = 0;
    for (int y = 0; y < H + 2; y++)
        for (int x = 0; x < W + 5; x++) {
            int inside = y >= 1 && y <= H && x >= 2 && x < W + 2;
            unsigned char expect = inside ? host[y - 1][x - 2] : 0xee;
            wrong += back[y][x] != expect;
        }
    EXPECT(wrong == 0);
    unsigned char first_row[W];
    CHECK(cuMemcpyDtoH(first_row, copy, W));
    for (int x = 0; x < W; x++) EXPECT(first_row[x] == 0);

    // 3D: a W x H x D box from a host volume with slices of H rows into device slices of
    // H + 1 rows (pitch `pitch`), then back into pinned (unified) memory at z = 1.
    static unsigned char volume[D][H][W];
    for (int z = 0; z < D; z++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) volume[z][y][x] = (unsigned char)(z * 71 + y * 13 + x);
    CUdeviceptr box;
    CHECK(cuMemAlloc(&box, pitch * (H + 1) * D));
    CUDA_MEMCPY3D in3;
    memset(&in3, 0, sizeof in3);
    in3.srcMemoryType = CU_MEMORYTYPE_HOST;
    in3.srcHost = volume;
    in3.srcPitch = W;
    in3.srcHeight = H;
    in3.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    in3.dstDevice = box;
    in3.dstPitch = pitch;
    in3.dstHeight = H + 1;
    in3.WidthInBytes = W;
    in3.Height = H;
    in3.Depth = D;
    CHECK(cuMemcpy3D(&in3));
    unsigned char *pinned;
    CHECK(cuMemAllocHost((void **)&pinned, (size_t)W * H * (D + 1)));
    memset(pinned, 0, (size_t)W * H * (D + 1));
    CUDA_MEMCPY3D out3;
    memset(&out3, 0, sizeof out3);
    out3.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    out3.srcDevice = box;
    out3.srcPitch = pitch;
    out3.srcHeight = H + 1;
    out3.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
    out3.dstDevice = (CUdeviceptr)pinned;
    out3.dstPitch = W;
    out3.dstHeight = H;
    out3.dstZ = 1;
    out3.WidthInBytes = W;
    out3.Height = H;
    out3.Depth = D;
    CHECK(cuMemcpy3DAsync(&out3, stream));
    CHECK(cuStreamSynchronize(stream));
    EXPECT(memcmp(pinned + W * H, volume, sizeof volume) == 0);
    for (int i = 0; i < W * H; i++) EXPECT(pinned[i] == 0);
    // The row of each device slice beyond the copied rows was not written.
    unsigned char gap[W];
    CHECK(cuMemsetD8(box + pitch * H, 0x5a, W));
    CHECK(cuMemcpy3D(&in3));
    CHECK(cuMemcpyDtoH(gap, box + pitch * H, W));
    for (int x = 0; x < W; x++) EXPECT(gap[x] == 0x5a);

    // Errors: a NULL struct, a row wider than its pitch, no memory type, 3D slices too short.
    EXPECT(cuMemcpy2D(NULL) == CUDA_ERROR_INVALID_VALUE);
    CUDA_MEMCPY2D narrow = up;
    narrow.srcPitch = W - 1;
    EXPECT(cuMemcpy2D(&narrow) == CUDA_ERROR_INVALID_VALUE);
    CUDA_MEMCPY2D unknown_type = up;
    unknown_type.dstMemoryType = (CUmemorytype)7;
    EXPECT(cuMemcpy2D(&unknown_type) == CUDA_ERROR_INVALID_VALUE);
    CUDA_MEMCPY3D short_slices = in3;
    short_slices.dstHeight = H - 1;
    EXPECT(cuMemcpy3D(&short_slices) == CUDA_ERROR_INVALID_VALUE);

    CHECK(cuMemFreeHost(pinned));
    CHECK(cuMemFree(box));
    CHECK(cuMemFree(copy));
    CHECK(cuMemFree(pitched));
    CHECK(cuStreamDestroy(stream));
    CHECK(cuCtxDestroy(ctx));
    printf("copies_2d_3d: ok\n");
    return 0;
}
