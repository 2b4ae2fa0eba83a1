// Pitched 2D allocations: cudaMallocPitch, cudaMemcpy2D in both directions and device to
// device, a kernel addressing rows by pitch.
#include "../common/helpers.h"

__global__ void addRowCol(float *img, size_t pitch, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        float *row = (float *)((char *)img + y * pitch);
        row[x] += (float)(x + 1000 * y);
    }
}

int main(int argc, char **argv) {
    int width = sizeArg(argc, argv, 1000), height = 700;
    size_t pitchA, pitchB;
    float *a, *b;
    float *host = (float *)malloc(width * height * sizeof(float));
    for (int i = 0; i < width * height; ++i) host[i] = (float)(i % 97);
    checkCudaErrors(cudaMallocPitch((void **)&a, &pitchA, width * sizeof(float), height));
    checkCudaErrors(cudaMallocPitch((void **)&b, &pitchB, width * sizeof(float), height));
    bool ok = pitchA >= width * sizeof(float) && pitchA % 128 == 0;
    checkCudaErrors(cudaMemcpy2D(a, pitchA, host, width * sizeof(float), width * sizeof(float),
                                 height, cudaMemcpyHostToDevice));
    dim3 block(32, 8), grid((width + 31) / 32, (height + 7) / 8);
    addRowCol<<<grid, block>>>(a, pitchA, width, height);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaMemcpy2D(b, pitchB, a, pitchA, width * sizeof(float), height,
                                 cudaMemcpyDeviceToDevice));
    float *back = (float *)malloc(width * height * sizeof(float));
    checkCudaErrors(cudaMemcpy2D(back, width * sizeof(float), b, pitchB, width * sizeof(float),
                                 height, cudaMemcpyDeviceToHost));
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            ok &= back[y * width + x] == host[y * width + x] + (float)(x + 1000 * y);
    printf("pitch %s, back[last] = %.1f\n", pitchA % 128 == 0 ? "aligned" : "unaligned",
           back[width * height - 1]);
    checkCudaErrors(cudaFree(a));
    checkCudaErrors(cudaFree(b));
    free(host);
    free(back);
    return finish("pitch_2d", ok);
}
