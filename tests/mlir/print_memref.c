/*
 * printMemrefI32/I64/F32/F64 in the exact output format of MLIR's libmlir_runner_utils
 * (MemRefDataPrinter), so that a lowered program can run without the LLVM/MLIR shared libraries
 * (which pull in libLLVM). The caller passes an unranked memref as (rank, descriptor pointer).
 */
#include <stdint.h>
#include <stdio.h>

struct ranked {
    void *alloc;
    void *aligned;
    int64_t offset;
    int64_t dims[]; /* sizes[rank], strides[rank] */
};

enum elem { I32, I64, F32, F64 };

static void print_elem(enum elem e, void *base, int64_t i)
{
    switch (e) {
    case I32: printf("%d", ((int32_t *)base)[i]); break;
    case I64: printf("%lld", (long long)((int64_t *)base)[i]); break;
    case F32: printf("%g", (double)((float *)base)[i]); break;
    case F64: printf("%g", ((double *)base)[i]); break;
    }
}

static void spaces(int64_t n)
{
    for (int64_t i = 0; i < n; i++) putchar(' ');
}

/* Mirrors MemRefDataPrinter<T>::print/printFirst/printLast. */
static void print_data(enum elem e, void *base, int64_t dim, int64_t rank, int64_t offset,
                       const int64_t *sizes, const int64_t *strides)
{
    if (dim == 0) {
        print_elem(e, base, offset);
        return;
    }
    putchar('[');
    print_data(e, base, dim - 1, rank, offset, sizes + 1, strides + 1);
    if (sizes[0] != 1) {
        printf(", ");
        if (dim > 1) putchar('\n');
    }
    for (int64_t i = 1; i + 1 < sizes[0]; i++) {
        spaces(rank - dim + 1);
        print_data(e, base, dim - 1, rank, offset + i * strides[0], sizes + 1, strides + 1);
        printf(", ");
        if (dim > 1) putchar('\n');
    }
    if (sizes[0] <= 1) {
        putchar(']');
        return;
    }
    spaces(rank - dim + 1);
    print_data(e, base, dim - 1, rank, offset + strides[0] * (sizes[0] - 1), sizes + 1,
               strides + 1);
    putchar(']');
}

static void print_memref(enum elem e, int64_t rank, struct ranked *d)
{
    const int64_t *sizes = d->dims, *strides = d->dims + rank;
    printf("Unranked Memref base@ = %p rank = %lld offset = %lld sizes = [", d->aligned,
           (long long)rank, (long long)d->offset);
    for (int64_t i = 0; i < rank; i++) printf("%s%lld", i ? ", " : "", (long long)sizes[i]);
    printf("] strides = [");
    for (int64_t i = 0; i < rank; i++) printf("%s%lld", i ? ", " : "", (long long)strides[i]);
    printf("] data = \n");
    print_data(e, d->aligned, rank, rank, d->offset, sizes, strides);
    putchar('\n');
    fflush(stdout);
}

void printMemrefI32(int64_t rank, void *d) { print_memref(I32, rank, d); }
void printMemrefI64(int64_t rank, void *d) { print_memref(I64, rank, d); }
void printMemrefF32(int64_t rank, void *d) { print_memref(F32, rank, d); }
void printMemrefF64(int64_t rank, void *d) { print_memref(F64, rank, d); }
