/* chevron_jit_*: a global and a device function in earlier snippets, a kernel using both in a
 * later one, a compile error that leaves the session usable, a redefinition picked up by the
 * next chevron_jit_get_kernel, and the global's one address. Needs NVRTC (CHEVRON_NVRTC). */
#include <stdio.h>
#include <string.h>

#include "chevron.h"

#define CHECK(call)                                                                            \
    do {                                                                                       \
        if ((call) != CHEVRON_SUCCESS) {                                                       \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, chevron_last_error());         \
            return 1;                                                                          \
        }                                                                                      \
    } while (0)

/* Launches `kernel(out)` on 4 threads and reads out[0..4]. */
static int run(chevron_kernel kernel, chevron_buffer out, int values[4])
{
    uint64_t address;
    CHECK(chevron_buffer_address(out, &address));
    chevron_arg args[] = {CHEVRON_ARG(address)};
    chevron_token done;
    CHECK(chevron_launch(kernel, NULL, CHEVRON_DIM3(1, 1, 1), CHEVRON_DIM3(4, 1, 1), 0, args, 1,
                         NULL, 0, &done));
    CHECK(chevron_buffer_read(out, 0, values, 4 * sizeof(int), NULL, &done, 1));
    chevron_token_release(done);
    return 0;
}

int main(void)
{
    chevron_device device;
    chevron_jit_session session;
    chevron_buffer out;
    chevron_kernel fill;
    int values[4];
    uint64_t snippet = 0;
    CHECK(chevron_device_get(0, &device));
    CHECK(chevron_jit_session_create(device, &session));
    CHECK(chevron_jit_add(session, "__device__ int base = 100;", &snippet));
    CHECK(chevron_jit_add(session, "__device__ int add(int x) { return base + x; }", NULL));
    CHECK(chevron_jit_add(session,
                          "__global__ void fill(int *out) { out[threadIdx.x] = add(threadIdx.x); }",
                          &snippet));
    if (snippet != 3) return 1;
    if (chevron_jit_add(session, "__global__ void bad() { undefined_name = 1; }", NULL)
            != CHEVRON_ERROR_CODE_OBJECT
        || !strstr(chevron_last_error(), "undefined_name")) {
        fprintf(stderr, "expected a compile error, got: %s\n", chevron_last_error());
        return 1;
    }
    CHECK(chevron_buffer_alloc(device, 4 * sizeof(int), &out));
    CHECK(chevron_jit_get_kernel(session, "fill", &fill));
    if (run(fill, out, values) || values[3] != 103) return 1;
    chevron_kernel_release(fill);
    CHECK(chevron_jit_add(session, "__device__ int add(int x) { return base - x; }", NULL));
    CHECK(chevron_jit_get_kernel(session, "fill", &fill));
    if (run(fill, out, values) || values[3] != 97) return 1;
    uint64_t address;
    size_t size;
    CHECK(chevron_jit_get_global(session, "base", &address, &size));
    if (address == 0 || size != sizeof(int)) return 1;
    chevron_kernel_release(fill);
    chevron_buffer_free(out);
    CHECK(chevron_jit_session_release(session));
    printf("jit: fill gave %d %d %d %d; base at %#llx\n", values[0], values[1], values[2],
           values[3], (unsigned long long)address);
    return 0;
}
