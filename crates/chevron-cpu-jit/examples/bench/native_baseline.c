/* The compiled CPU device benchmark's baselines: the algorithms of kernels.ptx and
 * user_kernels.cu in plain C, one thread, meant for gcc -O2. Prints "name milliseconds" (median of 5 runs) per benchmark. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define RUNS 5
#define MEDIAN(name, body)                                   \
    do {                                                     \
        double times[RUNS];                                  \
        for (int run = 0; run < RUNS; run++) {               \
            double start = now_ms();                         \
            body;                                            \
            times[run] = now_ms() - start;                   \
        }                                                    \
        qsort(times, RUNS, sizeof(double), by_value);        \
        printf("%s %.3f\n", name, times[RUNS / 2]);          \
    } while (0)

static volatile uint32_t sink;

static void saxpy(const float *x, float *y, float a, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}

static void matmul(const float *A, const float *B, float *C, uint32_t n) {
    float As[16][16], Bs[16][16];
    for (uint32_t by = 0; by < n / 16; by++)
        for (uint32_t bx = 0; bx < n / 16; bx++) {
            float acc[16][16] = {{0}};
            for (uint32_t t = 0; t < n; t += 16) {
                for (int ty = 0; ty < 16; ty++)
                    for (int tx = 0; tx < 16; tx++) {
                        As[ty][tx] = A[(by * 16 + ty) * n + t + tx];
                        Bs[ty][tx] = B[(t + ty) * n + bx * 16 + tx];
                    }
                for (int ty = 0; ty < 16; ty++)
                    for (int tx = 0; tx < 16; tx++)
                        for (int k = 0; k < 16; k++) acc[ty][tx] += As[ty][k] * Bs[k][tx];
            }
            for (int ty = 0; ty < 16; ty++)
                for (int tx = 0; tx < 16; tx++) C[(by * 16 + ty) * n + bx * 16 + tx] = acc[ty][tx];
        }
}

static void tree_sums(const uint32_t *in, uint32_t *out, uint32_t n, uint32_t group) {
    uint32_t cache[256];
    for (uint32_t b = 0; b < n / group; b++) {
        memcpy(cache, in + b * group, group * sizeof(uint32_t));
        for (uint32_t s = group / 2; s > 0; s >>= 1)
            for (uint32_t t = 0; t < s; t++) cache[t] += cache[t + s];
        out[b] = cache[0];
    }
}

static void histogram(const uint32_t *in, uint32_t *hist, uint32_t n) {
    uint32_t bins[256] = {0};
    for (uint32_t i = 0; i < n; i++) bins[in[i] & 255]++;
    for (int b = 0; b < 256; b++) hist[b] += bins[b];
}

/* Inclusive scan of each 1024-element tile (user_kernels.cu: tile_scan). */
static void tile_scan(const uint32_t *in, uint32_t *out, uint32_t n) {
    for (uint32_t base = 0; base < n; base += 1024) {
        uint32_t sum = 0;
        for (uint32_t i = base; i < base + 1024; i++) out[i] = sum += in[i];
    }
}

/* Each 256-key tile sorted by 32 stable one-bit splits (user_kernels.cu: tile_radix_sort). */
static void tile_radix_sort(uint32_t *keys, uint32_t n) {
    uint32_t other[256];
    for (uint32_t base = 0; base < n; base += 256) {
        uint32_t *tile = keys + base;
        for (uint32_t bit = 0; bit < 32; bit++) {
            uint32_t zeros = 0, ones = 0;
            for (uint32_t t = 0; t < 256; t++) zeros += !((tile[t] >> bit) & 1);
            for (uint32_t t = 0; t < 256; t++) {
                uint32_t key = tile[t];
                if ((key >> bit) & 1) other[zeros + ones++] = key; else other[t - ones] = key;
            }
            memcpy(tile, other, sizeof other);
        }
    }
}

/* Sum of n values (user_kernels.cu: grid_sum). */
static uint32_t grid_sum(const uint32_t *in, uint32_t n) {
    uint32_t sum = 0;
    for (uint32_t i = 0; i < n; i++) sum += in[i];
    return sum;
}

/* n x n transpose by 32 x 32 tiles (user_kernels.cu: transpose). */
static void transpose(const float *in, float *out, uint32_t n) {
    for (uint32_t by = 0; by < n; by += 32)
        for (uint32_t bx = 0; bx < n; bx += 32)
            for (uint32_t y = by; y < by + 32; y++)
                for (uint32_t x = bx; x < bx + 32; x++) out[x * n + y] = in[y * n + x];
}

int main(void) {
    uint32_t n = 1u << 24;
    float *x = malloc(n * sizeof(float)), *y = malloc(n * sizeof(float));
    for (uint32_t i = 0; i < n; i++) { x[i] = (float)i * 0.5f; y[i] = 1.0f; }
    MEDIAN("saxpy", saxpy(x, y, 2.0f, n));
    sink = (uint32_t)y[n / 2];
    for (uint32_t size = 256; size <= 512; size *= 2) {
        float *A = malloc(size * size * sizeof(float)), *B = malloc(size * size * sizeof(float));
        float *C = malloc(size * size * sizeof(float));
        for (uint32_t i = 0; i < size * size; i++) { A[i] = (float)(i % 7); B[i] = (float)(i % 5); }
        char name[32];
        snprintf(name, sizeof name, "matmul%u", size);
        MEDIAN(name, matmul(A, B, C, size));
        sink = (uint32_t)C[size];
        free(A); free(B); free(C);
    }
    uint32_t m = 1u << 23;
    uint32_t *in = malloc(m * sizeof(uint32_t)), *out = malloc(m / 32 * sizeof(uint32_t));
    for (uint32_t i = 0; i < m; i++) in[i] = i * 2654435761u;
    MEDIAN("block_sum", tree_sums(in, out, m, 256));
    sink = out[7];
    MEDIAN("warp_sum", tree_sums(in, out, m, 32));
    sink = out[7];
    uint32_t hist[256] = {0};
    MEDIAN("histogram", histogram(in, hist, m));
    sink = hist[3];
    uint32_t *scanned = malloc(m * sizeof(uint32_t));
    MEDIAN("tile_scan", tile_scan(in, scanned, 1u << 22));
    sink = scanned[4095];
    MEDIAN("tile_radix_sort", tile_radix_sort(scanned, 1u << 20));
    sink = scanned[300];
    MEDIAN("grid_sum", sink = grid_sum(in, m));
    float *square = malloc(2048 * 2048 * sizeof(float)), *flipped = malloc(2048 * 2048 * sizeof(float));
    for (uint32_t i = 0; i < 2048 * 2048; i++) square[i] = (float)i;
    MEDIAN("transpose", transpose(square, flipped, 2048));
    sink = (uint32_t)flipped[5];
    return 0;
}
