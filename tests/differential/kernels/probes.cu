// Probes of instruction semantics an emulator easily gets wrong, written for the differential
// suite (tests/differential/cases_probes.py): explicit PTX through inline asm where the exact
// instruction matters (bfe, bfi, prmt with sign replication), float rounding to integral values
// at signed zeros and halves, saturating float/int conversions of doubles, sub-word loads with
// sign extension, shuffles under disjoint partial masks, shared-memory float/16-bit atomics and
// 24-bit multiplies.

extern "C" __global__ void bitfield_asm(const unsigned *v, const unsigned *pos, const unsigned *len,
                                        unsigned *out)
{
    unsigned i = threadIdx.x, a = v[i], p = pos[i], l = len[i], r;
    int s;
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(p), "r"(l));
    out[5 * i + 0] = r;
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(s) : "r"(a), "r"(p), "r"(l));
    out[5 * i + 1] = (unsigned)s;
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(a), "r"(0x5a5a5a5au), "r"(p), "r"(l));
    out[5 * i + 2] = r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(~a), "r"(p | l << 8));
    out[5 * i + 3] = r;
    asm("bfind.u32 %0, %1;" : "=r"(r) : "r"(a >> (p & 31)));
    out[5 * i + 4] = r;
}

extern "C" __global__ void round_integral(const float *x, const double *y, float *fo, double *dout)
{
    unsigned i = threadIdx.x;
    float a = x[i];
    double b = y[i];
    fo[5 * i + 0] = floorf(a);
    fo[5 * i + 1] = ceilf(a);
    fo[5 * i + 2] = truncf(a);
    fo[5 * i + 3] = rintf(a);
    fo[5 * i + 4] = roundf(a);
    dout[5 * i + 0] = floor(b);
    dout[5 * i + 1] = ceil(b);
    dout[5 * i + 2] = trunc(b);
    dout[5 * i + 3] = rint(b);
    dout[5 * i + 4] = round(b);
}

extern "C" __global__ void convert_f64(const double *x, const long long *n, long long *as_i64,
                                       unsigned long long *as_u64, float *as_f32, double *back,
                                       int *as_i32)
{
    unsigned i = threadIdx.x;
    double v = x[i];
    as_i64[i] = __double2ll_rz(v);
    as_u64[i] = __double2ull_rz(v);
    as_f32[i] = __double2float_rn(v);
    as_i32[i] = __double2int_rn(v);
    back[2 * i + 0] = __ll2double_rn(n[i]);
    back[2 * i + 1] = (double)__ll2float_rn(n[i]);
}

extern "C" __global__ void subword(const signed char *a, const short *b, const unsigned short *c,
                                   unsigned char *sum8, short *prod16, int *wide)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sum8[i] = (unsigned char)(a[i] + b[i]);
    prod16[i] = (short)(a[i] * b[i]);
    wide[2 * i + 0] = a[i] * (int)c[i];
    wide[2 * i + 1] = (int)(short)c[i] >> 3;
}

extern "C" __global__ void disjoint_masks(const int *in, int *out)
{
    unsigned lane = threadIdx.x & 31;
    int v = in[threadIdx.x];
    if (lane & 1) {
        v = __shfl_xor_sync(0xaaaaaaaau, v, 2);
    } else {
        v = __shfl_down_sync(0x55555555u, v, 2);
    }
    __syncwarp();
    out[threadIdx.x] = v;
}

extern "C" __global__ void shared_atomics(const float *in, float *fsum, int *imax,
                                          unsigned short *cas16)
{
    __shared__ float sum;
    __shared__ int best;
    __shared__ unsigned short flag;
    if (threadIdx.x == 0) {
        sum = 0.0f;
        best = -2147483647 - 1;
        flag = 0;
    }
    __syncthreads();
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    atomicAdd(&sum, v);
    atomicMax(&best, __float_as_int(v) ^ 0x7fffffff);
    atomicCAS(&flag, (unsigned short)0, (unsigned short)(blockIdx.x + 7));
    __syncthreads();
    if (threadIdx.x == 0) {
        fsum[blockIdx.x] = sum;
        imax[blockIdx.x] = best;
        cas16[blockIdx.x] = flag;
    }
}

