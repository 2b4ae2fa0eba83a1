//! `cuGetProcAddress`: every function by its base name, as `cuda-bindings` (Numba, CuPy)
//! resolves the whole API; and `cuGetErrorName`/`cuGetErrorString`.
//!
//! [`implemented`] is the one list of the driver functions chevron implements (a new one is
//! added there and in its area's file); [`crate::unsupported`] lists the rest of CUDA 13.0's.
//! A base name resolves through `cuda.h`'s `#define`s ([`crate::versions`]) to the current
//! ABI (`cuMemAlloc` → `cuMemAlloc_v2`), and with `CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM`
//! to its `_ptds`/`_ptsz` form where chevron has one.

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::OnceLock;

use crate::result::{describe, entry, store, CUresult, DriverError, INVALID_VALUE, NOT_FOUND};
use crate::{
    array, context, context_limits, device, export_table, function, graph, graph_add_node,
    graph_nodes, launch, linear_copies, link, managed_hints, mem_pool, memcpy_2d, memory,
    memset_2d, mipmapped, module, peer, per_thread, pointer, profiler, stream, stream_queries,
    tensor_map, texture_object, unsupported, user_object, versions,
};

/// `CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM`.
const PER_THREAD_DEFAULT_STREAM: u64 = 2;
/// `CU_GET_PROC_ADDRESS_SUCCESS`, `…_SYMBOL_NOT_FOUND`.
const SYMBOL_FOUND: c_int = 0;
const SYMBOL_NOT_FOUND: c_int = 1;

macro_rules! table {
    ($($area:ident :: $name:ident),* $(,)?) => {
        vec![$((stringify!($name), $area::$name as *const c_void)),*]
    };
}

