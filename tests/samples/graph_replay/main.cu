// A time step of small kernels captured into a CUDA graph once and replayed 400 times, as
// simulation codes amortise launch cost: the capture forks onto a second stream through an
// event (two independent updates run side by side), joins back, and ends with a counter
// kernel: 2 x SUBSTEPS + 4 kernel nodes per replay. Then one kernel node's argument is changed
// in the instantiated graph (cudaGraphExecKernelNodeSetParams) and the graph replayed another
// 100 times. The host advances the same state in the same order; the states must be equal.
// The first argument: the replays before the update.
#include <cstring>
#include <vector>
#include "../common/helpers.h"
#include "step_kernels.cuh"

constexpr int SUBSTEPS = 6;
constexpr int THREADS = 128, BLOCKS = PARTICLES / THREADS;

// One replay on the host; substep 0's accelerate uses k = firstK (0 until the node is updated).
static void hostStep(State &s, int firstK) {
    for (int sub = 0; sub < SUBSTEPS; ++sub) {
        for (int i = 0; i < PARTICLES; ++i) accelerate(s, i, sub == 0 ? firstK : sub);
        for (int i = 0; i < PARTICLES; ++i) move(s, i);
    }
    // account (side stream) and the extra move (main stream) ran side by side: they read
    // velocity and write different fields, so either order gives the same state.
    for (int i = 0; i < PARTICLES; ++i) account(s, i);
    for (int i = 0; i < PARTICLES; ++i) move(s, i);
    for (int i = 0; i < PARTICLES; ++i) damp(s, i);
    s.steps++;
}

int main(int argc, char **argv) {
    int replays = sizeArg(argc, argv, 400);
    if (replays < 1 || replays > 1000000) {
        fprintf(stderr, "graph_replay: replay count %d outside 1..1000000\n", replays);
        return EXIT_FAILURE;
    }
    const int updatedReplays = replays / 4;
    checkCudaErrors(cudaSetDevice(0));
    State *initial = new State();
    for (int i = 0; i < PARTICLES; ++i) {
        initial->position[i] = (i * 37) % 2001 - 1000;
        initial->velocity[i] = (i * 11) % 41 - 20;
        initial->energy[i] = i;
    }
    State *dState;
    checkCudaErrors(cudaMalloc(&dState, sizeof(State)));
    checkCudaErrors(cudaMemcpy(dState, initial, sizeof(State), cudaMemcpyHostToDevice));

    cudaStream_t main, side;
    cudaEvent_t forked, joined;
    checkCudaErrors(cudaStreamCreateWithFlags(&main, cudaStreamNonBlocking));
    checkCudaErrors(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
    checkCudaErrors(cudaEventCreateWithFlags(&forked, cudaEventDisableTiming));
    checkCudaErrors(cudaEventCreateWithFlags(&joined, cudaEventDisableTiming));

    // Capture one step: SUBSTEPS (accelerate, move) pairs; then a fork: account on `side`
    // beside another move on `main` (both read velocity and write different fields); the join;
    // damp and the step counter.
    cudaGraph_t graph;
    checkCudaErrors(cudaStreamBeginCapture(main, cudaStreamCaptureModeGlobal));
    for (int sub = 0; sub < SUBSTEPS; ++sub) {
        accelerateKernel<<<BLOCKS, THREADS, 0, main>>>(dState, sub);
        checkCudaErrors(cudaGetLastError());
        moveKernel<<<BLOCKS, THREADS, 0, main>>>(dState);
        checkCudaErrors(cudaGetLastError());
    }
    checkCudaErrors(cudaEventRecord(forked, main));
    checkCudaErrors(cudaStreamWaitEvent(side, forked, 0));
    accountKernel<<<BLOCKS, THREADS, 0, side>>>(dState);
    checkCudaErrors(cudaGetLastError());
    moveKernel<<<BLOCKS, THREADS, 0, main>>>(dState);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaEventRecord(joined, side));
    checkCudaErrors(cudaStreamWaitEvent(main, joined, 0));
    dampKernel<<<BLOCKS, THREADS, 0, main>>>(dState);
    checkCudaErrors(cudaGetLastError());
    countStep<<<1, 32, 0, main>>>(dState);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaStreamEndCapture(main, &graph));

    size_t nodes = 0;
    checkCudaErrors(cudaGraphGetNodes(graph, nullptr, &nodes));
    cudaGraphExec_t exec;
    checkCudaErrors(cudaGraphInstantiate(&exec, graph, 0));
    for (int r = 0; r < replays; ++r) checkCudaErrors(cudaGraphLaunch(exec, main));
    checkCudaErrors(cudaStreamSynchronize(main));

    // Change the first accelerate node's k from 0 to 100 in the instantiated graph.
    std::vector<cudaGraphNode_t> list(nodes);
    checkCudaErrors(cudaGraphGetNodes(graph, list.data(), &nodes));
    int updated = 0;
    for (cudaGraphNode_t node : list) {
        cudaGraphNodeType type;
        checkCudaErrors(cudaGraphNodeGetType(node, &type));
        if (type != cudaGraphNodeTypeKernel) continue;
        cudaKernelNodeParams params;
        checkCudaErrors(cudaGraphKernelNodeGetParams(node, &params));
        if (params.func != (void *)accelerateKernel || *(int *)params.kernelParams[1] != 0) continue;
        int k = 100;
        void *args[] = {params.kernelParams[0], &k};
        params.kernelParams = args;
        checkCudaErrors(cudaGraphExecKernelNodeSetParams(exec, node, &params));
        ++updated;
    }
    for (int r = 0; r < updatedReplays; ++r) checkCudaErrors(cudaGraphLaunch(exec, main));
    State *got = new State();
    checkCudaErrors(cudaMemcpyAsync(got, dState, sizeof(State), cudaMemcpyDeviceToHost, main));
    checkCudaErrors(cudaStreamSynchronize(main));

    State *expected = initial;
    for (int r = 0; r < replays; ++r) hostStep(*expected, 0);
    for (int r = 0; r < updatedReplays; ++r) hostStep(*expected, 100);
    bool same = memcmp(got, expected, sizeof(State)) == 0;
    printf("graph of %zu nodes replayed %d + %d times (%d node updated): %llu steps, state %s\n", nodes, replays,
           updatedReplays, updated, got->steps, same ? "matches the host" : "DIFFERS from the host");

    checkCudaErrors(cudaGraphExecDestroy(exec));
    checkCudaErrors(cudaGraphDestroy(graph));
    checkCudaErrors(cudaEventDestroy(forked));
    checkCudaErrors(cudaEventDestroy(joined));
    checkCudaErrors(cudaStreamDestroy(main));
    checkCudaErrors(cudaStreamDestroy(side));
    checkCudaErrors(cudaFree(dState));
    delete initial;
    delete got;
    return finish("graph_replay", same && updated == 1);
}
