// Quasirandom numbers in the style of CUDA's quasirandomGenerator sample: Sobol points in seven
// dimensions from direction numbers in __constant__ memory (each point the XOR of the numbers
// of its index's set bits), scaled to (0, 1), then turned into standard normal values with
// Moro's inverse cumulative normal. The host checks every Sobol point exactly, the normals
// within float tolerance, and the sequences' uniformity and moments.
// Default: 2^20 points per dimension (argument: the count).
#include <algorithm>
#include <cmath>
#include <vector>
#include "../common/helpers.h"

constexpr int QRNG_DIMENSIONS = 7, QRNG_RESOLUTION = 31;
constexpr float INT_SCALE = 1.0f / 2147483648.0f;

__constant__ unsigned int c_Table[QRNG_DIMENSIONS][QRNG_RESOLUTION];

__global__ void quasirandomGeneratorKernel(float *d_Output, unsigned int seed, unsigned int N) {
    unsigned int *dimBase = &c_Table[threadIdx.y][0];
    unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x, threadN = blockDim.x * gridDim.x;
    for (unsigned int pos = tid; pos < N; pos += threadN) {
        unsigned int result = 0, data = seed + pos;
        for (int bit = 0; bit < QRNG_RESOLUTION; bit++, data >>= 1)
            if (data & 1) result ^= dimBase[bit];
        d_Output[threadIdx.y * N + pos] = (float)(result + 1) * INT_SCALE;
    }
}

// Moro's inverse cumulative normal distribution (host and device).
__device__ __host__ inline float MoroInvCND(float P) {
    const float a1 = 2.50662823884f, a2 = -18.61500062529f, a3 = 41.39119773534f, a4 = -25.44106049637f;
    const float b1 = -8.4735109309f, b2 = 23.08336743743f, b3 = -21.06224101826f, b4 = 3.13082909833f;
    const float c1 = 0.337475482272615f, c2 = 0.976169019091719f, c3 = 0.160797971491821f;
    const float c4 = 2.76438810333863E-02f, c5 = 3.8405729373609E-03f, c6 = 3.951896511919E-04f;
    const float c7 = 3.21767881768E-05f, c8 = 2.888167364E-07f, c9 = 3.960315187E-07f;
    float y, z;
    if (P <= 0 || P >= 1.0f) return NAN;
    y = P - 0.5f;
    if (fabsf(y) < 0.42f) {
        z = y * y;
        z = y * (((a4 * z + a3) * z + a2) * z + a1) / ((((b4 * z + b3) * z + b2) * z + b1) * z + 1);
    } else {
        if (y > 0) z = logf(-logf(1.0f - P));
        else z = logf(-logf(P));
        z = c1 + z * (c2 + z * (c3 + z * (c4 + z * (c5 + z * (c6 + z * (c7 + z * (c8 + z * c9)))))));
        if (y < 0) z = -z;
    }
    return z;
}

__global__ void inverseCNDKernel(float *d_Output, const float *d_Input, unsigned int pathN) {
    unsigned int distance = ((unsigned int)-1) / (pathN + 1), tid = blockDim.x * blockIdx.x + threadIdx.x;
    unsigned int threadN = blockDim.x * gridDim.x;
    if (d_Input) {
        for (unsigned int pos = tid; pos < pathN; pos += threadN) d_Output[pos] = MoroInvCND(d_Input[pos]);
    } else { // evenly spaced samples of (0, 1)
        for (unsigned int pos = tid; pos < pathN; pos += threadN)
            d_Output[pos] = MoroInvCND((float)(pos + 1) * (distance * INT_SCALE / 2.0f));
    }
}
// Direction numbers: dimension 0 is van der Corput's; the others come from primitive
// polynomials (degree s, coefficients a) and initial odd m_k (Joe and Kuo's first entries).
static void initTable(unsigned int table[QRNG_DIMENSIONS][QRNG_RESOLUTION]) {
    struct Poly { int s, a, m[4]; };
    const Poly polys[QRNG_DIMENSIONS - 1] = {{1, 0, {1}},       {2, 1, {1, 3}},       {3, 1, {1, 3, 1}},
                                             {3, 2, {1, 1, 1}}, {4, 1, {1, 1, 3, 3}}, {4, 4, {1, 3, 5, 13}}};
    for (int k = 0; k < QRNG_RESOLUTION; ++k) table[0][k] = 1u << (30 - k);
    for (int d = 1; d < QRNG_DIMENSIONS; ++d) {
        const Poly &p = polys[d - 1];
        unsigned int v[QRNG_RESOLUTION];
        for (int k = 0; k < QRNG_RESOLUTION; ++k) {
            if (k < p.s) {
                v[k] = unsigned(p.m[k]) << (30 - k);
            } else {
                v[k] = v[k - p.s] ^ (v[k - p.s] >> p.s);
                for (int j = 1; j < p.s; ++j)
                    if ((p.a >> (p.s - 1 - j)) & 1) v[k] ^= v[k - j];
            }
            table[d][k] = v[k];
        }
    }
}

