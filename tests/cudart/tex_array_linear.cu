// The deprecated linear array copies (cudaMemcpyToArray, cudaMemcpyFromArray,
// cudaMemcpyArrayToArray): `count` bytes in each array's row-major order from a byte column and
// a row, spanning rows, between arrays of different widths. Prints every byte of the arrays
// after each copy (so a GPU run under NVIDIA's runtime and one under chevron can be compared)
// and checks them against a host model: in row-major order a linear copy is one memcpy.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(x)                                                                              \
    do {                                                                                      \
        cudaError_t e = (x);                                                                  \
        if (e != cudaSuccess) {                                                               \
            printf("%s failed: %s (line %d)\n", #x, cudaGetErrorName(e), __LINE__);           \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

#pragma nv_diag_suppress 1444 // the linear array copies are deprecated
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static int wrong = 0;

// Prints the array and compares it with its model.
static void dump(const char *what, cudaArray_t array, const unsigned char *model, int width,
                 int height) {
    unsigned char host[16 * 8];
    CHECK(cudaMemcpy2DFromArray(host, width, array, 0, 0, width, height, cudaMemcpyDeviceToHost));
    printf("%s:\n", what);
    for (int y = 0; y < height; ++y) {
        printf(" ");
        for (int x = 0; x < width; ++x) printf(" %02x", host[y * width + x]);
        printf("\n");
    }
    if (memcmp(host, model, width * height) != 0) {
        printf("  differs from the model\n");
        ++wrong;
    }
}

int main() {
    cudaChannelFormatDesc byte = cudaCreateChannelDesc<unsigned char>();
    cudaArray_t a, b;
    CHECK(cudaMallocArray(&a, &byte, 16, 4));
    CHECK(cudaMallocArray(&b, &byte, 12, 5));
    unsigned char pattern[16 * 4], zeros[12 * 5] = {0};
    for (int i = 0; i < 16 * 4; ++i) pattern[i] = (unsigned char)(i * 7 + 3);
    CHECK(cudaMemcpy2DToArray(a, 0, 0, pattern, 16, 16, 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy2DToArray(b, 0, 0, zeros, 12, 12, 5, cudaMemcpyHostToDevice));
    unsigned char ma[16 * 4], mb[12 * 5]; // the model: each array in row-major order
    memcpy(ma, pattern, sizeof ma);
    memcpy(mb, zeros, sizeof mb);

    // Array to array: 40 bytes from (3, 1) of a 16-wide array to (5, 0) of a 12-wide one.
    CHECK(cudaMemcpyArrayToArray(b, 5, 0, a, 3, 1, 40, cudaMemcpyDeviceToDevice));
    memcpy(mb + 5, ma + 16 + 3, 40);
    dump("b after 40 bytes from a (3, 1) to b (5, 0)", b, mb, 12, 5);
    // Whole rows of equal width: a's rows 0-1 into a itself at rows 2-3 would overlap; use b.
    CHECK(cudaMemcpyArrayToArray(b, 0, 3, b, 0, 0, 24, cudaMemcpyDeviceToDevice));
    memcpy(mb + 36, mb, 24);
    dump("b after its rows 0-1 copied to rows 3-4", b, mb, 12, 5);

    // Host to array and back, linear, spanning rows.
    unsigned char line[30];
    for (int i = 0; i < 30; ++i) line[i] = (unsigned char)(0xa0 + i);
    CHECK(cudaMemcpyToArray(a, 10, 1, line, 30, cudaMemcpyHostToDevice));
    memcpy(ma + 16 + 10, line, 30);
    dump("a after 30 bytes to (10, 1)", a, ma, 16, 4);
    unsigned char back[21];
    memset(back, 0, sizeof back);
    CHECK(cudaMemcpyFromArray(back, a, 13, 0, 21, cudaMemcpyDeviceToHost));
    printf("21 bytes from a (13, 0):");
    for (int i = 0; i < 21; ++i) printf(" %02x", back[i]);
    printf("\n");
    if (memcmp(back, ma + 13, 21) != 0) {
        printf("  differs from the model\n");
        ++wrong;
    }

    // Past the end of an array: refused. (What is left in b differs: NVIDIA's runtime copies
    // the 12 bytes that fit before answering, measured on an H200; chevron copies nothing.)
    cudaError_t past = cudaMemcpyArrayToArray(b, 0, 4, a, 0, 0, 20, cudaMemcpyDeviceToDevice);
    printf("20 bytes into b's last row of 12: %s\n", cudaGetErrorName(past));
    wrong += past != cudaErrorInvalidValue;
    cudaGetLastError();

    CHECK(cudaFreeArray(a));
    CHECK(cudaFreeArray(b));
    printf(wrong ? "tex_array_linear: %d wrong\n" : "tex_array_linear: passed\n", wrong);
    return wrong != 0;
}
