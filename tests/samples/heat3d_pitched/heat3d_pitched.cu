// 3D heat diffusion on pitched volumes: cudaMalloc3D volumes with a one-cell halo, zeroed with
// cudaMemset3D (the halo is the fixed cold boundary), the interior uploaded from a packed host
// array with cudaMemcpy3DAsync at an offset position, a 2.5D-blocked 7-point Jacobi stencil
// that walks z keeping the planes below and above in registers and the current plane in a
// shared tile with halo loads, then results read back three ways: the whole interior with
// cudaMemcpy3D, a sub-box copied device to device into a smaller pitched volume, and one
// z-slice with cudaMemcpy2D from the pitched pointer. A host simulation checks each.
// Default: 160 x 128 x 96 cells, 60 steps (arguments: nx ny nz steps).
#include <algorithm>
#include <cmath>
#include <vector>
#include "../common/helpers.h"

constexpr int BX = 32, BY = 8;

__device__ __forceinline__ float *cell(cudaPitchedPtr p, int x, int y, int z) {
    return reinterpret_cast<float *>(static_cast<char *>(p.ptr) + (size_t(z) * p.ysize + y) * p.pitch) + x;
}

// Interior cells are 1..nx, 1..ny, 1..nz of volumes (nx + 2) x (ny + 2) x (nz + 2).
__global__ void heatStep(cudaPitchedPtr src, cudaPitchedPtr dst, int nx, int ny, int nz, float alpha) {
    __shared__ float tile[BY + 2][BX + 2];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int x = blockIdx.x * BX + tx + 1, y = blockIdx.y * BY + ty + 1;
    const bool inside = x <= nx && y <= ny;
    float below = inside ? *cell(src, x, y, 0) : 0.f, cur = inside ? *cell(src, x, y, 1) : 0.f;
    for (int z = 1; z <= nz; ++z) {
        float above = inside ? *cell(src, x, y, z + 1) : 0.f;
        __syncthreads(); // the previous plane's tile is no longer read
        if (inside) {
            tile[ty + 1][tx + 1] = cur;
            if (tx == 0) tile[ty + 1][0] = *cell(src, x - 1, y, z);
            if (tx == BX - 1 || x == nx) tile[ty + 1][tx + 2] = *cell(src, x + 1, y, z);
            if (ty == 0) tile[0][tx + 1] = *cell(src, x, y - 1, z);
            if (ty == BY - 1 || y == ny) tile[ty + 2][tx + 1] = *cell(src, x, y + 1, z);
        }
        __syncthreads();
        if (inside) {
            float around = tile[ty + 1][tx] + tile[ty + 1][tx + 2] + tile[ty][tx + 1] + tile[ty + 2][tx + 1] + below + above;
            *cell(dst, x, y, z) = cur + alpha * (around - 6.f * cur);
        }
        below = cur;
        cur = above;
    }
}

