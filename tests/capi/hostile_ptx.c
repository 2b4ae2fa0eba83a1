/* Hostile PTX from a C host: tiny modules whose declarations ask for absurd resources
 * (gigabytes of shared memory, two billion registers or gigabytes of local memory in a called
 * function rather than the kernel) must be refused with an error status and a message naming
 * the problem, by the load or at the latest by the launch, never abort the process (the CPU
 * device, like CUDA, runs a kernel beside a huge module-scope array it never names). Run under
 * a `ulimit -v` cap, so an allocation attempt cannot hide as an out-of-memory kill. On a CUDA
 * device the driver decides: it refuses the kernel's 1 GiB array and may run the others.
 * Usage: hostile_ptx */
#include "check.h"

#define HEADER ".version 7.0\n.target sm_70\n.address_size 64\n"

struct hostile {
    const char *what;
    const char *ptx;
    const char *needle; /* a word the error must contain */
    int cuda_accepts;   /* the CUDA driver may load and run it (declarations it does not need:
                         * an H200 with driver 580 takes all three so marked); then no crash is
                         * what is checked */
    int cpu_accepts;    /* the CPU device runs it too: a module-scope array the kernel never
                         * names is not its shared memory (each kernel's own is checked) */
};

static const struct hostile CASES[] = {
    {"a 4 GiB shared array", HEADER ".shared .align 4 .b8 huge[4294967295];\n"
                                    ".visible .entry k()\n{\nret;\n}\n",
     "shared", 1, 1},
    {"a 4 GiB shared array the kernel uses",
     HEADER ".shared .align 4 .b8 huge[4294967295];\n"
            ".visible .entry k()\n{\n.reg .b32 %r<2>;\nmov.u32 %r1, huge;\n"
            "st.shared.u32 [%r1], 0;\nret;\n}\n",
     "shared", 0, 0},
    {"a 1 GiB shared array in the kernel",
     HEADER ".visible .entry k()\n{\n.shared .align 4 .b8 huge[1073741824];\nret;\n}\n", "shared", 0, 0},
    {"two billion registers in a called function",
     HEADER ".func f()\n{\n.reg .b64 %rd<2000000000>;\nret;\n}\n"
            ".visible .entry k()\n{\ncall f;\nret;\n}\n",
     "register", 1, 0},
    {"a 2 GiB local array in a called function",
     HEADER ".func f()\n{\n.local .align 8 .b8 frame[2147483648];\nret;\n}\n"
            ".visible .entry k()\n{\ncall f;\nret;\n}\n",
     "local", 1, 0},
};

/* Loads, looks up and launches `c`; returns the status of the first call that failed. */
static chevron_status first_failure(chevron_device device, const struct hostile *c)
{
    chevron_module module;
    chevron_kernel kernel;
    chevron_token done;
    chevron_status status = chevron_module_load(device, c->ptx, 0, &module);
    if (status != CHEVRON_SUCCESS) return status;
    status = chevron_module_get_kernel(module, "k", &kernel);
    if (status == CHEVRON_SUCCESS) {
        status = chevron_launch(kernel, NULL, CHEVRON_DIM3(1, 1, 1), CHEVRON_DIM3(32, 1, 1), 0, NULL,
                                0, NULL, 0, &done);
        if (status == CHEVRON_SUCCESS) {
            status = chevron_token_wait(done);
            CHECK(chevron_token_release(done));
        }
        CHECK(chevron_kernel_release(kernel));
    }
    CHECK(chevron_module_release(module));
    return status;
}

int main(void)
{
    chevron_device device;
    chevron_device_info info;
    CHECK(chevron_device_get(0, &device));
    CHECK(chevron_device_get_info(device, &info));
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const struct hostile *c = &CASES[i];
        chevron_status status = first_failure(device, c);
        if (status == CHEVRON_SUCCESS && c->cpu_accepts && info.backend == CHEVRON_BACKEND_CPU) {
            printf("  %-36s loaded and ran on %s, as on a GPU\n", c->what, info.label);
            continue;
        }
        if (status == CHEVRON_SUCCESS && c->cuda_accepts && info.backend == CHEVRON_BACKEND_CUDA) {
            printf("  %-36s loaded and ran on %s: the CUDA driver accepts it\n", c->what, info.label);
            continue;
        }
        REQUIRE(status != CHEVRON_SUCCESS, "%s: loaded and ran without an error", c->what);
        const char *message = chevron_last_error();
        REQUIRE(strstr(message, c->needle), "%s: the message lacks \"%s\": %s", c->what, c->needle,
                message);
        printf("  %-36s %s: %s\n", c->what, chevron_status_name(status), message);
    }
    puts("capi hostile ptx: ok");
    return 0;
}
