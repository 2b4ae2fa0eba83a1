/* Graphs from C: a recorded fill, copy and launches replayed like eager calls, a node's
 * arguments changed between replays, errors naming the kernel and parameter, and automatic
 * replay of a launch sequence repeated between synchronizations. Usage: graph KERNELS.ptx */
#include "check.h"

enum { N = 256, BLOCK = 128 };

int main(int argc, char **argv)
{
    REQUIRE(argc == 2, "usage: graph KERNELS.ptx");
    chevron_device device;
    chevron_module module;
    chevron_kernel saxpy, iota;
    chevron_stream stream;
    chevron_buffer dx, dy;
    CHECK(chevron_device_get(0, &device));
    CHECK(chevron_module_load_file(device, argv[1], &module));
    CHECK(chevron_module_get_kernel(module, "saxpy", &saxpy));
    CHECK(chevron_module_get_kernel(module, "iota", &iota));
    CHECK(chevron_stream_create(device, &stream));
    CHECK(chevron_buffer_alloc(device, N * sizeof(float), &dx));
    CHECK(chevron_buffer_alloc(device, N * sizeof(float), &dy));
    uint64_t px, py;
    CHECK(chevron_buffer_address(dx, &px));
    CHECK(chevron_buffer_address(dy, &py));

    /* y = 0; x = 1..N; y = 2x + y; y = 3x + y, recorded once. */
    float x[N], y[N];
    for (int i = 0; i < N; i++) x[i] = (float)(i + 1);
    int n = N;
    float two = 2.0f, three = 3.0f;
    chevron_arg first[] = {CHEVRON_ARG(n), CHEVRON_ARG(two), CHEVRON_ARG(px), CHEVRON_ARG(py)};
    chevron_arg second[] = {CHEVRON_ARG(n), CHEVRON_ARG(three), CHEVRON_ARG(px), CHEVRON_ARG(py)};
    chevron_dim3 grid = CHEVRON_DIM3((N + BLOCK - 1) / BLOCK, 1, 1), block = CHEVRON_DIM3(BLOCK, 1, 1);
    chevron_graph graph;
    size_t node = 0;
    CHECK(chevron_graph_begin(stream, &graph));
    CHECK(chevron_graph_add_fill(graph, dy, 0, NULL));
    CHECK(chevron_graph_add_copy_to_device(graph, dx, x, sizeof x, NULL));
    CHECK(chevron_graph_add_launch(graph, saxpy, grid, block, 0, first, 4, NULL));
    CHECK(chevron_graph_add_launch(graph, saxpy, grid, block, 0, second, 4, &node));
    REQUIRE(node == 3, "the fourth node has index %zu", node);
    EXPECT_ERROR(chevron_graph_launch(graph, stream, NULL, 0, NULL), CHEVRON_ERROR_INVALID_VALUE,
                 "still recording");
    CHECK(chevron_graph_end(graph));

    chevron_token done;
    CHECK(chevron_graph_launch(graph, stream, NULL, 0, &done));
    CHECK(chevron_buffer_read(dy, 0, y, sizeof y, NULL, &done, 1));
    REQUIRE(y[9] == 50.0f, "y[9] = %g after one replay, expected 5 * 10", y[9]);
    chevron_token_release(done);

    float four = 4.0f;
    chevron_arg changed[] = {CHEVRON_ARG(n), CHEVRON_ARG(four), CHEVRON_ARG(px), CHEVRON_ARG(py)};
    CHECK(chevron_graph_set_args(graph, node, changed, 4));
    CHECK(chevron_graph_launch(graph, stream, NULL, 0, &done));
    CHECK(chevron_buffer_read(dy, 0, y, sizeof y, NULL, &done, 1));
    REQUIRE(y[9] == 60.0f, "y[9] = %g after the update, expected 6 * 10", y[9]);
    chevron_token_release(done);

    double wide = 4.0;
    chevron_arg wrong[] = {CHEVRON_ARG(n), CHEVRON_ARG(wide), CHEVRON_ARG(px), CHEVRON_ARG(py)};
    EXPECT_ERROR(chevron_graph_set_args(graph, node, wrong, 4), CHEVRON_ERROR_ARGUMENT, "saxpy",
                 "parameter 1");
    EXPECT_ERROR(chevron_graph_set_args(graph, 0, changed, 4), CHEVRON_ERROR_INVALID_VALUE,
                 "not a kernel launch");
    /* An argument claiming 2^40 bytes is refused before a byte of it is copied (the copy
     * would abort under the script's ulimit -v), on every path that takes argument values. */
    chevron_arg huge[] = {CHEVRON_ARG(n), {(const void *)&four, (size_t)1 << 40}, CHEVRON_ARG(px),
                          CHEVRON_ARG(py)};
    EXPECT_ERROR(chevron_graph_set_args(graph, node, huge, 4), CHEVRON_ERROR_INVALID_VALUE,
                 "1099511627776 bytes");
    chevron_graph recording;
    CHECK(chevron_graph_begin(stream, &recording));
    EXPECT_ERROR(chevron_graph_add_launch(recording, saxpy, grid, block, 0, huge, 4, NULL),
                 CHEVRON_ERROR_INVALID_VALUE, "1099511627776 bytes");
    CHECK(chevron_graph_release(recording));
    CHECK(chevron_graph_release(graph));
    EXPECT_ERROR(chevron_graph_release(graph), CHEVRON_ERROR_INVALID_HANDLE, "graph");

    /* A recording whose launch does not match the kernel fails at chevron_graph_end. */
    CHECK(chevron_graph_begin(stream, &graph));
    CHECK(chevron_graph_add_launch(graph, saxpy, grid, block, 0, first, 3, NULL));
    EXPECT_ERROR(chevron_graph_end(graph), CHEVRON_ERROR_ARGUMENT, "saxpy", "takes 4 parameters");
    CHECK(chevron_graph_release(graph));

    /* Automatic replay: the same two launches between synchronizations, five times. */
    CHECK(chevron_stream_auto_graph(stream, true));
    uint32_t out[N];
    for (int rep = 0; rep < 5; rep++) {
        int count = N - rep;
        chevron_arg fill[] = {CHEVRON_ARG(py), CHEVRON_ARG(count)};
        CHECK(chevron_launch(iota, stream, grid, block, 0, fill, 2, NULL, 0, NULL));
        CHECK(chevron_launch(iota, stream, grid, block, 0, fill, 2, NULL, 0, NULL));
        CHECK(chevron_stream_synchronize(stream));
        CHECK(chevron_buffer_read(dy, 0, out, sizeof out, stream, NULL, 0));
        REQUIRE(out[N - 1 - rep] == (uint32_t)(N - 1 - rep), "iota missed element %d", N - 1 - rep);
    }
    /* Repetition 0 teaches the sequence; 1 to 4 replay it as a graph. */
    uint64_t replays = 0, replayed = 0, eager = 0;
    CHECK(chevron_stream_auto_graph_stats(stream, &replays, &replayed, &eager));
    REQUIRE(replays == 4 && replayed == 8 && eager == 2,
            "auto replay: %llu replays of %llu launches, %llu eager", (unsigned long long)replays,
            (unsigned long long)replayed, (unsigned long long)eager);
    CHECK(chevron_stream_auto_graph(stream, false));

    chevron_buffer_free(dx);
    chevron_buffer_free(dy);
    chevron_stream_release(stream);
    chevron_kernel_release(saxpy);
    chevron_kernel_release(iota);
    chevron_module_release(module);
    printf("graph: recorded, replayed, updated and auto-replayed\n");
    return 0;
}
