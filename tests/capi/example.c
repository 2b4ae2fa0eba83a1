/* The C API example of docs/c-abi.md: y = a * x + y with a kernel found by its plain name
 * ("saxpy"; the PTX symbol is the mangled _Z5saxpyifPKfPf, which this program never names).
 * Usage: example KERNELS.ptx */
#include <stdio.h>

#include "chevron.h"

#define CHECK(call)                                                                            \
    do {                                                                                       \
        if ((call) != CHEVRON_SUCCESS) {                                                       \
            fprintf(stderr, "%s\n", chevron_last_error());                                     \
            return 1;                                                                          \
        }                                                                                      \
    } while (0)

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    enum { N = 1000 };
    float x[N], y[N];
    for (int i = 0; i < N; i++) { x[i] = (float)i; y[i] = 1.0f; }

    chevron_device device;
    chevron_module module;
    chevron_kernel saxpy;
    chevron_buffer dx, dy;
    CHECK(chevron_device_get(0, &device)); /* the first of CHEVRON_DEVICES */
    CHECK(chevron_module_load_file(device, argv[1], &module));
    CHECK(chevron_module_get_kernel(module, "saxpy", &saxpy));
    CHECK(chevron_buffer_alloc(device, sizeof x, &dx));
    CHECK(chevron_buffer_alloc(device, sizeof y, &dy));
    CHECK(chevron_buffer_write(dx, 0, x, sizeof x, NULL, NULL, 0, NULL));
    CHECK(chevron_buffer_write(dy, 0, y, sizeof y, NULL, NULL, 0, NULL));

    uint64_t px, py;
    CHECK(chevron_buffer_address(dx, &px));
    CHECK(chevron_buffer_address(dy, &py));
    int n = N;
    float a = 2.0f;
    chevron_arg args[] = {CHEVRON_ARG(n), CHEVRON_ARG(a), CHEVRON_ARG(px), CHEVRON_ARG(py)};
    chevron_token done;
    CHECK(chevron_launch(saxpy, NULL, CHEVRON_DIM3((N + 255) / 256, 1, 1), CHEVRON_DIM3(256, 1, 1),
                         0, args, 4, NULL, 0, &done));
    CHECK(chevron_buffer_read(dy, 0, y, sizeof y, NULL, &done, 1));
    printf("y[10] = %g\n", y[10]); /* 2 * 10 + 1 = 21 */

    chevron_token_release(done);
    chevron_buffer_free(dx);
    chevron_buffer_free(dy);
    chevron_kernel_release(saxpy);
    chevron_module_release(module);
    return y[10] == 21.0f ? 0 : 1;
}
