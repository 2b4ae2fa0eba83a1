//! The CUDA driver entry points chevron uses: one curated table, loaded at run time.
//!
//! `libcuda.so.1` is opened on first use and never linked, through the shared table helper
//! ([`crate::dylib`]). Every entry point is resolved up front; a missing library or symbol makes the whole backend
//! [`Error::Unavailable`](crate::Error::Unavailable) with the reason, never a panic. Only the
//! types and constants these calls need are declared here.

#![allow(non_camel_case_types, non_snake_case)]

use std::ffi::{c_char, c_int, c_uint, c_ushort, c_void};
use std::sync::OnceLock;

use crate::dylib::{self, library_table};

pub use super::graph_types::{
    CUDA_KERNEL_NODE_PARAMS, CUDA_MEMCPY3D, CUDA_MEMSET_NODE_PARAMS, CU_MEMORYTYPE_HOST,
};
pub use super::texture_types::{
    CUarray, CUDA_ARRAY3D_DESCRIPTOR, CUDA_RESOURCE_DESC, CUDA_TEXTURE_DESC,
};

/// A driver return code.
pub type CUresult = c_int;
/// A device ordinal handle.
pub type CUdevice = c_int;
/// A device address.
pub type CUdeviceptr = u64;
/// A context (opaque).
pub type CUcontext = *mut c_void;
/// A module (opaque).
pub type CUmodule = *mut c_void;
/// A kernel of a module (opaque).
pub type CUfunction = *mut c_void;
/// A stream (opaque).
pub type CUstream = *mut c_void;
/// An event (opaque).
pub type CUevent = *mut c_void;
/// A host function enqueued by `cuLaunchHostFunc`.
pub type CUhostFn = Option<unsafe extern "C" fn(*mut c_void)>;
/// A graph (opaque).
pub type CUgraph = *mut c_void;
/// A node of a graph (opaque).
pub type CUgraphNode = *mut c_void;
/// An instantiated graph (opaque).
pub type CUgraphExec = *mut c_void;

/// The type of `cuLaunchKernel` (the table's field), for those that keep the pointer at hand.
pub type LaunchKernelFn = unsafe extern "C" fn(
    CUfunction,
    c_uint,
    c_uint,
    c_uint,
    c_uint,
    c_uint,
    c_uint,
    c_uint,
    CUstream,
    *mut *mut c_void,
    *mut *mut c_void,
) -> CUresult;

/// `CUDA_SUCCESS`.
pub const CUDA_SUCCESS: CUresult = 0;
/// `CUDA_ERROR_NOT_READY`: returned by queries of unfinished work.
pub const CUDA_ERROR_NOT_READY: CUresult = 600;
/// `CUDA_ERROR_INVALID_CONTEXT`: the call needed a current context.
pub const CUDA_ERROR_INVALID_CONTEXT: CUresult = 201;
/// `CUDA_ERROR_NOT_FOUND`: a named symbol does not exist.
pub const CUDA_ERROR_NOT_FOUND: CUresult = 500;

/// Errors that leave the context unusable: a kernel faulted.
pub const STICKY_FAULTS: [CUresult; 9] = [
    700, // CUDA_ERROR_ILLEGAL_ADDRESS
    702, // CUDA_ERROR_LAUNCH_TIMEOUT
    710, // CUDA_ERROR_ASSERT
    714, // CUDA_ERROR_HARDWARE_STACK_ERROR
    715, // CUDA_ERROR_ILLEGAL_INSTRUCTION
    716, // CUDA_ERROR_MISALIGNED_ADDRESS
    717, // CUDA_ERROR_INVALID_ADDRESS_SPACE
    718, // CUDA_ERROR_INVALID_PC
    719, // CUDA_ERROR_LAUNCH_FAILED
];

/// Errors of `cuModuleLoadDataEx` that mean the code object itself is at fault.
pub const CODE_OBJECT_ERRORS: [CUresult; 7] = [
    200, // CUDA_ERROR_INVALID_IMAGE
    209, // CUDA_ERROR_NO_BINARY_FOR_GPU
    218, // CUDA_ERROR_INVALID_PTX
    221, // CUDA_ERROR_JIT_COMPILER_NOT_FOUND
    222, // CUDA_ERROR_UNSUPPORTED_PTX_VERSION
    223, // CUDA_ERROR_JIT_COMPILATION_DISABLED
    300, // CUDA_ERROR_INVALID_SOURCE
];

