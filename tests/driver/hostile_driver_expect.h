// Answers allowed besides hostile_driver.c's rule for a probe: where CUDA documents another
// answer, or where a probe's plausible arguments are refused before its hostile one (CUDA
// fixes no order among several invalid arguments): {function (a trailing * matches a
// prefix: a function and its per-thread forms, `_ptds`/`_ptsz`, which answer as it does),
// probe, parameter or ANY_POSITION, the CUresult}.

// Answered before cuInit: the version, the error texts, the entry points (NULL outputs).
{"cuDriverGetVersion", BEFORE_INIT, ANY_POSITION, CUDA_ERROR_INVALID_VALUE},
{"cuGetErrorName", BEFORE_INIT, ANY_POSITION, CUDA_ERROR_INVALID_VALUE},
{"cuGetErrorString", BEFORE_INIT, ANY_POSITION, CUDA_ERROR_INVALID_VALUE},
{"cuGetExportTable", BEFORE_INIT, ANY_POSITION, CUDA_ERROR_INVALID_VALUE},
{"cuGetProcAddress*", BEFORE_INIT, ANY_POSITION, CUDA_ERROR_INVALID_VALUE},

// All zeros is a valid call: cuInit(0); NULL unbinds the context; the primary context of
// device 0 needs no current one; free(NULL) semantics (cuMemFree(0), cuMemFreeHost(NULL),
// as NVIDIA's driver answers); no attributes asked for.
{"cuInit", NO_CONTEXT, ANY_POSITION, CUDA_SUCCESS},
{"cuInit", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cuCtxSetCurrent", NO_CONTEXT, ANY_POSITION, CUDA_SUCCESS},
{"cuCtxSetCurrent", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cuDevicePrimaryCtx*", NO_CONTEXT, ANY_POSITION, CUDA_SUCCESS},
{"cuDevicePrimaryCtx*", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cuMemFreeHost", NO_CONTEXT, ANY_POSITION, CUDA_SUCCESS},
{"cuMemFreeHost", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cuPointerGetAttributes", NO_CONTEXT, ANY_POSITION, CUDA_SUCCESS},
{"cuPointerGetAttributes", ZERO, ANY_POSITION, CUDA_SUCCESS},
// Device 0's graph memory trimmed (nothing kept to give back).
{"cuDeviceGraphMemTrim", ZERO, ANY_POSITION, CUDA_SUCCESS},
// Copying the NULL stream's attributes to itself (the runtime's cudaStreamCopyAttributes).
{"cuStreamCopyAttributes*", ZERO, ANY_POSITION, CUDA_SUCCESS},
// With a context: both priority outputs are optional; NULL asks for no popped handle; the
// NULL stream is the default stream; copies and fills of 0 bytes do nothing.
{"cuCtxGetStreamPriorityRange", ZERO, ANY_POSITION, CUDA_SUCCESS},
// The default cache and bank-size preferences, a stack size of 0 (rounded up), and a limit
// chevron records without allocating it (as the runtime's cudaDeviceSetLimit).
{"cuCtxSetCacheConfig", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cuCtxSetSharedMemConfig", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cuCtxSetLimit", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cuCtxSetLimit", HUGE_SIZE, 1, CUDA_SUCCESS},
// No live mipmapped array among the plausible handles: the handle is refused first.
{"cuMipmappedArrayGetLevel", RANGE, ANY_POSITION, CUDA_ERROR_INVALID_HANDLE},
{"cuCtxPopCurrent_v2", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cuMemFree_v2", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cuMemFreeAsync*", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cuMemcpy*", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cuMemset*", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cuStreamGetCtx_v2*", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cuStreamQuery*", ZERO, ANY_POSITION, CUDA_SUCCESS},
{"cuStreamSynchronize*", ZERO, ANY_POSITION, CUDA_SUCCESS},

// Optional outputs and inputs CUDA documents as "may be NULL".
{"cuCtxCreate_v4", NULLED, 1, CUDA_SUCCESS},
{"cuCtxGetStreamPriorityRange", NULLED, ANY_POSITION, CUDA_SUCCESS},
{"cuGraphExecUpdate_v2", NULLED, 2, CUDA_SUCCESS},
{"cuGraphGetEdges_v2", NULLED, 3, CUDA_SUCCESS},
{"cuGraphGetNodes", NULLED, 1, CUDA_SUCCESS},
// Edge data may be NULL (default edges): the probe's stream does not capture.
{"cuStreamUpdateCaptureDependencies_v2*", NULLED, 2, CUDA_ERROR_ILLEGAL_STATE},
{"cuGraphGetRootNodes", NULLED, 1, CUDA_SUCCESS},
{"cuGraphInstantiate_v2", NULLED, 2, CUDA_SUCCESS},
{"cuGraphInstantiate_v2", NULLED, 3, CUDA_SUCCESS},
{"cuGraphNodeGetDependencies_v2", NULLED, 1, CUDA_SUCCESS},
{"cuGraphNodeGetDependencies_v2", NULLED, 2, CUDA_SUCCESS},
{"cuGraphNodeGetDependentNodes_v2", NULLED, 1, CUDA_SUCCESS},
{"cuGraphNodeGetDependentNodes_v2", NULLED, 2, CUDA_SUCCESS},
{"cuLaunchHostFunc*", NULLED, 2, CUDA_SUCCESS},
{"cuStreamAddCallback*", NULLED, 2, CUDA_SUCCESS},

{"cuLinkCreate_v2", NULLED, ANY_POSITION, CUDA_SUCCESS},
{"cuMemFree_v2", NULLED, 0, CUDA_SUCCESS},
{"cuMemFreeHost", NULLED, 0, CUDA_SUCCESS},
{"cuMemFreeAsync*", NULLED, 0, CUDA_SUCCESS},
{"cuMemGetAddressRange_v2", NULLED, 0, CUDA_SUCCESS},
{"cuMemGetAddressRange_v2", NULLED, 1, CUDA_SUCCESS},
{"cuOccupancyMaxPotentialBlockSize*", NULLED, 3, CUDA_SUCCESS},
{"cuPointerGetAttributes", NULLED, ANY_POSITION, CUDA_SUCCESS},
{"cuStreamGetCaptureInfo*", NULLED, ANY_POSITION, CUDA_SUCCESS},
{"cuStreamGetCtx_v2*", NULLED, ANY_POSITION, CUDA_SUCCESS},
{"cuPointerGetAttributes", FORGED, 3, CUDA_SUCCESS},
{"cuPointerGetAttributes", DESTROYED, 3, CUDA_SUCCESS},
// Both outputs are optional and the (empty) name names no global: CUDA_ERROR_NOT_FOUND.
{"cuModuleGetGlobal_v2", NULLED, ANY_POSITION, CUDA_ERROR_NOT_FOUND},
{"cuLibraryGetGlobal", NULLED, ANY_POSITION, CUDA_ERROR_NOT_FOUND},
{"cuGetProcAddress_v2", NULLED, 4, CUDA_ERROR_NOT_FOUND},
// The zero probe popped the context: an empty stack is CUDA_ERROR_INVALID_CONTEXT.
{"cuCtxPopCurrent_v2", NULLED, 0, CUDA_ERROR_INVALID_CONTEXT},
// An address chevron did not allocate: CUDA_ERROR_NOT_FOUND, as CUDA documents.
{"cuMemGetAddressRange_v2", NULLED, 2, CUDA_ERROR_NOT_FOUND},
{"cuMemGetAddressRange_v2", FORGED, 2, CUDA_ERROR_NOT_FOUND},
{"cuMemGetAddressRange_v2", DESTROYED, 2, CUDA_ERROR_NOT_FOUND},

// Values any number is valid for: fill values, priorities (clamped, as CUDA documents),
// option counts chevron does not read, occupancy of a block too large (0 blocks), a trim
// threshold, versions and flags of a symbol look-up (the empty name is not found).
{"cuMemset*", RANGE, ANY_POSITION, CUDA_SUCCESS},
{"cuStreamCreateWithPriority", RANGE, 2, CUDA_SUCCESS},
{"cuLinkCreate_v2", RANGE, 0, CUDA_SUCCESS},
{"cuOccupancy*", RANGE, ANY_POSITION, CUDA_SUCCESS},
{"cuOccupancy*", HUGE_SIZE, ANY_POSITION, CUDA_SUCCESS},
{"cuMemPoolTrimTo", HUGE_SIZE, 1, CUDA_SUCCESS},
{"cuGraphInstantiate_v2", HUGE_SIZE, 4, CUDA_SUCCESS},
{"cuGetProcAddress*", RANGE, ANY_POSITION, CUDA_ERROR_NOT_FOUND},
{"cuDeviceGet", RANGE, 1, CUDA_ERROR_INVALID_DEVICE},

// Refused for a plausible argument first: the zeroed scratch image is empty (the option
// arrays and counts after it are not reached); the empty path names no file; input type 0 is a
// cubin, which the PTX linker refuses; a zero parameter structure names no function,
// array or copy; 16 elements of 2 or 4 bytes do not fit the 16-byte pitch; the live
// allocation is not managed memory.
{"cuLibraryLoadData", NULLED, ANY_POSITION, CUDA_ERROR_INVALID_IMAGE},
{"cuLibraryLoadData", RANGE, ANY_POSITION, CUDA_ERROR_INVALID_IMAGE},
{"cuModuleLoadDataEx", NULLED, ANY_POSITION, CUDA_ERROR_INVALID_IMAGE},
{"cuModuleLoadDataEx", RANGE, ANY_POSITION, CUDA_ERROR_INVALID_IMAGE},
{"cuLibraryLoadFromFile", NULLED, ANY_POSITION, CUDA_ERROR_FILE_NOT_FOUND},
{"cuLibraryLoadFromFile", RANGE, ANY_POSITION, CUDA_ERROR_FILE_NOT_FOUND},
{"cuLinkAddFile_v2", NULLED, 4, CUDA_ERROR_FILE_NOT_FOUND},
{"cuLinkAddFile_v2", NULLED, 5, CUDA_ERROR_FILE_NOT_FOUND},
{"cuLinkAddFile_v2", RANGE, ANY_POSITION, CUDA_ERROR_FILE_NOT_FOUND},
{"cuLinkAddData_v2", NULLED, ANY_POSITION, CUDA_ERROR_NOT_SUPPORTED},
{"cuLinkAddData_v2", RANGE, ANY_POSITION, CUDA_ERROR_NOT_SUPPORTED},
{"cuLinkAddData_v2", HUGE_SIZE, ANY_POSITION, CUDA_ERROR_NOT_SUPPORTED},
{"cuGraphAddKernelNode_v2", NULLED, ANY_POSITION, CUDA_ERROR_INVALID_HANDLE},
{"cuGraphAddKernelNode_v2", HUGE_SIZE, ANY_POSITION, CUDA_ERROR_INVALID_HANDLE},
{"cuTexObjectCreate", NULLED, 3, CUDA_ERROR_INVALID_HANDLE},
{"cuGraphAddMemcpyNode", FORGED, 5, CUDA_ERROR_INVALID_VALUE},
{"cuGraphAddMemcpyNode", DESTROYED, 5, CUDA_ERROR_INVALID_VALUE},
{"cuGraphAddMemsetNode", FORGED, 5, CUDA_ERROR_INVALID_VALUE},
{"cuGraphAddMemsetNode", DESTROYED, 5, CUDA_ERROR_INVALID_VALUE},
{"cuGraphExecMemsetNodeSetParams", FORGED, 3, CUDA_ERROR_INVALID_VALUE},
{"cuGraphExecMemsetNodeSetParams", DESTROYED, 3, CUDA_ERROR_INVALID_VALUE},
{"cuMemcpy2DAsync_v2*", FORGED, 1, CUDA_ERROR_INVALID_VALUE},
{"cuMemcpy2DAsync_v2*", DESTROYED, 1, CUDA_ERROR_INVALID_VALUE},
{"cuMemcpy3DAsync_v2*", FORGED, 1, CUDA_ERROR_INVALID_VALUE},
{"cuMemcpy3DAsync_v2*", DESTROYED, 1, CUDA_ERROR_INVALID_VALUE},
{"cuMemsetD2D16Async*", FORGED, 5, CUDA_ERROR_INVALID_VALUE},
{"cuMemsetD2D16Async*", DESTROYED, 5, CUDA_ERROR_INVALID_VALUE},
{"cuMemsetD2D32Async*", FORGED, 5, CUDA_ERROR_INVALID_VALUE},
{"cuMemsetD2D32Async*", DESTROYED, 5, CUDA_ERROR_INVALID_VALUE},
{"cuMemPrefetchAsync*", FORGED, ANY_POSITION, CUDA_ERROR_INVALID_VALUE},
{"cuMemPrefetchAsync*", DESTROYED, ANY_POSITION, CUDA_ERROR_INVALID_VALUE},
// NULL edge data is all default edges: the plausible parameters (zeros, a kernel node without
// a function) are what is refused.
{"cuGraphAddNode_v2", NULLED, 3, CUDA_ERROR_INVALID_HANDLE},
// Its plausible pointer is device memory, not managed memory: refused before the stream.
{"cuStreamAttachMemAsync*", FORGED, ANY_POSITION, CUDA_ERROR_INVALID_VALUE},
{"cuStreamAttachMemAsync*", DESTROYED, ANY_POSITION, CUDA_ERROR_INVALID_VALUE},
