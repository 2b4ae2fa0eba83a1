// A Hopper warpgroup GEMM written the way Hopper GEMM samples write it: inline
// `wgmma.mma_async` (sm_90a), shared-memory matrix descriptors built in device code, operands
// stored with the 128-byte swizzle TMA's SWIZZLE_128B gives, `wgmma.fence` / `commit_group` /
// `wait_group` around the multiplies. Two kernels, both checked against a host reference:
//  - wgmma_tile: one 64x64x64 f16 tile, A and B K-major (B column-major);
//  - wgmma_gemm: a 128x192x128 f16 GEMM over a grid of 64x64 tiles, looping over K, with B
//    row-major (N-major: `imm-trans-b` 1).
// Inputs are small multiples of 1/4, so every product and partial sum is exact in f32 and the
// tensor cores' result is the exact one: D must equal the reference bit for bit.
// Build: nvcc -arch=sm_90a wgmma_gemm.cu
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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

constexpr int TILE = 64;   // M and N of one warpgroup tile, and the K of one shared-memory stage
constexpr int K_STEP = 16; // K of one wgmma (f16)

// A 64-bit wgmma matrix descriptor: start address, leading- and stride-dimension byte offsets
// (each >> 4, 14 bits), swizzle mode 1 (128-byte).
__device__ uint64_t make_desc(const void *smem, uint32_t lbo, uint32_t sbo) {
    uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
    uint64_t desc = 0;
    desc |= static_cast<uint64_t>((addr & 0x3FFFF) >> 4);
    desc |= static_cast<uint64_t>((lbo & 0x3FFFF) >> 4) << 16;
    desc |= static_cast<uint64_t>((sbo & 0x3FFFF) >> 4) << 32;
    desc |= 1ull << 62;
    return desc;
}

// Byte offset of byte `col` of line `row` in a tile of 128-byte lines, 128B-swizzled.
__device__ int swizzled(int row, int col) { return row * 128 + (col ^ ((row % 8) << 4)); }

// nvcc -arch=sm_90a also embeds compute_90 PTX, where wgmma does not exist: the wgmma
// instructions are compiled for the sm_90a feature set only, and trap elsewhere.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define SM90A(code) code
#else
#define SM90A(code) __trap()
#endif

