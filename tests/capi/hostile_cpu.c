/* Hostile PTX through the C API on the CPU device: declarations beyond the device's limits are
 * load errors (never an abort), and a spinning kernel ends with CHEVRON_ERROR_TIMEOUT naming
 * its PTX line. Usage: hostile_cpu */
#include "check.h"

#define HEADER ".version 7.0\n.target sm_70\n.address_size 64\n"

static const char *registers = HEADER ".visible .entry k() { .reg .b32 %r<2000000000>; ret; }";
static const char *local_array =
    HEADER ".visible .entry k() { .local .align 4 .b8 buf[4294967295]; ret; }";
static const char *huge_global =
    HEADER ".global .align 4 .b8 big[16000000000];\n.visible .entry k() { ret; }";
static const char *spin = HEADER ".visible .entry spin()\n{\n.reg .b32 %r<2>;\nLOOP:\n"
                                 "add.u32 %r1, %r1, 1;\nbra LOOP;\n}\n";

int main(void)
{
    chevron_device device;
    chevron_module module;
    CHECK(chevron_device_get(0, &device));
    puts("declarations:");
    EXPECT_ERROR(chevron_module_load(device, registers, 0, &module), CHEVRON_ERROR_CODE_OBJECT,
                 "registers, more than the 65536");
    EXPECT_ERROR(chevron_module_load(device, local_array, 0, &module), CHEVRON_ERROR_CODE_OBJECT,
                 "uses too much local data");
    EXPECT_ERROR(chevron_module_load(device, huge_global, 0, &module), CHEVRON_ERROR_DRIVER,
                 "OUT_OF_MEMORY");

    puts("deadline:");
    chevron_kernel kernel;
    chevron_stream stream;
    chevron_token token;
    CHECK(chevron_module_load(device, spin, 0, &module));
    CHECK(chevron_module_get_kernel(module, "spin", &kernel));
    CHECK(chevron_stream_create(device, &stream));
    chevron_dim3 grid = CHEVRON_DIM3(2, 1, 1), block = CHEVRON_DIM3(32, 1, 1);
    CHECK(chevron_launch(kernel, stream, grid, block, 0, NULL, 0, NULL, 0, &token));
    EXPECT_ERROR(chevron_token_wait_timeout(token, 200), CHEVRON_ERROR_TIMEOUT, "kernel `spin`",
                 "32 at PTX line 8");
    CHECK(chevron_token_release(token));
    puts("hostile_cpu: all checks passed");
    return 0;
}