int main(int argc, char **argv) {
    const int nx = sizeArg(argc, argv, 160), ny = argc > 2 ? atoi(argv[2]) : 128, nz = argc > 3 ? atoi(argv[3]) : 96;
    const int steps = argc > 4 ? atoi(argv[4]) : 60;
    const float alpha = 0.1f;
    const size_t cells = size_t(nx) * ny * nz;
    float *host;
    checkCudaErrors(cudaMallocHost(&host, cells * sizeof(float)));
    Lcg rng(42);
    for (size_t i = 0; i < cells; ++i) host[i] = rng.uniform() < 0.002f ? 100.f : 10.f * rng.uniform();
    std::vector<float> ref(host, host + cells);

    cudaExtent volume = make_cudaExtent((nx + 2) * sizeof(float), ny + 2, nz + 2);
    cudaPitchedPtr vol[2];
    for (auto &v : vol) {
        checkCudaErrors(cudaMalloc3D(&v, volume));
        checkCudaErrors(cudaMemset3D(v, 0, volume));
    }
    cudaStream_t stream;
    checkCudaErrors(cudaStreamCreate(&stream));
    cudaMemcpy3DParms up = {};
    up.srcPtr = make_cudaPitchedPtr(host, nx * sizeof(float), nx, ny);
    up.dstPtr = vol[0];
    up.dstPos = make_cudaPos(sizeof(float), 1, 1);
    up.extent = make_cudaExtent(nx * sizeof(float), ny, nz);
    up.kind = cudaMemcpyHostToDevice;
    checkCudaErrors(cudaMemcpy3DAsync(&up, stream));

    dim3 block(BX, BY), grid((nx + BX - 1) / BX, (ny + BY - 1) / BY);
    for (int s = 0; s < steps; ++s) {
        heatStep<<<grid, block, 0, stream>>>(vol[s % 2], vol[(s + 1) % 2], nx, ny, nz, alpha);
        checkCudaErrors(cudaGetLastError());
    }
    checkCudaErrors(cudaStreamSynchronize(stream));
    const cudaPitchedPtr result = vol[steps % 2];

    // Back: the interior into the packed host array.
    cudaMemcpy3DParms down = {};
    down.srcPtr = result;
    down.srcPos = make_cudaPos(sizeof(float), 1, 1);
    down.dstPtr = make_cudaPitchedPtr(host, nx * sizeof(float), nx, ny);
    down.extent = up.extent;
    down.kind = cudaMemcpyDeviceToHost;
    checkCudaErrors(cudaMemcpy3D(&down));

    // A sub-box (a quarter of each side, from the middle) into a smaller pitched volume, then home.
    const int bx = std::max(1, nx / 4), by = std::max(1, ny / 4), bz = std::max(1, nz / 4);
    const int ox = nx / 2 - bx / 2, oy = ny / 2 - by / 2, oz = nz / 2 - bz / 2; // 0-based interior offsets
    cudaPitchedPtr box;
    checkCudaErrors(cudaMalloc3D(&box, make_cudaExtent(bx * sizeof(float), by, bz)));
    cudaMemcpy3DParms d2d = {};
    d2d.srcPtr = result;
    d2d.srcPos = make_cudaPos((ox + 1) * sizeof(float), oy + 1, oz + 1);
    d2d.dstPtr = box;
    d2d.extent = make_cudaExtent(bx * sizeof(float), by, bz);
    d2d.kind = cudaMemcpyDeviceToDevice;
    checkCudaErrors(cudaMemcpy3D(&d2d));
    std::vector<float> boxHost(size_t(bx) * by * bz);
    cudaMemcpy3DParms boxDown = {};
    boxDown.srcPtr = box;
    boxDown.dstPtr = make_cudaPitchedPtr(boxHost.data(), bx * sizeof(float), bx, by);
    boxDown.extent = d2d.extent;
    boxDown.kind = cudaMemcpyDeviceToHost;
    checkCudaErrors(cudaMemcpy3D(&boxDown));

    // The middle z-slice's interior rows with cudaMemcpy2D from the pitched volume.
    const int zs = nz / 2 + 1;
    std::vector<float> slice(size_t(nx) * ny);
    const char *slicePtr = static_cast<const char *>(result.ptr) + (size_t(zs) * result.ysize + 1) * result.pitch + sizeof(float);
    checkCudaErrors(cudaMemcpy2D(slice.data(), nx * sizeof(float), slicePtr, result.pitch, nx * sizeof(float), ny,
                                 cudaMemcpyDeviceToHost));

    // Host simulation with the same cold halo.
    std::vector<float> next(cells);
    auto at = [&](const std::vector<float> &v, int x, int y, int z) {
        return x < 0 || y < 0 || z < 0 || x >= nx || y >= ny || z >= nz ? 0.f : v[(size_t(z) * ny + y) * nx + x];
    };
    for (int s = 0; s < steps; ++s) {
        for (int z = 0; z < nz; ++z)
            for (int y = 0; y < ny; ++y)
                for (int x = 0; x < nx; ++x) {
                    float c = at(ref, x, y, z);
                    float around = at(ref, x - 1, y, z) + at(ref, x + 1, y, z) + at(ref, x, y - 1, z) + at(ref, x, y + 1, z) +
                                   at(ref, x, y, z - 1) + at(ref, x, y, z + 1);
                    next[(size_t(z) * ny + y) * nx + x] = c + alpha * (around - 6.f * c);
                }
        std::swap(ref, next);
    }
    double maxErr = 0, heat = 0;
    for (size_t i = 0; i < cells; ++i) {
        maxErr = std::max(maxErr, double(std::fabs(host[i] - ref[i])));
        heat += host[i];
    }
    int boxWrong = 0, sliceWrong = 0;
    for (int z = 0; z < bz; ++z)
        for (int y = 0; y < by; ++y)
            for (int x = 0; x < bx; ++x)
                boxWrong += boxHost[(size_t(z) * by + y) * bx + x] != host[(size_t(z + oz) * ny + y + oy) * nx + x + ox];
    for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x) sliceWrong += slice[size_t(y) * nx + x] != host[(size_t(zs - 1) * ny + y) * nx + x];
    const bool pitchHoldsRow = result.pitch >= (nx + 2) * sizeof(float) && box.pitch >= bx * sizeof(float);
    printf("volume %d x %d x %d, %d steps, pitches hold their rows: %s\n", nx, ny, nz, steps, pitchHoldsRow ? "yes" : "NO");
    printf("total heat %.3f, max difference from host %s, sub-box cells wrong %d, slice cells wrong %d\n", heat,
           maxErr < 1e-3 ? "< 1e-3" : "TOO LARGE", boxWrong, sliceWrong);
    if (maxErr >= 1e-3) printf("max difference %.3e\n", maxErr);
    checkCudaErrors(cudaFree(vol[0].ptr));
    checkCudaErrors(cudaFree(vol[1].ptr));
    checkCudaErrors(cudaFree(box.ptr));
    checkCudaErrors(cudaStreamDestroy(stream));
    checkCudaErrors(cudaFreeHost(host));
    return finish("heat3d_pitched", pitchHoldsRow && maxErr < 1e-3 && boxWrong == 0 && sliceWrong == 0);
}