__device__ void wgmma_fence() { SM90A(asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory")); }
__device__ void wgmma_commit() { SM90A(asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory")); }
__device__ void wgmma_wait() { SM90A(asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory")); }
__device__ void fence_async_shared() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

// D (64x64 f32, 32 registers a thread) += A (64x16 f16) * B (16x64 f16), both from descriptors.
template <int TransB>
__device__ void wgmma_m64n64k16(float (&d)[32], uint64_t desc_a, uint64_t desc_b, int scale_d) {
    SM90A(asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
                 "%32, %33, p, 1, 1, 0, %35;\n"
                 "}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TransB)));
}

// Stores thread `tid`'s accumulators (the wgmma D fragment) into the 64x64 tile of `out` at
// (row0, col0); `ld` is out's row length.
__device__ void store_fragment(const float (&d)[32], float *out, int ld, int row0, int col0) {
    int tid = threadIdx.x, warp = tid / 32, g = tid % 32 / 4, t = tid % 4;
    for (int i = 0; i < 32; i++) {
        int row = 16 * warp + g + 8 * ((i / 2) % 2);
        int col = 8 * (i / 4) + 2 * t + i % 2;
        out[(row0 + row) * ld + col0 + col] = d[i];
    }
}

// One 64x64x64 tile: A row-major (64 x K), B column-major (K x 64, column n at b + n * K).
__global__ void __launch_bounds__(128) wgmma_tile(const __half *a, const __half *b, float *out) {
    __shared__ alignas(1024) __half sa[TILE * TILE];
    __shared__ alignas(1024) __half sb[TILE * TILE];
    char *pa = reinterpret_cast<char *>(sa), *pb = reinterpret_cast<char *>(sb);
    for (int i = threadIdx.x; i < TILE * TILE; i += blockDim.x) {
        int row = i / TILE, k = i % TILE;
        *reinterpret_cast<__half *>(pa + swizzled(row, 2 * k)) = a[row * TILE + k];
        *reinterpret_cast<__half *>(pb + swizzled(row, 2 * k)) = b[row * TILE + k];
    }
    fence_async_shared();
    __syncthreads();
    float d[32];
    for (int i = 0; i < 32; i++) d[i] = 0.0f;
    wgmma_fence();
    for (int s = 0; s < TILE / K_STEP; s++) {
        // K-major, 128B swizzle: 8-row atoms 1024 bytes apart; a k-step moves 32 bytes along a line.
        uint64_t da = make_desc(pa + 32 * s, 16, 1024);
        uint64_t db = make_desc(pb + 32 * s, 16, 1024);
        wgmma_m64n64k16<0>(d, da, db, 1);
    }
    wgmma_commit();
    wgmma_wait();
    store_fragment(d, out, TILE, 0, 0);
}

// C (m x n) = A (m x k, row-major) * B (k x n, row-major); block (x, y) computes tile (y, x).
__global__ void __launch_bounds__(128) wgmma_gemm(const __half *a, const __half *b, float *c, int m,
                                                  int n, int k) {
    __shared__ alignas(1024) __half sa[TILE * TILE];
    __shared__ alignas(1024) __half sb[TILE * TILE];
    char *pa = reinterpret_cast<char *>(sa), *pb = reinterpret_cast<char *>(sb);
    int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
    float d[32];
    for (int i = 0; i < 32; i++) d[i] = 0.0f;
    for (int k0 = 0; k0 < k; k0 += TILE) {
        for (int i = threadIdx.x; i < TILE * TILE; i += blockDim.x) {
            int r = i / TILE, q = i % TILE;
            // A: line r is row r (K-major); B: line r is k-row r, N contiguous (N-major).
            *reinterpret_cast<__half *>(pa + swizzled(r, 2 * q)) = a[(row0 + r) * k + k0 + q];
            *reinterpret_cast<__half *>(pb + swizzled(r, 2 * q)) = b[(k0 + r) * n + col0 + q];
        }
        fence_async_shared();
        __syncthreads();
        wgmma_fence();
        for (int s = 0; s < TILE / K_STEP; s++) {
            uint64_t da = make_desc(pa + 32 * s, 16, 1024);
            // N-major, 128B swizzle: 64 columns in one line, 8-k-row groups 1024 bytes apart;
            // a k-step moves 16 lines.
            uint64_t db = make_desc(pb + 16 * 128 * s, 16, 1024);
            wgmma_m64n64k16<1>(d, da, db, k0 > 0 || s > 0);
        }
        wgmma_commit();
        wgmma_wait();
        __syncthreads();
    }
    store_fragment(d, c, n, row0, col0);
}

static float value(int i, int j, int salt) { return static_cast<float>((i * 7 + j * 3 + salt) % 9 - 4) / 4.0f; }

// Compares `got` with the reference product; prints the first difference. Returns the checksum.
static double compare(const char *what, const std::vector<float> &got, const std::vector<float> &a,
                      const std::vector<float> &b, int m, int n, int k, bool b_row_major) {
    int wrong = 0;
    double checksum = 0;
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < n; j++) {
            double sum = 0;
            for (int q = 0; q < k; q++) sum += a[i * k + q] * (b_row_major ? b[q * n + j] : b[j * k + q]);
            float want = static_cast<float>(sum);
            if (got[i * n + j] != want && wrong++ == 0)
                printf("%s: D[%d][%d] = %g, expected %g\n", what, i, j, got[i * n + j], want);
            checksum += got[i * n + j] * (1 + (i * n + j) % 7);
        }
    }
    if (wrong) {
        printf("%s: %d of %d elements differ\n", what, wrong, m * n);
        exit(1);
    }
    printf("%s: %dx%dx%d, checksum %.4f\n", what, m, n, k, checksum);
    return checksum;
}

static std::vector<__half> to_half(const std::vector<float> &v) {
    std::vector<__half> h(v.size());
    for (size_t i = 0; i < v.size(); i++) h[i] = __float2half(v[i]);
    return h;
}

template <typename T> static T *upload(const std::vector<T> &host) {
    T *dev = nullptr;
    CHECK(cudaMalloc(&dev, host.size() * sizeof(T)));
    CHECK(cudaMemcpy(dev, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    return dev;
}

static void run_tile() {
    std::vector<float> a(TILE * TILE), b(TILE * TILE);
    for (int i = 0; i < TILE; i++)
        for (int j = 0; j < TILE; j++) {
            a[i * TILE + j] = value(i, j, 1);
            b[i * TILE + j] = value(j, i, 5); // column i of B
        }
    __half *da = upload(to_half(a)), *db = upload(to_half(b));
    float *dout = nullptr;
    CHECK(cudaMalloc(&dout, TILE * TILE * sizeof(float)));
    wgmma_tile<<<1, 128>>>(da, db, dout);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<float> got(TILE * TILE);
    CHECK(cudaMemcpy(got.data(), dout, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    compare("wgmma_tile", got, a, b, TILE, TILE, TILE, false);
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dout));
}

static void run_gemm(int m, int n, int k) {
    std::vector<float> a(m * k), b(k * n);
    for (int i = 0; i < m; i++)
        for (int q = 0; q < k; q++) a[i * k + q] = value(i, q, 2);
    for (int q = 0; q < k; q++)
        for (int j = 0; j < n; j++) b[q * n + j] = value(q, j, 3);
    __half *da = upload(to_half(a)), *db = upload(to_half(b));
    float *dc = nullptr;
    CHECK(cudaMalloc(&dc, m * n * sizeof(float)));
    wgmma_gemm<<<dim3(n / TILE, m / TILE), 128>>>(da, db, dc, m, n, k);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<float> got(m * n);
    CHECK(cudaMemcpy(got.data(), dc, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    compare("wgmma_gemm", got, a, b, m, n, k, true);
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
}

int main() {
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    if (prop.major < 9) {
        printf("wgmma_gemm: needs sm_90 (device is sm_%d%d)\n", prop.major, prop.minor);
        return 1;
    }
    run_tile();
    run_gemm(128, 192, 128);
    printf("wgmma_gemm: ok\n");
    return 0;
}
