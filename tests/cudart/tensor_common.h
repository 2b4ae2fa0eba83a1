// What tests/cudart/tensor_mma.cu and tensor_wmma.cu share: the error check, a
// deterministic random sequence and cvt.rna.tf32.f32 on the host.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstring>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            printf("%s: %s\n", #call, cudaGetErrorName(e_));                               \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

static uint32_t random_state = 12345;
static uint32_t next_random() {
    random_state = random_state * 1664525u + 1013904223u;
    return random_state >> 8;
}

// cvt.rna.tf32.f32 on the host: 10 fraction bits, ties away from zero.
static float to_tf32(float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    u = (u + 0x1000u) & 0xffffe000u;
    memcpy(&x, &u, 4);
    return x;
}
