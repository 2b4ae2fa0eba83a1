// The tables hostile_driver.c calls every driver and runtime function through, generated from cuda.h by
// scripts/driver_prototypes.py (which documents the parameter kinds): a function's exported
// name, one letter per parameter, and a caller that passes each parameter from a slot with
// the parameter's exact C type.
#pragma once
#include <cuda.h>

typedef struct {
    _Alignas(16) unsigned char bytes[128];
} hostile_slot;
typedef CUresult (*hostile_caller)(void *f, hostile_slot *slots);
struct hostile_function {
    const char *name;
    const char *kinds;
    hostile_caller call;
};
// The driver's functions (cuda.h) and the runtime's (cuda_runtime_api.h; a runtime function
// returns a cudaError_t, called as a CUresult: the same size and, for the codes both share,
// the same numbers).
extern const struct hostile_function hostile_functions[];
extern const unsigned hostile_function_count;
extern const struct hostile_function hostile_runtime_functions[];
extern const unsigned hostile_runtime_function_count;
