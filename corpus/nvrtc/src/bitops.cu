// Integer bit operations.
extern "C" __global__ void bitops32(const unsigned *in, unsigned *out)
{
    int i = threadIdx.x;
    unsigned v = in[i];
    unsigned w = in[(i + 1) & 31];
    out[10 * i + 0] = __brev(v);
    out[10 * i + 1] = __clz(v);
    out[10 * i + 2] = __popc(v);
    out[10 * i + 3] = __ffs(v);
    out[10 * i + 4] = __byte_perm(v, w, 0x5140);
    out[10 * i + 5] = __funnelshift_l(v, w, i);
    out[10 * i + 6] = __funnelshift_r(v, w, i);
    out[10 * i + 7] = __umulhi(v, w);
    out[10 * i + 8] = __sad((int)v, (int)w, 3u);
    out[10 * i + 9] = (v >> (i & 31)) | (w << ((32 - i) & 31));
}

extern "C" __global__ void bitops64(const unsigned long long *in, unsigned long long *out)
{
    int i = threadIdx.x;
    unsigned long long v = in[i];
    out[5 * i + 0] = __brevll(v);
    out[5 * i + 1] = __clzll(v);
    out[5 * i + 2] = __popcll(v);
    out[5 * i + 3] = __ffsll(v);
    out[5 * i + 4] = __umul64hi(v, v ^ 0x9e3779b97f4a7c15ull);
}

// Signed arithmetic that compiles to mul.hi, mad.wide, bfe/bfi-like sequences and selp.
extern "C" __global__ void int_arith(const int *a, const int *b, long long *out)
{
    int i = threadIdx.x;
    int x = a[i], y = b[i];
    out[6 * i + 0] = (long long)x * y;
    out[6 * i + 1] = __mulhi(x, y);
    out[6 * i + 2] = y != 0 ? x / y : 0;
    out[6 * i + 3] = y != 0 ? x % y : 0;
    out[6 * i + 4] = abs(x) > abs(y) ? x : y;
    out[6 * i + 5] = (x >> 3) & 0x1f;
}
