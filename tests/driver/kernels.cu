// Kernels the driver-API programs of tests/driver/ load as PTX (nvcc -ptx) and as a fatbin
// (nvcc -fatbin): extern "C" names, so the programs look them up as written.

extern "C" __global__ void scale(float *x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}

extern "C" __global__ void add_one(int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1;
}

__device__ int counter;

extern "C" __global__ void count(int *out) {
    atomicAdd(&counter, 1);
    __syncthreads();
    if (blockIdx.x == 0 && threadIdx.x == 0) *out = 1;
}

// Sums 256 ints per block in shared memory; one partial sum per block.
extern "C" __global__ void block_sum(const int *in, int *out) {
    __shared__ int part[256];
    part[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = part[0];
}

// Mixed argument sizes, for the packed-buffer (extra) launch form.
extern "C" __global__ void mixed_args(char c, double d, short s, long long *out) {
    out[0] = c;
    out[1] = (long long)d;
    out[2] = s;
}

// tex2DLod of a mipmapped texture at (x, y) for each level of detail of `lod`
// (tests/driver/mipmap_cubemap.c).
extern "C" __global__ void tex_lod(unsigned long long t, float x, float y, const float *lod,
                                   float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2DLod<float>(t, x, y, lod[i]);
}

// texCubemap of a cubemap texture along each direction of `dir` (xyz, w unused).
extern "C" __global__ void tex_cube(unsigned long long t, const float4 *dir, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = texCubemap<float>(t, dir[i].x, dir[i].y, dir[i].z);
}
