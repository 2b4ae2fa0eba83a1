// mma.sync, ldmatrix and stmatrix through inline PTX, each lane placing and reading fragment
// elements where the PTX ISA's "Matrix Fragments for mma" sections put them: integer
// m16n8k16 and m16n8k32 (.s8/.u8, wrapping and .satfinite), tf32 m16n8k4 and m16n8k8, f64
// m8n8k4, ldmatrix .x1/.x2/.x4 (.trans) and, on sm_90, stmatrix. Every result is checked
// against a scalar host reference: exactly for integers, f64 on exactly representable inputs
// and the matrix moves; within a tolerance for tf32 and f64 on random inputs. Prints one line a
// form and `tensor_mma: ok` when all agree. Built with -arch=sm_80 and -arch=sm_90.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "tensor_common.h"

// ---- integer mma.sync: A 16xK row-major (bytes), B Kx8 stored column by column, C/D 16x8.
#define MMA_I8(SHAPE, SAT, AT, BT)                                                    \
    "mma.sync.aligned." SHAPE ".row.col" SAT ".s32." AT "." BT ".s32 "

template <int K, int KIND>
__global__ void mma_int8(const uint8_t* a, const uint8_t* b, const int* c, int* d) {
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    uint32_t ra[K / 8] = {}, rb[K / 16] = {};
    for (int i = 0; i < K / 2; i++) {  // A: K/2 elements a lane
        int row = (K == 16) ? g + 8 * (i >= 4) : ((i < 4 || (i >= 8 && i < 12)) ? g : g + 8);
        int col = 4 * t + (i & 3) + ((K == 32 && i >= 8) ? 16 : 0);
        ra[i / 4] |= uint32_t(a[row * K + col]) << (8 * (i % 4));
    }
    for (int i = 0; i < K / 4; i++) {  // B: K/4 elements a lane
        int row = 4 * t + (i & 3) + ((K == 32 && i >= 4) ? 16 : 0);
        rb[i / 4] |= uint32_t(b[g * K + row]) << (8 * (i % 4));
    }
    int rc[4], rd[4];
    for (int i = 0; i < 4; i++) rc[i] = c[(g + 8 * (i >= 2)) * 8 + 2 * t + (i & 1)];
#define OUTS "=r"(rd[0]), "=r"(rd[1]), "=r"(rd[2]), "=r"(rd[3])
#define CS "r"(rc[0]), "r"(rc[1]), "r"(rc[2]), "r"(rc[3])
    if constexpr (K == 16) {
        if (KIND == 0)
            asm volatile(MMA_I8("m16n8k16", "", "s8", "s8") "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                         : OUTS : "r"(ra[0]), "r"(ra[1]), "r"(rb[0]), CS);
        else if (KIND == 1)
            asm volatile(MMA_I8("m16n8k16", "", "u8", "u8") "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                         : OUTS : "r"(ra[0]), "r"(ra[1]), "r"(rb[0]), CS);
        else if (KIND == 2)
            asm volatile(MMA_I8("m16n8k16", "", "s8", "u8") "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                         : OUTS : "r"(ra[0]), "r"(ra[1]), "r"(rb[0]), CS);
        else
            asm volatile(MMA_I8("m16n8k16", ".satfinite", "u8", "s8") "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                         : OUTS : "r"(ra[0]), "r"(ra[1]), "r"(rb[0]), CS);
    } else {
        if (KIND == 0)
            asm volatile(MMA_I8("m16n8k32", "", "s8", "s8") "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                         : OUTS : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), CS);
        else if (KIND == 1)
            asm volatile(MMA_I8("m16n8k32", ".satfinite", "u8", "u8") "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                         : OUTS : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), CS);
        else
            asm volatile(MMA_I8("m16n8k32", ".satfinite", "s8", "s8") "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                         : OUTS : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), CS);
    }
    for (int i = 0; i < 4; i++) d[(g + 8 * (i >= 2)) * 8 + 2 * t + (i & 1)] = rd[i];
}

// Runs one integer form; `a_signed`/`b_signed` say how the host reads the bytes, `sat` whether
// it saturates. `big` puts C near the ends of the int range so sums overflow.
template <int K, int KIND>
static int int_case(const char* name, bool a_signed, bool b_signed, bool sat, bool big) {
    std::vector<uint8_t> a(16 * K), b(8 * K);
    std::vector<int> c(128), d(128);
    for (auto& x : a) x = uint8_t(next_random());
    for (auto& x : b) x = uint8_t(next_random());
    for (int i = 0; i < 128; i++)
        c[i] = big ? (i % 2 ? INT32_MAX - int(next_random() % 1000) : INT32_MIN + int(next_random() % 1000))
                   : int(next_random() % 200001) - 100000;
    uint8_t *da, *db;
    int *dc, *dd;
    CHECK(cudaMalloc(&da, a.size()));
    CHECK(cudaMalloc(&db, b.size()));
    CHECK(cudaMalloc(&dc, 512));
    CHECK(cudaMalloc(&dd, 512));
    CHECK(cudaMemcpy(da, a.data(), a.size(), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), b.size(), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dc, c.data(), 512, cudaMemcpyHostToDevice));
    mma_int8<K, KIND><<<1, 32>>>(da, db, dc, dd);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(d.data(), dd, 512, cudaMemcpyDeviceToHost));
    int wrong = 0, saturated = 0;
    uint32_t sum = 0;
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 8; j++) {
            int64_t s = c[i * 8 + j];
            for (int k = 0; k < K; k++) {
                int64_t x = a_signed ? int8_t(a[i * K + k]) : a[i * K + k];
                int64_t y = b_signed ? int8_t(b[j * K + k]) : b[j * K + k];
                s += x * y;
            }
            int32_t expect;
            if (sat) {
                if (s > INT32_MAX || s < INT32_MIN) saturated++;
                expect = int32_t(s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s);
            } else {
                expect = int32_t(uint32_t(uint64_t(s)));
            }
            wrong += d[i * 8 + j] != expect;
            sum = sum * 31u + uint32_t(d[i * 8 + j]);
        }
    printf("%s: %d of 128 wrong, %d saturated, checksum %08x\n", name, wrong, saturated, sum);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    cudaFree(dd);
    return wrong;
}

// ---- tf32: A 16xK, B Kx8 (row-major), C/D 16x8 f32.
template <int K>
__global__ void mma_tf32(const float* a, const float* b, float* d) {
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    uint32_t ra[K / 2], rb[K / 4];
    for (int i = 0; i < K / 2; i++) {  // a0 (g,t) a1 (g+8,t) a2 (g,t+4) a3 (g+8,t+4)
        float v = a[(g + 8 * (i & 1)) * K + t + 4 * (i >> 1)];
        asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(ra[i]) : "f"(v));
    }
    for (int i = 0; i < K / 4; i++) {  // b0 (t,g) b1 (t+4,g)
        float v = b[(t + 4 * i) * 8 + g];
        asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(rb[i]) : "f"(v));
    }
    float rd[4], z = 0.0f;
    if constexpr (K == 4)
        asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%7,%7,%7};"
                     : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
                     : "r"(ra[0]), "r"(ra[1]), "r"(rb[0]), "f"(z));
    else
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%10,%10,%10};"
                     : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
                     : "r"(ra[0]), "r"(ra[1]), "r"(ra[K / 2 - 2]), "r"(ra[K / 2 - 1]), "r"(rb[0]),
                       "r"(rb[K / 4 - 1]), "f"(z));
    for (int i = 0; i < 4; i++) d[(g + 8 * (i >= 2)) * 8 + 2 * t + (i & 1)] = rd[i];
}