/// `CU_STREAM_NON_BLOCKING`.
pub const CU_STREAM_NON_BLOCKING: c_uint = 1;
/// `CU_EVENT_DISABLE_TIMING`.
/// `CU_EVENT_DEFAULT`: an event that records a time.
pub const CU_EVENT_DEFAULT: c_uint = 0;
pub const CU_EVENT_DISABLE_TIMING: c_uint = 2;

/// `CU_POINTER_ATTRIBUTE_MEMORY_TYPE` (a `CUmemorytype`, 4 bytes).
pub const CU_POINTER_ATTRIBUTE_MEMORY_TYPE: c_uint = 2;
/// `CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL` (an `int`).
pub const CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: c_uint = 9;
/// `CU_MEMORYTYPE_DEVICE`.
pub const CU_MEMORYTYPE_DEVICE: c_uint = 2;
/// `CU_MEMHOSTALLOC_PORTABLE` (also `CU_MEMHOSTREGISTER_PORTABLE`): pinned for every context.
pub const CU_MEMHOSTALLOC_PORTABLE: c_uint = 1;
/// `CU_MEMHOSTALLOC_DEVICEMAP` (also `CU_MEMHOSTREGISTER_DEVICEMAP`): mapped into the device.
pub const CU_MEMHOSTALLOC_DEVICEMAP: c_uint = 2;
/// `CU_MEMHOSTALLOC_WRITECOMBINED`.
pub const CU_MEMHOSTALLOC_WRITECOMBINED: c_uint = 4;
/// `CU_MEM_ATTACH_GLOBAL`: managed memory any stream may access.
pub const CU_MEM_ATTACH_GLOBAL: c_uint = 1;

/// The error log buffer.
pub const CU_JIT_ERROR_LOG_BUFFER: c_int = 5;
/// Size of the error log buffer in bytes (in), bytes written (out).
pub const CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: c_int = 6;

/// `CUdevice_attribute` values chevron reads.
pub mod attribute {
    use std::ffi::c_int;
    /// Maximum threads per block.
    pub const MAX_THREADS_PER_BLOCK: c_int = 1;
    /// Maximum block dimension x (y = 3, z = 4).
    pub const MAX_BLOCK_DIM_X: c_int = 2;
    /// Maximum grid dimension x (y = 6, z = 7).
    pub const MAX_GRID_DIM_X: c_int = 5;
    /// Shared memory per block without opt-in.
    pub const MAX_SHARED_MEMORY_PER_BLOCK: c_int = 8;
    /// Threads per warp.
    pub const WARP_SIZE: c_int = 10;
    /// Streaming multiprocessors.
    pub const MULTIPROCESSOR_COUNT: c_int = 16;
    /// Compute capability major.
    pub const COMPUTE_CAPABILITY_MAJOR: c_int = 75;
    /// Compute capability minor.
    pub const COMPUTE_CAPABILITY_MINOR: c_int = 76;
    /// Shared memory per block with opt-in.
    pub const MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: c_int = 97;
}

/// `CUfunction_attribute` values chevron reads and sets.
pub mod function_attribute {
    use std::ffi::c_int;
    /// The most threads per block the function can be launched with.
    pub const MAX_THREADS_PER_BLOCK: c_int = 0;
    /// Statically allocated shared memory.
    pub const SHARED_SIZE_BYTES: c_int = 1;
    /// The current limit of dynamic shared memory (settable).
    pub const MAX_DYNAMIC_SHARED_SIZE_BYTES: c_int = 8;
}

