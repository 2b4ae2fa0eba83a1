//! Every other function of CUDA 13.0's driver API: each returns `CUDA_ERROR_NOT_SUPPORTED`
//! and names itself on stderr (once per function), so a program that calls one stops with a
//! clear report instead of crashing or silently succeeding.
//!
//! The list is `cuda.h`'s functions (13.0.88, under their current exported names, and the
//! `_ptds`/`_ptsz` forms it declares) less those chevron implements, as
//! `scripts/driver_unsupported.sh` prints them.

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
    cuCtxFromGreenCtx, cuCtxGetDevResource, cuCtxGetDevice_v2, cuCtxGetExecAffinity, cuCtxGetId, cuCtxRecordEvent,
    cuCtxSetFlags, cuCtxSynchronize_v2, cuCtxWaitEvent, cuDestroyExternalMemory, cuDestroyExternalSemaphore,
    cuDevResourceGenerateDesc, cuDevSmResourceSplitByCount, cuDeviceGetDevResource,
    cuDeviceGetExecAffinitySupport, cuDeviceGetHostAtomicCapabilities, cuDeviceGetLuid, cuDeviceGetNvSciSyncAttributes, cuDeviceGetP2PAtomicCapabilities,
    cuDeviceGetProperties, cuDeviceGetTexture1DLinearMaxWidth, cuDeviceRegisterAsyncNotification, cuDeviceUnregisterAsyncNotification, cuExternalMemoryGetMappedBuffer, cuExternalMemoryGetMappedMipmappedArray,
    cuFlushGPUDirectRDMAWrites, cuFuncSetBlockShape, cuFuncSetSharedSize,
    cuGraphAddBatchMemOpNode, cuGraphAddExternalSemaphoresSignalNode, cuGraphAddExternalSemaphoresWaitNode,
    cuGraphBatchMemOpNodeGetParams, cuGraphBatchMemOpNodeSetParams,
    cuGraphConditionalHandleCreate, cuGraphDebugDotPrint, cuGraphExecBatchMemOpNodeSetParams, cuGraphExecExternalSemaphoresSignalNodeSetParams,
    cuGraphExecExternalSemaphoresWaitNodeSetParams, cuGraphExecMemcpyNodeSetParams, cuGraphExecNodeSetParams,
    cuGraphExternalSemaphoresSignalNodeGetParams,
    cuGraphExternalSemaphoresSignalNodeSetParams, cuGraphExternalSemaphoresWaitNodeGetParams,
    cuGraphExternalSemaphoresWaitNodeSetParams, cuGraphMemcpyNodeGetParams, cuGraphMemcpyNodeSetParams,
    cuGraphNodeSetParams, cuGraphicsMapResources, cuGraphicsMapResources_ptsz, cuGraphicsResourceGetMappedMipmappedArray,
    cuGraphicsResourceGetMappedPointer_v2, cuGraphicsResourceSetMapFlags_v2,
    cuGraphicsSubResourceGetMappedArray, cuGraphicsUnmapResources, cuGraphicsUnmapResources_ptsz,
    cuGraphicsUnregisterResource, cuGreenCtxCreate, cuGreenCtxDestroy,
    cuGreenCtxGetDevResource, cuGreenCtxGetId, cuGreenCtxRecordEvent, cuGreenCtxStreamCreate,
    cuGreenCtxWaitEvent, cuImportExternalMemory, cuImportExternalSemaphore,
    cuIpcCloseMemHandle, cuIpcGetEventHandle, cuIpcGetMemHandle, cuIpcOpenEventHandle,
    cuIpcOpenMemHandle_v2, cuLaunch, cuLaunchCooperativeKernelMultiDevice, cuLaunchGrid,
    cuLaunchGridAsync, cuLibraryEnumerateKernels, cuLibraryGetKernelCount, cuLibraryGetManaged,
    cuLibraryGetUnifiedFunction, cuLogsCurrent, cuLogsDumpToFile, cuLogsDumpToMemory,
    cuLogsRegisterCallback, cuLogsUnregisterCallback, cuMemAddressFree, cuMemAddressReserve,
    cuMemBatchDecompressAsync, cuMemBatchDecompressAsync_ptsz,
    cuMemCreate, cuMemDiscardAndPrefetchBatchAsync, cuMemDiscardAndPrefetchBatchAsync_ptsz, cuMemDiscardBatchAsync, cuMemDiscardBatchAsync_ptsz,
    cuMemExportToShareableHandle, cuMemGetAccess,
    cuMemGetAllocationGranularity, cuMemGetAllocationPropertiesFromHandle,
    cuMemGetDefaultMemPool, cuMemGetHandleForAddressRange, cuMemGetMemPool,
    cuMemImportFromShareableHandle, cuMemMap, cuMemMapArrayAsync, cuMemMapArrayAsync_ptsz, cuMemPoolExportPointer, cuMemPoolExportToShareableHandle,
    cuMemPoolGetAccess, cuMemPoolImportFromShareableHandle,
    cuMemPoolImportPointer, cuMemPoolSetAccess, cuMemPrefetchBatchAsync, cuMemPrefetchBatchAsync_ptsz,
    cuMemRelease, cuMemRetainAllocationHandle,
    cuMemSetAccess, cuMemSetMemPool, cuMemUnmap, cuMemcpy3DBatchAsync_ptsz,
    cuMemcpy3DBatchAsync_v2, cuMemcpy3DBatchAsync_v2_ptsz, cuMemcpy3DPeer, cuMemcpy3DPeer_ptds, cuMemcpy3DPeerAsync, cuMemcpy3DPeerAsync_ptsz, cuMemcpyBatchAsync_ptsz, cuMemcpyBatchAsync_v2, cuMemcpyBatchAsync_v2_ptsz,
    cuMipmappedArrayGetMemoryRequirements,
    cuMipmappedArrayGetSparseProperties, cuModuleEnumerateFunctions, cuModuleGetFunctionCount,
    cuModuleGetSurfRef, cuModuleGetTexRef, cuMulticastAddDevice,
    cuMulticastBindAddr, cuMulticastBindMem, cuMulticastCreate, cuMulticastGetGranularity,
    cuMulticastUnbind,
    cuParamSetSize, cuParamSetTexRef, cuParamSetf, cuParamSeti, cuParamSetv,
    cuPointerSetAttribute, cuSignalExternalSemaphoresAsync, cuSignalExternalSemaphoresAsync_ptsz, cuStreamBatchMemOp_ptsz, cuStreamBatchMemOp_v2, cuStreamBatchMemOp_v2_ptsz,
    cuStreamGetCaptureInfo_ptsz,
    cuStreamGetCaptureInfo_v2_ptsz,
    cuStreamGetGreenCtx,
    cuStreamWaitValue32_ptsz, cuStreamWaitValue32_v2, cuStreamWaitValue32_v2_ptsz, cuStreamWaitValue64_ptsz,
    cuStreamWaitValue64_v2, cuStreamWaitValue64_v2_ptsz, cuStreamWriteValue32_ptsz, cuStreamWriteValue32_v2, cuStreamWriteValue32_v2_ptsz,
    cuStreamWriteValue64_ptsz, cuStreamWriteValue64_v2, cuStreamWriteValue64_v2_ptsz,
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
    cuWaitExternalSemaphoresAsync, cuWaitExternalSemaphoresAsync_ptsz,
}
