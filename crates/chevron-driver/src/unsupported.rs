//! Every other function of CUDA 13.0's driver API: each returns `CUDA_ERROR_NOT_SUPPORTED`
//! and names itself on stderr (once per function), so a program that calls one stops with a
//! clear report instead of crashing or silently succeeding.
//!
//! The list is `cuda.h`'s functions (13.0.88, under their current exported names) less those
//! chevron implements, as `scripts/driver_unsupported.sh` prints them.

use std::collections::HashSet;
use std::ffi::c_void;
use std::sync::Mutex;

use crate::result::{entry, CUresult, DriverError, NOT_SUPPORTED};

/// Reports a call of the unsupported function `function` (its explanation once).
fn unsupported(function: &'static str) -> CUresult {
    static NAMED: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let first = cudart::state::lock(&NAMED)
        .get_or_insert_with(HashSet::new)
        .insert(function);
    entry(function, || {
        let message = if first {
            "not provided by chevron's CUDA driver library"
        } else {
            ""
        };
        Err(DriverError::new(NOT_SUPPORTED, message))
    })
}

macro_rules! unsupported {
    ($($name:ident,)*) => {
        $(
            #[doc = concat!("`", stringify!($name), "`: not provided; returns `CUDA_ERROR_NOT_SUPPORTED`.")]
            #[no_mangle]
            pub extern "C" fn $name() -> CUresult {
                unsupported(stringify!($name))
            }
        )*

        /// Every stub, by name (for `cuGetProcAddress`).
        pub fn stubs() -> Vec<(&'static str, *const c_void)> {
            vec![$((stringify!($name), $name as *const c_void)),*]
        }
    };
}