int main(int argc, char **argv) {
    const unsigned int N = std::max(64, sizeArg(argc, argv, 1 << 20) / 64 * 64);
    static unsigned int table[QRNG_DIMENSIONS][QRNG_RESOLUTION];
    initTable(table);
    checkCudaErrors(cudaMemcpyToSymbol(c_Table, table, sizeof table));
    float *d_Output, *d_Normal;
    checkCudaErrors(cudaMalloc(&d_Output, size_t(QRNG_DIMENSIONS) * N * sizeof(float)));
    checkCudaErrors(cudaMalloc(&d_Normal, size_t(QRNG_DIMENSIONS) * N * sizeof(float)));
    dim3 threads(128, QRNG_DIMENSIONS);
    quasirandomGeneratorKernel<<<128, threads>>>(d_Output, 0, N);
    checkCudaErrors(cudaGetLastError());
    inverseCNDKernel<<<128, 128>>>(d_Normal, d_Output, QRNG_DIMENSIONS * N);
    checkCudaErrors(cudaGetLastError());
    std::vector<float> h_Output(size_t(QRNG_DIMENSIONS) * N), h_Normal(h_Output.size());
    checkCudaErrors(cudaMemcpy(h_Output.data(), d_Output, h_Output.size() * sizeof(float), cudaMemcpyDeviceToHost));
    checkCudaErrors(cudaMemcpy(h_Normal.data(), d_Normal, h_Normal.size() * sizeof(float), cudaMemcpyDeviceToHost));
    // The evenly spaced variant, into the first N values.
    inverseCNDKernel<<<128, 128>>>(d_Normal, nullptr, N);
    checkCudaErrors(cudaGetLastError());
    std::vector<float> h_Even(N);
    checkCudaErrors(cudaMemcpy(h_Even.data(), d_Normal, N * sizeof(float), cudaMemcpyDeviceToHost));

    long long sobolWrong = 0, normalWrong = 0;
    bool moments = true;
    for (int d = 0; d < QRNG_DIMENSIONS; ++d) {
        double mean = 0, nmean = 0, nvar = 0, corr = 0;
        for (unsigned int pos = 0; pos < N; ++pos) {
            unsigned int result = 0, data = pos;
            for (int bit = 0; bit < QRNG_RESOLUTION; bit++, data >>= 1)
                if (data & 1) result ^= table[d][bit];
            float u = (float)(result + 1) * INT_SCALE, g = h_Output[size_t(d) * N + pos];
            sobolWrong += u != g;
            float z = MoroInvCND(u), dz = h_Normal[size_t(d) * N + pos];
            normalWrong += std::fabs(z - dz) > 2e-5f * (1 + std::fabs(z));
            mean += g, nmean += dz, nvar += double(dz) * dz;
            corr += (g - 0.5) * (h_Output[pos] - 0.5) * 12.0; // against dimension 0
        }
        mean /= N, nmean /= N, nvar = nvar / N - nmean * nmean, corr /= N;
        moments &= std::fabs(mean - 0.5) < 1e-3 && std::fabs(nmean) < 1e-2 && std::fabs(nvar - 1) < 2e-2;
        moments &= d == 0 || std::fabs(corr) < 1e-2;
        printf("dimension %d: mean %.6f, correlation with dimension 0 %+.6f, normal mean %.5f, variance %.5f\n", d,
               mean, corr, nmean, nvar);
    }
    const unsigned int distance = ((unsigned int)-1) / (N + 1);
    long long evenWrong = 0;
    for (unsigned int pos = 0; pos < N; ++pos) {
        float z = MoroInvCND((float)(pos + 1) * (distance * INT_SCALE / 2.0f));
        evenWrong += std::fabs(z - h_Even[pos]) > 2e-5f * (1 + std::fabs(z));
    }
    printf("%u points x %d dimensions: Sobol values wrong %lld, normals wrong %lld, evenly spaced wrong %lld\n", N,
           QRNG_DIMENSIONS, sobolWrong, normalWrong, evenWrong);
    checkCudaErrors(cudaFree(d_Output));
    checkCudaErrors(cudaFree(d_Normal));
    return finish("quasirandom", sobolWrong == 0 && normalWrong == 0 && evenWrong == 0 && moments);
}
