//! `cuTensorMapEncodeTiled`: a tiled TMA descriptor written into the caller's 128-byte
//! `CUtensorMap`, encoded by the current device ([`chevron::Device::tensor_map_descriptor`]):
//! the CPU device's own layout, which its interpreter's `cp.async.bulk.tensor` reads, or on
//! GPUs NVIDIA's driver's. The map is checked as CUDA documents (`CUDA_ERROR_INVALID_VALUE`
//! naming the rule that failed).

use std::ffi::{c_uint, c_void};

use chevron::backend::{TiledTensorMap, MAX_TENSOR_MAP_RANK};
use cudart::state;

use crate::result::{entry, CUresult, DriverError, INVALID_VALUE};

/// Bytes of a `CUtensorMap` (and its alignment, 64).
const TENSOR_MAP_BYTES: usize = 128;

/// Reads `count` values at `values` (NULL only when `count` is 0).
///
/// # Safety
/// `values` points at `count` readable values or is NULL.
unsafe fn list<T: Copy>(values: *const T, count: usize, what: &str) -> Result<Vec<T>, DriverError> {
    if count == 0 {
        return Ok(Vec::new());
    }
    if values.is_null() {
        return Err(DriverError::new(INVALID_VALUE, format!("{what} is NULL")));
    }
    if !chevron::ffi::c_array_fits::<T>(count) {
        return Err(DriverError::new(
            INVALID_VALUE,
            format!("{what}: {count} values is more than memory holds"),
        ));
    }
    // SAFETY: `count` readable values by contract.
    Ok(unsafe { std::slice::from_raw_parts(values, count) }.to_vec())
}

/// Encodes a tiled tensor map into `tensor_map` (CUDA 12.0).
///
/// # Safety
/// `tensor_map` is 128 writable bytes; the arrays hold `rank` values (`global_strides`:
/// `rank - 1`).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cuTensorMapEncodeTiled(
    tensor_map: *mut c_void,
    data_type: c_uint,
    rank: u32,
    global_address: *mut c_void,
    global_dim: *const u64,
    global_strides: *const u64,
    box_dim: *const u32,
    element_strides: *const u32,
    interleave: c_uint,
    swizzle: c_uint,
    l2_promotion: c_uint,
    oob_fill: c_uint,
) -> CUresult {
    entry("cuTensorMapEncodeTiled", || {
        if tensor_map.is_null() || !(tensor_map as usize).is_multiple_of(64) {
            return Err(DriverError::new(
                INVALID_VALUE,
                "tensorMap is NULL or not 64-byte aligned",
            ));
        }
        let rank = rank as usize;
        if rank == 0 || rank > MAX_TENSOR_MAP_RANK {
            return Err(DriverError::new(
                INVALID_VALUE,
                format!("tensorRank {rank} (1 to {MAX_TENSOR_MAP_RANK})"),
            ));
        }
        // SAFETY: the arrays hold `rank` (strides `rank - 1`) values by contract.
        let map = unsafe {
            TiledTensorMap {
                data_type,
                global_address: global_address as u64,
                global_dim: list(global_dim, rank, "globalDim")?,
                global_strides: list(global_strides, rank - 1, "globalStrides")?,
                box_dim: list(box_dim, rank, "boxDim")?,
                element_strides: list(element_strides, rank, "elementStrides")?,
                interleave,
                swizzle,
                l2_promotion,
                oob_fill,
            }
        };
        let bytes = state::current()?.device.tensor_map_descriptor(&map)?;
        // SAFETY: 128 writable bytes by contract.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), tensor_map.cast::<u8>(), TENSOR_MAP_BYTES)
        };
        Ok(())
    })
}
