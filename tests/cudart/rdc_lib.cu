// Relocatable device code, second translation unit: a device function and a __device__
// global used from rdc_main.cu (built with -rdc=true).
__device__ int calls;

__device__ float square_plus(float x, float y) {
    atomicAdd(&calls, 1);
    return x * x + y;
}
