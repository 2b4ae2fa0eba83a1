//! TMA descriptors: `cuTensorMapEncodeTiled` on the host, then the 128-byte `CUtensorMap`
//! copied into device memory (what MLIR's `mgpuTensorMapEncodeTiledMemref` hands to kernels).
//!
//! The descriptor's device copy is an ordinary allocation of the device (so pointer
//! classification knows it) that is never freed, as upstream's wrapper leaks it too.

use std::ffi::c_void;

use super::device::CudaDevice;
use super::sys::{self, CUtensorMap};
use crate::backend::tensor_map::TiledTensorMap;
use crate::backend::DevicePtr;
use crate::error::{Error, Result};

/// Encodes `map` for `device` and returns the device address of a fresh 128-byte copy of the
/// descriptor (never freed). Errors: a malformed map, the driver has no
/// `cuTensorMapEncodeTiled` (CUDA < 12.0: [`Error::Unavailable`]), or the driver rejects the
/// map (the error lists its fields).
pub(crate) fn encode_tensor_map(device: &CudaDevice, map: &TiledTensorMap) -> Result<DevicePtr> {
    let descriptor = encoded(device, map)?;
    copy_to_device(device, &descriptor)
}

/// The driver's 128 bytes for `map` (`cuTensorMapEncodeTiled` into a host `CUtensorMap`).
pub(crate) fn descriptor(device: &CudaDevice, map: &TiledTensorMap) -> Result<[u8; 128]> {
    let descriptor = encoded(device, map)?;
    let mut bytes = [0u8; 128];
    for (chunk, word) in bytes.chunks_mut(8).zip(descriptor.opaque) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    Ok(bytes)
}

/// `cuTensorMapEncodeTiled` for `map`.
fn encoded(device: &CudaDevice, map: &TiledTensorMap) -> Result<CUtensorMap> {
    map.check()?;
    let rank = map.global_dim.len();
    let state = &device.state;
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
    Ok(descriptor)
}

/// A fresh device copy of `descriptor` (never freed).
fn copy_to_device(device: &CudaDevice, descriptor: &CUtensorMap) -> Result<DevicePtr> {
    let state = &device.state;
    let _entered = state.enter()?;
    let bytes = std::mem::size_of::<CUtensorMap>();
    let ptr = crate::backend::Device::alloc(device, bytes as u64)?;
    // SAFETY: `ptr` is a fresh allocation of `bytes` bytes on this device and `descriptor` is
    // readable for `bytes`; on the legacy stream of the current context, the copy from pageable
    // memory completes with the synchronization below.
    let code = unsafe {
        (state.driver.cuMemcpyHtoDAsync)(
            ptr,
            (descriptor as *const CUtensorMap).cast(),
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
