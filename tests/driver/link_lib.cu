// A device function in its own translation unit, for cuLink (nvcc -rdc=true -ptx).
extern "C" __device__ int triple(int x) { return 3 * x; }
