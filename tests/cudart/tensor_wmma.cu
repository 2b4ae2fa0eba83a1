// WMMA (nvcuda::wmma of <mma.h>) on the tensor-core forms beyond f16: signed and unsigned
// char inputs with int accumulators (m16n16k16, m32n8k16, m8n32k16; row- and column-major
// operands and results, wrapping and saturating), double m8n8k4, __nv_bfloat16 (the three
// shapes) and precision::tf32 m16n16k8. Each warp computes one tile of a 2x2-tile product
// over two K steps; every result is checked against a scalar host reference, exactly for the
// integer and double forms (double on exactly representable inputs), within a tolerance for
// bf16, tf32 and double on random inputs. Prints one line a form and `tensor_wmma: ok` when
// all agree. Built with -arch=sm_80 and -arch=sm_90.
#include <cuda_bf16.h>
#include <mma.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <vector>

#include "tensor_common.h"

using namespace nvcuda;

template <typename L>
constexpr bool is_row = std::is_same<L, wmma::row_major>::value;

// A (Mt x Kt) row- or column-major per LA, B (Kt x Nt) per LB, C (Mt x Nt) row-major; D
// row-major or, with d_col, column-major. One warp a tile; tile (blockIdx.y, blockIdx.x).
template <int M, int N, int K, typename T, typename LA, typename LB>
__global__ void wmma_int(const T* a, const T* b, const int* c, int* d, int Mt, int Nt, int Kt,
                         bool sat, bool d_col) {
    int ti = blockIdx.y, tj = blockIdx.x;
    wmma::fragment<wmma::matrix_a, M, N, K, T, LA> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, T, LB> fb;
    wmma::fragment<wmma::accumulator, M, N, K, int> fc;
    wmma::load_matrix_sync(fc, c + ti * M * Nt + tj * N, Nt, wmma::mem_row_major);
    for (int kk = 0; kk < Kt; kk += K) {
        if (is_row<LA>)
            wmma::load_matrix_sync(fa, a + ti * M * Kt + kk, Kt);
        else
            wmma::load_matrix_sync(fa, a + kk * Mt + ti * M, Mt);
        if (is_row<LB>)
            wmma::load_matrix_sync(fb, b + kk * Nt + tj * N, Nt);
        else
            wmma::load_matrix_sync(fb, b + tj * N * Kt + kk, Kt);
        wmma::mma_sync(fc, fa, fb, fc, sat);
    }
    // Element-wise code on a fragment is layout-independent.
    for (int i = 0; i < fc.num_elements; i++) fc.x[i] ^= 1;
    if (d_col)
        wmma::store_matrix_sync(d + tj * N * Mt + ti * M, fc, Mt, wmma::mem_col_major);
    else
        wmma::store_matrix_sync(d + ti * M * Nt + tj * N, fc, Nt, wmma::mem_row_major);
}

