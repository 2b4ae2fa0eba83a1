//! The CUDA 13.0 runtime's ABI types that chevron reads or fills: `dim3`, `cudaDeviceProp`,
//! `cudaFuncAttributes`, `cudaPointerAttributes`, and the enum values chevron interprets.
//!
//! Written from the CUDA 13.0 documentation with the toolkit's field names (so that
//! `tests/abi_layout.rs` can compare every `sizeof`/`offsetof` with the toolkit headers); no
//! header is copied into the project.
#![allow(non_snake_case, missing_docs)]

use std::ffi::{c_char, c_int, c_long, c_uint, c_void};

/// `dim3` / `uint3`: passed by value in launch calls.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dim3 {
    pub x: c_uint,
    pub y: c_uint,
    pub z: c_uint,
}

/// `cudaUUID_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CudaUuid {
    pub bytes: [c_char; 16],
}

/// `cudaFuncAttributes`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct cudaFuncAttributes {
    pub sharedSizeBytes: usize,
    pub constSizeBytes: usize,
    pub localSizeBytes: usize,
    pub maxThreadsPerBlock: c_int,
    pub numRegs: c_int,
    pub ptxVersion: c_int,
    pub binaryVersion: c_int,
    pub cacheModeCA: c_int,
    pub maxDynamicSharedSizeBytes: c_int,
    pub preferredShmemCarveout: c_int,
    pub clusterDimMustBeSet: c_int,
    pub requiredClusterWidth: c_int,
    pub requiredClusterHeight: c_int,
    pub requiredClusterDepth: c_int,
    pub clusterSchedulingPolicyPreference: c_int,
    pub nonPortableClusterSizeAllowed: c_int,
    pub reserved: [c_int; 16],
}

/// `cudaPointerAttributes`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct cudaPointerAttributes {
    pub r#type: c_int,
    pub device: c_int,
    pub devicePointer: *mut c_void,
    pub hostPointer: *mut c_void,
    pub reserved: [c_long; 8],
}

/// `cudaLaunchAttribute` (`struct cudaLaunchAttribute_st`): an id and a 64-byte value.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct cudaLaunchAttribute {
    pub id: c_int,
    pub pad: [c_char; 4],
    pub val: [u64; 8],
}

/// `cudaLaunchAttributeCooperative`: the value starts with an `int`, nonzero for a
/// cooperative launch.
pub const LAUNCH_ATTRIBUTE_COOPERATIVE: c_int = 2;

/// `cudaLaunchAttributeClusterDimension`: the value starts with the cluster's x, y, z.
pub const LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION: c_int = 4;

/// `cudaLaunchConfig_t` (`struct cudaLaunchConfig_st`), for `cudaLaunchKernelExC`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct cudaLaunchConfig_t {
    pub gridDim: Dim3,
    pub blockDim: Dim3,
    pub dynamicSmemBytes: usize,
    pub stream: *mut c_void,
    pub attrs: *mut cudaLaunchAttribute,
    pub numAttrs: c_uint,
}

/// `cudaKernelNodeParams`, for `cudaGraphExecKernelNodeSetParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct cudaKernelNodeParams {
    pub func: *mut c_void,
    pub gridDim: Dim3,
    pub blockDim: Dim3,
    pub sharedMemBytes: c_uint,
    pub kernelParams: *mut *mut c_void,
    pub extra: *mut *mut c_void,
}

/// `cudaMemoryType` values.
pub const MEMORY_TYPE_UNREGISTERED: c_int = 0;
pub const MEMORY_TYPE_HOST: c_int = 1;
pub const MEMORY_TYPE_DEVICE: c_int = 2;
pub const MEMORY_TYPE_MANAGED: c_int = 3;

/// `cudaMemcpyKind` values.
pub const MEMCPY_HOST_TO_HOST: c_int = 0;
pub const MEMCPY_HOST_TO_DEVICE: c_int = 1;
pub const MEMCPY_DEVICE_TO_HOST: c_int = 2;
pub const MEMCPY_DEVICE_TO_DEVICE: c_int = 3;
pub const MEMCPY_DEFAULT: c_int = 4;

