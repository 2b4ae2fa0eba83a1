//! TMA descriptors: `cuTensorMapEncodeTiled` on the host, then the 128-byte `CUtensorMap`
//! copied into device memory (what MLIR's `mgpuTensorMapEncodeTiledMemref` hands to kernels).
//!
//! The descriptor's device copy is an ordinary allocation of the device (so pointer
//! classification knows it) that is never freed, as upstream's wrapper leaks it too.

use std::ffi::c_void;

use super::device::CudaDevice;
use super::sys::{self, CUtensorMap};
use crate::backend::DevicePtr;
use crate::error::{Error, Result};

/// The most dimensions a tiled tensor map has.
pub const MAX_TENSOR_MAP_RANK: usize = 5;

/// What `cuTensorMapEncodeTiled` takes, innermost dimension first. The enums are the driver's
/// `CUtensorMap*` values, passed through unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TiledTensorMap {
    /// `CUtensorMapDataType`.
    pub data_type: u32,
    /// The global address of the tensor (device memory, 16-byte aligned).
    pub global_address: DevicePtr,
    /// Elements per dimension (`rank` entries).
    pub global_dim: Vec<u64>,
    /// Byte strides of dimensions 1.. (`rank - 1` entries; dimension 0 is contiguous).
    pub global_strides: Vec<u64>,
    /// The box (tile) in elements per dimension (`rank` entries).
    pub box_dim: Vec<u32>,
    /// Traversal strides in elements (`rank` entries, usually 1).
    pub element_strides: Vec<u32>,
    /// `CUtensorMapInterleave`.
    pub interleave: u32,
    /// `CUtensorMapSwizzle`.
    pub swizzle: u32,
    /// `CUtensorMapL2promotion`.
    pub l2_promotion: u32,
    /// `CUtensorMapFloatOOBfill`.
    pub oob_fill: u32,
}

/// Encodes `map` for `device` and returns the device address of a fresh 128-byte copy of the
/// descriptor (never freed). Errors: `device` is not a CUDA device, the driver has no
/// `cuTensorMapEncodeTiled` (CUDA < 12.0: [`Error::Unavailable`]), or the driver rejects the
/// map (the error lists its fields).
pub fn encode_tensor_map(device: &crate::Device, map: &TiledTensorMap) -> Result<DevicePtr> {
    let backend = &device.core().backend;
    let Some(cuda) = backend.as_any().downcast_ref::<CudaDevice>() else {
        return Err(Error::InvalidValue {
            call: "encode_tensor_map",
            message: format!(
                "TMA descriptors (CUtensorMap) exist on CUDA GPUs only; {device} is not one"
            ),
        });
    };
    let rank = map.global_dim.len();
    if rank == 0
        || rank > MAX_TENSOR_MAP_RANK
        || map.box_dim.len() != rank
        || map.element_strides.len() != rank
        || map.global_strides.len() + 1 != rank
    {
        return Err(Error::InvalidValue {
            call: "encode_tensor_map",
            message: format!(
                "a tiled tensor map has rank 1 to {MAX_TENSOR_MAP_RANK} with rank entries of \
                 dimensions, box and element strides and rank - 1 global strides: {map:?}"
            ),
        });
    }
    let state = &cuda.state;
    let encode = state
        .driver
        .cuTensorMapEncodeTiled
        .ok_or_else(|| Error::Unavailable {
            backend: "cuda",
            reason: "the CUDA driver has no cuTensorMapEncodeTiled (CUDA 12.0 or later is needed \
                 for TMA descriptors)"
                .into(),
        })?;
    let mut descriptor = CUtensorMap { opaque: [0; 16] };
    let _entered = state.enter()?;
    // SAFETY: the context is current; the arrays hold `rank` (strides: `rank - 1`) entries as
    // checked above and live for the call; `descriptor` is a 64-byte-aligned CUtensorMap.
    let code = unsafe {
        encode(
            &mut descriptor,
            map.data_type,
            rank as u32,
            map.global_address as *mut c_void,
            map.global_dim.as_ptr(),
            map.global_strides.as_ptr(),
            map.box_dim.as_ptr(),
            map.element_strides.as_ptr(),
            map.interleave,
            map.swizzle,
            map.l2_promotion,
            map.oob_fill,
        )
    };
    if code != sys::CUDA_SUCCESS {
        return Err(state.error("cuTensorMapEncodeTiled", code, format!("{map:?}")));
    }
    let bytes = std::mem::size_of::<CUtensorMap>();
    let ptr = backend.alloc(bytes as u64)?;
    // SAFETY: `ptr` is a fresh allocation of `bytes` bytes on this device and `descriptor` is
    // readable for `bytes`; on the legacy stream of the current context, the copy from pageable
    // memory completes with the synchronization below.
    let code = unsafe {
        (state.driver.cuMemcpyHtoDAsync)(
            ptr,
            (&descriptor as *const CUtensorMap).cast(),
            bytes,
            std::ptr::null_mut(),
        )
    };
    state.check("cuMemcpyHtoDAsync", code)?;
    // SAFETY: the legacy stream of the current context always exists.
    let code = unsafe { (state.driver.cuStreamSynchronize)(std::ptr::null_mut()) };
    state.check("cuStreamSynchronize", code)?;
    Ok(ptr)
}
