/* The C API end to end: devices, modules from a file and from bytes, kernels by plain name,
 * demangled signature and overload, buffers, streams, and launches chained by tokens across
 * two streams. Usage: launch KERNELS.ptx */
#include <math.h>

#include "check.h"

enum { N = 1000, BLOCK = 128 };

static char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    REQUIRE(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long length = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = malloc((size_t)length + 1);
    REQUIRE(data && fread(data, 1, (size_t)length, f) == (size_t)length, "cannot read %s", path);
    data[length] = 0;
    fclose(f);
    *size = (size_t)length;
    return data;
}

int main(int argc, char **argv)
{
    REQUIRE(argc == 2, "usage: launch KERNELS.ptx");
    uint32_t count = 0;
    CHECK(chevron_device_count(&count));
    REQUIRE(count >= 1, "no device");
    chevron_device device, same;
    chevron_device_info info;
    CHECK(chevron_device_get(0, &device));
    CHECK(chevron_device_get_info(device, &info));
    CHECK(chevron_device_by_label(info.label, &same));
    REQUIRE(same == device, "the label %s names another handle", info.label);
    printf("device %s (%s), %u threads per block at most\n", info.label, info.name,
           info.max_threads_per_block);

    /* The same code object three ways: file, bytes with a size, NUL-terminated text. */
    size_t size;
    char *text = read_file(argv[1], &size);
    chevron_module from_file, from_bytes, from_text;
    CHECK(chevron_module_load_file(device, argv[1], &from_file));
    CHECK(chevron_module_load(device, text, size, &from_bytes));
    CHECK(chevron_module_load(device, text, 0, &from_text));
    free(text);

    chevron_kernel saxpy, saxpy_signature, scale_f32, scale_f64, iota;
    CHECK(chevron_module_get_kernel(from_file, "saxpy", &saxpy));
    CHECK(chevron_module_get_kernel(from_bytes, "saxpy(int, float, float const*, float*)",
                                    &saxpy_signature));
    CHECK(chevron_module_get_kernel(from_text, "scale(float*, float, int)", &scale_f32));
    CHECK(chevron_module_get_kernel(from_file, "_Z5scalePddi", &scale_f64));
    CHECK(chevron_module_get_kernel(from_file, "iota", &iota));
    size_t params = 0;
    CHECK(chevron_kernel_param_count(saxpy, &params));
    REQUIRE(params == 4, "saxpy has %zu parameters", params);
    /* Modules may be released while their kernels are held. */
    CHECK(chevron_module_release(from_bytes));
    CHECK(chevron_module_release(from_text));

    float x[N], y[N];
    for (int i = 0; i < N; i++) x[i] = (float)i;
    chevron_buffer bx, by, bi, bd;
    CHECK(chevron_buffer_alloc(device, sizeof x, &bx));
    CHECK(chevron_buffer_alloc(device, sizeof y, &by));
    CHECK(chevron_buffer_alloc(device, N * sizeof(uint32_t), &bi));
    CHECK(chevron_buffer_alloc(device, 4 * sizeof(double), &bd));
    size_t bytes = 0;
    CHECK(chevron_buffer_size(by, &bytes));
    REQUIRE(bytes == sizeof y, "buffer size %zu", bytes);
    uint64_t px, py, pi, pd;
    CHECK(chevron_buffer_address(bx, &px));
    CHECK(chevron_buffer_address(by, &py));
    CHECK(chevron_buffer_address(bi, &pi));
    CHECK(chevron_buffer_address(bd, &pd));

    chevron_stream s1, s2;
    CHECK(chevron_stream_create(device, &s1));
    CHECK(chevron_stream_create(device, &s2));

    /* x on s1; y = 1.0f by a 32-bit fill on s2. */
    chevron_token wrote_x, filled_y;
    CHECK(chevron_buffer_write(bx, 0, x, sizeof x, s1, NULL, 0, &wrote_x));
    CHECK(chevron_buffer_memset(by, 0, 0x3f800000u, 4, N, s2, NULL, 0, &filled_y));

    int n = N;
    float two = 2.0f, half = 0.5f, three = 3.0f;
    chevron_dim3 grid = CHEVRON_DIM3((N + BLOCK - 1) / BLOCK, 1, 1), block = CHEVRON_DIM3(BLOCK, 1, 1);

    /* t1 (s1): y = 2x + y, after the fill on s2.  t2 (s2): y *= 0.5, after t1.
     * t3 (s1): y = 3x + y through the signature handle, after t2.  iota on s2 meanwhile. */
    chevron_token t1, t2, t3, t_iota;
    chevron_arg saxpy2[] = {CHEVRON_ARG(n), CHEVRON_ARG(two), CHEVRON_ARG(px), CHEVRON_ARG(py)};
    chevron_token before_t1[] = {wrote_x, filled_y};
    CHECK(chevron_launch(saxpy, s1, grid, block, 0, saxpy2, 4, before_t1, 2, &t1));
    chevron_arg scale_args[] = {CHEVRON_ARG(py), CHEVRON_ARG(half), CHEVRON_ARG(n)};
    CHECK(chevron_launch(scale_f32, s2, grid, block, 0, scale_args, 3, &t1, 1, &t2));
    chevron_arg saxpy3[] = {CHEVRON_ARG(n), CHEVRON_ARG(three), CHEVRON_ARG(px), CHEVRON_ARG(py)};
    CHECK(chevron_launch(saxpy_signature, s1, grid, block, 0, saxpy3, 4, &t2, 1, &t3));
    uint32_t un = N;
    chevron_arg iota_args[] = {CHEVRON_ARG(pi), CHEVRON_ARG(un)};
    CHECK(chevron_launch(iota, s2, grid, block, 0, iota_args, 2, NULL, 0, &t_iota));

    CHECK(chevron_token_wait(t3));
    CHECK(chevron_token_query(t3));
    CHECK(chevron_buffer_read(by, 0, y, sizeof y, s1, NULL, 0));
    for (int i = 0; i < N; i++) {
        float want = 3.0f * (float)i + (2.0f * (float)i + 1.0f) * 0.5f;
        REQUIRE(fabsf(y[i] - want) <= 1e-3f * fabsf(want) + 1e-6f, "y[%d] = %g, want %g", i, y[i], want);
    }
    uint32_t indices[N];
    CHECK(chevron_buffer_read(bi, 0, indices, sizeof indices, s2, &t_iota, 1));
    for (int i = 0; i < N; i++) REQUIRE(indices[i] == (uint32_t)i, "iota[%d] = %u", i, indices[i]);

    /* The double overload, on the default stream, with a partial write and a copy. */
    double d[4] = {1.0, 2.0, 3.0, 4.0}, back[4] = {0};
    int four = 4;
    double factor = -2.0;
    CHECK(chevron_buffer_write(bd, 0, d, sizeof d, NULL, NULL, 0, NULL));
    chevron_arg scale_d[] = {CHEVRON_ARG(pd), CHEVRON_ARG(factor), CHEVRON_ARG(four)};
    CHECK(chevron_launch(scale_f64, NULL, CHEVRON_DIM3(1, 1, 1), CHEVRON_DIM3(32, 1, 1), 0, scale_d, 3,
                         NULL, 0, NULL));
    CHECK(chevron_buffer_copy(bx, 0, bd, sizeof(double), 2 * sizeof(double), NULL, NULL, 0, NULL));
    CHECK(chevron_buffer_read(bx, 0, back, 2 * sizeof(double), NULL, NULL, 0));
    REQUIRE(back[0] == -4.0 && back[1] == -6.0, "copied %g %g", back[0], back[1]);

    /* A stream waiting for another stream's token, then synchronized. */
    chevron_token s2_now;
    CHECK(chevron_stream_token(s2, &s2_now));
    CHECK(chevron_stream_wait(s1, &s2_now, 1));
    CHECK(chevron_stream_synchronize(s1));
    CHECK(chevron_device_synchronize(device));

    chevron_token all[] = {wrote_x, filled_y, t1, t2, t3, t_iota, s2_now};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) CHECK(chevron_token_release(all[i]));
    CHECK(chevron_stream_release(s1));
    CHECK(chevron_stream_release(s2));
    chevron_buffer buffers[] = {bx, by, bi, bd};
    for (size_t i = 0; i < 4; i++) CHECK(chevron_buffer_free(buffers[i]));
    chevron_kernel kernels[] = {saxpy, saxpy_signature, scale_f32, scale_f64, iota};
    for (size_t i = 0; i < 5; i++) CHECK(chevron_kernel_release(kernels[i]));
    CHECK(chevron_module_release(from_file));
    printf("capi launch: ok (%d elements, 4 launches chained over 2 streams)\n", N);
    return 0;
}