/// Every driver function chevron implements, by its exported name.
pub fn implemented() -> Vec<(&'static str, *const c_void)> {
    table![
        context::cuInit,
        context::cuDriverGetVersion,
        context::cuDevicePrimaryCtxRetain,
        context::cuDevicePrimaryCtxRelease_v2,
        context::cuDevicePrimaryCtxReset_v2,
        context::cuDevicePrimaryCtxGetState,
        context::cuDevicePrimaryCtxSetFlags_v2,
        context::cuCtxCreate_v4,
        context::cuCtxDestroy_v2,
        context::cuCtxPushCurrent_v2,
        context::cuCtxPopCurrent_v2,
        context::cuCtxSetCurrent,
        context::cuCtxGetCurrent,
        context::cuCtxGetDevice,
        context::cuCtxGetFlags,
        context::cuCtxSynchronize,
        context::cuCtxGetApiVersion,
        profiler::cuProfilerStart,
        profiler::cuProfilerStop,
        device::cuDeviceGetCount,
        device::cuDeviceGet,
        device::cuDeviceGetName,
        device::cuDeviceGetUuid_v2,
        device::cuDeviceTotalMem_v2,
        device::cuDeviceGetAttribute,
        device::cuDeviceComputeCapability,
        device::cuDeviceGetPCIBusId,
        device::cuDeviceGetByPCIBusId,
        function::cuFuncGetAttribute,
        function::cuFuncSetAttribute,
        function::cuFuncSetCacheConfig,
        function::cuFuncSetSharedMemConfig,
        function::cuOccupancyMaxActiveBlocksPerMultiprocessor,
        function::cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags,
        function::cuOccupancyMaxPotentialBlockSize,
        function::cuOccupancyMaxPotentialBlockSizeWithFlags,
        function::cuOccupancyAvailableDynamicSMemPerBlock,
        function::cuKernelGetAttribute,
        function::cuKernelSetAttribute,
        function::cuKernelSetCacheConfig,
        function::cuFuncGetParamInfo,
        function::cuKernelGetParamInfo,
        launch::cuLaunchKernel,
        launch::cuLaunchCooperativeKernel,
        launch::cuLaunchKernelEx,
        launch::cuLaunchKernelEx_ptsz,
        launch::cuOccupancyMaxActiveClusters,
        launch::cuOccupancyMaxPotentialClusterSize,
        link::cuLinkCreate_v2,
        link::cuLinkAddData_v2,
        link::cuLinkAddFile_v2,
        link::cuLinkComplete,
        link::cuLinkDestroy,
        memory::cuMemAlloc_v2,
        memory::cuMemFree_v2,
        memory::cuMemAllocPitch_v2,
        memory::cuMemAllocHost_v2,
        memory::cuMemHostAlloc,
        memory::cuMemFreeHost,
        memory::cuMemHostGetDevicePointer_v2,
        memory::cuMemHostRegister_v2,
        memory::cuMemHostUnregister,
        memory::cuMemAllocManaged,
        memory::cuMemGetInfo_v2,
        memory::cuMemGetAddressRange_v2,
        memory::cuMemcpy,
        memory::cuMemcpyHtoD_v2,
        memory::cuMemcpyDtoH_v2,
        memory::cuMemcpyDtoD_v2,
        memory::cuMemcpyAsync,
        memory::cuMemcpyHtoDAsync_v2,
        memory::cuMemcpyDtoHAsync_v2,
        memory::cuMemcpyDtoDAsync_v2,
        memory::cuMemcpy_ptds,
        memory::cuMemcpyHtoD_v2_ptds,
        memory::cuMemcpyDtoH_v2_ptds,
        memory::cuMemcpyDtoD_v2_ptds,
        memory::cuMemcpyAsync_ptsz,
        memory::cuMemcpyHtoDAsync_v2_ptsz,
        memory::cuMemcpyDtoHAsync_v2_ptsz,
        memory::cuMemcpyDtoDAsync_v2_ptsz,
        linear_copies::cuMemcpyHtoA_v2,
        linear_copies::cuMemcpyHtoAAsync_v2,
        linear_copies::cuMemcpyAtoH_v2,
        linear_copies::cuMemcpyAtoHAsync_v2,
        linear_copies::cuMemcpyAtoD_v2,
        linear_copies::cuMemcpyDtoA_v2,
        linear_copies::cuMemcpyAtoA_v2,
        linear_copies::cuMemcpyPeer,
        linear_copies::cuMemcpyPeerAsync,
        memory::cuMemsetD8_v2,
        memory::cuMemsetD16_v2,
        memory::cuMemsetD32_v2,
        memory::cuMemsetD8_v2_ptds,
        memory::cuMemsetD32_v2_ptds,
        memory::cuMemsetD8Async,
        memory::cuMemsetD16Async,
        memory::cuMemsetD32Async,
        memory::cuMemsetD8Async_ptsz,
        memory::cuMemsetD16Async_ptsz,
        memory::cuMemsetD32Async_ptsz,
        memcpy_2d::cuMemcpy2D_v2,
        memcpy_2d::cuMemcpy2DUnaligned_v2,
        memcpy_2d::cuMemcpy2DAsync_v2,
        memcpy_2d::cuMemcpy3D_v2,
        memcpy_2d::cuMemcpy3DAsync_v2,
        array::cuArrayCreate_v2,
        array::cuArray3DCreate_v2,
        array::cuArrayDestroy,
        array::cuArrayGetDescriptor_v2,
        array::cuArray3DGetDescriptor_v2,
        mipmapped::cuMipmappedArrayCreate,
        mipmapped::cuMipmappedArrayGetLevel,
        mipmapped::cuMipmappedArrayDestroy,
        texture_object::cuTexObjectCreate,
        tensor_map::cuTensorMapEncodeTiled,
        texture_object::cuTexObjectDestroy,
        texture_object::cuTexObjectGetResourceDesc,
        texture_object::cuSurfObjectCreate,
        texture_object::cuSurfObjectDestroy,
        memset_2d::cuMemsetD2D8_v2,
        memset_2d::cuMemsetD2D16_v2,
        memset_2d::cuMemsetD2D32_v2,
        memset_2d::cuMemsetD2D8Async,
        memset_2d::cuMemsetD2D16Async,
        memset_2d::cuMemsetD2D32Async,
        module::cuModuleLoadData,
        module::cuModuleLoadDataEx,
        module::cuModuleLoadFatBinary,
        module::cuModuleLoad,
        module::cuModuleUnload,
        module::cuModuleGetLoadingMode,
        module::cuModuleGetFunction,
        module::cuModuleGetGlobal_v2,
        module::cuLibraryLoadData,
        module::cuLibraryLoadFromFile,
        module::cuLibraryUnload,
        module::cuLibraryGetKernel,
        module::cuLibraryGetModule,
        module::cuLibraryGetGlobal,
        module::cuKernelGetFunction,
        module::cuFuncGetModule,
        module::cuFuncGetName,
        module::cuKernelGetName,
        module::cuKernelGetLibrary,
        module::cuFuncIsLoaded,
        module::cuFuncLoad,
        pointer::cuPointerGetAttribute,
        pointer::cuPointerGetAttributes,
        stream::cuStreamCreate,
        stream::cuStreamCreateWithPriority,
        stream::cuStreamDestroy_v2,
        stream::cuStreamSynchronize,
        stream::cuStreamQuery,
        stream::cuStreamIsCapturing,
        stream::cuStreamGetCtx,
        stream::cuStreamGetCtx_v2,
        stream::cuStreamGetDevice,
        graph::cuGraphCreate,
        context_limits::cuCtxGetLimit,
        context_limits::cuCtxSetLimit,
        context_limits::cuCtxGetCacheConfig,
        context_limits::cuCtxSetCacheConfig,
        context_limits::cuCtxGetSharedMemConfig,
        context_limits::cuCtxSetSharedMemConfig,
        managed_hints::cuMemAdvise_v2,
        managed_hints::cuMemPrefetchAsync_v2,
        managed_hints::cuMemPrefetchAsync_ptsz,
        managed_hints::cuMemPrefetchAsync_v2_ptsz,
        managed_hints::cuMemRangeGetAttribute,
        managed_hints::cuMemRangeGetAttributes,
        managed_hints::cuMemHostGetFlags,
        context_limits::cuCtxResetPersistingL2Cache,
        device::cuDeviceGetP2PAttribute,
        stream_queries::cuStreamGetFlags,
        stream_queries::cuStreamGetId,
        stream_queries::cuStreamGetAttribute,
        stream_queries::cuStreamSetAttribute,
        stream_queries::cuStreamCopyAttributes,
        stream_queries::cuStreamGetFlags_ptsz,
        stream_queries::cuStreamGetId_ptsz,
        stream_queries::cuStreamGetAttribute_ptsz,
        stream_queries::cuStreamSetAttribute_ptsz,
        stream_queries::cuStreamCopyAttributes_ptsz,
        stream_queries::cuEventRecordWithFlags,
        stream_queries::cuEventRecordWithFlags_ptsz,
        stream_queries::cuStreamAttachMemAsync,
        stream_queries::cuStreamAttachMemAsync_ptsz,
        stream_queries::cuThreadExchangeStreamCaptureMode,
        peer::cuDeviceCanAccessPeer,
        graph_add_node::cuGraphAddNode_v2,
        peer::cuCtxEnablePeerAccess,
        peer::cuCtxDisablePeerAccess,
        mem_pool::cuMemAllocAsync,
        mem_pool::cuMemAllocFromPoolAsync,
        mem_pool::cuMemFreeAsync,
        mem_pool::cuDeviceGetDefaultMemPool,
        mem_pool::cuDeviceGetMemPool,
        mem_pool::cuDeviceSetMemPool,
        mem_pool::cuMemPoolCreate,
        mem_pool::cuMemPoolDestroy,
        mem_pool::cuMemPoolSetAttribute,
        mem_pool::cuMemPoolGetAttribute,
        mem_pool::cuMemPoolTrimTo,
        graph_nodes::cuGraphAddChildGraphNode,
        graph_nodes::cuGraphEventRecordNodeGetEvent,
        graph_nodes::cuGraphEventRecordNodeSetEvent,
        graph_nodes::cuGraphEventWaitNodeGetEvent,
        graph_nodes::cuGraphEventWaitNodeSetEvent,
        graph_nodes::cuGraphExecEventRecordNodeSetEvent,
        graph_nodes::cuGraphExecEventWaitNodeSetEvent,
        graph_nodes::cuGraphKernelNodeGetAttribute,
        graph_nodes::cuGraphKernelNodeSetAttribute,
        graph_nodes::cuGraphKernelNodeCopyAttributes,
        graph_nodes::cuGraphChildGraphNodeGetGraph,
        graph_nodes::cuGraphExecChildGraphNodeSetParams,
        graph_nodes::cuGraphAddMemAllocNode,
        graph_nodes::cuGraphAddMemFreeNode,
        graph_nodes::cuGraphMemAllocNodeGetParams,
        graph_nodes::cuGraphMemFreeNodeGetParams,
        graph_nodes::cuDeviceGetGraphMemAttribute,
        graph_nodes::cuDeviceSetGraphMemAttribute,
        graph_nodes::cuDeviceGraphMemTrim,
        graph_nodes::cuStreamBeginCaptureToGraph,
        graph_nodes::cuStreamUpdateCaptureDependencies_v2,
        graph_nodes::cuGraphAddEventRecordNode,
        graph_nodes::cuGraphAddEventWaitNode,
        graph_nodes::cuGraphAddDependencies_v2,
        graph_nodes::cuGraphRemoveDependencies_v2,
        graph_nodes::cuGraphGetRootNodes,
        graph_nodes::cuGraphGetEdges_v2,
        graph_nodes::cuGraphNodeGetDependencies_v2,
        graph_nodes::cuGraphNodeGetDependentNodes_v2,
        graph_nodes::cuGraphNodeGetType,
        graph_nodes::cuGraphExecGetFlags,
        graph_nodes::cuGraphNodeGetEnabled,
        graph_nodes::cuGraphExecUpdate_v2,
        graph_nodes::cuGraphHostNodeGetParams,
        graph_nodes::cuGraphHostNodeSetParams,
        graph_nodes::cuGraphExecHostNodeSetParams,
        graph_nodes::cuGraphMemsetNodeGetParams,
        graph_nodes::cuGraphMemsetNodeSetParams,
        graph_nodes::cuGraphClone,
        graph_nodes::cuGraphNodeFindInClone,
        graph_nodes::cuGraphDestroyNode,
        graph_nodes::cuGraphNodeSetEnabled,
        graph_nodes::cuGraphExecMemsetNodeSetParams,
        graph_nodes::cuGraphKernelNodeGetParams_v2,
        graph_nodes::cuGraphKernelNodeSetParams_v2,
        graph_nodes::cuGraphExecKernelNodeSetParams_v2,
        graph::cuGraphDestroy,
        graph::cuGraphGetNodes,
        graph::cuGraphAddKernelNode_v2,
        graph::cuGraphAddMemsetNode,
        graph::cuGraphAddMemcpyNode,
        graph::cuGraphAddHostNode,
        graph::cuGraphAddEmptyNode,
        graph::cuGraphInstantiateWithFlags,
        graph::cuGraphInstantiate_v2,
        graph::cuGraphInstantiateWithParams,
        graph::cuGraphLaunch,
        graph::cuGraphUpload,
        graph::cuGraphExecDestroy,
        graph::cuStreamBeginCapture_v2,
        graph::cuStreamEndCapture,
        graph::cuStreamGetCaptureInfo_v3,
        graph::cuStreamGetCaptureInfo_v2,
        user_object::cuUserObjectCreate,
        user_object::cuUserObjectRetain,
        user_object::cuUserObjectRelease,
        user_object::cuGraphRetainUserObject,
        user_object::cuGraphReleaseUserObject,
        stream::cuStreamWaitEvent,
        stream::cuStreamAddCallback,
        stream::cuLaunchHostFunc,
        stream::cuStreamGetPriority,
        stream::cuCtxGetStreamPriorityRange,
        stream::cuEventCreate,
        stream::cuEventRecord,
        stream::cuEventSynchronize,
        stream::cuEventQuery,
        stream::cuEventDestroy_v2,
        stream::cuEventElapsedTime_v2,
        stream::cuEventElapsedTime,
        per_thread::cuLaunchKernel_ptsz,
        per_thread::cuLaunchCooperativeKernel_ptsz,
        per_thread::cuGraphLaunch_ptsz,
        per_thread::cuStreamBeginCaptureToGraph_ptsz,
        per_thread::cuStreamUpdateCaptureDependencies_v2_ptsz,
        per_thread::cuStreamUpdateCaptureDependencies_ptsz,
        per_thread::cuStreamBeginCapture_ptsz,
        per_thread::cuStreamBeginCapture_v2_ptsz,
        per_thread::cuEventRecord_ptsz,
        per_thread::cuStreamSynchronize_ptsz,
        per_thread::cuStreamQuery_ptsz,
        per_thread::cuStreamWaitEvent_ptsz,
        per_thread::cuStreamAddCallback_ptsz,
        per_thread::cuLaunchHostFunc_ptsz,
        per_thread::cuStreamGetPriority_ptsz,
        per_thread::cuStreamIsCapturing_ptsz,
        per_thread::cuStreamGetCtx_ptsz,
        per_thread::cuStreamGetCtx_v2_ptsz,
        per_thread::cuStreamGetDevice_ptsz,
        per_thread::cuStreamEndCapture_ptsz,
        per_thread::cuStreamGetCaptureInfo_v3_ptsz,
        per_thread::cuGraphUpload_ptsz,
        per_thread::cuGraphInstantiateWithParams_ptsz,
        per_thread::cuMemAllocAsync_ptsz,
        per_thread::cuMemAllocFromPoolAsync_ptsz,
        per_thread::cuMemFreeAsync_ptsz,
        per_thread::cuMemcpy2DAsync_v2_ptsz,
        per_thread::cuMemcpy3DAsync_v2_ptsz,
        per_thread::cuMemsetD2D8Async_ptsz,
        per_thread::cuMemsetD2D16Async_ptsz,
        per_thread::cuMemsetD2D32Async_ptsz,
        per_thread::cuMemcpy2D_v2_ptds,
        per_thread::cuMemcpy2DUnaligned_v2_ptds,
        per_thread::cuMemcpy3D_v2_ptds,
        per_thread::cuMemsetD16_v2_ptds,
        per_thread::cuMemsetD2D8_v2_ptds,
        per_thread::cuMemsetD2D16_v2_ptds,
        per_thread::cuMemsetD2D32_v2_ptds,
        per_thread::cuMemcpyHtoAAsync_v2_ptsz,
        per_thread::cuMemcpyAtoHAsync_v2_ptsz,
        per_thread::cuMemcpyPeerAsync_ptsz,
        per_thread::cuMemcpyAtoA_v2_ptds,
        per_thread::cuMemcpyAtoD_v2_ptds,
        per_thread::cuMemcpyDtoA_v2_ptds,
        per_thread::cuMemcpyHtoA_v2_ptds,
        per_thread::cuMemcpyAtoH_v2_ptds,
        per_thread::cuMemcpyPeer_ptds,
        export_table::cuGetExportTable,
        self::cuGetProcAddress,
        self::cuGetProcAddress_v2,
        self::cuGetErrorName,
        self::cuGetErrorString,
    ]
}

