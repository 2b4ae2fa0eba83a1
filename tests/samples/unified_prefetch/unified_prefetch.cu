// Unified memory with hints, as CUDA 13 spells them: cudaMallocManaged buffers advised
// (cudaMemAdviseSetReadMostly, SetPreferredLocation, SetAccessedBy with a cudaMemLocation),
// prefetched to the device and back (cudaMemPrefetchAsync with a location) on a stream, a
// particle update running on the device while the host reads a read-mostly table, then the
// host reading the results in place; the device attributes that say what the system supports
// (concurrentManagedAccess, pageableMemoryAccess) printed as the device reports them.
// Default 2^20 particles, 20 steps.
#include <cmath>
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#define CK(call)                                                                           \
    do {                                                                                   \
        cudaError_t e = (call);                                                            \
        if (e != cudaSuccess) {                                                            \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call,                   \
                    cudaGetErrorString(e));                                                \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

struct Particle {
    float x, v;
};

// Forces from a read-mostly lookup table, leapfrog steps.
__global__ void step(Particle *p, int n, const float *__restrict__ table, int tableSize,
                     float dt, int steps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Particle q = p[i];
    for (int s = 0; s < steps; ++s) {
        int cell = min(max(int((q.x + 8.f) * (tableSize / 16.f)), 0), tableSize - 1);
        q.v += dt * table[cell];
        q.x += dt * q.v;
    }
    p[i] = q;
}

int main(int argc, char **argv) {
    const int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
    const int tableSize = 4096, steps = 20;
    const float dt = 0.01f;
    int device = 0, concurrent = 0, pageable = 0;
    CK(cudaGetDevice(&device));
    CK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, device));
    CK(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device));

    Particle *p;
    float *table;
    CK(cudaMallocManaged(&p, n * sizeof(Particle)));
    CK(cudaMallocManaged(&table, tableSize * sizeof(float)));
    for (int i = 0; i < n; ++i) p[i] = {-7.f + 14.f * (i % 1000) / 1000.f, 0.f};
    for (int c = 0; c < tableSize; ++c) table[c] = -std::sin(16.f * c / tableSize - 8.f);

    cudaMemLocation gpu = {}, cpu = {};
    gpu.type = cudaMemLocationTypeDevice;
    gpu.id = device;
    cpu.type = cudaMemLocationTypeHost;
    cpu.id = 0;
    CK(cudaMemAdvise(table, tableSize * sizeof(float), cudaMemAdviseSetReadMostly, gpu));
    CK(cudaMemAdvise(p, n * sizeof(Particle), cudaMemAdviseSetPreferredLocation, gpu));
    CK(cudaMemAdvise(p, n * sizeof(Particle), cudaMemAdviseSetAccessedBy, cpu));
    cudaStream_t stream;
    CK(cudaStreamCreate(&stream));
    if (concurrent) {
        CK(cudaMemPrefetchAsync(p, n * sizeof(Particle), gpu, 0, stream));
        CK(cudaMemPrefetchAsync(table, tableSize * sizeof(float), gpu, 0, stream));
    }
    step<<<(n + 255) / 256, 256, 0, stream>>>(p, n, table, tableSize, dt, steps);
    CK(cudaGetLastError());
    // The host may read the read-mostly table while the kernel runs only where the device
    // supports concurrent managed access; otherwise it waits first.
    if (!concurrent) CK(cudaStreamSynchronize(stream));
    double tableSum = 0;
    for (int c = 0; c < tableSize; ++c) tableSum += table[c];
    if (concurrent) CK(cudaMemPrefetchAsync(p, n * sizeof(Particle), cpu, 0, stream));
    CK(cudaStreamSynchronize(stream));

    int wrong = 0;
    double energy = 0;
    for (int i = 0; i < 1000 && i < n; ++i) {
        Particle q = {-7.f + 14.f * i / 1000.f, 0.f};
        for (int s = 0; s < steps; ++s) {
            int cell = std::min(std::max(int((q.x + 8.f) * (tableSize / 16.f)), 0), tableSize - 1);
            q.v += dt * table[cell];
            q.x += dt * q.v;
        }
        wrong += std::fabs(q.x - p[i].x) > 1e-5f || std::fabs(q.v - p[i].v) > 1e-5f;
    }
    for (int i = 0; i < n; ++i) {
        wrong += p[i].x != p[i % 1000].x || p[i].v != p[i % 1000].v; // same start, same end
        energy += 0.5 * p[i].v * p[i].v;
    }
    printf("concurrentManagedAccess %d, pageableMemoryAccess %d\n", concurrent, pageable);
    printf("particles %d, steps %d: %d wrong, table sum %.3f\n", n, steps, wrong, tableSum);
    printf("kinetic energy per particle %.4f\n", energy / n);
    CK(cudaStreamDestroy(stream));
    CK(cudaFree(p));
    CK(cudaFree(table));
    printf("unified_prefetch: %s\n", wrong ? "FAIL" : "PASS");
    return wrong ? 1 : 0;
}