template <int K>
static int tf32_case(const char* name) {
    std::vector<float> a(16 * K), b(8 * K), d(128);
    for (auto& x : a) x = float(next_random() % 20001) / 10000.0f - 1.0f;
    for (auto& x : b) x = float(next_random() % 20001) / 10000.0f - 1.0f;
    float *da, *db, *dd;
    CHECK(cudaMalloc(&da, a.size() * 4));
    CHECK(cudaMalloc(&db, b.size() * 4));
    CHECK(cudaMalloc(&dd, 512));
    CHECK(cudaMemcpy(da, a.data(), a.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), b.size() * 4, cudaMemcpyHostToDevice));
    mma_tf32<K><<<1, 32>>>(da, db, dd);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(d.data(), dd, 512, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 8; j++) {
            double s = 0, mag = 0;
            for (int k = 0; k < K; k++) {
                double p = double(to_tf32(a[i * K + k])) * double(to_tf32(b[k * 8 + j]));
                s += p;
                mag += fabs(p);
            }
            worst = fmax(worst, fabs(d[i * 8 + j] - s) / (mag + 1e-30));
        }
    bool ok = worst < 1e-5;
    printf("%s: max error below tolerance: %s\n", name, ok ? "yes" : "no");
    cudaFree(da);
    cudaFree(db);
    cudaFree(dd);
    return !ok;
}