extern "C" __global__ void mul24(const int *a, const int *b, int *out)
{
    unsigned i = threadIdx.x;
    int x = a[i], y = b[i], r;
    out[4 * i + 0] = __mul24(x, y);
    out[4 * i + 1] = (int)__umul24((unsigned)x, (unsigned)y);
    asm("mul24.hi.s32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    out[4 * i + 2] = r;
    asm("mad24.lo.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(x ^ y));
    out[4 * i + 3] = r;
}

// Flush-to-zero arithmetic (what --use_fast_math emits): subnormal inputs and results become
// zeros of the same sign.
extern "C" __global__ void ftz_ops(const float *a, const float *b, float *out)
{
    unsigned i = threadIdx.x;
    float x = a[i], y = b[i], r;
    asm("add.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
    out[6 * i + 0] = r;
    asm("mul.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
    out[6 * i + 1] = r;
    asm("fma.rn.ftz.f32 %0, %1, %2, %1;" : "=f"(r) : "f"(x), "f"(y));
    out[6 * i + 2] = r;
    asm("div.rn.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
    out[6 * i + 3] = r;
    asm("sqrt.rn.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    out[6 * i + 4] = r;
    asm("min.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
    out[6 * i + 5] = r;
}

// Approximate transcendentals at the special inputs whose results the PTX ISA tabulates.
extern "C" __global__ void approx_specials(const float *a, float *out)
{
    unsigned i = threadIdx.x;
    float x = a[i], r;
    asm("ex2.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
    out[8 * i + 0] = r;
    asm("lg2.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
    out[8 * i + 1] = r;
    asm("rcp.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
    out[8 * i + 2] = r;
    asm("rsqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
    out[8 * i + 3] = r;
    asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
    out[8 * i + 4] = r;
    asm("sin.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
    out[8 * i + 5] = r;
    asm("cos.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
    out[8 * i + 6] = r;
    asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
    out[8 * i + 7] = r;
}

// Class tests, sign manipulation, dot products, clamped funnel shifts, f32 to 64-bit integers.
extern "C" __global__ void classify(const float *a, const int *b, unsigned *flags, float *signs,
                                    int *dots, unsigned *shifts, long long *wide)
{
    unsigned i = threadIdx.x;
    float x = a[i];
    int y = b[i];
    unsigned f = 0, p;
    asm("{.reg .pred q; testp.finite.f32 q, %1; selp.u32 %0, 1, 0, q;}" : "=r"(p) : "f"(x));
    f |= p;
    asm("{.reg .pred q; testp.infinite.f32 q, %1; selp.u32 %0, 1, 0, q;}" : "=r"(p) : "f"(x));
    f |= p << 1;
    asm("{.reg .pred q; testp.number.f32 q, %1; selp.u32 %0, 1, 0, q;}" : "=r"(p) : "f"(x));
    f |= p << 2;
    asm("{.reg .pred q; testp.notanumber.f32 q, %1; selp.u32 %0, 1, 0, q;}" : "=r"(p) : "f"(x));
    f |= p << 3;
    asm("{.reg .pred q; testp.normal.f32 q, %1; selp.u32 %0, 1, 0, q;}" : "=r"(p) : "f"(x));
    f |= p << 4;
    asm("{.reg .pred q; testp.subnormal.f32 q, %1; selp.u32 %0, 1, 0, q;}" : "=r"(p) : "f"(x));
    f |= p << 5;
    flags[i] = f;
    signs[3 * i + 0] = fabsf(x);
    signs[3 * i + 1] = -x;
    signs[3 * i + 2] = copysignf(2.0f, x);
    dots[3 * i + 0] = __dp4a(y, y ^ 0x5a5a5a5a, 7);
    dots[3 * i + 1] = __dp2a_lo(y, y * 31, -3);
    dots[3 * i + 2] = (int)__dp4a((unsigned)y, (unsigned)~y, 1u);
    shifts[2 * i + 0] = __funnelshift_lc((unsigned)y, ~(unsigned)y, i * 3);
    shifts[2 * i + 1] = __funnelshift_rc((unsigned)y, ~(unsigned)y, i * 3);
    wide[2 * i + 0] = __float2ll_rz(x);
    wide[2 * i + 1] = (long long)__float2ull_rn(x);
}

// Threads that exit before a barrier: PTX `exit` releases barriers waiting only on exited
// threads, so the remaining ones pass __syncthreads.
extern "C" __global__ void early_exit_barrier(const int *in, int *out, int n)
{
    __shared__ int s[128];
    int t = threadIdx.x;
    if (t >= n) return;
    s[t] = in[t];
    __syncthreads();
    out[t] = s[(t + 1) % n];
}

// Warp specialisation with a named barrier: warp 0 produces (bar.arrive), warp 1 consumes
// (bar.sync) with a thread count of 64; warp 2 takes no part.
extern "C" __global__ void named_barrier(const int *in, int *out)
{
    __shared__ int s[32];
    unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (warp == 0) {
        s[lane] = in[lane] * 2;
        asm volatile("bar.arrive 1, 64;" ::: "memory");
    } else if (warp == 1) {
        asm volatile("bar.sync 1, 64;" ::: "memory");
        out[lane] = s[31 - lane];
    } else {
        out[32 + lane] = (int)lane;
    }
}

// cp.async with a source size below the copy size: the rest of the 16 bytes is zero-filled.
extern "C" __global__ void cp_async_zfill(const int4 *in, int4 *out)
{
    __shared__ int4 tile[32];
    unsigned t = threadIdx.x;
    tile[t] = make_int4(-1, -1, -1, -1);
    __syncthreads();
    unsigned dst = (unsigned)__cvta_generic_to_shared(&tile[t]);
    unsigned src_size = (t % 5) * 4;
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(&in[t]), "r"(src_size)
                 : "memory");
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();
    out[t] = tile[t];
}

// Logic and bit-mask instructions compilers emit from inline assembly: lop3, bmsk, szext.
extern "C" __global__ void logic_ops(const unsigned *a, const unsigned *b, unsigned *out)
{
    unsigned i = threadIdx.x, x = a[i], y = b[i], z = x * 2654435761u, r;
    asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    out[8 * i + 0] = r;
    asm("lop3.b32 %0, %1, %2, %3, 0xe8;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    out[8 * i + 1] = r;
    asm("lop3.b32 %0, %1, %2, %3, 0x1b;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    out[8 * i + 2] = r;
    asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(r) : "r"(x % 40), "r"(y % 40));
    out[8 * i + 3] = r;
    asm("bmsk.wrap.b32 %0, %1, %2;" : "=r"(r) : "r"(x % 40), "r"(y % 40));
    out[8 * i + 4] = r;
    asm("szext.clamp.s32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y % 40));
    out[8 * i + 5] = r;
    asm("szext.wrap.u32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y % 40));
    out[8 * i + 6] = r;
    asm("shf.r.wrap.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    out[8 * i + 7] = r;
}

// Packed half and bfloat16 arithmetic (sm_80 forms) through inline assembly on raw bits: each
// thread takes two f16x2 / bf16x2 words and writes the packed results.
extern "C" __global__ void packed_half(const unsigned *a, const unsigned *b, const unsigned *c,
                                       unsigned *h, const float *f, unsigned *packed)
{
    unsigned i = threadIdx.x, x = a[i], y = b[i], z = c[i], r;
    asm("add.rn.f16x2 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    h[8 * i + 0] = r;
    asm("mul.rn.f16x2 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    h[8 * i + 1] = r;
    asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    h[8 * i + 2] = r;
    asm("fma.rn.relu.f16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    h[8 * i + 3] = r;
    asm("min.f16x2 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    h[8 * i + 4] = r;
    asm("max.NaN.f16x2 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    h[8 * i + 5] = r;
    asm("neg.f16x2 %0, %1;" : "=r"(r) : "r"(x));
    h[8 * i + 6] = r;
    asm("abs.f16x2 %0, %1;" : "=r"(r) : "r"(x));
    h[8 * i + 7] = r;
    float p = f[2 * i], q = f[2 * i + 1];
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(p), "f"(q));
    packed[6 * i + 0] = r;
    asm("cvt.rn.relu.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(p), "f"(q));
    packed[6 * i + 1] = r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(p), "f"(q));
    packed[6 * i + 2] = r;
    asm("fma.rn.bf16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
    packed[6 * i + 3] = r;
    asm("min.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    packed[6 * i + 4] = r;
    asm("max.NaN.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    packed[6 * i + 5] = r;
}

// shfl.sync in all four modes with per-lane source operands b and clamp/segment-mask operands
// c, returning the value and the in-range predicate.
extern "C" __global__ void shfl_modes(const int *in, const unsigned *b, const unsigned *c, int *out,
                                      unsigned *preds)
{
    unsigned t = threadIdx.x, lane = b[t], clamp = c[t], p0, p1, p2, p3;
    int v = in[t], r0, r1, r2, r3;
    asm volatile("{.reg .pred q; shfl.sync.up.b32 %0|q, %2, %3, %4, 0xffffffff; selp.u32 %1, 1, 0, q;}"
                 : "=r"(r0), "=r"(p0) : "r"(v), "r"(lane), "r"(clamp));
    asm volatile("{.reg .pred q; shfl.sync.down.b32 %0|q, %2, %3, %4, 0xffffffff; selp.u32 %1, 1, 0, q;}"
                 : "=r"(r1), "=r"(p1) : "r"(v), "r"(lane), "r"(clamp));
    asm volatile("{.reg .pred q; shfl.sync.bfly.b32 %0|q, %2, %3, %4, 0xffffffff; selp.u32 %1, 1, 0, q;}"
                 : "=r"(r2), "=r"(p2) : "r"(v), "r"(lane), "r"(clamp));
    asm volatile("{.reg .pred q; shfl.sync.idx.b32 %0|q, %2, %3, %4, 0xffffffff; selp.u32 %1, 1, 0, q;}"
                 : "=r"(r3), "=r"(p3) : "r"(v), "r"(lane), "r"(clamp));
    out[4 * t + 0] = r0;
    out[4 * t + 1] = r1;
    out[4 * t + 2] = r2;
    out[4 * t + 3] = r3;
    preds[t] = p0 | p1 << 1 | p2 << 2 | p3 << 3;
}

// Warp reductions, votes and matches among the odd lanes only (member mask 0xaaaaaaaa).
extern "C" __global__ void partial_collectives(const unsigned *in, unsigned *out)
{
    unsigned t = threadIdx.x, lane = t & 31, v = in[t], r[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    if (lane & 1) {
        const unsigned m = 0xaaaaaaaau;
        asm volatile("redux.sync.add.u32 %0, %1, %2;" : "=r"(r[0]) : "r"(v), "r"(m));
        asm volatile("redux.sync.min.u32 %0, %1, %2;" : "=r"(r[1]) : "r"(v), "r"(m));
        asm volatile("redux.sync.max.s32 %0, %1, %2;" : "=r"(r[2]) : "r"(v), "r"(m));
        asm volatile("redux.sync.and.b32 %0, %1, %2;" : "=r"(r[3]) : "r"(v), "r"(m));
        asm volatile("redux.sync.or.b32 %0, %1, %2;" : "=r"(r[4]) : "r"(v), "r"(m));
        asm volatile("{.reg .pred q, u; setp.ne.u32 q, %1, 0; vote.sync.uni.pred u, q, %2; selp.u32 %0, 1, 0, u;}"
                     : "=r"(r[5]) : "r"(v & 1), "r"(m));
        int pred;
        r[6] = __match_all_sync(m, v >> 28, &pred);
        r[7] = __match_any_sync(m, v >> 29) | (unsigned)pred << 31;
    }
    for (int k = 0; k < 8; ++k) out[8 * t + k] = r[k];
}

// Device printf with the conversions and flags C programs use.
extern "C" __global__ void printf_formats(int i, unsigned u, long long ll, double d, float f)
{
    printf("d=%d i=%+i u=%u x=%x X=%#X o=%o c=%c s=%s pct=%%\n", i, i, u, u, u, u, 'A' + threadIdx.x, "str");
    printf("w=[%6d] l=[%-6d] z=[%06d] ll=%lld llu=%llu llx=%llx\n", i, i, i, ll, (unsigned long long)ll,
           (unsigned long long)ll);
    printf("f=%f e=%e E=%E g=%g G=%G p3=%.3f w10=%10.4f sci=%.2e neg=%+.1f\n", d, d, d, d, d, d, d, d, -d);
    printf("float=%f tiny=%g big=%g inf=%f nan=%f t=%u\n", f, f * 1e-30, (double)f * 1e300, d / (d - d),
           0.0 / (d - d), threadIdx.x);
}

// Packed half atomics and 16-bit compare-and-swap on global memory (sm_80 forms), plus scoped
// 64-bit atomics with memory-order qualifiers.
extern "C" __global__ void atomics_narrow(unsigned *h2, unsigned short *h1, unsigned short *cas,
                                          unsigned long long *wide)
{
    unsigned old;
    unsigned short old16, one = 0x3c00, seven = 7;
    unsigned long long old64;
    asm volatile("atom.global.add.noftz.f16x2 %0, [%1], %2;" : "=r"(old) : "l"(h2), "r"(0x40003c00u) : "memory");
    asm volatile("red.global.add.noftz.f16 [%0], %1;" ::"l"(h1), "h"(one) : "memory");
    asm volatile("atom.global.cas.b16 %0, [%1], %2, %3;" : "=h"(old16) : "l"(cas), "h"((unsigned short)0), "h"(seven)
                 : "memory");
    asm volatile("atom.relaxed.gpu.global.add.u64 %0, [%1], %2;" : "=l"(old64) : "l"(wide), "l"(3ull << 40) : "memory");
    asm volatile("atom.acq_rel.sys.global.or.b64 %0, [%1], %2;" : "=l"(old64) : "l"(wide + 1), "l"(1ull << (threadIdx.x & 63))
                 : "memory");
    asm volatile("atom.global.exch.b64 %0, [%1], %2;" : "=l"(old64) : "l"(wide + 2), "l"((unsigned long long)threadIdx.x << 33)
                 : "memory");
    // Never true: keeps the returned values alive.
    if (old == 0xffffffffu || old16 == 0xffffu || old64 >> 33 == 0xffffffffull) wide[3] = 1;
}

// Half-precision approximations on f16x2 pairs (sm_75+).
extern "C" __global__ void approx_half(const unsigned *a, unsigned *out)
{
    unsigned i = threadIdx.x, x = a[i], r;
    asm("ex2.approx.f16x2 %0, %1;" : "=r"(r) : "r"(x));
    out[2 * i + 0] = r;
    asm("tanh.approx.f16x2 %0, %1;" : "=r"(r) : "r"(x));
    out[2 * i + 1] = r;
}
