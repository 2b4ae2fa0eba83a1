/* A program that aborts while tracing (CHEVRON_TRACE, set by `chevron trace`): LAUNCHES launches
 * of saxpy, a wait, then abort(). The trace must still be valid JSON holding the launches
 * written before the abort. Usage: trace_abort KERNELS.ptx LAUNCHES */
#include <stdio.h>
#include <stdlib.h>

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
    if (argc < 3) return 2;
    int launches = atoi(argv[2]);
    chevron_device device;
    chevron_module module;
    chevron_kernel saxpy;
    chevron_buffer dx, dy;
    chevron_stream stream;
    CHECK(chevron_device_get(0, &device));
    CHECK(chevron_module_load_file(device, argv[1], &module));
    CHECK(chevron_module_get_kernel(module, "saxpy", &saxpy));
    CHECK(chevron_stream_create(device, &stream));
    CHECK(chevron_buffer_alloc(device, 128 * sizeof(float), &dx));
    CHECK(chevron_buffer_alloc(device, 128 * sizeof(float), &dy));
    uint64_t px, py;
    CHECK(chevron_buffer_address(dx, &px));
    CHECK(chevron_buffer_address(dy, &py));
    int n = 128;
    float a = 2.0f;
    chevron_arg args[] = {CHEVRON_ARG(n), CHEVRON_ARG(a), CHEVRON_ARG(px), CHEVRON_ARG(py)};
    for (int i = 0; i < launches; i++) {
        chevron_token done;
        CHECK(chevron_launch(saxpy, stream, CHEVRON_DIM3(1, 1, 1), CHEVRON_DIM3(128, 1, 1), 0,
                             args, 4, NULL, 0, &done));
        chevron_token_release(done);
    }
    CHECK(chevron_stream_synchronize(stream));
    fprintf(stderr, "aborting after %d launches\n", launches);
    abort();
}