library_table! {
    /// The driver entry points, resolved from the loaded library.
    pub struct Driver (pub) {
        /// `cuInit(flags)`.
        cuInit = "cuInit"(c_uint) -> CUresult;
        /// `cuGetErrorName(code, &name)`.
        cuGetErrorName = "cuGetErrorName"(CUresult, *mut *const c_char) -> CUresult;
        /// `cuGetErrorString(code, &text)`.
        cuGetErrorString = "cuGetErrorString"(CUresult, *mut *const c_char) -> CUresult;
        /// `cuDeviceGetCount(&count)`.
        cuDeviceGetCount = "cuDeviceGetCount"(*mut c_int) -> CUresult;
        /// `cuDeviceGet(&device, ordinal)`.
        cuDeviceGet = "cuDeviceGet"(*mut CUdevice, c_int) -> CUresult;
        /// `cuDeviceGetName(name, length, device)`.
        cuDeviceGetName = "cuDeviceGetName"(*mut c_char, c_int, CUdevice) -> CUresult;
        /// `cuDeviceGetAttribute(&value, attribute, device)`.
        cuDeviceGetAttribute = "cuDeviceGetAttribute"(*mut c_int, c_int, CUdevice) -> CUresult;
        /// `cuCtxGetLimit(&value, limit)`.
        cuCtxGetLimit = "cuCtxGetLimit"(*mut usize, c_int) -> CUresult;
        /// `cuCtxSetLimit(limit, value)`.
        cuCtxSetLimit = "cuCtxSetLimit"(c_int, usize) -> CUresult;
        /// `cuDeviceGetUuid(&uuid, device)`.
        cuDeviceGetUuid = "cuDeviceGetUuid_v2"(*mut [u8; 16], CUdevice) -> CUresult;
        /// `cuDeviceGetPCIBusId(id, length, device)`.
        cuDeviceGetPCIBusId = "cuDeviceGetPCIBusId"(*mut c_char, c_int, CUdevice) -> CUresult;
        /// `cuDeviceTotalMem(&bytes, device)`.
        cuDeviceTotalMem = "cuDeviceTotalMem_v2"(*mut usize, CUdevice) -> CUresult;
        /// `cuDevicePrimaryCtxRetain(&context, device)`.
        cuDevicePrimaryCtxRetain = "cuDevicePrimaryCtxRetain"(*mut CUcontext, CUdevice) -> CUresult;
        /// `cuDevicePrimaryCtxRelease(device)`.
        cuDevicePrimaryCtxRelease = "cuDevicePrimaryCtxRelease_v2"(CUdevice) -> CUresult;
        /// `cuCtxPushCurrent(context)`.
        cuCtxPushCurrent = "cuCtxPushCurrent_v2"(CUcontext) -> CUresult;
        /// `cuCtxPopCurrent(&context)`.
        cuCtxPopCurrent = "cuCtxPopCurrent_v2"(*mut CUcontext) -> CUresult;
        /// `cuCtxSynchronize()`.
        cuCtxSynchronize = "cuCtxSynchronize"() -> CUresult;
        /// `cuCtxGetStreamPriorityRange(&least, &greatest)`.
        cuCtxGetStreamPriorityRange = "cuCtxGetStreamPriorityRange"(*mut c_int, *mut c_int) -> CUresult;
        /// `cuMemAlloc(&ptr, bytes)`.
        cuMemAlloc = "cuMemAlloc_v2"(*mut CUdeviceptr, usize) -> CUresult;
        /// `cuMemFree(ptr)`.
        cuMemFree = "cuMemFree_v2"(CUdeviceptr) -> CUresult;
        /// `cuPointerGetAttributes(count, attributes, values, ptr)`: no error for a pointer the
        /// driver does not know (the values are then zero).
        cuPointerGetAttributes = "cuPointerGetAttributes"(
            c_uint, *mut c_uint, *mut *mut c_void, CUdeviceptr) -> CUresult;
        /// `cuMemHostAlloc(&host, bytes, flags)`: page-locked host memory.
        cuMemHostAlloc = "cuMemHostAlloc"(*mut *mut c_void, usize, c_uint) -> CUresult;
        /// `cuMemFreeHost(host)`.
        cuMemFreeHost = "cuMemFreeHost"(*mut c_void) -> CUresult;
        /// `cuMemHostGetDevicePointer(&device, host, 0)`.
        cuMemHostGetDevicePointer = "cuMemHostGetDevicePointer_v2"(
            *mut CUdeviceptr, *mut c_void, c_uint) -> CUresult;
        /// `cuMemHostRegister(host, bytes, flags)`: page-locks and maps the program's memory.
        cuMemHostRegister = "cuMemHostRegister_v2"(*mut c_void, usize, c_uint) -> CUresult;
        /// `cuMemHostUnregister(host)`.
        cuMemHostUnregister = "cuMemHostUnregister"(*mut c_void) -> CUresult;
        /// `cuMemAllocManaged(&ptr, bytes, flags)`.
        cuMemAllocManaged = "cuMemAllocManaged"(*mut CUdeviceptr, usize, c_uint) -> CUresult;
        /// `cuMemcpyAsync(dst, src, bytes, stream)`: either side anywhere (unified addressing).
        cuMemcpyAsync = "cuMemcpyAsync"(CUdeviceptr, CUdeviceptr, usize, CUstream) -> CUresult;
        /// `cuMemcpyHtoDAsync(dst, src, bytes, stream)`.
        cuMemcpyHtoDAsync = "cuMemcpyHtoDAsync_v2"(CUdeviceptr, *const c_void, usize, CUstream) -> CUresult;
        /// `cuMemcpyDtoHAsync(dst, src, bytes, stream)`.
        cuMemcpyDtoHAsync = "cuMemcpyDtoHAsync_v2"(*mut c_void, CUdeviceptr, usize, CUstream) -> CUresult;
        /// `cuMemsetD8Async(dst, value, count, stream)`.
        cuMemsetD8Async = "cuMemsetD8Async"(CUdeviceptr, u8, usize, CUstream) -> CUresult;
        /// `cuMemsetD16Async(dst, value, count, stream)`.
        cuMemsetD16Async = "cuMemsetD16Async"(CUdeviceptr, c_ushort, usize, CUstream) -> CUresult;
        /// `cuMemsetD32Async(dst, value, count, stream)`.
        cuMemsetD32Async = "cuMemsetD32Async"(CUdeviceptr, c_uint, usize, CUstream) -> CUresult;
        /// `cuStreamCreate(&stream, flags)`.
        cuStreamCreate = "cuStreamCreate"(*mut CUstream, c_uint) -> CUresult;
        /// `cuStreamDestroy(stream)`.
        cuStreamDestroy = "cuStreamDestroy_v2"(CUstream) -> CUresult;
        /// `cuStreamSynchronize(stream)`.
        cuStreamSynchronize = "cuStreamSynchronize"(CUstream) -> CUresult;
        /// `cuStreamQuery(stream)`.
        cuStreamQuery = "cuStreamQuery"(CUstream) -> CUresult;
        /// `cuStreamWaitEvent(stream, event, flags)`.
        cuStreamWaitEvent = "cuStreamWaitEvent"(CUstream, CUevent, c_uint) -> CUresult;
        /// `cuEventCreate(&event, flags)`.
        cuEventCreate = "cuEventCreate"(*mut CUevent, c_uint) -> CUresult;
        /// `cuEventDestroy(event)`.
        cuEventDestroy = "cuEventDestroy_v2"(CUevent) -> CUresult;
        /// `cuEventRecord(event, stream)`.
        cuEventRecord = "cuEventRecord"(CUevent, CUstream) -> CUresult;
        /// `cuEventQuery(event)`.
        cuEventQuery = "cuEventQuery"(CUevent) -> CUresult;
        /// `cuEventSynchronize(event)`.
        cuEventSynchronize = "cuEventSynchronize"(CUevent) -> CUresult;
        /// `cuEventElapsedTime(&milliseconds, start, end)`.
        cuEventElapsedTime = "cuEventElapsedTime"(*mut f32, CUevent, CUevent) -> CUresult;
        /// `cuModuleLoadDataEx(&module, image, count, options, values)`.
        cuModuleLoadDataEx = "cuModuleLoadDataEx"(
            *mut CUmodule, *const c_void, c_uint, *mut c_int, *mut *mut c_void) -> CUresult;
        /// `cuModuleUnload(module)`.
        cuModuleUnload = "cuModuleUnload"(CUmodule) -> CUresult;
        /// `cuModuleGetFunction(&function, module, name)`.
        cuModuleGetFunction = "cuModuleGetFunction"(*mut CUfunction, CUmodule, *const c_char) -> CUresult;
        /// `cuModuleGetGlobal(&ptr, &bytes, module, name)`.
        cuModuleGetGlobal = "cuModuleGetGlobal_v2"(
            *mut CUdeviceptr, *mut usize, CUmodule, *const c_char) -> CUresult;
        /// `cuFuncGetAttribute(&value, attribute, function)`.
        cuFuncGetAttribute = "cuFuncGetAttribute"(*mut c_int, c_int, CUfunction) -> CUresult;
        /// `cuFuncSetAttribute(function, attribute, value)`.
        cuFuncSetAttribute = "cuFuncSetAttribute"(CUfunction, c_int, c_int) -> CUresult;
        /// `cuLaunchKernel(f, grid xyz, block xyz, shared, stream, params, extra)`.
        cuLaunchKernel = "cuLaunchKernel"(
            CUfunction, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, CUstream,
            *mut *mut c_void, *mut *mut c_void) -> CUresult;
    }
    optional {
        /// `cuLaunchCooperativeKernel(f, grid xyz, block xyz, shared, stream, params)` (CUDA ≥
        /// 9.0): a launch whose blocks are all resident at once (grid-wide synchronization).
        cuLaunchCooperativeKernel = "cuLaunchCooperativeKernel"(
            CUfunction, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, CUstream,
            *mut *mut c_void) -> CUresult;
        /// `cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks, f, block size,
        /// dynamic shared bytes, flags)`.
        cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags =
            "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags"(
            *mut c_int, CUfunction, c_int, usize, c_uint) -> CUresult;
        /// `cuOccupancyMaxActiveClusters(&clusters, f, &config)` (CUDA ≥ 12.0): clusters of the
        /// configuration's cluster-dimension attribute resident at once.
        cuOccupancyMaxActiveClusters = "cuOccupancyMaxActiveClusters"(
            *mut c_int, CUfunction, *const CUlaunchConfig) -> CUresult;
        /// `cuOccupancyMaxPotentialClusterSize(&blocks, f, &config)` (CUDA ≥ 12.0): the largest
        /// cluster the configuration can be launched in.
        cuOccupancyMaxPotentialClusterSize = "cuOccupancyMaxPotentialClusterSize"(
            *mut c_int, CUfunction, *const CUlaunchConfig) -> CUresult;
        /// `cuLaunchHostFunc(stream, fn, user data)` (CUDA ≥ 10.0): a host function in stream
        /// order.
        cuLaunchHostFunc = "cuLaunchHostFunc"(CUstream, CUhostFn, *mut c_void) -> CUresult;
        /// `cuStreamCreateWithPriority(&stream, flags, priority)`.
        cuStreamCreateWithPriority = "cuStreamCreateWithPriority"(
            *mut CUstream, c_uint, c_int) -> CUresult;
        /// `cuCtxResetPersistingL2Cache()` (CUDA ≥ 11.0): persisting L2 lines back to normal.
        cuCtxResetPersistingL2Cache = "cuCtxResetPersistingL2Cache"() -> CUresult;
        /// `cuMemAllocAsync(&ptr, bytes, stream)` (CUDA ≥ 11.2): device memory from the
        /// device's current pool, in the stream's order.
        cuMemAllocAsync = "cuMemAllocAsync"(*mut CUdeviceptr, usize, CUstream) -> CUresult;
        /// `cuMemFreeAsync(ptr, stream)` (CUDA ≥ 11.2): memory of `cuMemAllocAsync` back to its
        /// pool, in the stream's order.
        cuMemFreeAsync = "cuMemFreeAsync"(CUdeviceptr, CUstream) -> CUresult;
        /// `cuStreamSetAttribute(stream, attribute, &value)` (CUDA ≥ 11.0): an access-policy
        /// window, synchronization policy or priority for the stream's later work.
        cuStreamSetAttribute = "cuStreamSetAttribute"(
            CUstream, c_int, *const c_void) -> CUresult;
        /// `cuLaunchKernelEx(&config, f, params, extra)` (CUDA ≥ 12.0): cluster launches.
        cuLaunchKernelEx = "cuLaunchKernelEx"(
            *const CUlaunchConfig, CUfunction, *mut *mut c_void, *mut *mut c_void) -> CUresult;
        /// `cuTensorMapEncodeTiled(&map, dtype, rank, address, dims, strides, box,
        /// element strides, interleave, swizzle, l2 promotion, oob fill)` (CUDA ≥ 12.0).
        cuTensorMapEncodeTiled = "cuTensorMapEncodeTiled"(
            *mut CUtensorMap, c_uint, c_uint, *mut c_void, *const u64, *const u64,
            *const c_uint, *const c_uint, c_uint, c_uint, c_uint, c_uint) -> CUresult;
        /// `cuArray3DCreate(&array, &descriptor)`: a 1D, 2D, 3D or layered array.
        cuArray3DCreate = "cuArray3DCreate_v2"(*mut CUarray, *const CUDA_ARRAY3D_DESCRIPTOR) -> CUresult;
        /// `cuArrayDestroy(array)`.
        cuArrayDestroy = "cuArrayDestroy"(CUarray) -> CUresult;
        /// `cuMipmappedArrayCreate(&mipmap, &descriptor, levels)`.
        cuMipmappedArrayCreate = "cuMipmappedArrayCreate"(
            *mut CUarray, *const CUDA_ARRAY3D_DESCRIPTOR, c_uint) -> CUresult;
        /// `cuMipmappedArrayGetLevel(&array, mipmap, level)`: a level, destroyed with its
        /// mipmapped array.
        cuMipmappedArrayGetLevel = "cuMipmappedArrayGetLevel"(
            *mut CUarray, CUarray, c_uint) -> CUresult;
        /// `cuMipmappedArrayDestroy(mipmap)`.
        cuMipmappedArrayDestroy = "cuMipmappedArrayDestroy"(CUarray) -> CUresult;
        /// `cuMemcpy3DAsync(&copy, stream)`: pitched copies to, from and between arrays.
        cuMemcpy3DAsync = "cuMemcpy3DAsync_v2"(*const CUDA_MEMCPY3D, CUstream) -> CUresult;
        /// `cuTexObjectCreate(&object, &resource, &texture, view)`.
        cuTexObjectCreate = "cuTexObjectCreate"(
            *mut u64, *const CUDA_RESOURCE_DESC, *const CUDA_TEXTURE_DESC, *const c_void) -> CUresult;
        /// `cuTexObjectDestroy(object)`.
        cuTexObjectDestroy = "cuTexObjectDestroy"(u64) -> CUresult;
        /// `cuSurfObjectCreate(&object, &resource)`.
        cuSurfObjectCreate = "cuSurfObjectCreate"(*mut u64, *const CUDA_RESOURCE_DESC) -> CUresult;
        /// `cuSurfObjectDestroy(object)`.
        cuSurfObjectDestroy = "cuSurfObjectDestroy"(u64) -> CUresult;
        /// `cuGraphCreate(&graph, flags)` (CUDA ≥ 10.0).
        cuGraphCreate = "cuGraphCreate"(*mut CUgraph, c_uint) -> CUresult;
        /// `cuGraphDestroy(graph)`.
        cuGraphDestroy = "cuGraphDestroy"(CUgraph) -> CUresult;
        /// `cuGraphAddKernelNode(&node, graph, deps, count, &params)` (CUDA ≥ 12.0 struct).
        cuGraphAddKernelNode = "cuGraphAddKernelNode_v2"(
            *mut CUgraphNode, CUgraph, *const CUgraphNode, usize, *const CUDA_KERNEL_NODE_PARAMS) -> CUresult;
        /// `cuGraphAddMemcpyNode(&node, graph, deps, count, &copy, context)`.
        cuGraphAddMemcpyNode = "cuGraphAddMemcpyNode"(
            *mut CUgraphNode, CUgraph, *const CUgraphNode, usize, *const CUDA_MEMCPY3D, CUcontext) -> CUresult;
        /// `cuGraphAddMemsetNode(&node, graph, deps, count, &params, context)`.
        cuGraphAddMemsetNode = "cuGraphAddMemsetNode"(
            *mut CUgraphNode, CUgraph, *const CUgraphNode, usize, *const CUDA_MEMSET_NODE_PARAMS,
            CUcontext) -> CUresult;
        /// `cuGraphInstantiateWithFlags(&exec, graph, flags)` (CUDA ≥ 11.4).
        cuGraphInstantiateWithFlags = "cuGraphInstantiateWithFlags"(*mut CUgraphExec, CUgraph, u64) -> CUresult;
        /// `cuGraphLaunch(exec, stream)`.
        cuGraphLaunch = "cuGraphLaunch"(CUgraphExec, CUstream) -> CUresult;
        /// `cuGraphExecDestroy(exec)`.
        cuGraphExecDestroy = "cuGraphExecDestroy"(CUgraphExec) -> CUresult;
        /// `cuGraphExecKernelNodeSetParams(exec, node, &params)` (CUDA ≥ 12.0 struct).
        cuGraphExecKernelNodeSetParams = "cuGraphExecKernelNodeSetParams_v2"(
            CUgraphExec, CUgraphNode, *const CUDA_KERNEL_NODE_PARAMS) -> CUresult;
        /// The same two calls under their CUDA 10/11 names, whose parameter struct is the
        /// prefix of the one above without `kern` and `ctx` (used when the `_v2` names are
        /// missing).
        cuGraphAddKernelNodeV1 = "cuGraphAddKernelNode"(
            *mut CUgraphNode, CUgraph, *const CUgraphNode, usize, *const CUDA_KERNEL_NODE_PARAMS) -> CUresult;
        /// `cuGraphExecKernelNodeSetParams` under its CUDA 10/11 name.
        cuGraphExecKernelNodeSetParamsV1 = "cuGraphExecKernelNodeSetParams"(
            CUgraphExec, CUgraphNode, *const CUDA_KERNEL_NODE_PARAMS) -> CUresult;
        /// `cuGraphKernelNodeSetAttribute(node, attribute, &value)` (CUDA ≥ 11.0): a kernel
        /// node's launch attribute (`CUlaunchAttributeID`, a 64-byte `CUlaunchAttributeValue`).
        cuGraphKernelNodeSetAttribute = "cuGraphKernelNodeSetAttribute"(
            CUgraphNode, c_int, *const c_void) -> CUresult;
    }
}

