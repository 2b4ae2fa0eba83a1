// Driver-API graphs: a graph built node by node (fill, copy, kernel, host function, empty join)
// launched twice; a graph captured from a stream (cuLaunchKernel, cuMemsetD32Async) launched on
// another; instantiation with parameters; user objects released with their graphs; the
// errors for a bad handle and a capture of the default stream; memory and event nodes, a
// kernel node's attribute and the device's graph memory. Usage: graphs KERNELS.ptx
#include <string.h>
#include <time.h>

#include "check.h"

static int host_runs = 0;
static volatile int destroyed = 0;

static void CUDA_CB on_host(void *data) { host_runs += *(int *)data; }
static void CUDA_CB on_destroy(void *data) { destroyed += *(int *)data; }

int main(int argc, char **argv) {
    EXPECT(argc == 2);
    CHECK(cuInit(0));
    CUdevice dev;
    CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    char *ptx = read_file(argv[1], NULL);
    CUmodule module;
    CHECK(cuModuleLoadData(&module, ptx));
    CUfunction add_one;
    CHECK(cuModuleGetFunction(&add_one, module, "add_one"));

    enum { N = 1000 };
    CUdeviceptr x, y;
    CHECK(cuMemAlloc(&x, N * sizeof(int)));
    CHECK(cuMemAlloc(&y, N * sizeof(int)));
    static int host[N];
    CUstream stream;
    CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

    // Built by hand: fill x with 5, add one, copy x to y, then a host function and a join.
    CUgraph graph;
    CHECK(cuGraphCreate(&graph, 0));
    CUgraphNode fill, kernel, copy, host_node, join;
    CUDA_MEMSET_NODE_PARAMS memset = {0};
    memset.dst = x;
    memset.value = 5;
    memset.elementSize = 4;
    memset.width = N;
    memset.height = 1;
    CHECK(cuGraphAddMemsetNode(&fill, graph, NULL, 0, &memset, ctx));
    int n = N;
    void *args[] = {&x, &n};
    CUDA_KERNEL_NODE_PARAMS launch = {0};
    launch.func = add_one;
    launch.gridDimX = (N + 127) / 128;
    launch.gridDimY = launch.gridDimZ = 1;
    launch.blockDimX = 128;
    launch.blockDimY = launch.blockDimZ = 1;
    launch.kernelParams = args;
    CHECK(cuGraphAddKernelNode(&kernel, graph, &fill, 1, &launch));
    CUDA_MEMCPY3D copy_params = {0};
    copy_params.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    copy_params.srcDevice = x;
    copy_params.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    copy_params.dstDevice = y;
    copy_params.WidthInBytes = N * sizeof(int);
    copy_params.Height = 1;
    copy_params.Depth = 1;
    CHECK(cuGraphAddMemcpyNode(&copy, graph, &kernel, 1, &copy_params, ctx));
    int one = 1;
    CUDA_HOST_NODE_PARAMS host_params = {on_host, &one};
    CHECK(cuGraphAddHostNode(&host_node, graph, &copy, 1, &host_params));
    CUgraphNode both[] = {copy, host_node};
    CHECK(cuGraphAddEmptyNode(&join, graph, both, 2));

    // A user object the graph holds: destroyed with the last of the graph and its exec.
    CUuserObject object;
    int weight = 10;
    CHECK(cuUserObjectCreate(&object, &weight, on_destroy, 1, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC));
    CHECK(cuGraphRetainUserObject(graph, object, 1, CU_GRAPH_USER_OBJECT_MOVE));

    CUgraphExec exec;
    CHECK(cuGraphInstantiate(&exec, graph, 0));
    CHECK(cuGraphDestroy(graph));
    EXPECT(destroyed == 0);
    for (int round = 0; round < 2; round++) CHECK(cuGraphLaunch(exec, stream));
    CHECK(cuStreamSynchronize(stream));
    CHECK(cuMemcpyDtoH(host, y, sizeof host));
    for (int i = 0; i < N; i++) EXPECT(host[i] == 6);
    EXPECT(host_runs == 2);
    CHECK(cuGraphExecDestroy(exec));
    // CUDA runs a user object's destructor asynchronously, once nothing holds the object: wait
    // for it (up to two seconds), as a program must.
    CHECK(cuCtxSynchronize());
    for (int waited = 0; destroyed != 10 && waited < 2000; waited++) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    EXPECT(destroyed == 10);

    // Captured: a fill and two launches on a capturing stream become a graph.
    CUstream capturing;
    CHECK(cuStreamCreate(&capturing, CU_STREAM_NON_BLOCKING));
    CHECK(cuStreamBeginCapture(capturing, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CUstreamCaptureStatus status;
    CHECK(cuStreamIsCapturing(capturing, &status));
    EXPECT(status == CU_STREAM_CAPTURE_STATUS_ACTIVE);
    CHECK(cuMemsetD32Async(x, 40, N, capturing));
    for (int k = 0; k < 2; k++)
        CHECK(cuLaunchKernel(add_one, (N + 255) / 256, 1, 1, 256, 1, 1, 0, capturing, args,
                             NULL));
    CUgraph captured;
    CHECK(cuStreamEndCapture(capturing, &captured));
    size_t count = 0;
    CHECK(cuGraphGetNodes(captured, NULL, &count));
    EXPECT(count == 3);
    CUDA_GRAPH_INSTANTIATE_PARAMS instantiate = {0};
    CHECK(cuGraphInstantiateWithParams(&exec, captured, &instantiate));
    EXPECT(instantiate.result_out == CUDA_GRAPH_INSTANTIATE_SUCCESS);
    // Nothing ran while capturing.
    CHECK(cuMemcpyDtoH(host, x, sizeof host));
    EXPECT(host[0] == 6);
    CHECK(cuGraphLaunch(exec, stream));
    CHECK(cuStreamSynchronize(stream));
    CHECK(cuMemcpyDtoH(host, x, sizeof host));
    for (int i = 0; i < N; i++) EXPECT(host[i] == 42);
    CHECK(cuGraphExecDestroy(exec));
    CHECK(cuGraphDestroy(captured));

    // Memory and event nodes, node queries and attributes through the driver: an allocation
    // node's memory filled with 9, one added, copied to y and freed; the event record node's
    // event changed; a kernel node's priority; the device's graph memory.
    CUgraph more;
    CHECK(cuGraphCreate(&more, 0));
    CUDA_MEM_ALLOC_NODE_PARAMS alloc = {0};
    alloc.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    alloc.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    alloc.poolProps.location.id = 0;
    alloc.bytesize = N * sizeof(int);
    CUgraphNode alloc_node, fill2, kernel2, copy2, free_node, record;
    CHECK(cuGraphAddMemAllocNode(&alloc_node, more, NULL, 0, &alloc));
    EXPECT(alloc.dptr != 0);
    memset.dst = alloc.dptr;
    memset.value = 9;
    CHECK(cuGraphAddMemsetNode(&fill2, more, &alloc_node, 1, &memset, ctx));
    void *args2[] = {&alloc.dptr, &n};
    launch.kernelParams = args2;
    CHECK(cuGraphAddKernelNode(&kernel2, more, &fill2, 1, &launch));
    copy_params.srcDevice = alloc.dptr;
    copy_params.dstDevice = y;
    CHECK(cuGraphAddMemcpyNode(&copy2, more, &kernel2, 1, &copy_params, ctx));
    CHECK(cuGraphAddMemFreeNode(&free_node, more, &copy2, 1, alloc.dptr));
    CUdeviceptr freed = 0;
    CHECK(cuGraphMemFreeNodeGetParams(free_node, &freed));
    EXPECT(freed == alloc.dptr);
    CUevent first, second, seen;
    CHECK(cuEventCreate(&first, CU_EVENT_DEFAULT));
    CHECK(cuEventCreate(&second, CU_EVENT_DEFAULT));
    CHECK(cuGraphAddEventRecordNode(&record, more, &free_node, 1, first));
    CHECK(cuGraphEventRecordNodeSetEvent(record, second));
    CHECK(cuGraphEventRecordNodeGetEvent(record, &seen));
    EXPECT(seen == second);
    int least, greatest;
    CHECK(cuCtxGetStreamPriorityRange(&least, &greatest));
    CUkernelNodeAttrValue value = {0}, read = {0};
    value.priority = greatest;
    CHECK(cuGraphKernelNodeSetAttribute(kernel2, CU_KERNEL_NODE_ATTRIBUTE_PRIORITY, &value));
    CHECK(cuGraphKernelNodeGetAttribute(kernel2, CU_KERNEL_NODE_ATTRIBUTE_PRIORITY, &read));
    EXPECT(read.priority == greatest);
    CHECK(cuGraphInstantiate(&exec, more, 0));
    CHECK(cuGraphLaunch(exec, stream));
    CHECK(cuStreamSynchronize(stream));
    CHECK(cuMemcpyDtoH(host, y, sizeof host));
    for (int i = 0; i < N; i++) EXPECT(host[i] == 10);
    cuuint64_t high = 0;
    CHECK(cuDeviceGetGraphMemAttribute(dev, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &high));
    EXPECT(high >= N * sizeof(int));
    CHECK(cuGraphExecDestroy(exec));
    CHECK(cuGraphDestroy(more));
    CHECK(cuCtxSynchronize());
    CHECK(cuDeviceGraphMemTrim(dev));
    CHECK(cuEventDestroy(first));
    CHECK(cuEventDestroy(second));

    // Errors: a stale handle, and capturing the legacy default stream.
    EXPECT(cuGraphLaunch(exec, stream) != CUDA_SUCCESS);
    EXPECT(cuStreamBeginCapture(CU_STREAM_LEGACY, CU_STREAM_CAPTURE_MODE_GLOBAL) ==
           CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);

    CHECK(cuStreamDestroy(stream));
    CHECK(cuStreamDestroy(capturing));
    CHECK(cuMemFree(x));
    CHECK(cuMemFree(y));
    printf("graphs: ok\n");
    return 0;
}