// ---- f64 m8n8k4: A 8x4, B 4x8 (row-major), C/D 8x8.
__global__ void mma_f64(const double* a, const double* b, const double* c, double* d) {
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    double ra = a[g * 4 + t], rb = b[t * 8 + g], c0 = c[g * 8 + 2 * t], c1 = c[g * 8 + 2 * t + 1];
    double d0, d1;
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
                 : "=d"(d0), "=d"(d1)
                 : "d"(ra), "d"(rb), "d"(c0), "d"(c1));
    d[g * 8 + 2 * t] = d0;
    d[g * 8 + 2 * t + 1] = d1;
}

static int f64_case(bool exact) {
    std::vector<double> a(32), b(32), c(64), d(64);
    auto value = [&]() {
        return exact ? double(int(next_random() % 129) - 64) / 8.0
                     : double(next_random()) / double(1 << 24) * 2.0 - 1.0;
    };
    for (auto& x : a) x = value();
    for (auto& x : b) x = value();
    for (auto& x : c) x = value();
    double *da, *db, *dc, *dd;
    CHECK(cudaMalloc(&da, 256));
    CHECK(cudaMalloc(&db, 256));
    CHECK(cudaMalloc(&dc, 512));
    CHECK(cudaMalloc(&dd, 512));
    CHECK(cudaMemcpy(da, a.data(), 256, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), 256, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dc, c.data(), 512, cudaMemcpyHostToDevice));
    mma_f64<<<1, 32>>>(da, db, dc, dd);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(d.data(), dd, 512, cudaMemcpyDeviceToHost));
    int wrong = 0;
    double worst = 0, sum = 0;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            double s = c[i * 8 + j], mag = fabs(s);
            for (int k = 0; k < 4; k++) {
                s = fma(a[i * 4 + k], b[k * 8 + j], s);
                mag += fabs(a[i * 4 + k] * b[k * 8 + j]);
            }
            wrong += d[i * 8 + j] != s;
            worst = fmax(worst, fabs(d[i * 8 + j] - s) / (mag + 1e-300));
            sum += d[i * 8 + j];
        }
    if (exact)
        printf("f64 m8n8k4 (exact inputs): %d of 64 wrong, sum %.6f\n", wrong, sum);
    else
        printf("f64 m8n8k4 (random inputs): max error below tolerance: %s\n", worst < 1e-14 ? "yes" : "no");
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    cudaFree(dd);
    return exact ? wrong : !(worst < 1e-14);
}

// ---- ldmatrix / stmatrix on four 8x8 b16 matrices in shared memory (row stride 8 elements,
// matrix i at element 64 i). out[lane * 4 + i] is register i of the lane.
template <int COUNT, bool TRANS>
__global__ void load_matrices(const uint16_t* in, uint32_t* out) {
    __shared__ uint16_t tile[256];
    int lane = threadIdx.x;
    for (int i = lane; i < 256; i += 32) tile[i] = in[i];
    __syncwarp();
    uint32_t addr = uint32_t(__cvta_generic_to_shared(&tile[64 * ((lane / 8) % COUNT) + 8 * (lane % 8)]));
    uint32_t r[4] = {};
    if (COUNT == 1 && !TRANS) asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr));
    if (COUNT == 1 && TRANS) asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr));
    if (COUNT == 2 && !TRANS) asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
    if (COUNT == 2 && TRANS) asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
    if (COUNT == 4 && !TRANS)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
    if (COUNT == 4 && TRANS)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
    for (int i = 0; i < 4; i++) out[lane * 4 + i] = r[i];
}

// out[0] = 1 where stmatrix exists (sm_90), then the 256 stored elements.
template <int COUNT, bool TRANS>
__global__ void store_matrices(const uint32_t* regs, uint16_t* out) {
#if __CUDA_ARCH__ >= 900
    __shared__ uint16_t tile[256];
    int lane = threadIdx.x;
    for (int i = lane; i < 256; i += 32) tile[i] = 0xdead;
    __syncwarp();
    uint32_t addr = uint32_t(__cvta_generic_to_shared(&tile[64 * ((lane / 8) % COUNT) + 8 * (lane % 8)]));
    const uint32_t* r = regs + lane * 4;
    if (COUNT == 1 && !TRANS) asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" :: "r"(addr), "r"(r[0]));
    if (COUNT == 1 && TRANS) asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" :: "r"(addr), "r"(r[0]));
    if (COUNT == 2 && !TRANS) asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1,%2};" :: "r"(addr), "r"(r[0]), "r"(r[1]));
    if (COUNT == 2 && TRANS) asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1,%2};" :: "r"(addr), "r"(r[0]), "r"(r[1]));
    if (COUNT == 4 && !TRANS)
        asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};" :: "r"(addr), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]));
    if (COUNT == 4 && TRANS)
        asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1,%2,%3,%4};" :: "r"(addr), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]));
    __syncwarp();
    for (int i = lane; i < 256; i += 32) out[1 + i] = tile[i];
    if (lane == 0) out[0] = 1;
