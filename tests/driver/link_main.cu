// A kernel calling a device function of another unit, for cuLink (nvcc -rdc=true -ptx).
extern "C" __device__ int triple(int x);

extern "C" __global__ void tripled(int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = triple(x[i]);
}
