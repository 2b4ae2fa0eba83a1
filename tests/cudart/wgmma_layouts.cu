// wgmma's shared-memory layouts, checked on the hardware that defines them: every canonical
// layout of the PTX ISA ("Asynchronous Warpgroup Level Matrix Shared Memory Layout") that a
// matrix descriptor names — K-major and M/N-major, without swizzle (8x16-byte core matrices,
// LBO and SBO both ways round) and with the 32-, 64- and 128-byte swizzles — for f16, bf16 and
// tf32, A from shared memory and from registers, `imm-scale-a/b` -1 and `scale-d` 0, over
// several k-steps whose descriptors move along K as CUTLASS and MLIR move them. The host writes
// each operand's bytes where its layout puts them and compares D with its own product; inputs
// are small multiples of 1/4, so D is exact and must be equal bit for bit. One line a case,
// then `wgmma_layouts: ok`. Build: nvcc -arch=sm_90a wgmma_layouts.cu
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <vector>

#define CHECK(call)                                                                          \
    do {                                                                                     \
        cudaError_t err_ = (call);                                                           \
        if (err_ != cudaSuccess) {                                                           \
            printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorName(err_));               \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

constexpr int N = 32;            // every case is m64n32kK
constexpr int SMEM = 24 * 1024;  // the largest image of A and B
constexpr int F16 = 0, BF16 = 1, TF32 = 2;

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define SM90A(code) code
#else
#define SM90A(code) __trap()
#endif

// One wgmma.mma_async m64n32 with A and B from descriptors (A from registers when `a` is given).
template <int Ty, bool AR, int TA, int TB, int NA, int NB>
__device__ void mma(float (&d)[16], uint64_t da, uint64_t db, const uint32_t *a, int scale_d) {
    if constexpr (Ty == TF32) {
        SM90A(asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
                           "wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, p, %19, %20;\n}\n"
                           : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                           : "l"(da), "l"(db), "r"(scale_d), "n"(NA), "n"(NB)));
    } else if constexpr (AR) {
        if constexpr (Ty == F16) {
            SM90A(asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %21, 0;\n"
                               "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, {%16, %17, %18, %19}, %20, p, %22, %23, %24;\n}\n"
                               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d), "n"(NA), "n"(NB), "n"(TB)));
        } else {
            SM90A(asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %21, 0;\n"
                               "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, {%16, %17, %18, %19}, %20, p, %22, %23, %24;\n}\n"
                               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d), "n"(NA), "n"(NB), "n"(TB)));
        }
    } else if constexpr (Ty == F16) {
        SM90A(asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
                           "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, p, %19, %20, %21, %22;\n}\n"
                           : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                           : "l"(da), "l"(db), "r"(scale_d), "n"(NA), "n"(NB), "n"(TA), "n"(TB)));
    } else {
        SM90A(asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
                           "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, p, %19, %20, %21, %22;\n}\n"
                           : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                           : "l"(da), "l"(db), "r"(scale_d), "n"(NA), "n"(NB), "n"(TA), "n"(TB)));
    }
}

