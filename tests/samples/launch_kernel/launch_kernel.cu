// cudaLaunchKernel with an argument array, and cudaLaunchKernelEx with a configuration.
#include "../common/helpers.h"

struct Params {
    float scale;
    int offset;
};

__global__ void affine(const float *in, float *out, Params p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * p.scale + p.offset;
}

int main(int argc, char **argv) {
    int n = sizeArg(argc, argv, 100000);
    float *in, *out;
    checkCudaErrors(cudaMallocManaged(&in, n * sizeof(float)));
    checkCudaErrors(cudaMallocManaged(&out, n * sizeof(float)));
    for (int i = 0; i < n; ++i) in[i] = (float)(i % 512);
    Params p = {0.5f, 3};
    void *args[] = {&in, &out, &p, &n};
    checkCudaErrors(cudaLaunchKernel((const void *)affine, dim3((n + 127) / 128), dim3(128), args, 0, 0));
    checkCudaErrors(cudaDeviceSynchronize());
    bool ok = true;
    for (int i = 0; i < n; ++i) ok &= out[i] == in[i] * 0.5f + 3;

    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((n + 255) / 256);
    config.blockDim = dim3(256);
    Params q = {2.0f, -1};
    checkCudaErrors(cudaLaunchKernelEx(&config, affine, (const float *)in, out, q, n));
    checkCudaErrors(cudaDeviceSynchronize());
    for (int i = 0; i < n; ++i) ok &= out[i] == in[i] * 2.0f - 1;
    printf("out[511] = %.1f\n", out[511]);
    checkCudaErrors(cudaFree(in));
    checkCudaErrors(cudaFree(out));
    return finish("launch_kernel", ok);
}
