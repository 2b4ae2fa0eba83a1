// __constant__ and __device__ symbols, pitched 2D memory (cudaMallocPitch), rows
// copied one by one and whole (cudaMemcpy2D, cudaMemcpy2DAsync between pitched buffers).
#include "check.h"
__constant__ float weights[4];
__device__ int counter;
__device__ float table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
__global__ void weigh(float* rows, size_t pitch, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= width || y >= height) return;
    float* row = reinterpret_cast<float*>(reinterpret_cast<char*>(rows) + y * pitch);
    row[x] = row[x] * weights[x % 4] + table[y % 8];
    atomicAdd(&counter, 1);
}
int main() {
    const int width = 37, height = 19;
    float host[height][width];
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) host[y][x] = float(x + y * width);
    const float w[4] = {0.5f, 1.0f, 2.0f, -1.0f};
    CHECK(cudaMemcpyToSymbol(weights, w, sizeof w));
    int zero = 0;
    CHECK(cudaMemcpyToSymbol(counter, &zero, sizeof zero));
    float* dev;
    size_t pitch;
    CHECK(cudaMallocPitch(&dev, &pitch, width * sizeof(float), height));
    CHECK(cudaMemset(dev, 0, pitch * height));
    for (int y = 0; y < height; ++y)
        CHECK(cudaMemcpy(reinterpret_cast<char*>(dev) + y * pitch, host[y], width * sizeof(float),
                         cudaMemcpyHostToDevice));
    weigh<<<dim3(1, height), 64>>>(dev, pitch, width, height);
    CHECK(cudaGetLastError());
    float out[height][width];
    for (int y = 0; y < height; ++y)
        CHECK(cudaMemcpy(out[y], reinterpret_cast<char*>(dev) + y * pitch, width * sizeof(float),
                         cudaMemcpyDeviceToHost));
    float* copy;
    size_t copy_pitch;
    CHECK(cudaMallocPitch(&copy, &copy_pitch, (width + 3) * sizeof(float), height));
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaMemcpy2DAsync(copy, copy_pitch, dev, pitch, width * sizeof(float), height,
                            cudaMemcpyDeviceToDevice, stream));
    CHECK(cudaStreamSynchronize(stream));
    float whole[height][width];
    CHECK(cudaMemcpy2D(whole, sizeof whole[0], copy, copy_pitch, width * sizeof(float), height,
                       cudaMemcpyDeviceToHost));
    int copies_differ = 0;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) copies_differ += whole[y][x] != out[y][x];
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(copy));
    int count = 0;
    CHECK(cudaMemcpyFromSymbol(&count, counter, sizeof count));
    float* table_address;
    CHECK(cudaGetSymbolAddress(reinterpret_cast<void**>(&table_address), table));
    size_t table_size = 0;
    CHECK(cudaGetSymbolSize(&table_size, table));
    int wrong = 0;
    double sum = 0;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            float expect = host[y][x] * w[x % 4] + float(y % 8 + 1);
            wrong += out[y][x] != expect;
            sum += out[y][x];
        }
    std::printf("sum %.1f, wrong %d, counter %d, table %zu bytes, pitch >= width: %d\n", sum,
                wrong, count, table_size, pitch >= width * sizeof(float));
    std::printf("2D copies differ from the rows in %d places\n", copies_differ);
    CHECK(cudaFree(dev));
    bool ok = wrong == 0 && copies_differ == 0 && count == width * height &&
              table_address != nullptr;
    std::printf("symbols_2d: %s\n", ok ? "ok" : "FAILED");
    return !ok;
}
