// Escape-time fractals two ways: a Mandelbrot image with one thread per pixel in
// thrust::complex<float>, and a deep zoom in cuda::std::complex<double> computed by persistent
// blocks that take 16 x 16 tiles from a global work queue (an atomicAdd ticket read by thread
// 0 and broadcast through shared memory), as load-balanced renderers do. Each tile's visits are
// counted, and both images are checked against host renderings (a pixel on the set's edge may
// escape one iteration apart where the device fuses multiply-adds; at most 0.5% may differ).
// Default: 800 x 600, 256 iterations (arguments: width, height, iterations).
#include <algorithm>
#include <complex>
#include <cuda/std/complex>
#include <thrust/complex.h>
#include <vector>
#include "../common/helpers.h"

constexpr int TILE = 16;

struct View {
    double x0, y0, scale; // the lower-left corner and the width of a pixel
};

__global__ void mandelbrotFloat(int *iters, int width, int height, View view, int maxIter) {
    int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= width || py >= height) return;
    thrust::complex<float> c(float(view.x0 + px * view.scale), float(view.y0 + py * view.scale)), z(0.f, 0.f);
    int n = 0;
    while (n < maxIter && thrust::norm(z) <= 4.f) {
        z = z * z + c;
        ++n;
    }
    iters[py * width + px] = n;
}

__global__ void mandelbrotQueue(int *iters, int *tileVisits, int *nextTile, int width, int height, View view,
                                int maxIter) {
    __shared__ int tile;
    const int tilesX = (width + TILE - 1) / TILE, tiles = tilesX * ((height + TILE - 1) / TILE);
    for (;;) {
        if (threadIdx.x == 0 && threadIdx.y == 0) tile = atomicAdd(nextTile, 1);
        __syncthreads();
        const int t = tile;
        if (t >= tiles) return;
        if (threadIdx.x == 0 && threadIdx.y == 0) atomicAdd(&tileVisits[t], 1);
        int px = (t % tilesX) * TILE + threadIdx.x, py = (t / tilesX) * TILE + threadIdx.y;
        if (px < width && py < height) {
            cuda::std::complex<double> c(view.x0 + px * view.scale, view.y0 + py * view.scale), z(0.0, 0.0);
            int n = 0;
            while (n < maxIter && cuda::std::norm(z) <= 4.0) {
                z = z * z + c;
                ++n;
            }
            iters[py * width + px] = n;
        }
        __syncthreads(); // everyone has read `tile` before thread 0 takes the next
    }
}

template <typename T> static std::vector<int> hostRender(int width, int height, View view, int maxIter) {
    std::vector<int> out(size_t(width) * height);
    for (int py = 0; py < height; ++py)
        for (int px = 0; px < width; ++px) {
            std::complex<T> c(T(view.x0 + px * view.scale), T(view.y0 + py * view.scale)), z(0, 0);
            int n = 0;
            while (n < maxIter && std::norm(z) <= T(4)) {
                z = std::complex<T>(z.real() * z.real() - z.imag() * z.imag(), 2 * z.real() * z.imag()) + c;
                ++n;
            }
            out[size_t(py) * width + px] = n;
        }
    return out;
}

// Pixels whose counts differ, and the sum of all counts.
static void compare(const std::vector<int> &a, const std::vector<int> &b, long long *differ, long long *sum) {
    *differ = *sum = 0;
    for (size_t i = 0; i < a.size(); ++i) *differ += a[i] != b[i], *sum += a[i];
}

int main(int argc, char **argv) {
    const int width = sizeArg(argc, argv, 800), height = argc > 2 ? atoi(argv[2]) : 600;
    const int maxIter = argc > 3 ? atoi(argv[3]) : 256;
    const size_t pixels = size_t(width) * height;
    const double wholeScale = 3.5 / width, zoomScale = 0.0065 / width; // Seahorse Valley, zoomed
    const View whole{-2.25, -0.5 * height * wholeScale, wholeScale};
    const View zoom{-0.7453 - 0.5 * width * zoomScale, 0.1127 - 0.5 * height * zoomScale, zoomScale};
    const int tiles = ((width + TILE - 1) / TILE) * ((height + TILE - 1) / TILE);
    int *dIters, *dVisits, *dNext;
    checkCudaErrors(cudaMalloc(&dIters, pixels * sizeof(int)));
    checkCudaErrors(cudaMalloc(&dVisits, tiles * sizeof(int)));
    checkCudaErrors(cudaMalloc(&dNext, sizeof(int)));

    dim3 block(TILE, TILE), grid((width + TILE - 1) / TILE, (height + TILE - 1) / TILE);
    mandelbrotFloat<<<grid, block>>>(dIters, width, height, whole, maxIter);
    checkCudaErrors(cudaGetLastError());
    std::vector<int> a(pixels), b(pixels), visits(tiles);
    checkCudaErrors(cudaMemcpy(a.data(), dIters, pixels * sizeof(int), cudaMemcpyDeviceToHost));

    int sms = 0, perSm = 0;
    checkCudaErrors(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    checkCudaErrors(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, mandelbrotQueue, TILE * TILE, 0));
    checkCudaErrors(cudaMemset(dVisits, 0, tiles * sizeof(int)));
    checkCudaErrors(cudaMemset(dNext, 0, sizeof(int)));
    mandelbrotQueue<<<std::max(1, std::min(sms * perSm, tiles)), block>>>(dIters, dVisits, dNext, width, height,
                                                                          zoom, maxIter);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaMemcpy(b.data(), dIters, pixels * sizeof(int), cudaMemcpyDeviceToHost));
    checkCudaErrors(cudaMemcpy(visits.data(), dVisits, tiles * sizeof(int), cudaMemcpyDeviceToHost));
    int next = 0;
    checkCudaErrors(cudaMemcpy(&next, dNext, sizeof(int), cudaMemcpyDeviceToHost));

    long long differA, sumA, differB, sumB;
    compare(a, hostRender<float>(width, height, whole, maxIter), &differA, &sumA);
    compare(b, hostRender<double>(width, height, zoom, maxIter), &differB, &sumB);
    int wrongVisits = 0;
    for (int v : visits) wrongVisits += v != 1;
    long long inSet = std::count(a.begin(), a.end(), maxIter);
    const bool ok = differA * 200 <= (long long)pixels && differB * 200 <= (long long)pixels && wrongVisits == 0;
    printf("%d x %d, %d iterations\n", width, height, maxIter);
    printf("float image: %lld iterations, %lld pixels in the set, %s host\n", sumA, inSet,
           differA * 200 <= (long long)pixels ? "agrees with the" : "DIFFERS FROM THE");
    printf("double zoom from a queue of %d tiles: %lld iterations, tiles visited other than once %d, %s host\n", tiles,
           sumB, wrongVisits, differB * 200 <= (long long)pixels ? "agrees with the" : "DIFFERS FROM THE");
    if (!ok) printf("pixels differing: %lld and %lld; tickets taken %d\n", differA, differB, next);
    checkCudaErrors(cudaFree(dIters));
    checkCudaErrors(cudaFree(dVisits));
    checkCudaErrors(cudaFree(dNext));
    return finish("mandelbrot_queue", ok);
}
