/* Misuse of the C API: every mistake gives the right status and a message naming the call,
 * the kernel and the parameter, never a crash. Usage: misuse KERNELS.ptx */
#include "check.h"

int main(int argc, char **argv)
{
    REQUIRE(argc == 2, "usage: misuse KERNELS.ptx");
    chevron_device device;
    chevron_module module;
    chevron_kernel saxpy;
    chevron_stream stream;
    chevron_buffer buffer;
    CHECK(chevron_device_get(0, &device));
    CHECK(chevron_module_load_file(device, argv[1], &module));
    CHECK(chevron_module_get_kernel(module, "saxpy", &saxpy));
    CHECK(chevron_stream_create(device, &stream));
    CHECK(chevron_buffer_alloc(device, 64, &buffer));
    uint64_t p;
    CHECK(chevron_buffer_address(buffer, &p));
    int n = 16;
    float a = 1.0f;
    double wide = 1.0;
    chevron_arg good[] = {CHEVRON_ARG(n), CHEVRON_ARG(a), CHEVRON_ARG(p), CHEVRON_ARG(p)};
    chevron_dim3 one = CHEVRON_DIM3(1, 1, 1), block = CHEVRON_DIM3(32, 1, 1);

    puts("handles:");
    EXPECT_ERROR(chevron_launch(NULL, stream, one, block, 0, good, 4, NULL, 0, NULL),
                 CHEVRON_ERROR_INVALID_HANDLE, "chevron_launch", "kernel handle is NULL");
    EXPECT_ERROR(chevron_launch((chevron_kernel)stream, stream, one, block, 0, good, 4, NULL, 0, NULL),
                 CHEVRON_ERROR_INVALID_HANDLE, "is a stream handle, not a kernel handle");
    EXPECT_ERROR(chevron_stream_synchronize((chevron_stream)(uintptr_t)0x1234),
                 CHEVRON_ERROR_INVALID_HANDLE, "not a chevron handle");
    chevron_kernel released;
    CHECK(chevron_module_get_kernel(module, "iota", &released));
    CHECK(chevron_kernel_release(released));
    EXPECT_ERROR(chevron_kernel_release(released), CHEVRON_ERROR_INVALID_HANDLE, "already released");
    uint32_t iota_n = 4;
    chevron_arg iota_args[] = {CHEVRON_ARG(p), CHEVRON_ARG(iota_n)};
    EXPECT_ERROR(chevron_launch(released, NULL, one, block, 0, iota_args, 2, NULL, 0, NULL),
                 CHEVRON_ERROR_INVALID_HANDLE, "already released");
    /* Launches of the pair launched just before (answered by the thread's launch cache) still
     * see the release of the stream, then of the kernel. */
    chevron_stream brief;
    chevron_kernel iota;
    CHECK(chevron_stream_create(device, &brief));
    CHECK(chevron_module_get_kernel(module, "iota", &iota));
    CHECK(chevron_launch(iota, brief, one, block, 0, iota_args, 2, NULL, 0, NULL));
    CHECK(chevron_launch(iota, brief, one, block, 0, iota_args, 2, NULL, 0, NULL));
    CHECK(chevron_stream_synchronize(brief));
    CHECK(chevron_stream_release(brief));
    EXPECT_ERROR(chevron_launch(iota, brief, one, block, 0, iota_args, 2, NULL, 0, NULL),
                 CHEVRON_ERROR_INVALID_HANDLE, "stream handle", "already released");
    CHECK(chevron_launch(iota, NULL, one, block, 0, iota_args, 2, NULL, 0, NULL));
    CHECK(chevron_kernel_release(iota));
    EXPECT_ERROR(chevron_launch(iota, NULL, one, block, 0, iota_args, 2, NULL, 0, NULL),
                 CHEVRON_ERROR_INVALID_HANDLE, "kernel handle", "already released");
    /* A released handle stays invalid while its slot is reused by later objects: it never
     * names another owner's object (release/create cycles never hand it out again). */
    chevron_buffer first, latest;
    CHECK(chevron_buffer_alloc(device, 16, &first));
    CHECK(chevron_buffer_free(first));
    for (int cycle = 0; cycle < 10000; cycle++) {
        CHECK(chevron_buffer_alloc(device, 16, &latest));
        REQUIRE(latest != first, "cycle %d reissued the released handle %p", cycle, (void *)first);
        size_t size;
        REQUIRE(chevron_buffer_size(first, &size) == CHEVRON_ERROR_INVALID_HANDLE, "cycle %d", cycle);
        CHECK(chevron_buffer_free(latest));
    }
    EXPECT_ERROR(chevron_buffer_free(first), CHEVRON_ERROR_INVALID_HANDLE, "buffer handle",
                 "already released");
    EXPECT_ERROR(chevron_buffer_free(latest), CHEVRON_ERROR_INVALID_HANDLE, "already released");
    EXPECT_ERROR(chevron_device_get(99, &device), CHEVRON_ERROR_NOT_FOUND, "device 99");
    EXPECT_ERROR(chevron_device_get(0, NULL), CHEVRON_ERROR_INVALID_VALUE, "`device` is NULL");

    puts("arguments:");
    EXPECT_ERROR(chevron_launch(saxpy, stream, one, block, 0, good, 3, NULL, 0, NULL),
                 CHEVRON_ERROR_ARGUMENT, "saxpy(int, float, float const*, float*)",
                 "takes 4 parameters", "got 3 arguments");
    chevron_arg too_wide[] = {CHEVRON_ARG(n), CHEVRON_ARG(wide), CHEVRON_ARG(p), CHEVRON_ARG(p)};
    EXPECT_ERROR(chevron_launch(saxpy, stream, one, block, 0, too_wide, 4, NULL, 0, NULL),
                 CHEVRON_ERROR_ARGUMENT, "saxpy(int, float, float const*, float*)", "parameter 1",
                 "is 4 bytes, got 8 bytes");
    EXPECT_ERROR(chevron_launch(saxpy, stream, one, block, 0, NULL, 4, NULL, 0, NULL),
                 CHEVRON_ERROR_INVALID_VALUE, "`args` is NULL");
    /* A launch that passed its checks lets later launches of the same shape skip them, never
     * launches of another shape: other sizes, a NULL value or a configuration over the limits
     * right after a good launch are refused as before. */
    CHECK(chevron_launch(saxpy, stream, one, block, 0, good, 4, NULL, 0, NULL));
    EXPECT_ERROR(chevron_launch(saxpy, stream, one, block, 0, too_wide, 4, NULL, 0, NULL),
                 CHEVRON_ERROR_ARGUMENT, "parameter 1", "is 4 bytes, got 8 bytes");
    CHECK(chevron_launch(saxpy, stream, one, block, 0, good, 4, NULL, 0, NULL));
    chevron_arg null_value[] = {CHEVRON_ARG(n), CHEVRON_ARG(a), {NULL, sizeof p}, CHEVRON_ARG(p)};
    EXPECT_ERROR(chevron_launch(saxpy, stream, one, block, 0, null_value, 4, NULL, 0, NULL),
                 CHEVRON_ERROR_ARGUMENT, "argument 2 has a NULL value pointer");
    CHECK(chevron_launch(saxpy, stream, one, block, 0, good, 4, NULL, 0, NULL));
    EXPECT_ERROR(chevron_launch(saxpy, stream, one, CHEVRON_DIM3(4096, 1, 1), 0, good, 4, NULL, 0, NULL),
                 CHEVRON_ERROR_LAUNCH_CONFIG, "saxpy", "block");
    CHECK(chevron_launch(saxpy, stream, one, block, 0, good, 4, NULL, 0, NULL));
    CHECK(chevron_stream_synchronize(stream));
    /* Absurd counts are refused before the arrays are read. */
    EXPECT_ERROR(chevron_launch(saxpy, stream, one, block, 0, good, (size_t)1 << 62, NULL, 0, NULL),
                 CHEVRON_ERROR_INVALID_VALUE, "`nargs`", "is not a count");
    EXPECT_ERROR(chevron_launch(saxpy, stream, one, block, 0, good, 1000000, NULL, 0, NULL),
                 CHEVRON_ERROR_ARGUMENT, "takes 4 parameters", "got 1000000 arguments");
    chevron_token no_tokens[1] = {NULL};
    EXPECT_ERROR(chevron_launch(saxpy, stream, one, block, 0, good, 4, no_tokens, (size_t)1 << 62, NULL),
                 CHEVRON_ERROR_INVALID_VALUE, "`ndeps`", "is not a count");
    /* A count mismatch names a few parameters and counts the rest. */
    static char wide_ptx[4096];
    int used = snprintf(wide_ptx, sizeof wide_ptx, ".version 7.0\n.target sm_70\n.address_size 64\n"
                                                   ".visible .entry wide(");
    for (int i = 0; i < 100; i++)
        used += snprintf(wide_ptx + used, sizeof wide_ptx - (size_t)used, "%s.param .u32 w%d",
                         i ? ", " : "", i);
    snprintf(wide_ptx + used, sizeof wide_ptx - (size_t)used, ")\n{\nret;\n}\n");
    chevron_module wide_module;
    chevron_kernel hundred;
    CHECK(chevron_module_load(device, wide_ptx, 0, &wide_module));
    CHECK(chevron_module_get_kernel(wide_module, "wide", &hundred));
    EXPECT_ERROR(chevron_launch(hundred, stream, one, block, 0, good, 1, NULL, 0, NULL),
                 CHEVRON_ERROR_ARGUMENT, "takes 100 parameters", "`w7`, … 92 more), got 1");
    REQUIRE(strlen(chevron_last_error()) < 300, "long message: %s", chevron_last_error());
    CHECK(chevron_kernel_release(hundred));
    CHECK(chevron_module_release(wide_module));
    EXPECT_ERROR(chevron_launch(saxpy, stream, one, block, 0, good, 4, NULL, 2, NULL),
                 CHEVRON_ERROR_INVALID_VALUE, "`deps` is NULL");
    EXPECT_ERROR(chevron_launch(saxpy, stream, one, CHEVRON_DIM3(4096, 1, 1), 0, good, 4, NULL, 0, NULL),
                 CHEVRON_ERROR_LAUNCH_CONFIG, "saxpy(int, float, float const*, float*)", "4096");

    puts("lookups and code objects:");
    chevron_kernel k;
    EXPECT_ERROR(chevron_module_get_kernel(module, "saxpi", &k), CHEVRON_ERROR_NOT_FOUND, "saxpi");
    EXPECT_ERROR(chevron_module_get_kernel(module, "scale", &k), CHEVRON_ERROR_INVALID_VALUE,
                 "scale(float*, float, int)", "scale(double*, double, int)");
    chevron_module m;
    EXPECT_ERROR(chevron_module_load(device, ".version 7.0\n.target sm_50\n.entry broken(", 0, &m),
                 CHEVRON_ERROR_CODE_OBJECT, "chevron_module_load");
    EXPECT_ERROR(chevron_module_load_file(device, "/nonexistent/k.ptx", &m), CHEVRON_ERROR_IO,
                 "/nonexistent/k.ptx");

    puts("buffers:");
    float host[32];
    EXPECT_ERROR(chevron_buffer_write(buffer, 48, host, 32, NULL, NULL, 0, NULL),
                 CHEVRON_ERROR_INVALID_VALUE, "32 bytes at offset 48 exceed the buffer's 64 bytes");
    EXPECT_ERROR(chevron_buffer_read(buffer, 0, NULL, 4, NULL, NULL, 0), CHEVRON_ERROR_INVALID_VALUE,
                 "`dst` is NULL");
    EXPECT_ERROR(chevron_buffer_memset(buffer, 0, 0, 3, 4, NULL, NULL, 0, NULL),
                 CHEVRON_ERROR_INVALID_VALUE, "1, 2 or 4");
    chevron_buffer huge;
    EXPECT_ERROR(chevron_buffer_alloc(device, SIZE_MAX, &huge), CHEVRON_ERROR_DRIVER,
                 "chevron_buffer_alloc", "OUT_OF_MEMORY");

    chevron_device_info info;
    CHECK(chevron_device_get_info(device, &info));
    if (info.backend == CHEVRON_BACKEND_CUDA) {
        /* On CUDA a fault poisons the whole context, and every later call of the process fails. */
        puts("faults: skipped on CUDA");
        puts("capi misuse: ok");
        return 0;
    }
    puts("faults:");
    /* x points nowhere: the launch is accepted, its fault reported by the wait, naming it. */
    uint64_t nowhere = 0x10;
    chevron_arg faulty[] = {CHEVRON_ARG(n), CHEVRON_ARG(a), CHEVRON_ARG(nowhere), CHEVRON_ARG(p)};
    chevron_stream doomed;
    chevron_token fault;
    CHECK(chevron_stream_create(device, &doomed));
    CHECK(chevron_launch(saxpy, doomed, one, block, 0, faulty, 4, NULL, 0, &fault));
    EXPECT_ERROR(chevron_token_wait(fault), CHEVRON_ERROR_FAULT, "chevron_token_wait", "saxpy");
    /* The fault's class: a load from address 0x10 is an illegal address; NULL is accepted. */
    int32_t driver_code = -1;
    REQUIRE(chevron_last_fault_kind(&driver_code) == CHEVRON_FAULT_ILLEGAL_ADDRESS, "fault kind");
    REQUIRE(driver_code == 0, "no driver code on the CPU device");
    REQUIRE(chevron_last_fault_kind(NULL) == CHEVRON_FAULT_ILLEGAL_ADDRESS, "fault kind, NULL");
    CHECK(chevron_token_release(fault));
    CHECK(chevron_stream_release(doomed));

    /* The healthy stream still works after all of the above. */
    chevron_token ok;
    CHECK(chevron_launch(saxpy, stream, one, block, 0, good, 4, NULL, 0, &ok));
    CHECK(chevron_token_wait(ok));
    REQUIRE(strcmp(chevron_status_name(CHEVRON_ERROR_FAULT), "CHEVRON_ERROR_FAULT") == 0, "name");
    REQUIRE(strcmp(chevron_status_name(CHEVRON_ERROR_TIMEOUT), "CHEVRON_ERROR_TIMEOUT") == 0,
            "timeout name");
    REQUIRE(strcmp(chevron_status_name(1234), "unknown status") == 0, "unknown name");
    puts("capi misuse: ok");
    return 0;
}
