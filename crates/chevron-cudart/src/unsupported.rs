//! Every other function NVIDIA's `libcudart.so.13` exports: each returns
//! `cudaErrorNotSupported` and prints a one-line error naming itself, so a program that calls
//! one stops with a clear report instead of crashing or silently succeeding.
//!
//! The list is the library's exported `cuda*`/`__cuda*` functions (CUDA 13.0.96) less those
//! chevron implements, as `scripts/cudart_unsupported.sh` prints them.

use crate::errors::{cudaError_t, guard, CudaError, NOT_SUPPORTED};

/// Reports a call of the unsupported entry point `function`.
fn unsupported(function: &str) -> cudaError_t {
    guard(function, || {
        Err(CudaError::new(
            NOT_SUPPORTED,
            "not provided by chevron's CUDA runtime",
        ))
    })
}

macro_rules! unsupported {
    ($($name:ident,)*) => {
        $(
            #[doc = concat!("`", stringify!($name), "`: not provided; returns `cudaErrorNotSupported`.")]
            #[no_mangle]
            pub extern "C" fn $name() -> cudaError_t {
                unsupported(stringify!($name))
            }
        )*
    };
}

unsupported! {
    __cudaGetProcAddress, __cudaRegisterHostVar, __cudaRegisterUnifiedTable,
    cudaArrayGetMemoryRequirements, cudaArrayGetPlane, cudaArrayGetSparseProperties,
    cudaDestroyExternalMemory,
    cudaDestroyExternalSemaphore,
    cudaDeviceFlushGPUDirectRDMAWrites,
    cudaDeviceGetHostAtomicCapabilities, cudaDeviceGetNvSciSyncAttributes,
    cudaDeviceGetP2PAtomicCapabilities,
    cudaDeviceRegisterAsyncNotification, cudaDeviceUnregisterAsyncNotification,
    cudaEGLStreamConsumerAcquireFrame, cudaEGLStreamConsumerConnect,
    cudaEGLStreamConsumerConnectWithFlags, cudaEGLStreamConsumerDisconnect,
    cudaEGLStreamConsumerReleaseFrame, cudaEGLStreamProducerConnect,
    cudaEGLStreamProducerDisconnect, cudaEGLStreamProducerPresentFrame,
    cudaEGLStreamProducerReturnFrame, cudaEventCreateFromEGLSync,
    cudaExternalMemoryGetMappedBuffer,
    cudaExternalMemoryGetMappedMipmappedArray,
    cudaGLGetDevices, cudaGLMapBufferObject, cudaGLMapBufferObjectAsync, cudaGLRegisterBufferObject,
    cudaGLSetBufferObjectMapFlags, cudaGLSetGLDevice, cudaGLUnmapBufferObject,
    cudaGLUnmapBufferObjectAsync, cudaGLUnregisterBufferObject, cudaGetExportTable,
    cudaGetKernel, cudaGetTextureObjectResourceViewDesc, cudaGraphAddExternalSemaphoresSignalNode, cudaGraphAddExternalSemaphoresWaitNode,
    cudaGraphConditionalHandleCreate, cudaGraphDebugDotPrint, cudaGraphExecExternalSemaphoresSignalNodeSetParams,
    cudaGraphExecExternalSemaphoresWaitNodeSetParams, cudaGraphExternalSemaphoresSignalNodeGetParams,
    cudaGraphExternalSemaphoresSignalNodeSetParams, cudaGraphExternalSemaphoresWaitNodeGetParams,
    cudaGraphExternalSemaphoresWaitNodeSetParams, cudaGraphicsEGLRegisterImage, cudaGraphicsGLRegisterBuffer, cudaGraphicsGLRegisterImage,
    cudaGraphicsMapResources, cudaGraphicsResourceGetMappedEglFrame,
    cudaGraphicsResourceGetMappedMipmappedArray, cudaGraphicsResourceGetMappedPointer,
    cudaGraphicsResourceSetMapFlags, cudaGraphicsSubResourceGetMappedArray,
    cudaGraphicsUnmapResources, cudaGraphicsUnregisterResource,
    cudaGraphicsVDPAURegisterOutputSurface, cudaGraphicsVDPAURegisterVideoSurface,
    cudaImportExternalMemory, cudaImportExternalSemaphore, cudaIpcCloseMemHandle,
    cudaIpcGetEventHandle, cudaIpcGetMemHandle, cudaIpcOpenEventHandle, cudaIpcOpenMemHandle,
    cudaKernelSetAttributeForDevice, cudaLibraryEnumerateKernels, cudaLibraryGetGlobal,
    cudaLibraryGetKernel, cudaLibraryGetKernelCount, cudaLibraryGetManaged,
    cudaLibraryGetUnifiedFunction, cudaLibraryLoadData, cudaLibraryLoadFromFile, cudaLibraryUnload,
    cudaLogsCurrent, cudaLogsDumpToFile, cudaLogsDumpToMemory, cudaLogsRegisterCallback,
    cudaLogsUnregisterCallback, cudaMemDiscardAndPrefetchBatchAsync, cudaMemDiscardAndPrefetchBatchAsync_ptsz,
    cudaMemDiscardBatchAsync, cudaMemDiscardBatchAsync_ptsz, cudaMemGetDefaultMemPool,
    cudaMemGetMemPool, cudaMemPoolExportPointer, cudaMemPoolExportToShareableHandle,
    cudaMemPoolGetAccess, cudaMemPoolImportFromShareableHandle, cudaMemPoolImportPointer,
    cudaMemPoolSetAccess, cudaMemPrefetchBatchAsync, cudaMemPrefetchBatchAsync_ptsz,
    cudaMemSetMemPool,
    cudaMemcpy2DArrayToArray_ptds, cudaMemcpy3DBatchAsync, cudaMemcpy3DBatchAsync_ptsz, cudaMemcpy3DPeer,
    cudaMemcpy3DPeerAsync,
    cudaMemcpy3DPeerAsync_ptsz, cudaMemcpy3DPeer_ptds, cudaMemcpyArrayToArray_ptds,
    cudaMemcpyBatchAsync, cudaMemcpyBatchAsync_ptsz, cudaMipmappedArrayGetMemoryRequirements,
    cudaMipmappedArrayGetSparseProperties,
    cudaSignalExternalSemaphoresAsync, cudaSignalExternalSemaphoresAsync_ptsz,
    cudaVDPAUGetDevice, cudaVDPAUSetVDPAUDevice,
    cudaWaitExternalSemaphoresAsync, cudaWaitExternalSemaphoresAsync_ptsz,
}