/// `CUlaunchAttributeID`: a thread-block cluster shape (`CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`).
pub const CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION: c_uint = 4;
/// `CUlaunchAttributeID`: how clusters are placed on the GPU.
pub const CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: c_uint = 5;
/// `CU_CLUSTER_SCHEDULING_POLICY_SPREAD`: spread clusters over the GPU (as MLIR's wrappers).
pub const CU_CLUSTER_SCHEDULING_POLICY_SPREAD: c_uint = 1;

/// `CUlaunchAttribute`: an id and a 64-byte value union, 8-byte aligned (72 bytes).
#[repr(C, align(8))]
#[derive(Clone, Copy)]
pub struct CUlaunchAttribute {
    /// The `CUlaunchAttributeID`.
    pub id: c_uint,
    /// Padding before the value union.
    pub pad: [u8; 4],
    /// The value union as 32-bit words: a cluster dimension is words 0..3, a scheduling
    /// policy word 0.
    pub value: [c_uint; 16],
}

/// `CUlaunchConfig`: the launch geometry, stream and attributes of `cuLaunchKernelEx`.
#[repr(C)]
pub struct CUlaunchConfig {
    /// Grid dimension x.
    pub gridDimX: c_uint,
    /// Grid dimension y.
    pub gridDimY: c_uint,
    /// Grid dimension z.
    pub gridDimZ: c_uint,
    /// Block dimension x.
    pub blockDimX: c_uint,
    /// Block dimension y.
    pub blockDimY: c_uint,
    /// Block dimension z.
    pub blockDimZ: c_uint,
    /// Dynamic shared memory in bytes.
    pub sharedMemBytes: c_uint,
    /// The stream.
    pub hStream: CUstream,
    /// The attributes.
    pub attrs: *mut CUlaunchAttribute,
    /// How many attributes.
    pub numAttrs: c_uint,
}