struct Table {
    functions: HashMap<&'static str, usize>,
    current: HashMap<&'static str, (&'static str, Option<&'static str>)>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut functions: HashMap<&'static str, usize> = unsupported::stubs()
            .into_iter()
            .map(|(name, f)| (name, f as usize))
            .collect();
        functions.extend(
            implemented()
                .into_iter()
                .map(|(name, f)| (name, f as usize)),
        );
        let current = versions::CURRENT
            .iter()
            .map(|&(base, name, suffix)| (base, (name, suffix)))
            .collect();
        Table { functions, current }
    })
}

/// The function `symbol` (a base name such as `cuMemAlloc`) resolves to, with `flags`.
pub fn resolve(symbol: &str, flags: u64) -> Option<*const c_void> {
    let table = table();
    let (name, suffix) = table.current.get(symbol).copied().unwrap_or((symbol, None));
    if flags & PER_THREAD_DEFAULT_STREAM != 0 {
        if let Some(suffix) = suffix {
            let per_thread = format!("{name}{suffix}");
            if let Some(&f) = table.functions.get(per_thread.as_str()) {
                return Some(f as *const c_void);
            }
        }
    }
    table.functions.get(name).map(|&f| f as *const c_void)
}

/// The highest CUDA version a caller of `cuGetProcAddress` named: a runtime passes its own
/// (reported when it asks for an export table chevron does not serve).
pub static REQUESTED_VERSION: AtomicI32 = AtomicI32::new(0);