#else
    if (threadIdx.x == 0) out[0] = 0;
#endif
}

// Element (row, col) of matrix i that register i of `lane` holds in half h (PTX: row g,
// columns 2t and 2t + 1; with .trans the transposed position).
static int element_index(int matrix, int lane, int h, bool trans) {
    int g = lane / 4, col = 2 * (lane % 4) + h;
    return 64 * matrix + (trans ? col * 8 + g : g * 8 + col);
}

template <int COUNT, bool TRANS>
static int move_case(int* stored_forms) {
    std::vector<uint16_t> tile(256), back(257);
    std::vector<uint32_t> regs(128);
    for (int i = 0; i < 256; i++) tile[i] = uint16_t(i * 7 + 3);
    uint16_t *din, *dback;
    uint32_t *dregs;
    CHECK(cudaMalloc(&din, 512));
    CHECK(cudaMalloc(&dback, 514));
    CHECK(cudaMalloc(&dregs, 512));
    CHECK(cudaMemcpy(din, tile.data(), 512, cudaMemcpyHostToDevice));
    load_matrices<COUNT, TRANS><<<1, 32>>>(din, dregs);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(regs.data(), dregs, 512, cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int lane = 0; lane < 32; lane++)
        for (int i = 0; i < COUNT; i++) {
            uint32_t expect = tile[element_index(i, lane, 0, TRANS)] | uint32_t(tile[element_index(i, lane, 1, TRANS)]) << 16;
            wrong += regs[lane * 4 + i] != expect;
        }
    printf("ldmatrix .x%d%s: %d of %d registers wrong\n", COUNT, TRANS ? ".trans" : "", wrong, 32 * COUNT);
    // stmatrix writes back what ldmatrix read: the tile again where the matrices are.
    store_matrices<COUNT, TRANS><<<1, 32>>>(dregs, dback);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(back.data(), dback, 514, cudaMemcpyDeviceToHost));
    int wrong_store = 0;
    if (back[0] == 1) {
        for (int i = 0; i < 256; i++) wrong_store += back[1 + i] != (i < 64 * COUNT ? tile[i] : 0xdead);
        printf("stmatrix .x%d%s: %d of 256 elements wrong\n", COUNT, TRANS ? ".trans" : "", wrong_store);
        (*stored_forms)++;
    }
    cudaFree(din);
    cudaFree(dback);
    cudaFree(dregs);
    return wrong + wrong_store;
}

int main() {
    int failures = 0, stored = 0;
    failures += int_case<16, 0>("mma m16n8k16 s32.s8.s8.s32", true, true, false, false);
    failures += int_case<16, 1>("mma m16n8k16 s32.u8.u8.s32 (wrapping)", false, false, false, true);
    failures += int_case<16, 2>("mma m16n8k16 s32.s8.u8.s32", true, false, false, false);
    failures += int_case<16, 3>("mma m16n8k16 satfinite s32.u8.s8.s32", false, true, true, true);
    failures += int_case<32, 0>("mma m16n8k32 s32.s8.s8.s32", true, true, false, false);
    failures += int_case<32, 1>("mma m16n8k32 satfinite s32.u8.u8.s32", false, false, true, true);
    failures += int_case<32, 2>("mma m16n8k32 satfinite s32.s8.s8.s32", true, true, true, true);
    failures += tf32_case<4>("mma m16n8k4 f32.tf32.tf32.f32");
    failures += tf32_case<8>("mma m16n8k8 f32.tf32.tf32.f32");
    failures += f64_case(true);
    failures += f64_case(false);
    failures += move_case<1, false>(&stored);
    failures += move_case<1, true>(&stored);
    failures += move_case<2, false>(&stored);
    failures += move_case<2, true>(&stored);
    failures += move_case<4, false>(&stored);
    failures += move_case<4, true>(&stored);
    printf("stmatrix forms run: %d\n", stored);
    printf("tensor_mma: %s\n", failures == 0 ? "ok" : "FAILED");
    return failures != 0;
}