/// `CUtensorMap`: an opaque 128-byte, 64-byte-aligned TMA descriptor.
#[repr(C, align(64))]
#[derive(Clone, Copy)]
pub struct CUtensorMap {
    /// The encoded descriptor.
    pub opaque: [u64; 16],
}

/// The file names under which NVIDIA's driver library is looked for.
const LIBRARY_NAMES: [&str; 2] = ["libcuda.so.1", "libcuda.so"];

/// The variable naming NVIDIA's driver library explicitly.
const DRIVER_VARIABLE: &str = "CHEVRON_NVIDIA_DRIVER";

/// Where distributions and container runtimes put NVIDIA's driver library.
const LIBRARY_DIRS: [&str; 8] = [
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
    "/lib/x86_64-linux-gnu",
    "/lib64",
    "/usr/lib/wsl/lib",
    "/run/opengl-driver/lib",
];

/// The loaded driver, or why it could not be loaded (computed once per process).
pub fn driver() -> Result<&'static Driver, &'static str> {
    static DRIVER: OnceLock<Result<Driver, String>> = OnceLock::new();
    DRIVER.get_or_init(load).as_ref().map_err(String::as_str)
}

/// Opens NVIDIA's driver by its path, never by the name `libcuda.so.1`: under `chevron exec`
/// that name is chevron's own driver library, which stands in front of NVIDIA's.
fn load() -> Result<Driver, String> {
    let candidates = match std::env::var_os(DRIVER_VARIABLE) {
        Some(path) => vec![std::path::PathBuf::from(path)],
        None => nvidia_candidates(),
    };
    let mut reasons = Vec::new();
    for path in candidates {
        if is_filter(&path) {
            reasons.push(format!(
                "{}: a stand-in library, not NVIDIA's",
                path.display()
            ));
            continue;
        }
        match dylib::open(&path) {
            Ok(library) => {
                // SAFETY: a library by this name that is not a filter is NVIDIA's CUDA driver.
                return unsafe { Driver::resolve(vec![library], path.display().to_string()) };
            }
            Err(reason) => reasons.push(reason),
        }
    }
    if reasons.is_empty() {
        reasons.push("libcuda.so.1: not found in LD_LIBRARY_PATH, the loader's cache or the usual directories".into());
    }
    Err(reasons.join("; "))
}