// Copies the image into shared memory, runs `steps` k-steps (descriptors relative to the
// image: the shared address is added here) and stores D's fragment (16 floats a thread).
template <int Ty, bool AR, int TA, int TB, int NA, int NB>
__global__ void __launch_bounds__(128) run_case(const uint8_t *image, int bytes, const uint64_t *descs,
                                                int steps, const uint32_t *afrag, const float *init,
                                                float *out, int scale_d) {
    __shared__ alignas(1024) uint8_t smem[SMEM];
    for (int i = threadIdx.x; i < bytes; i += blockDim.x) smem[i] = image[i];
    SM90A(asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"));
    __syncthreads();
    uint64_t base = static_cast<uint32_t>(__cvta_generic_to_shared(smem)) >> 4;
    float d[16];
    for (int i = 0; i < 16; i++) d[i] = init[threadIdx.x * 16 + i];
    SM90A(asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"));
    for (int s = 0; s < steps; s++) {
        const uint32_t *a = AR ? afrag + (s * 128 + threadIdx.x) * 4 : nullptr;
        mma<Ty, AR, TA, TB, NA, NB>(d, descs[2 * s] + base, descs[2 * s + 1] + base, a, s > 0 || scale_d);
    }
    SM90A(asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"));
    SM90A(asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory"));
    for (int i = 0; i < 16; i++) out[threadIdx.x * 16 + i] = d[i];
}

// How an operand sits in shared memory (all written out from the PTX ISA's canonical layouts).
enum Kind { K_CORE_ROWS, K_CORE_CHUNKS, K_SWIZZLED, MN_CORE, MN_SWIZZLED };

struct Operand {
    Kind kind;
    int line;  // swizzle line bytes (32, 64, 128)
    int rows;  // M of A (64), N of B
    int depth; // K of the whole product
    int bytes; // element size

    bool mn_major() const { return kind == MN_CORE || kind == MN_SWIZZLED; }
    int size() const {
        int mn = rows * bytes, k = depth * bytes;
        if (kind == K_SWIZZLED) return (k + line - 1) / line * rows * line;
        if (kind == MN_SWIZZLED) return (mn + line - 1) / line * depth * line;
        return mn * depth;
    }
    static int swizzle(int offset, int line) { return offset ^ (((offset >> 7) & (line / 16 - 1)) << 4); }
    // Byte offset of element (mn, k) from the operand's 1024-aligned start.
    int offset(int mn, int k) const {
        int e = bytes, chunks = depth * e / 16;
        switch (kind) {
        case K_CORE_ROWS: return ((mn / 8) * chunks + k * e / 16) * 128 + (mn % 8) * 16 + k * e % 16;
        case K_CORE_CHUNKS: return ((k * e / 16) * (rows / 8) + mn / 8) * 128 + (mn % 8) * 16 + k * e % 16;
        case K_SWIZZLED: return swizzle((k * e / line) * rows * line + mn * line + k * e % line, line);
        case MN_CORE: return (k / 8) * (rows * e / 16) * 128 + (mn * e / 16) * 128 + (k % 8) * 16 + mn * e % 16;
        default: return swizzle((mn * e / line) * depth * line + k * line + mn * e % line, line);
        }
    }
    // The descriptor of k-step s (k elements a step), its start relative to the operand.
    uint64_t descriptor(int s, int k) const {
        int e = bytes, start, lbo, sbo;
        uint64_t mode = 0;
        switch (kind) {
        case K_CORE_ROWS: lbo = 128, sbo = depth * e / 16 * 128, start = s * k * e / 16 * lbo; break;
        case K_CORE_CHUNKS: lbo = rows / 8 * 128, sbo = 128, start = s * k * e / 16 * lbo; break;
        case K_SWIZZLED: start = (s * k * e / line) * rows * line + s * k * e % line, lbo = 16, sbo = 8 * line; break;
        case MN_CORE: lbo = rows * e / 16 * 128, sbo = 128, start = s * k / 8 * lbo; break;
        default: start = s * k * line, lbo = depth * line, sbo = 8 * line; break;
        }
        if (kind == K_SWIZZLED || kind == MN_SWIZZLED) mode = line == 128 ? 1 : line == 64 ? 2 : 3;
        auto enc = [](int v) { return static_cast<uint64_t>((v >> 4) & 0x3fff); };
        return enc(start) | enc(lbo) << 16 | enc(sbo) << 32 | mode << 62;
    }
};

struct Case {
    const char *name;
    int ty;
    bool a_regs;
    Operand a, b; // a unused with a_regs
    bool neg_a, neg_b, scale_d;
};

static uint32_t seed = 12345;
static int next_rand() { return (seed = seed * 1664525u + 1013904223u) >> 8; }
static float small() { return static_cast<float>(next_rand() % 17 - 8) / 4.0f; }

static uint32_t bits_of(int ty, float v) {
    if (ty == F16) { __half h = __float2half(v); uint16_t u; memcpy(&u, &h, 2); return u; }
    if (ty == BF16) { __nv_bfloat16 h = __float2bfloat16(v); uint16_t u; memcpy(&u, &h, 2); return u; }
    uint32_t u;
    memcpy(&u, &v, 4);
    return u | (next_rand() & 0x1fff); // tf32: the low 13 bits are ignored
}

// Runs one case through the kernel instance `launch`; returns the number of wrong elements.
template <typename Launch> static int run(const Case &c, Launch launch) {
    int e = c.ty == TF32 ? 4 : 2, k = 32 / e, depth = c.a.depth, steps = depth / k;
    std::vector<float> a(64 * depth), b(N * depth), init(64 * N);
    for (auto &v : a) v = small();
    for (auto &v : b) v = small();
    for (auto &v : init) v = 4 * small();
    int b_base = c.a_regs ? 0 : (c.a.size() + 1023) / 1024 * 1024, bytes = b_base + c.b.size();
    std::vector<uint8_t> image(bytes, 0);
    auto put = [&](int at, uint32_t v) { memcpy(&image[at], &v, e); };
    for (int r = 0; r < 64 && !c.a_regs; r++)
        for (int q = 0; q < depth; q++) put(c.a.offset(r, q), bits_of(c.ty, a[r * depth + q]));
    for (int col = 0; col < N; col++)
        for (int q = 0; q < depth; q++) put(b_base + c.b.offset(col, q), bits_of(c.ty, b[col * depth + q]));
    std::vector<uint64_t> descs;
    for (int s = 0; s < steps; s++) {
        descs.push_back(c.a_regs ? 0 : c.a.descriptor(s, k));
        descs.push_back(c.b.descriptor(s, k) + (b_base >> 4));
    }
    // A's fragment (f16/bf16 m64nNk16): thread t of warp w holds rows 16w + g (+8), columns
    // 2t (+1) (+8) of each k-step, two elements a register.
    std::vector<uint32_t> frag(steps * 128 * 4, 0);
    for (int s = 0; s < steps && c.a_regs; s++)
        for (int tid = 0; tid < 128; tid++)
            for (int i = 0; i < 8; i++) {
                int w = tid / 32, g = tid % 32 / 4, t = tid % 4;
                int row = 16 * w + g + 8 * ((i / 2) % 2), col = s * k + 2 * t + i % 2 + 8 * (i / 4);
                frag[(s * 128 + tid) * 4 + i / 2] |= bits_of(c.ty, a[row * depth + col]) << (16 * (i % 2));
            }
    // D's fragment: element i of thread t of warp w at row 16w + g + 8·⌊(i mod 4)/2⌋, column
    // 8·⌊i/4⌋ + 2t + (i mod 2).
    auto d_at = [](int tid, int i, int &row, int &col) {
        int w = tid / 32, g = tid % 32 / 4, t = tid % 4;
        row = 16 * w + g + 8 * ((i / 2) % 2);
        col = 8 * (i / 4) + 2 * t + i % 2;
    };
    std::vector<float> init_frag(128 * 16);
    for (int tid = 0; tid < 128; tid++)
        for (int i = 0; i < 16; i++) {
            int row, col;
            d_at(tid, i, row, col);
            init_frag[tid * 16 + i] = init[row * N + col];
        }
    uint8_t *d_image;
    uint64_t *d_descs;
    uint32_t *d_frag = nullptr;
    float *d_init, *d_out;
    CHECK(cudaMalloc(&d_image, bytes));
    CHECK(cudaMemcpy(d_image, image.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMalloc(&d_descs, descs.size() * 8));
    CHECK(cudaMemcpy(d_descs, descs.data(), descs.size() * 8, cudaMemcpyHostToDevice));
    if (c.a_regs) {
        CHECK(cudaMalloc(&d_frag, frag.size() * 4));
        CHECK(cudaMemcpy(d_frag, frag.data(), frag.size() * 4, cudaMemcpyHostToDevice));
    }
    CHECK(cudaMalloc(&d_init, init_frag.size() * 4));
    CHECK(cudaMemcpy(d_init, init_frag.data(), init_frag.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMalloc(&d_out, 128 * 16 * 4));
    launch(d_image, bytes, d_descs, steps, d_frag, d_init, d_out, c.scale_d ? 1 : 0);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<float> out(128 * 16);
    CHECK(cudaMemcpy(out.data(), d_out, out.size() * 4, cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int tid = 0; tid < 128; tid++)
        for (int i = 0; i < 16; i++) {
            int row, col;
            d_at(tid, i, row, col);
            double sum = c.scale_d ? init[row * N + col] : 0.0;
            for (int q = 0; q < depth; q++)
                sum += (c.neg_a ? -1.0 : 1.0) * a[row * depth + q] * (c.neg_b ? -1.0 : 1.0) * b[col * depth + q];
            if (out[tid * 16 + i] != static_cast<float>(sum) && wrong++ == 0)
                printf("%s: D[%d][%d] = %g, expected %g\n", c.name, row, col, out[tid * 16 + i], sum);
        }
    CHECK(cudaFree(d_image));
    CHECK(cudaFree(d_descs));
    CHECK(cudaFree(d_frag));
    CHECK(cudaFree(d_init));
    CHECK(cudaFree(d_out));
    printf("%s: %s\n", c.name, wrong ? "WRONG" : "ok");
    return wrong;
}

template <int Ty, bool AR, int TA, int TB, int NA, int NB> static int check(const Case &c) {
    return run(c, [](const uint8_t *image, int bytes, const uint64_t *descs, int steps, const uint32_t *frag,
                     const float *init, float *out, int scale_d) {
        run_case<Ty, AR, TA, TB, NA, NB><<<1, 128>>>(image, bytes, descs, steps, frag, init, out, scale_d);
    });
}

int main() {
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    if (prop.major < 9) {
        printf("wgmma_layouts: needs sm_90 (device is sm_%d%d)\n", prop.major, prop.minor);
        return 1;
    }
    auto op = [](Kind kind, int line, int rows, int depth, int bytes) { return Operand{kind, line, rows, depth, bytes}; };
    int wrong = 0;
    // f16: A from registers over core matrices of both orders; K-major swizzles; M/N-major.
    wrong += check<F16, true, 0, 0, 1, 1>({"f16 A regs, B K core rows", F16, true, {}, op(K_CORE_ROWS, 0, N, 32, 2), false, false, true});
    wrong += check<F16, true, 0, 0, 1, 1>({"f16 A regs, B K core chunks", F16, true, {}, op(K_CORE_CHUNKS, 0, N, 16, 2), false, false, true});
    wrong += check<F16, false, 0, 0, 1, 1>({"f16 K-major 128B", F16, false, op(K_SWIZZLED, 128, 64, 64, 2), op(K_SWIZZLED, 128, N, 64, 2), false, false, true});
    wrong += check<F16, false, 0, 0, 1, 1>({"f16 K-major 64B", F16, false, op(K_SWIZZLED, 64, 64, 64, 2), op(K_SWIZZLED, 64, N, 64, 2), false, false, true});
    wrong += check<F16, false, 0, 0, 1, 1>({"f16 K-major 32B", F16, false, op(K_SWIZZLED, 32, 64, 32, 2), op(K_SWIZZLED, 32, N, 32, 2), false, false, true});
    wrong += check<F16, false, 1, 1, 1, 1>({"f16 MN-major core", F16, false, op(MN_CORE, 0, 64, 32, 2), op(MN_CORE, 0, N, 32, 2), false, false, true});
    wrong += check<F16, false, 1, 1, 1, 1>({"f16 MN-major 128B", F16, false, op(MN_SWIZZLED, 128, 64, 32, 2), op(MN_SWIZZLED, 128, N, 32, 2), false, false, true});
    wrong += check<F16, false, 0, 0, -1, 1>({"f16 -A, scale-d 0", F16, false, op(K_SWIZZLED, 128, 64, 32, 2), op(K_SWIZZLED, 128, N, 32, 2), true, false, false});
    // bf16: mixed majors and swizzles, negated operands.
    wrong += check<BF16, false, 1, 0, 1, 1>({"bf16 A MN 64B, B K 32B", BF16, false, op(MN_SWIZZLED, 64, 64, 32, 2), op(K_SWIZZLED, 32, N, 32, 2), false, false, true});
    wrong += check<BF16, false, 0, 1, 1, 1>({"bf16 A K core, B MN 32B", BF16, false, op(K_CORE_ROWS, 0, 64, 32, 2), op(MN_SWIZZLED, 32, N, 32, 2), false, false, true});
    wrong += check<BF16, true, 0, 1, -1, -1>({"bf16 -A regs, -B MN 64B", BF16, true, {}, op(MN_SWIZZLED, 64, N, 32, 2), true, true, true});
    // tf32 (K-major only).
    wrong += check<TF32, false, 0, 0, 1, 1>({"tf32 A K core, B K 128B", TF32, false, op(K_CORE_CHUNKS, 0, 64, 16, 4), op(K_SWIZZLED, 128, N, 16, 4), false, false, true});
    wrong += check<TF32, false, 0, 0, 1, 1>({"tf32 K-major 64B", TF32, false, op(K_SWIZZLED, 64, 64, 16, 4), op(K_SWIZZLED, 64, N, 16, 4), false, false, true});
    if (wrong) {
        printf("wgmma_layouts: %d elements wrong\n", wrong);
        return 1;
    }
    printf("wgmma_layouts: ok\n");
    return 0;
}
