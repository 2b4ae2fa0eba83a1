//! Tensor maps (TMA descriptors) in the backend contract: what a tiled map is, checked the same
//! way for every backend. Backends with tensor maps implement
//! [`super::Device::encode_tensor_map`] (CUDA: `cuTensorMapEncodeTiled`, `cuda/tensor_map.rs`);
//! the others keep its default error.

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

impl TiledTensorMap {
    /// Checks the rank and the lengths of the per-dimension lists.
    pub fn check(&self) -> Result<()> {
        let rank = self.global_dim.len();
        if rank == 0
            || rank > MAX_TENSOR_MAP_RANK
            || self.box_dim.len() != rank
            || self.element_strides.len() != rank
            || self.global_strides.len() + 1 != rank
        {
            return Err(Error::InvalidValue {
                call: "encode_tensor_map",
                message: format!(
                    "a tiled tensor map has rank 1 to {MAX_TENSOR_MAP_RANK} with rank entries of \
                     dimensions, box and element strides and rank - 1 global strides: {self:?}"
                ),
            });
        }
        Ok(())
    }
}
