// The runtime's (cuda*) part of hostile_driver.c's expectations, as hostile_driver_expect.h:
// answers allowed besides the rule of a probe.
#define RT(code) ((CUresult)(code))

// All zeros is a valid call: free(NULL) semantics; copies and fills of 0 bytes; device 0;
// the default stream; no flags; both priority outputs optional; the default cache and limits;
// device 0's graph memory trimmed.
{"cudaFree*", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cudaMemcpy*", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cudaMemset*", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cudaSetDevice", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cudaSetDeviceFlags", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cudaStreamQuery*", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cudaStreamSynchronize*", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cudaDeviceGetStreamPriorityRange", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cudaDeviceSetCacheConfig", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cudaDeviceSetLimit", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cudaDeviceSetSharedMemConfig", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cudaDeviceGraphMemTrim", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cudaInitDevice", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cudaStreamCopyAttributes*", ZERO, ANY_POSITION, CUDA_SUCCESS},
// An empty list of valid devices (NULL with length 0) goes back to every device.
{"cudaSetValidDevices", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cudaSetValidDevices", NULLED, 0, CUDA_SUCCESS},
// deviceFlags are read only with cudaInitDeviceFlagsAreValid in flags.
{"cudaInitDevice", RANGE, 1, CUDA_SUCCESS},

// Optional outputs and inputs ("may be NULL"); NULL frees nothing; a NULL pointer's
// attributes are those of unregistered memory (CUDA 11 on).
{"cudaArrayGetInfo", NULLED, ANY_POSITION, CUDA_SUCCESS},
{"cudaDeviceGetStreamPriorityRange", NULLED, ANY_POSITION, CUDA_SUCCESS},
{"cudaFree*", NULLED, 0, CUDA_SUCCESS},
{"cudaGetDriverEntryPoint*", NULLED, ANY_POSITION, CUDA_SUCCESS},
{"cudaGraphExecUpdate", NULLED, 2, CUDA_SUCCESS},
{"cudaGraphGetEdges", NULLED, 3, CUDA_SUCCESS},
{"cudaGraphGetNodes", NULLED, 1, CUDA_SUCCESS},
{"cudaGraphGetRootNodes", NULLED, 1, CUDA_SUCCESS},
{"cudaGraphNodeGetDependencies", NULLED, ANY_POSITION, CUDA_SUCCESS},
{"cudaGraphNodeGetDependentNodes", NULLED, ANY_POSITION, CUDA_SUCCESS},
// Edge data may be NULL (default edges): the probe's stream does not capture.
{"cudaStreamUpdateCaptureDependencies*", NULLED, 2, RT(cudaErrorIllegalState)},
// Edge data may be NULL: the probe's zeroed parameters are a kernel node naming no kernel.
{"cudaGraphAddNode", NULLED, 3, RT(cudaErrorInvalidDeviceFunction)},
{"cudaLaunchHostFunc*", NULLED, 2, CUDA_SUCCESS},
{"cudaStreamAddCallback*", NULLED, 2, CUDA_SUCCESS},
{"cudaPointerGetAttributes", NULLED, 1, CUDA_SUCCESS},
{"cudaStreamGetCaptureInfo*", NULLED, ANY_POSITION, CUDA_SUCCESS},

// Values any number is valid for: a version at least the current one, a priority (clamped),
// a pool's trim threshold, a limit chevron records without allocating it; structures passed
// by value whose other fields stay 0 (an empty extent); a memcpy direction or pitch out of
// range has a code of its own.
{"cudaGetDriverEntryPointByVersion*", RANGE, 2, CUDA_SUCCESS},
{"cudaStreamCreateWithPriority", RANGE, 2, CUDA_SUCCESS},
{"cudaMemPoolTrimTo", HUGE_SIZE, 1, CUDA_SUCCESS},
{"cudaDeviceSetLimit", HUGE_SIZE, 1, CUDA_SUCCESS},
// cudaFreeMipmappedArray documents cudaErrorInvalidValue for a bad handle; a zeroed channel
// descriptor is refused before a hostile extent, level count or flag.
{"cudaFreeMipmappedArray", FORGED, ANY_POSITION, RT(cudaErrorInvalidValue)},
{"cudaFreeMipmappedArray", DESTROYED, ANY_POSITION, RT(cudaErrorInvalidValue)},
{"cudaMallocMipmappedArray", RANGE, ANY_POSITION, RT(cudaErrorInvalidChannelDescriptor)},
{"cudaMallocMipmappedArray", HUGE_SIZE, ANY_POSITION, RT(cudaErrorInvalidChannelDescriptor)},
{"cudaMalloc3D", RANGE, 1, CUDA_SUCCESS},
{"cudaMemset3D*", RANGE, ANY_POSITION, CUDA_SUCCESS},
{"cudaMemcpy*", RANGE, ANY_POSITION, RT(cudaErrorInvalidMemcpyDirection)},
{"cudaGraph*Memcpy*", RANGE, ANY_POSITION, RT(cudaErrorInvalidMemcpyDirection)},
{"cudaMemcpy2D*", HUGE_SIZE, ANY_POSITION, RT(cudaErrorInvalidPitchValue)},

// Refused for a plausible argument first: the scratch function is no kernel, the scratch
// symbol no variable, the zeroed channel descriptor no format, the scratch memory neither
// device nor managed memory.
{"cudaLaunch*", NULLED, ANY_POSITION, RT(cudaErrorInvalidDeviceFunction)},
{"cudaLaunch*", FORGED, ANY_POSITION, RT(cudaErrorInvalidDeviceFunction)},
{"cudaLaunch*", DESTROYED, ANY_POSITION, RT(cudaErrorInvalidDeviceFunction)},
{"cudaLaunch*", HUGE_SIZE, ANY_POSITION, RT(cudaErrorInvalidDeviceFunction)},
{"cudaFunc*", NULLED, ANY_POSITION, RT(cudaErrorInvalidDeviceFunction)},
// A NULL symbol is no kernel's host stub, as for cudaFuncGetAttributes.
{"cudaGetFuncBySymbol", NULLED, 1, RT(cudaErrorInvalidDeviceFunction)},
{"cudaFunc*", RANGE, ANY_POSITION, RT(cudaErrorInvalidDeviceFunction)},
{"cudaFunc*", HUGE_SIZE, ANY_POSITION, RT(cudaErrorInvalidDeviceFunction)},
// NVIDIA's runtime answers these two through a kernel handle: a pointer that is no kernel's
// stub is an invalid handle (an H200).
{"cudaFuncGetName", NULLED, ANY_POSITION, RT(cudaErrorInvalidResourceHandle)},
{"cudaFuncGetName", RANGE, ANY_POSITION, RT(cudaErrorInvalidResourceHandle)},
{"cudaFuncGetName", HUGE_SIZE, ANY_POSITION, RT(cudaErrorInvalidResourceHandle)},
{"cudaOccupancyAvailableDynamicSMemPerBlock", NULLED, ANY_POSITION, RT(cudaErrorInvalidResourceHandle)},
{"cudaOccupancyAvailableDynamicSMemPerBlock", RANGE, ANY_POSITION, RT(cudaErrorInvalidResourceHandle)},
{"cudaOccupancyAvailableDynamicSMemPerBlock", HUGE_SIZE, ANY_POSITION, RT(cudaErrorInvalidResourceHandle)},
{"cudaOccupancy*", NULLED, ANY_POSITION, RT(cudaErrorInvalidDeviceFunction)},
{"cudaOccupancy*", RANGE, ANY_POSITION, RT(cudaErrorInvalidDeviceFunction)},
{"cudaOccupancy*", HUGE_SIZE, ANY_POSITION, RT(cudaErrorInvalidDeviceFunction)},
{"cudaGraphExecKernelNodeSetParams", FORGED, ANY_POSITION, RT(cudaErrorInvalidDeviceFunction)},
{"cudaGraphExecKernelNodeSetParams", DESTROYED, ANY_POSITION, RT(cudaErrorInvalidDeviceFunction)},
{"cudaMemcpyToSymbol*", NULLED, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaMemcpyToSymbol*", FORGED, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaMemcpyToSymbol*", DESTROYED, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaMemcpyToSymbol*", HUGE_SIZE, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaMemcpyToSymbol*", RANGE, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaMemcpyFromSymbol*", NULLED, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaMemcpyFromSymbol*", FORGED, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaMemcpyFromSymbol*", DESTROYED, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaMemcpyFromSymbol*", HUGE_SIZE, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaMemcpyFromSymbol*", RANGE, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGetSymbol*", NULLED, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
// Graph copy nodes to and from a variable look the symbol up first, as cudaMemcpyToSymbol.
{"cudaGraphAddMemcpyNodeToSymbol", NULLED, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphAddMemcpyNodeToSymbol", FORGED, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphAddMemcpyNodeToSymbol", DESTROYED, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphAddMemcpyNodeToSymbol", HUGE_SIZE, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphAddMemcpyNodeToSymbol", RANGE, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphAddMemcpyNodeFromSymbol", NULLED, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphAddMemcpyNodeFromSymbol", FORGED, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphAddMemcpyNodeFromSymbol", DESTROYED, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphAddMemcpyNodeFromSymbol", HUGE_SIZE, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphAddMemcpyNodeFromSymbol", RANGE, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphMemcpyNodeSetParamsToSymbol", NULLED, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphMemcpyNodeSetParamsToSymbol", FORGED, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphMemcpyNodeSetParamsToSymbol", DESTROYED, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphMemcpyNodeSetParamsToSymbol", HUGE_SIZE, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphMemcpyNodeSetParamsToSymbol", RANGE, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphMemcpyNodeSetParamsFromSymbol", NULLED, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphMemcpyNodeSetParamsFromSymbol", FORGED, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphMemcpyNodeSetParamsFromSymbol", DESTROYED, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphMemcpyNodeSetParamsFromSymbol", HUGE_SIZE, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphMemcpyNodeSetParamsFromSymbol", RANGE, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphExecMemcpyNodeSetParamsToSymbol", NULLED, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphExecMemcpyNodeSetParamsToSymbol", FORGED, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphExecMemcpyNodeSetParamsToSymbol", DESTROYED, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphExecMemcpyNodeSetParamsToSymbol", HUGE_SIZE, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphExecMemcpyNodeSetParamsToSymbol", RANGE, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphExecMemcpyNodeSetParamsFromSymbol", NULLED, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphExecMemcpyNodeSetParamsFromSymbol", FORGED, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphExecMemcpyNodeSetParamsFromSymbol", DESTROYED, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphExecMemcpyNodeSetParamsFromSymbol", HUGE_SIZE, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaGraphExecMemcpyNodeSetParamsFromSymbol", RANGE, ANY_POSITION, RT(cudaErrorInvalidSymbol)},
{"cudaMallocArray", HUGE_SIZE, ANY_POSITION, RT(cudaErrorInvalidChannelDescriptor)},
{"cudaMallocArray", RANGE, ANY_POSITION, RT(cudaErrorInvalidChannelDescriptor)},
{"cudaMalloc3DArray", NULLED, ANY_POSITION, RT(cudaErrorInvalidChannelDescriptor)},
{"cudaMalloc3DArray", RANGE, ANY_POSITION, RT(cudaErrorInvalidChannelDescriptor)},
{"cudaMemPrefetchAsync*", FORGED, ANY_POSITION, CUDA_ERROR_INVALID_VALUE},
{"cudaMemPrefetchAsync*", DESTROYED, ANY_POSITION, CUDA_ERROR_INVALID_VALUE},
{"cudaStreamAttachMemAsync*", FORGED, ANY_POSITION, CUDA_ERROR_INVALID_VALUE},
{"cudaStreamAttachMemAsync*", DESTROYED, ANY_POSITION, CUDA_ERROR_INVALID_VALUE},
{"cudaMemcpyPeer*", FORGED, ANY_POSITION, CUDA_ERROR_INVALID_VALUE},
{"cudaMemcpyPeer*", DESTROYED, ANY_POSITION, CUDA_ERROR_INVALID_VALUE},
// The plausible row offset 16 is past the live array's 16 rows.
{"cudaMemcpyFromArrayAsync*", FORGED, ANY_POSITION, CUDA_ERROR_INVALID_VALUE},
{"cudaMemcpyFromArrayAsync*", DESTROYED, ANY_POSITION, CUDA_ERROR_INVALID_VALUE},
{"cudaMemcpyToArrayAsync*", FORGED, ANY_POSITION, CUDA_ERROR_INVALID_VALUE},
{"cudaMemcpyToArrayAsync*", DESTROYED, ANY_POSITION, CUDA_ERROR_INVALID_VALUE},
#undef RT
