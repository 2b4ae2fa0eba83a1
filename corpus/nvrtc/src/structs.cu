// Structs passed by value as kernel parameters.
struct Params {
    float a;
    int n;
    double b;
};

struct __align__(8) Vec3Id {
    float x, y, z;
    int id;
    unsigned long long tag;
};  // 24 bytes, 8-aligned

struct __align__(16) Aligned16 {
    float v[4];
    int count;
};  // 32 bytes, 16-aligned

extern "C" __global__ void params_by_value(Params p, const float *x, double *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) out[i] = (double)(p.a * x[i]) + p.b;
}

extern "C" __global__ void vec3_by_value(Vec3Id v, float *out, unsigned long long *tags)
{
    int i = threadIdx.x;
    out[3 * i + 0] = v.x * i;
    out[3 * i + 1] = v.y * i;
    out[3 * i + 2] = v.z * i;
    tags[i] = v.tag + (unsigned long long)v.id;
}

// Mangled name with struct types: _Z11two_structs6ParamsiS_9Aligned16Pf.
__global__ void two_structs(Params p, int k, Params q, Aligned16 a, float *out)
{
    out[0] = p.a + q.a + a.v[0] + a.v[1] + a.v[2] + a.v[3];
    out[1] = (float)(p.n + q.n + k + a.count);
    out[2] = (float)(p.b * q.b);
}

// Parameters of every scalar width, in an order that needs padding.
extern "C" __global__ void mixed_scalars(char c, short s, int i, long long l, float f, double d,
                                         unsigned char uc, double *out)
{
    out[0] = c;
    out[1] = s;
    out[2] = i;
    out[3] = (double)l;
    out[4] = f;
    out[5] = d;
    out[6] = uc;
}

// A small array inside a struct indexed dynamically: the parameter is copied to local memory.
struct Table {
    int entries[8];
};

extern "C" __global__ void table_lookup(Table t, const int *idx, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = t.entries[idx[i] & 7];
}