/// Resolves a driver function by base name (CUDA 12's form, status reported through
/// `symbol_status`).
///
/// # Safety
/// `symbol` is NUL-terminated; `pfn` is writable; `symbol_status` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn cuGetProcAddress_v2(
    symbol: *const c_char,
    pfn: *mut *const c_void,
    version: c_int,
    flags: u64,
    symbol_status: *mut c_int,
) -> CUresult {
    REQUESTED_VERSION.fetch_max(version, Ordering::Relaxed);
    entry("cuGetProcAddress", || {
        if symbol.is_null() || pfn.is_null() {
            return Err(DriverError::new(INVALID_VALUE, "symbol or pfn is NULL"));
        }
        // SAFETY: non-NULL and NUL-terminated by contract.
        let name = unsafe { CStr::from_ptr(symbol) }.to_string_lossy();
        let found = resolve(&name, flags);
        let status = if found.is_some() {
            SYMBOL_FOUND
        } else {
            SYMBOL_NOT_FOUND
        };
        if !symbol_status.is_null() {
            store(symbol_status, status, "symbolStatus")?;
        }
        store(pfn, found.unwrap_or(std::ptr::null()), "pfn")?;
        match found {
            Some(_) => Ok(()),
            None => Err(DriverError::new(NOT_FOUND, "")),
        }
    })
}

