/* The C API used before main (in a constructor) and during exit (in a destructor), and from
 * several threads at once: each thread has its own stream and buffer and launches repeatedly,
 * while all share one module and kernel handle. Usage: lifetime KERNELS.ptx */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <string.h>

#include "check.h"

enum { THREADS = 6, ROUNDS = 20, N = 256 };

static chevron_device device;
static chevron_module module;
static chevron_kernel iota, saxpy;
static chevron_buffer early;

static const char *kernels_path(void)
{
    const char *path = getenv("CHEVRON_TEST_KERNELS");
    return path ? path : "tests/capi/kernels.ptx";
}

__attribute__((constructor)) static void before_main(void)
{
    CHECK(chevron_device_get(0, &device));
    CHECK(chevron_module_load_file(device, kernels_path(), &module));
    CHECK(chevron_module_get_kernel(module, "iota", &iota));
    CHECK(chevron_module_get_kernel(module, "saxpy", &saxpy));
    CHECK(chevron_buffer_alloc(device, N * 4, &early));
    uint64_t p;
    uint32_t n = N;
    CHECK(chevron_buffer_address(early, &p));
    chevron_arg args[] = {CHEVRON_ARG(p), CHEVRON_ARG(n)};
    CHECK(chevron_launch(iota, NULL, CHEVRON_DIM3(N / 64, 1, 1), CHEVRON_DIM3(64, 1, 1), 0, args, 2,
                         NULL, 0, NULL));
}

__attribute__((destructor)) static void during_exit(void)
{
    /* Runs after main returned: launch, wait, read, release. Must neither hang nor crash. */
    uint64_t p;
    uint32_t n = N, out[N];
    CHECK(chevron_buffer_address(early, &p));
    chevron_arg args[] = {CHEVRON_ARG(p), CHEVRON_ARG(n)};
    chevron_token done;
    chevron_status launched = chevron_launch(iota, NULL, CHEVRON_DIM3(N / 64, 1, 1),
                                             CHEVRON_DIM3(64, 1, 1), 0, args, 2, NULL, 0, &done);
    if (launched == CHEVRON_ERROR_DRIVER && strstr(chevron_last_error(), "CUDA_ERROR_DEINITIALIZED")) {
        /* The CUDA driver's own exit handler may run before this destructor: then the launch is
         * refused with a clear error, which is all chevron can do (no hang, no crash). */
        printf("capi lifetime: destructor after the CUDA driver shut down: %s\n", chevron_last_error());
        return;
    }
    CHECK(launched);
    CHECK(chevron_buffer_read(early, 0, out, sizeof out, NULL, &done, 1));
    REQUIRE(out[N - 1] == N - 1, "at exit: %u", out[N - 1]);
    CHECK(chevron_token_release(done));
    CHECK(chevron_buffer_free(early));
    CHECK(chevron_kernel_release(iota));
    CHECK(chevron_kernel_release(saxpy));
    CHECK(chevron_module_release(module));
    fputs("capi lifetime: destructor ok\n", stdout);
    fflush(stdout);
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    chevron_stream stream;
    chevron_buffer bx, by;
    CHECK(chevron_stream_create(device, &stream));
    CHECK(chevron_buffer_alloc(device, N * 4, &bx));
    CHECK(chevron_buffer_alloc(device, N * 4, &by));
    uint64_t px, py;
    CHECK(chevron_buffer_address(bx, &px));
    CHECK(chevron_buffer_address(by, &py));
    int n = N;
    float a = (float)id;
    chevron_arg args[] = {CHEVRON_ARG(n), CHEVRON_ARG(a), CHEVRON_ARG(px), CHEVRON_ARG(py)};
    CHECK(chevron_buffer_memset(bx, 0, 0x3f800000u, 4, N, stream, NULL, 0, NULL)); /* x = 1 */
    CHECK(chevron_buffer_memset(by, 0, 0, 4, N, stream, NULL, 0, NULL));           /* y = 0 */
    for (int round = 0; round < ROUNDS; round++)
        CHECK(chevron_launch(saxpy, stream, CHEVRON_DIM3(N / 64, 1, 1), CHEVRON_DIM3(64, 1, 1), 0, args,
                             4, NULL, 0, NULL));
    float y[N];
    CHECK(chevron_buffer_read(by, 0, y, sizeof y, stream, NULL, 0));
    for (int i = 0; i < N; i++)
        REQUIRE(y[i] == (float)(id * ROUNDS), "thread %d: y[%d] = %g", id, i, y[i]);
    CHECK(chevron_buffer_free(bx));
    CHECK(chevron_buffer_free(by));
    CHECK(chevron_stream_release(stream));
    return NULL;
}

int main(void)
{
    uint32_t out[N];
    CHECK(chevron_buffer_read(early, 0, out, sizeof out, NULL, NULL, 0));
    REQUIRE(out[N - 1] == N - 1, "launched before main: %u", out[N - 1]);
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++)
        REQUIRE(pthread_create(&threads[t], NULL, worker, (void *)(intptr_t)t) == 0, "thread");
    for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
    printf("capi lifetime: constructor and %d threads x %d launches ok\n", THREADS, ROUNDS);
    return 0;
}
