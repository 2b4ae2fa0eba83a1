// Separable convolution of an image (the sample's 3072x3072), checked against the host.
#include <vector>
#include "../common/helpers.h"
#include "convolution.h"

int main(int argc, char **argv) {
    int width = sizeArg(argc, argv, 3072), height = width;
    float kernel[KERNEL_LENGTH];
    Lcg rng(77);
    for (int i = 0; i < KERNEL_LENGTH; ++i) kernel[i] = (float)(rng.next() % 16);
    std::vector<float> input(width * height), buffer(width * height), ref(width * height), out(width * height);
    for (auto &v : input) v = (float)(rng.next() % 16);
    setConvolutionKernel(kernel);
    float *dIn, *dBuf, *dOut;
    size_t bytes = (size_t)width * height * sizeof(float);
    checkCudaErrors(cudaMalloc(&dIn, bytes));
    checkCudaErrors(cudaMalloc(&dBuf, bytes));
    checkCudaErrors(cudaMalloc(&dOut, bytes));
    checkCudaErrors(cudaMemcpy(dIn, input.data(), bytes, cudaMemcpyHostToDevice));
    EventTimer timer;
    timer.start();
    convolutionRowsGPU(dBuf, dIn, width, height);
    convolutionColumnsGPU(dOut, dBuf, width, height);
    float ms = timer.stop();
    checkCudaErrors(cudaMemcpy(out.data(), dOut, bytes, cudaMemcpyDeviceToHost));
    convolutionRowsHost(buffer.data(), input.data(), kernel, width, height);
    convolutionColumnsHost(ref.data(), buffer.data(), kernel, width, height);
    // Integer-valued taps and pixels: every sum is exact in float.
    bool ok = out == ref;
    printf("%dx%d image, %d taps: %s\n", width, height, KERNEL_LENGTH, ok ? "matches the host" : "DIFFERS");
    printf("time: %.3f ms, %.2f MPixels/s\n", ms, width * height / (ms * 1e3));
    checkCudaErrors(cudaFree(dIn));
    checkCudaErrors(cudaFree(dBuf));
    checkCudaErrors(cudaFree(dOut));
    return finish("convolution_separable", ok);
}