/// [`cuGetProcAddress_v2`] without the status (the CUDA 11.3 form).
///
/// # Safety
/// As [`cuGetProcAddress_v2`].
#[no_mangle]
pub unsafe extern "C" fn cuGetProcAddress(
    symbol: *const c_char,
    pfn: *mut *const c_void,
    version: c_int,
    flags: u64,
) -> CUresult {
    // SAFETY: forwarded from the caller.
    unsafe { cuGetProcAddress_v2(symbol, pfn, version, flags, std::ptr::null_mut()) }
}

fn static_c_str(text: &'static str) -> *const c_char {
    use std::sync::Mutex;
    static STRINGS: Mutex<Option<HashMap<&'static str, std::ffi::CString>>> = Mutex::new(None);
    let mut strings = cudart::state::lock(&STRINGS);
    strings
        .get_or_insert_with(HashMap::new)
        .entry(text)
        .or_insert_with(|| std::ffi::CString::new(text).unwrap_or_default())
        .as_ptr()
}

/// The name of a `CUresult` (`CUDA_ERROR_INVALID_VALUE`).
#[no_mangle]
pub extern "C" fn cuGetErrorName(code: CUresult, out: *mut *const c_char) -> CUresult {
    entry("cuGetErrorName", || {
        let (name, _) = describe(code).ok_or_else(|| DriverError::new(INVALID_VALUE, ""))?;
        store(out, static_c_str(name), "pStr")
    })
}