template <int M, int N, int K, typename T, typename LA, typename LB>
static int int_case(const char* name, bool sat, bool big, bool d_col) {
    const int Mt = 2 * M, Nt = 2 * N, Kt = 2 * K;
    const bool is_signed = std::is_same<T, signed char>::value;
    std::vector<T> a(Mt * Kt), b(Kt * Nt);
    std::vector<int> c(Mt * Nt), d(Mt * Nt);
    for (auto& x : a) x = T(next_random());
    for (auto& x : b) x = T(next_random());
    for (size_t i = 0; i < c.size(); i++)
        c[i] = big ? (i % 2 ? INT32_MAX - int(next_random() % 100000) : INT32_MIN + int(next_random() % 100000))
                   : int(next_random() % 2000001) - 1000000;
    T *da, *db;
    int *dc, *dd;
    CHECK(cudaMalloc(&da, a.size()));
    CHECK(cudaMalloc(&db, b.size()));
    CHECK(cudaMalloc(&dc, c.size() * 4));
    CHECK(cudaMalloc(&dd, d.size() * 4));
    CHECK(cudaMemcpy(da, a.data(), a.size(), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), b.size(), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dc, c.data(), c.size() * 4, cudaMemcpyHostToDevice));
    wmma_int<M, N, K, T, LA, LB><<<dim3(2, 2), 32>>>(da, db, dc, dd, Mt, Nt, Kt, sat, d_col);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(d.data(), dd, d.size() * 4, cudaMemcpyDeviceToHost));
    auto value = [&](T x) -> int64_t { return is_signed ? int64_t(int8_t(x)) : int64_t(uint8_t(x)); };
    int wrong = 0, saturated = 0;
    uint32_t sum = 0;
    for (int i = 0; i < Mt; i++)
        for (int j = 0; j < Nt; j++) {
            int64_t s = c[i * Nt + j];
            for (int kk = 0; kk < Kt; kk += K) {  // each mma_sync saturates or wraps its sum
                for (int k = kk; k < kk + K; k++) {
                    T x = is_row<LA> ? a[i * Kt + k] : a[k * Mt + i];
                    T y = is_row<LB> ? b[k * Nt + j] : b[j * Kt + k];
                    s += value(x) * value(y);
                }
                if (sat && (s > INT32_MAX || s < INT32_MIN)) {
                    saturated++;
                    s = s > INT32_MAX ? INT32_MAX : INT32_MIN;
                }
                s = int32_t(uint32_t(uint64_t(s)));
            }
            int expect = int(s) ^ 1;
            int got = d_col ? d[j * Mt + i] : d[i * Nt + j];
            wrong += got != expect;
            sum = sum * 31u + uint32_t(got);
        }
    printf("%s: %d of %d wrong, %d saturated, checksum %08x\n", name, wrong, Mt * Nt, saturated, sum);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    cudaFree(dd);
    return wrong;
}

// Floating-point forms: A row-major, B column-major, C and D row-major.
template <int M, int N, int K, typename F, typename S, typename Acc>
__global__ void wmma_float(const S* a, const S* b, const Acc* c, Acc* d, int Nt, int Kt) {
    int ti = blockIdx.y, tj = blockIdx.x;
    wmma::fragment<wmma::matrix_a, M, N, K, F, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, F, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, M, N, K, Acc> fc;
    wmma::load_matrix_sync(fc, c + ti * M * Nt + tj * N, Nt, wmma::mem_row_major);
    for (int kk = 0; kk < Kt; kk += K) {
        wmma::load_matrix_sync(fa, a + ti * M * Kt + kk, Kt);
        wmma::load_matrix_sync(fb, b + tj * N * Kt + kk, Kt);
        if constexpr (std::is_same<F, wmma::precision::tf32>::value) {
            for (int i = 0; i < fa.num_elements; i++) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
            for (int i = 0; i < fb.num_elements; i++) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
        }
        wmma::mma_sync(fc, fa, fb, fc);
    }
    wmma::store_matrix_sync(d + ti * M * Nt + tj * N, fc, Nt, wmma::mem_row_major);
}

static double value_of(double x) { return x; }
static double value_of(float x) { return to_tf32(x); }
static double value_of(__nv_bfloat16 x) { return double(__bfloat162float(x)); }