unsupported! {

    cuArrayGetMemoryRequirements, cuArrayGetPlane,
    cuArrayGetSparseProperties, cuCheckpointProcessCheckpoint,
    cuCheckpointProcessGetRestoreThreadId, cuCheckpointProcessGetState,
    cuCheckpointProcessLock, cuCheckpointProcessRestore, cuCheckpointProcessUnlock,
    cuCoredumpGetAttribute, cuCoredumpGetAttributeGlobal, cuCoredumpSetAttribute,
    cuCoredumpSetAttributeGlobal, cuCtxAttach, cuCtxCreate_v2, cuCtxCreate_v3, cuCtxDetach,
    cuCtxDisablePeerAccess, cuCtxEnablePeerAccess, cuCtxFromGreenCtx, cuCtxGetDevResource, cuCtxGetDevice_v2, cuCtxGetExecAffinity, cuCtxGetId, cuCtxRecordEvent,
    cuCtxSetFlags, cuCtxSynchronize_v2, cuCtxWaitEvent, cuDestroyExternalMemory, cuDestroyExternalSemaphore,
    cuDevResourceGenerateDesc, cuDevSmResourceSplitByCount, cuDeviceCanAccessPeer,
    cuDeviceGetDevResource,
    cuDeviceGetExecAffinitySupport, cuDeviceGetGraphMemAttribute,
    cuDeviceGetHostAtomicCapabilities, cuDeviceGetLuid, cuDeviceGetNvSciSyncAttributes, cuDeviceGetP2PAtomicCapabilities,
    cuDeviceGetProperties, cuDeviceGetTexture1DLinearMaxWidth, cuDeviceGraphMemTrim,
    cuDeviceRegisterAsyncNotification, cuDeviceSetGraphMemAttribute, cuDeviceUnregisterAsyncNotification, cuEventRecordWithFlags,
    cuExternalMemoryGetMappedBuffer, cuExternalMemoryGetMappedMipmappedArray,
    cuFlushGPUDirectRDMAWrites, cuFuncSetBlockShape, cuFuncSetSharedSize,
    cuGraphAddBatchMemOpNode, cuGraphAddExternalSemaphoresSignalNode, cuGraphAddExternalSemaphoresWaitNode,
    cuGraphAddMemAllocNode, cuGraphAddMemFreeNode,
    cuGraphAddNode_v2,
    cuGraphBatchMemOpNodeGetParams, cuGraphBatchMemOpNodeSetParams,
    cuGraphChildGraphNodeGetGraph, cuGraphConditionalHandleCreate, cuGraphDebugDotPrint, cuGraphEventRecordNodeGetEvent,
    cuGraphEventRecordNodeSetEvent, cuGraphEventWaitNodeGetEvent, cuGraphEventWaitNodeSetEvent,
    cuGraphExecBatchMemOpNodeSetParams, cuGraphExecChildGraphNodeSetParams, cuGraphExecEventRecordNodeSetEvent, cuGraphExecEventWaitNodeSetEvent,
    cuGraphExecExternalSemaphoresSignalNodeSetParams,
    cuGraphExecExternalSemaphoresWaitNodeSetParams, cuGraphExecMemcpyNodeSetParams, cuGraphExecNodeSetParams,
    cuGraphExternalSemaphoresSignalNodeGetParams,
    cuGraphExternalSemaphoresSignalNodeSetParams, cuGraphExternalSemaphoresWaitNodeGetParams,
    cuGraphExternalSemaphoresWaitNodeSetParams, cuGraphKernelNodeCopyAttributes, cuGraphKernelNodeGetAttribute,
    cuGraphKernelNodeSetAttribute,
    cuGraphMemAllocNodeGetParams,
    cuGraphMemFreeNodeGetParams, cuGraphMemcpyNodeGetParams, cuGraphMemcpyNodeSetParams,
    cuGraphNodeSetParams, cuGraphicsMapResources, cuGraphicsResourceGetMappedMipmappedArray,
    cuGraphicsResourceGetMappedPointer_v2, cuGraphicsResourceSetMapFlags_v2,
    cuGraphicsSubResourceGetMappedArray, cuGraphicsUnmapResources,
    cuGraphicsUnregisterResource, cuGreenCtxCreate, cuGreenCtxDestroy,
    cuGreenCtxGetDevResource, cuGreenCtxGetId, cuGreenCtxRecordEvent, cuGreenCtxStreamCreate,
    cuGreenCtxWaitEvent, cuImportExternalMemory, cuImportExternalSemaphore,
    cuIpcCloseMemHandle, cuIpcGetEventHandle, cuIpcGetMemHandle, cuIpcOpenEventHandle,
    cuIpcOpenMemHandle_v2, cuLaunch, cuLaunchCooperativeKernelMultiDevice, cuLaunchGrid,
    cuLaunchGridAsync, cuLibraryEnumerateKernels, cuLibraryGetKernelCount, cuLibraryGetManaged,
    cuLibraryGetUnifiedFunction, cuLogsCurrent, cuLogsDumpToFile, cuLogsDumpToMemory,
    cuLogsRegisterCallback, cuLogsUnregisterCallback, cuMemAddressFree, cuMemAddressReserve,
    cuMemBatchDecompressAsync,
    cuMemCreate, cuMemDiscardAndPrefetchBatchAsync, cuMemDiscardBatchAsync,
    cuMemExportToShareableHandle, cuMemGetAccess,
    cuMemGetAllocationGranularity, cuMemGetAllocationPropertiesFromHandle,
    cuMemGetDefaultMemPool, cuMemGetHandleForAddressRange, cuMemGetMemPool,
    cuMemImportFromShareableHandle, cuMemMap, cuMemMapArrayAsync, cuMemPoolExportPointer, cuMemPoolExportToShareableHandle,
    cuMemPoolGetAccess, cuMemPoolImportFromShareableHandle,
    cuMemPoolImportPointer, cuMemPoolSetAccess, cuMemPrefetchBatchAsync,
    cuMemRelease, cuMemRetainAllocationHandle,
    cuMemSetAccess, cuMemSetMemPool, cuMemUnmap, cuMemcpy3DBatchAsync_ptsz,
    cuMemcpy3DBatchAsync_v2, cuMemcpy3DPeer, cuMemcpy3DPeerAsync,
    cuMemcpyBatchAsync_ptsz, cuMemcpyBatchAsync_v2,
    cuMipmappedArrayGetMemoryRequirements,
    cuMipmappedArrayGetSparseProperties, cuModuleEnumerateFunctions, cuModuleGetFunctionCount,
    cuModuleGetSurfRef, cuModuleGetTexRef, cuMulticastAddDevice,
    cuMulticastBindAddr, cuMulticastBindMem, cuMulticastCreate, cuMulticastGetGranularity,
    cuMulticastUnbind, cuOccupancyMaxActiveClusters, cuOccupancyMaxPotentialClusterSize,
    cuParamSetSize, cuParamSetTexRef, cuParamSetf, cuParamSeti, cuParamSetv,
    cuPointerSetAttribute, cuSignalExternalSemaphoresAsync, cuStreamAttachMemAsync,
    cuStreamBatchMemOp_ptsz, cuStreamBatchMemOp_v2, cuStreamBeginCaptureToGraph,
    cuStreamGetCaptureInfo_ptsz,
    cuStreamGetCaptureInfo_v2_ptsz,
    cuStreamGetGreenCtx,
    cuStreamUpdateCaptureDependencies_ptsz, cuStreamUpdateCaptureDependencies_v2,
    cuStreamWaitValue32_ptsz, cuStreamWaitValue32_v2, cuStreamWaitValue64_ptsz,
    cuStreamWaitValue64_v2, cuStreamWriteValue32_ptsz, cuStreamWriteValue32_v2,
    cuStreamWriteValue64_ptsz, cuStreamWriteValue64_v2,
    cuSurfObjectGetResourceDesc, cuSurfRefGetArray, cuSurfRefSetArray,
    cuTensorMapEncodeIm2col, cuTensorMapEncodeIm2colWide,
    cuTensorMapReplaceAddress,
    cuTexObjectGetResourceViewDesc, cuTexObjectGetTextureDesc,
    cuTexRefCreate, cuTexRefDestroy, cuTexRefGetAddressMode, cuTexRefGetAddress_v2,
    cuTexRefGetArray, cuTexRefGetBorderColor, cuTexRefGetFilterMode, cuTexRefGetFlags,
    cuTexRefGetFormat, cuTexRefGetMaxAnisotropy, cuTexRefGetMipmapFilterMode,
    cuTexRefGetMipmapLevelBias, cuTexRefGetMipmapLevelClamp, cuTexRefGetMipmappedArray,
    cuTexRefSetAddress2D_v2, cuTexRefSetAddress2D_v3, cuTexRefSetAddressMode,
    cuTexRefSetAddress_v2, cuTexRefSetArray, cuTexRefSetBorderColor, cuTexRefSetFilterMode,
    cuTexRefSetFlags, cuTexRefSetFormat, cuTexRefSetMaxAnisotropy, cuTexRefSetMipmapFilterMode,
    cuTexRefSetMipmapLevelBias, cuTexRefSetMipmapLevelClamp, cuTexRefSetMipmappedArray,
    cuThreadExchangeStreamCaptureMode, cuWaitExternalSemaphoresAsync,
}