/// The text of a `CUresult`.
#[no_mangle]
pub extern "C" fn cuGetErrorString(code: CUresult, out: *mut *const c_char) -> CUresult {
    entry("cuGetErrorString", || {
        let (_, text) = describe(code).ok_or_else(|| DriverError::new(INVALID_VALUE, ""))?;
        store(out, static_c_str(text), "pStr")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_names_resolve_to_the_current_abi_and_per_thread_forms() {
        let alloc = resolve("cuMemAlloc", 0).unwrap();
        assert_eq!(alloc, memory::cuMemAlloc_v2 as *const c_void);
        let launch_ptsz = resolve("cuLaunchKernel", PER_THREAD_DEFAULT_STREAM).unwrap();
        assert_eq!(
            launch_ptsz,
            per_thread::cuLaunchKernel_ptsz as *const c_void
        );
        let sync = resolve("cuStreamSynchronize", PER_THREAD_DEFAULT_STREAM).unwrap();
        assert_eq!(sync, per_thread::cuStreamSynchronize_ptsz as *const c_void);
        let copy = resolve("cuMemcpy2D", PER_THREAD_DEFAULT_STREAM).unwrap();
        assert_eq!(copy, per_thread::cuMemcpy2D_v2_ptds as *const c_void);
        assert_eq!(
            resolve("cuMemcpy2D", 0).unwrap(),
            memcpy_2d::cuMemcpy2D_v2 as *const c_void
        );
        // No per-thread form in cuda.h: the plain function.
        let create = resolve("cuStreamCreate", PER_THREAD_DEFAULT_STREAM).unwrap();
        assert_eq!(create, stream::cuStreamCreate as *const c_void);
        // cuCtxSynchronize is not cuCtxSynchronize_v2 (a different signature).
        let ctx_sync = resolve("cuCtxSynchronize", 0).unwrap();
        assert_eq!(ctx_sync, context::cuCtxSynchronize as *const c_void);
        assert!(resolve("cuArrayCreate", 0).is_some(), "an unsupported stub");
        assert!(resolve("cuNoSuchFunction", 0).is_none());
    }
}