// kind 0: random inputs in [-1, 1]; kind 1 (double only): multiples of 1/8 in [-8, 8], whose
// products and sums are exact in any order.
template <int M, int N, int K, typename F, typename S, typename Acc>
static int float_case(const char* name, double tolerance, bool exact) {
    const int Mt = 2 * M, Nt = 2 * N, Kt = 2 * K;
    std::vector<S> a(Mt * Kt), b(Kt * Nt);
    std::vector<Acc> c(Mt * Nt), d(Mt * Nt);
    auto random = [&]() {
        return exact ? double(int(next_random() % 129) - 64) / 8.0
                     : double(next_random() % 2000001) / 1000000.0 - 1.0;
    };
    for (auto& x : a) x = S(float(random()));
    for (auto& x : b) x = S(float(random()));
    for (auto& x : c) x = Acc(random());
    S *da, *db;
    Acc *dc, *dd;
    CHECK(cudaMalloc(&da, a.size() * sizeof(S)));
    CHECK(cudaMalloc(&db, b.size() * sizeof(S)));
    CHECK(cudaMalloc(&dc, c.size() * sizeof(Acc)));
    CHECK(cudaMalloc(&dd, d.size() * sizeof(Acc)));
    CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(S), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), b.size() * sizeof(S), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dc, c.data(), c.size() * sizeof(Acc), cudaMemcpyHostToDevice));
    wmma_float<M, N, K, F, S, Acc><<<dim3(2, 2), 32>>>(da, db, dc, dd, Nt, Kt);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(d.data(), dd, d.size() * sizeof(Acc), cudaMemcpyDeviceToHost));
    double worst = 0, sum = 0;
    int wrong = 0;
    for (int i = 0; i < Mt; i++)
        for (int j = 0; j < Nt; j++) {
            double s = c[i * Nt + j], mag = fabs(s);
            for (int k = 0; k < Kt; k++) {
                double p = value_of(a[i * Kt + k]) * value_of(b[j * Kt + k]);
                s += p;
                mag += fabs(p);
            }
            double got = d[i * Nt + j];
            wrong += got != s;
            worst = fmax(worst, fabs(got - s) / (mag + 1e-300));
            sum += got;
        }
    int failed;
    if (exact) {
        printf("%s (exact inputs): %d of %d wrong, sum %.6f\n", name, wrong, Mt * Nt, sum);
        failed = wrong;
    } else {
        printf("%s: max error below tolerance: %s\n", name, worst < tolerance ? "yes" : "no");
        failed = !(worst < tolerance);
    }
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    cudaFree(dd);
    return failed;
}

int main() {
    using wmma::col_major;
    using wmma::row_major;
    typedef signed char s8;
    typedef unsigned char u8;
    int failures = 0;
    failures += int_case<16, 16, 16, s8, row_major, col_major>("wmma m16n16k16 s8", false, false, false);
    failures += int_case<16, 16, 16, u8, col_major, row_major>("wmma m16n16k16 u8 (wrapping, column-major D)", false, true, true);
    failures += int_case<16, 16, 16, u8, row_major, row_major>("wmma m16n16k16 u8 satfinite", true, true, false);
    failures += int_case<32, 8, 16, s8, col_major, col_major>("wmma m32n8k16 s8 satfinite", true, true, true);
    failures += int_case<32, 8, 16, u8, row_major, col_major>("wmma m32n8k16 u8", false, false, false);
    failures += int_case<8, 32, 16, s8, row_major, row_major>("wmma m8n32k16 s8 (wrapping)", false, true, false);
    failures += int_case<8, 32, 16, u8, col_major, col_major>("wmma m8n32k16 u8 satfinite", true, true, true);
    failures += float_case<8, 8, 4, double, double, double>("wmma m8n8k4 f64", 0, true);
    failures += float_case<8, 8, 4, double, double, double>("wmma m8n8k4 f64", 1e-14, false);
    failures += float_case<16, 16, 16, __nv_bfloat16, __nv_bfloat16, float>("wmma m16n16k16 bf16", 1e-4, false);
    failures += float_case<32, 8, 16, __nv_bfloat16, __nv_bfloat16, float>("wmma m32n8k16 bf16", 1e-4, false);
    failures += float_case<8, 32, 16, __nv_bfloat16, __nv_bfloat16, float>("wmma m8n32k16 bf16", 1e-4, false);
    failures += float_case<16, 16, 8, wmma::precision::tf32, float, float>("wmma m16n16k8 tf32", 1e-4, false);
    printf("tensor_wmma: %s\n", failures == 0 ? "ok" : "FAILED");
    return failures != 0;
}
