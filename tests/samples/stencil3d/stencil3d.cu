// 3D 7-point stencil (Parboil style): each thread marches along z keeping the column below, at
// and above in registers, the current plane in shared memory.
#include <vector>
#include "../common/helpers.h"

constexpr int TX = 16, TY = 16;

__global__ void stencil7(float *out, const float *in, int nx, int ny, int nz, float c0, float c1) {
    __shared__ float plane[TY + 2][TX + 2];
    int x = blockIdx.x * TX + threadIdx.x, y = blockIdx.y * TY + threadIdx.y;
    int sx = threadIdx.x + 1, sy = threadIdx.y + 1;
    bool inside = x < nx && y < ny;
    auto idx = [&](int i, int j, int k) { return (k * ny + j) * nx + i; };
    float below = 0, current = inside ? in[idx(x, y, 0)] : 0, above;
    for (int z = 0; z < nz; ++z) {
        above = inside && z + 1 < nz ? in[idx(x, y, z + 1)] : 0;
        __syncthreads();
        plane[sy][sx] = current;
        if (threadIdx.x == 0) plane[sy][0] = x > 0 && y < ny ? in[idx(x - 1, y, z)] : 0;
        if (threadIdx.x == TX - 1) plane[sy][TX + 1] = x + 1 < nx && y < ny ? in[idx(x + 1, y, z)] : 0;
        if (threadIdx.y == 0) plane[0][sx] = y > 0 && x < nx ? in[idx(x, y - 1, z)] : 0;
        if (threadIdx.y == TY - 1) plane[TY + 1][sx] = y + 1 < ny && x < nx ? in[idx(x, y + 1, z)] : 0;
        __syncthreads();
        if (inside)
            out[idx(x, y, z)] = c1 * (plane[sy][sx - 1] + plane[sy][sx + 1] + plane[sy - 1][sx] + plane[sy + 1][sx] + below + above) - c0 * current;
        below = current;
        current = above;
    }
}

int main(int argc, char **argv) {
    int n = sizeArg(argc, argv, 128), nx = n, ny = n, nz = n / 2;
    size_t count = (size_t)nx * ny * nz;
    std::vector<float> host(count), got(count), ref(count);
    for (size_t i = 0; i < count; ++i) host[i] = (float)((i * 13) % 11);
    float *in, *out;
    checkCudaErrors(cudaMalloc(&in, count * sizeof(float)));
    checkCudaErrors(cudaMalloc(&out, count * sizeof(float)));
    checkCudaErrors(cudaMemcpy(in, host.data(), count * sizeof(float), cudaMemcpyHostToDevice));
    dim3 block(TX, TY), grid((nx + TX - 1) / TX, (ny + TY - 1) / TY);
    EventTimer timer;
    timer.start();
    stencil7<<<grid, block>>>(out, in, nx, ny, nz, 6.0f, 1.0f);
    float ms = timer.stop();
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaMemcpy(got.data(), out, count * sizeof(float), cudaMemcpyDeviceToHost));
    auto at = [&](int i, int j, int k) {
        return (i >= 0 && i < nx && j >= 0 && j < ny && k >= 0 && k < nz) ? host[((size_t)k * ny + j) * nx + i] : 0.0f;
    };
    for (int k = 0; k < nz; ++k)
        for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i)
                ref[((size_t)k * ny + j) * nx + i] = 1.0f * (at(i - 1, j, k) + at(i + 1, j, k) + at(i, j - 1, k) + at(i, j + 1, k) + at(i, j, k - 1) + at(i, j, k + 1)) - 6.0f * at(i, j, k);
    bool ok = got == ref;
    printf("%dx%dx%d grid: %s\n", nx, ny, nz, ok ? "matches the host" : "DIFFERS");
    printf("time: %.3f ms\n", ms);
    checkCudaErrors(cudaFree(in));
    checkCudaErrors(cudaFree(out));
    return finish("stencil3d", ok);
}
