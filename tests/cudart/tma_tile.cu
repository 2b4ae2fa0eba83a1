// TMA (sm_90) checked against host references: a 2D tensor map made by cuTensorMapEncodeTiled
// (obtained through cudaGetDriverEntryPointByVersion, as CUDA's samples do) drives
// cp.async.bulk.tensor loads into shared memory, completed on an mbarrier, and bulk tensor
// stores back to global memory. The tensor is not a multiple of the box: elements outside it
// load as zero and are not stored.
#include <cuda.h>
#include <cuda/ptx>
#include <cudaTypedefs.h>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                          \
    do {                                                                                     \
        cudaError_t err_ = (call);                                                           \
        if (err_ != cudaSuccess) {                                                           \
            printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorName(err_));               \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

constexpr int WIDTH = 100, HEIGHT = 37, BOX_X = 32, BOX_Y = 8;

// Block (bx, by) loads the tile at (bx * BOX_X, by * BOX_Y), keeps a copy of what it loaded in
// `tiles`, doubles it and stores it to `out`'s tensor map.
__global__ void tile_copy(const __grid_constant__ CUtensorMap in, const __grid_constant__ CUtensorMap out,
                          float *tiles) {
    __shared__ alignas(128) float tile[BOX_Y][BOX_X];
    __shared__ alignas(8) uint64_t bar;
    int x = blockIdx.x * BOX_X, y = blockIdx.y * BOX_Y;
    if (threadIdx.x == 0) {
        cuda::ptx::mbarrier_init(&bar, blockDim.x);
        cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        int coords[2] = {x, y};
        cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, tile,
                                        &in, coords, &bar);
        (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                                   cuda::ptx::space_shared, &bar, sizeof tile);
    } else {
        (void)cuda::ptx::mbarrier_arrive(&bar);
    }
    while (!cuda::ptx::mbarrier_try_wait_parity(&bar, 0)) {
    }
    int block = blockIdx.y * gridDim.x + blockIdx.x;
    for (int i = threadIdx.x; i < BOX_X * BOX_Y; i += blockDim.x) {
        float v = tile[i / BOX_X][i % BOX_X];
        tiles[block * BOX_X * BOX_Y + i] = v;
        tile[i / BOX_X][i % BOX_X] = 2 * v;
    }
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    __syncthreads();
    if (threadIdx.x == 0) {
        int coords[2] = {x, y};
        cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, &out,
                                        coords, tile);
        cuda::ptx::cp_async_bulk_commit_group();
        cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>());
    }
}

static CUtensorMap make_map(PFN_cuTensorMapEncodeTiled_v12000 encode, float *base) {
    CUtensorMap map;
    cuuint64_t dims[2] = {WIDTH, HEIGHT};
    cuuint64_t strides[1] = {WIDTH * sizeof(float)};
    cuuint32_t box[2] = {BOX_X, BOX_Y};
    cuuint32_t element_strides[2] = {1, 1};
    CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, base, dims, strides, box,
                        element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                        CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        printf("cuTensorMapEncodeTiled: %d\n", (int)r);
        exit(1);
    }
    return map;
}

int main() {
    int failures = 0;
    void *entry = nullptr;
    cudaDriverEntryPointQueryResult found;
    CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &entry, 12000,
                                           cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || !entry) {
        printf("tma_tile: cuTensorMapEncodeTiled not found\n");
        return 1;
    }
    auto encode = (PFN_cuTensorMapEncodeTiled_v12000)entry;

    // Pitch WIDTH floats is 400 bytes, a multiple of 16.
    static float host[HEIGHT][WIDTH];
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) host[y][x] = y * 1000 + x + 1;
    const int gx = (WIDTH + BOX_X - 1) / BOX_X, gy = (HEIGHT + BOX_Y - 1) / BOX_Y;
    float *d_in, *d_out, *d_tiles;
    CHECK(cudaMalloc(&d_in, sizeof host));
    CHECK(cudaMalloc(&d_out, sizeof host));
    CHECK(cudaMalloc(&d_tiles, gx * gy * BOX_X * BOX_Y * sizeof(float)));
    CHECK(cudaMemcpy(d_in, host, sizeof host, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_out, 0xff, sizeof host));
    CUtensorMap in = make_map(encode, d_in), out = make_map(encode, d_out);
    tile_copy<<<dim3(gx, gy), 128>>>(in, out, d_tiles);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    static float got[HEIGHT][WIDTH];
    static float tiles[gx * gy][BOX_Y][BOX_X];
    CHECK(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(tiles, d_tiles, sizeof tiles, cudaMemcpyDeviceToHost));
    for (int by = 0; by < gy; by++)
        for (int bx = 0; bx < gx; bx++)
            for (int r = 0; r < BOX_Y; r++)
                for (int c = 0; c < BOX_X; c++) {
                    int x = bx * BOX_X + c, y = by * BOX_Y + r;
                    float want = (x < WIDTH && y < HEIGHT) ? host[y][x] : 0.0f;
                    float have = tiles[by * gx + bx][r][c];
                    if (have != want && failures++ < 5)
                        printf("tile (%d, %d) element (%d, %d): %g, expected %g\n", bx, by, c, r,
                               have, want);
                }
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++)
            if (got[y][x] != 2 * host[y][x] && failures++ < 10)
                printf("out (%d, %d): %g, expected %g\n", x, y, got[y][x], 2 * host[y][x]);

    // A box wider than 256 elements is refused.
    CUtensorMap bad;
    cuuint64_t dims[2] = {WIDTH, HEIGHT};
    cuuint64_t strides[1] = {WIDTH * sizeof(float)};
    cuuint32_t box[2] = {512, 1}, element_strides[2] = {1, 1};
    if (encode(&bad, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, d_in, dims, strides, box, element_strides,
               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
               CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS) {
        printf("a box of 512 elements was accepted\n");
        failures++;
    }
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_tiles));
    if (failures) {
        printf("tma_tile: %d failures\n", failures);
        return 1;
    }
    printf("tma_tile: ok\n");
    return 0;
}
