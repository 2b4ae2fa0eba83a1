// deviceQuery in the style of CUDA's samples: the device count, driver and runtime versions,
// every cudaDeviceProp field, every device attribute the runtime answers (and the error of
// those it does not), the limits, the PCI bus id and the stream priority range. A GPU's values
// come from its driver, so under chevron the output must equal the output under NVIDIA's
// runtime line for line; the CPU device's values must be self-consistent (the checks below).
#include <cstring>
#include "../common/helpers.h"
#include "device_query.h"

int main() {
    int count = 0, driver = 0, runtime = 0;
    checkCudaErrors(cudaGetDeviceCount(&count));
    checkCudaErrors(cudaDriverGetVersion(&driver));
    checkCudaErrors(cudaRuntimeGetVersion(&runtime));
    printf("devices: %d, driver %d, runtime %d\n", count, driver, runtime);
    bool ok = count >= 1 && driver >= 13000 && runtime >= 13000;
    for (int dev = 0; dev < count; ++dev) {
        checkCudaErrors(cudaSetDevice(dev));
        cudaDeviceProp p;
        memset(&p, 0, sizeof p);
        checkCudaErrors(cudaGetDeviceProperties(&p, dev));
        printf("--- device %d\n", dev);
        printProperties(p);
        // Attributes by number (cudaDeviceAttr runs from 1 to about 140 in CUDA 13.0).
        int answered = 0;
        for (int attr = 1; attr <= 160; ++attr) {
            int value = 0;
            cudaError_t e = cudaDeviceGetAttribute(&value, (cudaDeviceAttr)attr, dev);
            if (e == cudaSuccess) {
                printf("attribute %d: %d\n", attr, value);
                ++answered;
            } else {
                printf("attribute %d: %s\n", attr, cudaGetErrorName(e));
                cudaGetLastError();
            }
        }
        int v = 0;
        checkCudaErrors(cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerBlock, dev));
        ok = ok && v == p.maxThreadsPerBlock;
        checkCudaErrors(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev));
        ok = ok && v == p.multiProcessorCount;
        checkCudaErrors(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, dev));
        ok = ok && v == p.major && p.warpSize == 32 && p.maxThreadsPerBlock >= 32 && answered > 80;
        const cudaLimit limits[] = {cudaLimitStackSize, cudaLimitPrintfFifoSize, cudaLimitMallocHeapSize,
                                    cudaLimitDevRuntimeSyncDepth, cudaLimitDevRuntimePendingLaunchCount,
                                    cudaLimitMaxL2FetchGranularity, cudaLimitPersistingL2CacheSize};
        for (cudaLimit limit : limits) {
            size_t value = 0;
            cudaError_t e = cudaDeviceGetLimit(&value, limit);
            if (e == cudaSuccess) printf("limit %d: %zu\n", (int)limit, value);
            else { printf("limit %d: %s\n", (int)limit, cudaGetErrorName(e)); cudaGetLastError(); }
        }
        char bus[32] = {0};
        checkCudaErrors(cudaDeviceGetPCIBusId(bus, sizeof bus, dev));
        int least = 0, greatest = 0;
        checkCudaErrors(cudaDeviceGetStreamPriorityRange(&least, &greatest));
        size_t freeBytes = 0, totalBytes = 0;
        checkCudaErrors(cudaMemGetInfo(&freeBytes, &totalBytes));
        cudaFuncCache cache;
        checkCudaErrors(cudaDeviceGetCacheConfig(&cache));
        printf("pci bus id: %s\nstream priorities: %d to %d\ntotal memory: %zu\ncache config: %d\n", bus,
               least, greatest, totalBytes, (int)cache);
        ok = ok && totalBytes == p.totalGlobalMem && freeBytes <= totalBytes && greatest <= least;
    }
    printf("device_query: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
