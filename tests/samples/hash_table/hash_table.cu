// A GPU hash table with open addressing (linear probing) on 64-bit slots: a key and a value
// packed into one unsigned long long and claimed with atomicCAS, as GPU hash maps do it.
// Inserts with duplicate keys (values combined by atomicAdd on the value half), lookups of
// present and absent keys, deletes with tombstones (atomicExch), then a second round of
// lookups; and a warp-cooperative probe (__ballot_sync over 32 consecutive slots). Checked
// against std::unordered_map. Default: 2^20 operations on a table of 2^21 slots.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>
#include <vector>

#define CUDA_CHECK(call)                                                                   \
    do {                                                                                   \
        cudaError_t err__ = (call);                                                        \
        if (err__ != cudaSuccess) {                                                        \
            fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\"\n", __FILE__, __LINE__, \
                    int(err__), cudaGetErrorName(err__), #call);                           \
            exit(EXIT_FAILURE);                                                            \
        }                                                                                  \
    } while (0)

using Slot = unsigned long long;
constexpr uint32_t kEmpty = 0xffffffffu;
constexpr uint32_t kTombstone = 0xfffffffeu;
constexpr uint32_t kNotFound = 0xffffffffu;

__host__ __device__ inline Slot pack(uint32_t key, uint32_t value) {
    return (Slot(key) << 32) | value;
}
__host__ __device__ inline uint32_t keyOf(Slot s) { return uint32_t(s >> 32); }
__host__ __device__ inline uint32_t valueOf(Slot s) { return uint32_t(s); }

// MurmurHash3's 32-bit finalizer.
__host__ __device__ inline uint32_t hash(uint32_t k) {
    k ^= k >> 16;
    k *= 0x85ebca6bu;
    k ^= k >> 13;
    k *= 0xc2b2ae35u;
    k ^= k >> 16;
    return k;
}

// Adds `value` to `key`'s value, inserting the key if absent.
__global__ void insertAdd(Slot *table, uint32_t capacity, const uint32_t *keys,
                          const uint32_t *values, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t key = keys[i], slot = hash(key) & (capacity - 1);
    while (true) {
        Slot seen = table[slot];
        if (keyOf(seen) == key) {
            // The value is the low half: adding to the whole word never carries into the key
            // while sums stay below 2^32.
            atomicAdd(&table[slot], Slot(values[i]));
            return;
        }
        if (keyOf(seen) == kEmpty) {
            Slot prev = atomicCAS(&table[slot], seen, pack(key, values[i]));
            if (prev == seen) return;
            if (keyOf(prev) == key) {
                atomicAdd(&table[slot], Slot(values[i]));
                return;
            }
            continue; // another key took the slot: look at it again
        }
        slot = (slot + 1) & (capacity - 1);
    }
}

__global__ void lookup(const Slot *__restrict__ table, uint32_t capacity,
                       const uint32_t *__restrict__ keys, uint32_t *__restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t key = keys[i], slot = hash(key) & (capacity - 1);
    while (true) {
        Slot s = table[slot];
        if (keyOf(s) == key) {
            out[i] = valueOf(s);
            return;
        }
        if (keyOf(s) == kEmpty) {
            out[i] = kNotFound;
            return;
        }
        slot = (slot + 1) & (capacity - 1);
    }
}

__global__ void erase(Slot *table, uint32_t capacity, const uint32_t *keys, int n,
                      unsigned *erased) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t key = keys[i], slot = hash(key) & (capacity - 1);
    while (true) {
        Slot s = table[slot];
        if (keyOf(s) == key) {
            if (keyOf(atomicExch(&table[slot], pack(kTombstone, 0))) == key) atomicAdd(erased, 1u);
            return;
        }
        if (keyOf(s) == kEmpty) return;
        slot = (slot + 1) & (capacity - 1);
    }
}

// A warp per key: the 32 lanes read 32 consecutive slots and vote.
__global__ void lookupWarp(const Slot *__restrict__ table, uint32_t capacity,
                           const uint32_t *__restrict__ keys, uint32_t *__restrict__ out, int n) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (warp >= n) return;
    uint32_t key = keys[warp], base = hash(key) & (capacity - 1);
    for (uint32_t window = 0;; window += 32) {
        Slot s = table[(base + window + lane) & (capacity - 1)];
        unsigned hit = __ballot_sync(0xffffffffu, keyOf(s) == key);
        unsigned empty = __ballot_sync(0xffffffffu, keyOf(s) == kEmpty);
        // The first of a hit or an empty slot in probe order decides.
        unsigned firstHit = hit ? __ffs(hit) : 33, firstEmpty = empty ? __ffs(empty) : 33;
        if (firstHit < firstEmpty) {
            if (lane == int(firstHit) - 1) out[warp] = valueOf(s);
            return;
        }
        if (firstEmpty <= 32) {
            if (lane == 0) out[warp] = kNotFound;
            return;
        }
    }
}

