/* The sanitizer from C: racecheck turned on with chevron_check_configure, a kernel whose
 * threads race on one shared word, and the finding read back as a typed record (check, kind,
 * kernel, both accesses with thread and source line, count), then cleared so that the exit
 * status stays 0. Usage: check_findings RACE.ptx */
#include "check.h"

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    EXPECT_ERROR(chevron_check_configure("racecheck,bogus"), CHEVRON_ERROR_INVALID_VALUE,
                 "unknown check `bogus`");
    CHECK(chevron_check_configure("racecheck"));

    chevron_device device;
    chevron_module module;
    chevron_kernel kernel;
    chevron_buffer out;
    CHECK(chevron_device_get(0, &device));
    CHECK(chevron_module_load_file(device, argv[1], &module));
    CHECK(chevron_module_get_kernel(module, "last_writer", &kernel));
    CHECK(chevron_buffer_alloc(device, sizeof(int), &out));
    uint64_t pout;
    CHECK(chevron_buffer_address(out, &pout));
    chevron_arg args[] = {CHEVRON_ARG(pout)};
    chevron_token done;
    CHECK(chevron_launch(kernel, NULL, CHEVRON_DIM3(1, 1, 1), CHEVRON_DIM3(64, 1, 1), 0, args, 1,
                         NULL, 0, &done));
    int winner = -1;
    CHECK(chevron_buffer_read(out, 0, &winner, sizeof winner, NULL, &done, 1));

    size_t count = 0;
    CHECK(chevron_check_findings(&count));
    if (count != 1) {
        fprintf(stderr, "expected 1 finding, got %zu\n", count);
        return 1;
    }
    chevron_check_finding f;
    CHECK(chevron_check_get_finding(0, &f));
    EXPECT_ERROR(chevron_check_get_finding(1, &f), CHEVRON_ERROR_INVALID_VALUE, "finding 1 of 1");
    CHECK(chevron_check_get_finding(0, &f));
    int ok = strcmp(f.check, "racecheck") == 0 && strcmp(f.kind, "shared-memory race") == 0 &&
             f.kernel && strcmp(f.kernel, "last_writer") == 0 && f.in_kernel == 1 &&
             f.access.write == 1 && f.access.thread[0] == 1 && f.access.file &&
             strcmp(f.access.file, "race.cu") == 0 && f.access.line == 7 && f.has_other == 1 &&
             f.other.write == 1 && f.other.thread[0] == 0 && f.other.line == 7 && f.count == 63 &&
             strstr(f.message, "shared-memory race in kernel `last_writer` at race.cu:7:5") != NULL;
    if (!ok) {
        fprintf(stderr, "unexpected finding: %s (thread %u, line %u, other thread %u, count %llu)\n",
                f.message, f.access.thread[0], f.access.line, f.other.thread[0],
                (unsigned long long)f.count);
        return 1;
    }
    CHECK(chevron_check_clear());
    CHECK(chevron_check_findings(&count));
    if (count != 0) return 1;

    chevron_token_release(done);
    chevron_buffer_free(out);
    chevron_kernel_release(kernel);
    chevron_module_release(module);
    printf("racecheck finding read back: %s, winner %d\n", "race.cu:7", winner);
    return 0;
}
