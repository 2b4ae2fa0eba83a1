/* chevron_trace_start/stop from C: two launches of saxpy on two streams, the second after the
 * first (a token dependency), recorded into the trace file given as the second argument.
 * Usage: trace KERNELS.ptx TRACE.json */
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
    if (argc < 3) return 2;
    enum { N = 512 };
    float y[N];
    for (int i = 0; i < N; i++) y[i] = 1.0f;

    CHECK(chevron_trace_start(argv[2]));
    chevron_device device;
    chevron_module module;
    chevron_kernel saxpy;
    chevron_buffer dx, dy;
    chevron_stream first, second;
    CHECK(chevron_device_get(0, &device));
    CHECK(chevron_module_load_file(device, argv[1], &module));
    CHECK(chevron_module_get_kernel(module, "saxpy", &saxpy));
    CHECK(chevron_stream_create(device, &first));
    CHECK(chevron_stream_create(device, &second));
    CHECK(chevron_buffer_alloc(device, sizeof y, &dx));
    CHECK(chevron_buffer_alloc(device, sizeof y, &dy));
    /* The writes are queued on the default stream: the first launch waits for their tokens. */
    chevron_token written[2];
    CHECK(chevron_buffer_write(dx, 0, y, sizeof y, NULL, NULL, 0, &written[0]));
    CHECK(chevron_buffer_write(dy, 0, y, sizeof y, NULL, NULL, 0, &written[1]));

    uint64_t px, py;
    CHECK(chevron_buffer_address(dx, &px));
    CHECK(chevron_buffer_address(dy, &py));
    int n = N;
    float a = 2.0f;
    chevron_arg args[] = {CHEVRON_ARG(n), CHEVRON_ARG(a), CHEVRON_ARG(px), CHEVRON_ARG(py)};
    chevron_token done, after;
    CHECK(chevron_launch(saxpy, first, CHEVRON_DIM3(N / 128, 1, 1), CHEVRON_DIM3(128, 1, 1), 0,
                         args, 4, written, 2, &done));
    CHECK(chevron_launch(saxpy, second, CHEVRON_DIM3(N / 128, 1, 1), CHEVRON_DIM3(128, 1, 1), 0,
                         args, 4, &done, 1, &after));
    CHECK(chevron_buffer_read(dy, 0, y, sizeof y, NULL, &after, 1));
    CHECK(chevron_trace_stop());
    printf("y[0] = %g\n", y[0]); /* 1 + 2 + 2 = 5 */
    if (chevron_trace_stop() == CHEVRON_SUCCESS) {
        fprintf(stderr, "a second chevron_trace_stop succeeded\n");
        return 1;
    }

    chevron_token_release(written[0]);
    chevron_token_release(written[1]);
    chevron_token_release(done);
    chevron_token_release(after);
    chevron_buffer_free(dx);
    chevron_buffer_free(dy);
    chevron_stream_release(first);
    chevron_stream_release(second);
    chevron_kernel_release(saxpy);
    chevron_module_release(module);
    return y[0] == 5.0f ? 0 : 1;
}
