//! The driver types of CUDA graph nodes that the curated table (`sys.rs`) declares entry points
//! for: kernel node parameters, one-row copies and fills.

#![allow(non_camel_case_types, non_snake_case)]

use std::ffi::{c_uint, c_void};

use super::sys::{CUcontext, CUdeviceptr, CUfunction};

/// `CUDA_KERNEL_NODE_PARAMS_v2`: a kernel node's function, geometry and arguments.
#[repr(C)]
pub struct CUDA_KERNEL_NODE_PARAMS {
    /// The function.
    pub func: CUfunction,
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
    /// One pointer per parameter (the values are copied by the driver).
    pub kernelParams: *mut *mut c_void,
    /// Packed arguments (unused: null).
    pub extra: *mut *mut c_void,
    /// A context-independent kernel (unused: null, `func` is set).
    pub kern: *mut c_void,
    /// The context (ignored when `func` is set).
    pub ctx: CUcontext,
}

/// `CU_MEMORYTYPE_HOST`.
pub const CU_MEMORYTYPE_HOST: c_uint = 1;

/// `CUDA_MEMCPY3D`: a copy; graph nodes use one row (`Height` = `Depth` = 1), array copies
/// (`texture.rs`) whole boxes.
#[repr(C)]
#[derive(Default)]
pub struct CUDA_MEMCPY3D {
    /// Source offsets (x in bytes, y, z) and mipmap level.
    pub srcXInBytes: usize,
    /// Source y.
    pub srcY: usize,
    /// Source z.
    pub srcZ: usize,
    /// Source level of detail.
    pub srcLOD: usize,
    /// `CU_MEMORYTYPE_*` of the source.
    pub srcMemoryType: c_uint,
    /// The source on the host.
    pub srcHost: usize,
    /// The source on the device.
    pub srcDevice: CUdeviceptr,
    /// A source array (`CUarray`).
    pub srcArray: usize,
    /// Reserved.
    pub reserved0: usize,
    /// Source row pitch.
    pub srcPitch: usize,
    /// Source rows per slice.
    pub srcHeight: usize,
    /// Destination offsets (x in bytes, y, z) and mipmap level.
    pub dstXInBytes: usize,
    /// Destination y.
    pub dstY: usize,
    /// Destination z.
    pub dstZ: usize,
    /// Destination level of detail.
    pub dstLOD: usize,
    /// `CU_MEMORYTYPE_*` of the destination.
    pub dstMemoryType: c_uint,
    /// The destination on the host.
    pub dstHost: usize,
    /// The destination on the device.
    pub dstDevice: CUdeviceptr,
    /// A destination array (`CUarray`).
    pub dstArray: usize,
    /// Reserved.
    pub reserved1: usize,
    /// Destination row pitch.
    pub dstPitch: usize,
    /// Destination rows per slice.
    pub dstHeight: usize,
    /// Bytes per row.
    pub WidthInBytes: usize,
    /// Rows.
    pub Height: usize,
    /// Slices.
    pub Depth: usize,
}

/// `CUDA_MEMSET_NODE_PARAMS`: a fill of `width` elements of `elementSize` (1, 2 or 4) bytes.
#[repr(C)]
pub struct CUDA_MEMSET_NODE_PARAMS {
    /// The destination.
    pub dst: CUdeviceptr,
    /// Row pitch (one row: ignored).
    pub pitch: usize,
    /// The element value.
    pub value: c_uint,
    /// 1, 2 or 4.
    pub elementSize: c_uint,
    /// Elements per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
}