/// Every existing `libcuda.so.1`/`libcuda.so` in `LD_LIBRARY_PATH`, the loader's cache
/// (`/etc/ld.so.cache`) and [`LIBRARY_DIRS`], in that order, without repeats.
fn nvidia_candidates() -> Vec<std::path::PathBuf> {
    let in_dirs = |dirs: Vec<std::path::PathBuf>| {
        dirs.into_iter()
            .flat_map(|dir| LIBRARY_NAMES.map(|name| dir.join(name)))
            .collect::<Vec<_>>()
    };
    let mut ordered = in_dirs(
        std::env::var_os("LD_LIBRARY_PATH")
            .map(|v| std::env::split_paths(&v).collect())
            .unwrap_or_default(),
    );
    ordered.extend(super::ld_cache::paths_of(&LIBRARY_NAMES).unwrap_or_else(ldconfig_paths));
    ordered.extend(in_dirs(LIBRARY_DIRS.iter().map(Into::into).collect()));
    let mut seen = std::collections::HashSet::new();
    ordered
        .into_iter()
        .filter(|p| p.is_file())
        .filter(|p| seen.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())))
        .collect()
}

/// The loader cache's paths of [`LIBRARY_NAMES`] as `ldconfig -p` lists them: used only where
/// the cache file cannot be read in place.
fn ldconfig_paths() -> Vec<std::path::PathBuf> {
    let cache = std::process::Command::new("/sbin/ldconfig")
        .arg("-p")
        .output();
    let cache = cache.map(|out| String::from_utf8_lossy(&out.stdout).into_owned());
    cache
        .unwrap_or_default()
        .lines()
        .filter(|line| {
            LIBRARY_NAMES
                .iter()
                .any(|n| line.trim_start().starts_with(&format!("{n} ")))
        })
        .filter_map(|line| line.split(" => ").nth(1))
        .map(|path| std::path::PathBuf::from(path.trim()))
        .collect()
}