/// `cudaDeviceProp` (CUDA 13.0 layout).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct cudaDeviceProp {
    pub name: [c_char; 256],
    pub uuid: CudaUuid,
    pub luid: [c_char; 8],
    pub luidDeviceNodeMask: c_uint,
    pub totalGlobalMem: usize,
    pub sharedMemPerBlock: usize,
    pub regsPerBlock: c_int,
    pub warpSize: c_int,
    pub memPitch: usize,
    pub maxThreadsPerBlock: c_int,
    pub maxThreadsDim: [c_int; 3],
    pub maxGridSize: [c_int; 3],
    pub totalConstMem: usize,
    pub major: c_int,
    pub minor: c_int,
    pub textureAlignment: usize,
    pub texturePitchAlignment: usize,
    pub multiProcessorCount: c_int,
    pub integrated: c_int,
    pub canMapHostMemory: c_int,
    pub maxTexture1D: c_int,
    pub maxTexture1DMipmap: c_int,
    pub maxTexture2D: [c_int; 2],
    pub maxTexture2DMipmap: [c_int; 2],
    pub maxTexture2DLinear: [c_int; 3],
    pub maxTexture2DGather: [c_int; 2],
    pub maxTexture3D: [c_int; 3],
    pub maxTexture3DAlt: [c_int; 3],
    pub maxTextureCubemap: c_int,
    pub maxTexture1DLayered: [c_int; 2],
    pub maxTexture2DLayered: [c_int; 3],
    pub maxTextureCubemapLayered: [c_int; 2],
    pub maxSurface1D: c_int,
    pub maxSurface2D: [c_int; 2],
    pub maxSurface3D: [c_int; 3],
    pub maxSurface1DLayered: [c_int; 2],
    pub maxSurface2DLayered: [c_int; 3],
    pub maxSurfaceCubemap: c_int,
    pub maxSurfaceCubemapLayered: [c_int; 2],
    pub surfaceAlignment: usize,
    pub concurrentKernels: c_int,
    pub ECCEnabled: c_int,
    pub pciBusID: c_int,
    pub pciDeviceID: c_int,
    pub pciDomainID: c_int,
    pub tccDriver: c_int,
    pub asyncEngineCount: c_int,
    pub unifiedAddressing: c_int,
    pub memoryBusWidth: c_int,
    pub l2CacheSize: c_int,
    pub persistingL2CacheMaxSize: c_int,
    pub maxThreadsPerMultiProcessor: c_int,
    pub streamPrioritiesSupported: c_int,
    pub globalL1CacheSupported: c_int,
    pub localL1CacheSupported: c_int,
    pub sharedMemPerMultiprocessor: usize,
    pub regsPerMultiprocessor: c_int,
    pub managedMemory: c_int,
    pub isMultiGpuBoard: c_int,
    pub multiGpuBoardGroupID: c_int,
    pub hostNativeAtomicSupported: c_int,
    pub pageableMemoryAccess: c_int,
    pub concurrentManagedAccess: c_int,
    pub computePreemptionSupported: c_int,
    pub canUseHostPointerForRegisteredMem: c_int,
    pub cooperativeLaunch: c_int,
    pub sharedMemPerBlockOptin: usize,
    pub pageableMemoryAccessUsesHostPageTables: c_int,
    pub directManagedMemAccessFromHost: c_int,
    pub maxBlocksPerMultiProcessor: c_int,
    pub accessPolicyMaxWindowSize: c_int,
    pub reservedSharedMemPerBlock: usize,
    pub hostRegisterSupported: c_int,
    pub sparseCudaArraySupported: c_int,
    pub hostRegisterReadOnlySupported: c_int,
    pub timelineSemaphoreInteropSupported: c_int,
    pub memoryPoolsSupported: c_int,
    pub gpuDirectRDMASupported: c_int,
    pub gpuDirectRDMAFlushWritesOptions: c_uint,
    pub gpuDirectRDMAWritesOrdering: c_int,
    pub memoryPoolSupportedHandleTypes: c_uint,
    pub deferredMappingCudaArraySupported: c_int,
    pub ipcEventSupported: c_int,
    pub clusterLaunch: c_int,
    pub unifiedFunctionPointers: c_int,
    pub deviceNumaConfig: c_int,
    pub deviceNumaId: c_int,
    pub mpsEnabled: c_int,
    pub hostNumaId: c_int,
    pub gpuPciDeviceID: c_uint,
    pub gpuPciSubsystemID: c_uint,
    pub hostNumaMultinodeIpcSupported: c_int,
    pub reserved: [c_int; 56],
}

impl cudaDeviceProp {
    /// All fields zero.
    pub fn zeroed() -> cudaDeviceProp {
        // SAFETY: every field is an integer or an array of integers, for which 0 is valid.
        unsafe { std::mem::zeroed() }
    }
}