int main(int argc, char **argv) {
    const int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
    uint32_t capacity = 1;
    while (capacity < 2u * n) capacity <<= 1;
    std::vector<uint32_t> keys(n), values(n), probes(n), victims(n / 4);
    uint32_t s = 5;
    auto next = [&s] { return s = s * 1664525u + 1013904223u; };
    for (int i = 0; i < n; ++i) {
        keys[i] = next() % (3u * n / 2); // about a third of the keys repeat
        values[i] = 1 + (next() >> 24);
        probes[i] = (i % 2) ? keys[next() % n] : 3u * n / 2 + (next() % n); // hit or miss
    }
    for (auto &v : victims) v = keys[next() % n];

    std::unordered_map<uint32_t, uint32_t> ref;
    for (int i = 0; i < n; ++i) ref[keys[i]] += values[i];

    Slot *table;
    uint32_t *dKeys, *dValues, *dProbes, *dOut, *dVictims;
    unsigned *dErased;
    CUDA_CHECK(cudaMalloc(&table, capacity * sizeof(Slot)));
    CUDA_CHECK(cudaMemset(table, 0xff, capacity * sizeof(Slot)));
    CUDA_CHECK(cudaMalloc(&dKeys, n * sizeof(uint32_t)));
    CUDA_CHECK(cudaMalloc(&dValues, n * sizeof(uint32_t)));
    CUDA_CHECK(cudaMalloc(&dProbes, n * sizeof(uint32_t)));
    CUDA_CHECK(cudaMalloc(&dOut, n * sizeof(uint32_t)));
    CUDA_CHECK(cudaMalloc(&dVictims, victims.size() * sizeof(uint32_t)));
    CUDA_CHECK(cudaMalloc(&dErased, sizeof(unsigned)));
    CUDA_CHECK(cudaMemset(dErased, 0, sizeof(unsigned)));
    CUDA_CHECK(cudaMemcpy(dKeys, keys.data(), n * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dValues, values.data(), n * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dProbes, probes.data(), n * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dVictims, victims.data(), victims.size() * 4, cudaMemcpyHostToDevice));

    const int block = 256, grid = (n + block - 1) / block;
    insertAdd<<<grid, block>>>(table, capacity, dKeys, dValues, n);
    CUDA_CHECK(cudaGetLastError());
    // Every distinct key is in the table once.
    std::vector<Slot> slots(capacity);
    CUDA_CHECK(cudaMemcpy(slots.data(), table, capacity * sizeof(Slot), cudaMemcpyDeviceToHost));
    size_t occupied = 0;
    bool contentOk = true;
    for (Slot t : slots)
        if (keyOf(t) != kEmpty) {
            ++occupied;
            auto it = ref.find(keyOf(t));
            contentOk &= it != ref.end() && it->second == valueOf(t);
        }
    contentOk &= occupied == ref.size();

    auto expected = [&](uint32_t k) {
        auto it = ref.find(k);
        return it == ref.end() ? kNotFound : it->second;
    };
    std::vector<uint32_t> out(n);
    lookup<<<grid, block>>>(table, capacity, dProbes, dOut, n);
    CUDA_CHECK(cudaMemcpy(out.data(), dOut, n * 4, cudaMemcpyDeviceToHost));
    size_t lookupBad = 0, hits = 0;
    for (int i = 0; i < n; ++i) lookupBad += out[i] != expected(probes[i]), hits += out[i] != kNotFound;

    erase<<<(int(victims.size()) + block - 1) / block, block>>>(table, capacity, dVictims,
                                                                int(victims.size()), dErased);
    CUDA_CHECK(cudaGetLastError());
    unsigned erased = 0;
    CUDA_CHECK(cudaMemcpy(&erased, dErased, sizeof(unsigned), cudaMemcpyDeviceToHost));
    size_t distinctVictims = 0;
    for (uint32_t v : victims) distinctVictims += ref.erase(v);

    CUDA_CHECK(cudaMemset(dOut, 0, n * 4));
    lookupWarp<<<(n * 32 + block - 1) / block, block>>>(table, capacity, dProbes, dOut, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(out.data(), dOut, n * 4, cudaMemcpyDeviceToHost));
    size_t warpBad = 0, warpHits = 0;
    for (int i = 0; i < n; ++i)
        warpBad += out[i] != expected(probes[i]), warpHits += out[i] != kNotFound;

    printf("operations %d, capacity %u, distinct keys %zu\n", n, capacity, occupied);
    printf("table contents %s\n", contentOk ? "match" : "DIFFER");
    printf("lookups: %zu hits, %zu wrong\n", hits, lookupBad);
    printf("erased %u (host %zu); warp lookups after: %zu hits, %zu wrong\n", erased,
           distinctVictims, warpHits, warpBad);
    bool ok = contentOk && lookupBad == 0 && erased == distinctVictims && warpBad == 0;
    for (void *p : {(void *)table, (void *)dKeys, (void *)dValues, (void *)dProbes, (void *)dOut,
                    (void *)dVictims, (void *)dErased})
        CUDA_CHECK(cudaFree(p));
    printf("hash_table: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