/// Whether the ELF file at `path` is a filter (`DT_FILTER` or `DT_AUXILIARY` in its dynamic
/// section), as chevron's `libcuda.so.1` is: a stand-in for the driver, not the driver.
fn is_filter(path: &std::path::Path) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    const DT_AUXILIARY: u64 = 0x7fff_fffd;
    const DT_FILTER: u64 = 0x7fff_ffff;
    let read = || -> std::io::Result<bool> {
        let mut file = std::fs::File::open(path)?;
        let mut header = [0u8; 64];
        file.read_exact(&mut header)?;
        if &header[..4] != b"\x7fELF" || header[4] != 2 {
            return Ok(false);
        }
        let word = |b: &[u8], at: usize, len: usize| {
            b[at..at + len]
                .iter()
                .rev()
                .fold(0u64, |v, &byte| (v << 8) | u64::from(byte))
        };
        let (phoff, phentsize, phnum) = (
            word(&header, 0x20, 8),
            word(&header, 0x36, 2),
            word(&header, 0x38, 2),
        );
        for i in 0..phnum {
            let mut ph = [0u8; 56];
            file.seek(SeekFrom::Start(phoff + i * phentsize))?;
            file.read_exact(&mut ph)?;
            if word(&ph, 0, 4) != 2 {
                continue; // not PT_DYNAMIC
            }
            let (offset, size) = (word(&ph, 8, 8), word(&ph, 0x20, 8));
            let mut dynamic = vec![0u8; size.min(1 << 20) as usize];
            file.seek(SeekFrom::Start(offset))?;
            file.read_exact(&mut dynamic)?;
            return Ok(dynamic
                .chunks_exact(16)
                .map(|entry| word(entry, 0, 8))
                .any(|tag| tag == DT_FILTER || tag == DT_AUXILIARY));
        }
        Ok(false)
    };
    read().unwrap_or(false)
}

#[cfg(test)]
mod locate_tests {
    use super::*;

    #[test]
    fn a_filter_library_is_not_taken_for_the_driver() {
        let dir = std::env::temp_dir().join(format!("chevron-filter-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let source = dir.join("empty.c");
        std::fs::write(&source, "void chevron_nothing(void) {}\n").unwrap();
        let build = |out: &str, extra: &[&str]| {
            let status = std::process::Command::new("cc")
                .args(["-shared", "-fPIC", "-o"])
                .arg(dir.join(out))
                .arg(&source)
                .args(extra)
                .status()
                .expect("the C compiler runs");
            assert!(status.success());
        };
        build("filter.so", &["-Wl,--filter,libcudart.so.13"]);
        build("plain.so", &[]);
        assert!(is_filter(&dir.join("filter.so")));
        assert!(!is_filter(&dir.join("plain.so")));
        assert!(!is_filter(&dir.join("missing.so")));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
