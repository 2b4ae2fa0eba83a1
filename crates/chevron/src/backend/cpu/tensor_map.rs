//! Tensor maps (TMA descriptors) of the CPU device: `chevron_ptx::interp::tensor_map`'s
//! 128 bytes, which `cp.async.bulk.tensor` reads in the interpreter. What the contract's
//! `tensor_map_descriptor` (the driver's `cuTensorMapEncodeTiled`) and `encode_tensor_map`
//! (MLIR's `mgpuTensorMapEncodeTiledMemref`) give on this device.

use chevron_ptx::interp::tensor_map::{TensorMap, TiledRequest, TENSOR_MAP_BYTES};

use super::device_core::DeviceCore;
use crate::backend::{DevicePtr, TiledTensorMap};
use crate::error::{Error, Result};

/// The descriptor of `map`, checked as `cuTensorMapEncodeTiled` documents.
pub(crate) fn descriptor(map: &TiledTensorMap) -> Result<[u8; TENSOR_MAP_BYTES]> {
    map.check()?;
    let request = TiledRequest {
        data_type: map.data_type,
        address: map.global_address,
        dims: &map.global_dim,
        global_strides: &map.global_strides,
        boxes: &map.box_dim,
        element_strides: &map.element_strides,
        interleave: map.interleave,
        swizzle: map.swizzle,
        oob_fill: map.oob_fill,
    };
    let encoded = TensorMap::tiled(&request).map_err(|message| Error::InvalidValue {
        call: "encode_tensor_map",
        message,
    })?;
    Ok(encoded.encode())
}

/// The descriptor of `map` in 128 bytes of fresh device memory (never freed), as upstream's
/// wrapper leaks its copy too.
pub(crate) fn encode(core: &DeviceCore, map: &TiledTensorMap) -> Result<DevicePtr> {
    let bytes = descriptor(map)?;
    let ptr = core.memory.alloc(TENSOR_MAP_BYTES as u64)?;
    core.memory
        .shared()
        .write(ptr, &bytes)
        .map_err(|e| Error::InvalidValue {
            call: "encode_tensor_map",
            message: e.to_string(),
        })?;
    Ok(ptr)
}
