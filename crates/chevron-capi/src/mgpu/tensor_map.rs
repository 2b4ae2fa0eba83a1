//! `mgpuTensorMapEncodeTiledMemref`: a TMA descriptor (`CUtensorMap`) for a memref, emitted for
//! `nvgpu.tma.create.descriptor`.
//!
//! As upstream's wrapper: the memref's sizes become the global dimensions and its strides
//! (times the element size of the data type) the global byte strides, both innermost first;
//! the box is `boxDims` reversed, element strides are 1, and the address is the memref's
//! aligned pointer (upstream ignores the offset, and so does this). The descriptor is encoded
//! by the device (the CUDA driver, or the CPU device's own layout that its interpreter reads)
//! into 128 bytes of fresh device memory whose address is returned (never freed, as upstream).
//! Other devices report that TMA needs an sm_90 GPU or the CPU device.

use std::ffi::c_void;

use chevron::backend::{TiledTensorMap, MAX_TENSOR_MAP_RANK};

use super::{default_device, guard};
use crate::error::{CapiError, CapiResult};

/// Bytes per element of each `CUtensorMapDataType` (uint8, uint16, uint32, int32, uint64,
/// int64, float16, float32, float64, bfloat16, float32_ftz, tfloat32, tfloat32_ftz), as upstream.
const ELEMENT_BYTES: [u64; 13] = [1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4];

/// The tensor map of a rank-`rank` memref descriptor given as its words after the two
/// pointers: `offset, sizes[rank], strides[rank]`; `box_dims` outermost first.
fn tiled_map(
    aligned: u64,
    rank: usize,
    words: &[i64],
    data_type: i64,
    box_dims: &[i64],
) -> CapiResult<TiledTensorMap> {
    let element_bytes = usize::try_from(data_type)
        .ok()
        .and_then(|t| ELEMENT_BYTES.get(t))
        .copied()
        .ok_or_else(|| CapiError::invalid(format!("unknown CUtensorMapDataType {data_type}")))?;
    let (sizes, strides) = (&words[1..1 + rank], &words[1 + rank..1 + 2 * rank]);
    let positive = |what: &str, value: i64| -> CapiResult<u64> {
        u64::try_from(value)
            .ok()
            .filter(|&v| v > 0)
            .ok_or_else(|| CapiError::invalid(format!("{what} = {value} is not positive")))
    };
    let mut map = TiledTensorMap {
        data_type: data_type as u32,
        global_address: aligned,
        global_dim: Vec::with_capacity(rank),
        global_strides: Vec::with_capacity(rank - 1),
        box_dim: Vec::with_capacity(rank),
        element_strides: vec![1; rank],
        interleave: 0,
        swizzle: 0,
        l2_promotion: 0,
        oob_fill: 0,
    };
    for i in 0..rank {
        map.global_dim.push(positive(
            &format!("size {}", rank - 1 - i),
            sizes[rank - 1 - i],
        )?);
        let edge = positive(
            &format!("box dimension {}", rank - 1 - i),
            box_dims[rank - 1 - i],
        )?;
        map.box_dim.push(u32::try_from(edge).map_err(|_| {
            CapiError::invalid(format!(
                "box dimension {} = {edge} is too large",
                rank - 1 - i
            ))
        })?);
    }
    for i in 0..rank - 1 {
        let stride = positive(&format!("stride {}", rank - 2 - i), strides[rank - 2 - i])?;
        map.global_strides.push(stride * element_bytes);
    }
    Ok(map)
}

/// Builds a TMA descriptor for the rank-`rank` memref at `ranked_desc` with a box of
/// `box_dims` (rank entries, outermost first) and returns its device address, or NULL after
/// reporting the error (the default device is not a CUDA GPU, the rank is outside 1..=5, the
/// driver rejects the map).
///
/// # Safety
/// `ranked_desc` points to a rank-`rank` memref descriptor (`{ptr, ptr, i64 offset,
/// i64 sizes[rank], i64 strides[rank]}`) and `box_dims` to `rank` integers.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn mgpuTensorMapEncodeTiledMemref(
    rank: i64,
    ranked_desc: *mut c_void,
    data_type: i64,
    interleave: i64,
    swizzle: i64,
    l2_promotion: i64,
    oob_fill: i64,
    box_dims: *mut i64,
) -> *mut c_void {
    guard(
        "mgpuTensorMapEncodeTiledMemref",
        std::ptr::null_mut(),
        || {
            let device = default_device()?;
            device.tensor_maps()?;
            let rank = usize::try_from(rank)
                .ok()
                .filter(|r| (1..=MAX_TENSOR_MAP_RANK).contains(r))
                .ok_or_else(|| {
                    CapiError::invalid(format!("rank {rank} is outside 1..={MAX_TENSOR_MAP_RANK}"))
                })?;
            if ranked_desc.is_null() || box_dims.is_null() {
                return Err(CapiError::invalid("the descriptor or `boxDims` is NULL"));
            }
            // SAFETY: the caller guarantees a rank-`rank` descriptor: two pointers, then
            // 1 + 2 * rank 64-bit words; and `rank` box dimensions.
            let (aligned, words, boxes) = unsafe {
                let pointers = ranked_desc as *const u64;
                (
                    pointers.add(1).read_unaligned(),
                    std::slice::from_raw_parts(pointers.add(2) as *const i64, 1 + 2 * rank),
                    std::slice::from_raw_parts(box_dims as *const i64, rank),
                )
            };
            let mut map = tiled_map(aligned, rank, words, data_type, boxes)?;
            let enumerator = |what: &str, value: i64| {
                u32::try_from(value)
                    .map_err(|_| CapiError::invalid(format!("{what} {value} is out of range")))
            };
            map.interleave = enumerator("interleave", interleave)?;
            map.swizzle = enumerator("swizzle", swizzle)?;
            map.l2_promotion = enumerator("L2 promotion", l2_promotion)?;
            map.oob_fill = enumerator("out-of-bounds fill", oob_fill)?;
            Ok(device.encode_tensor_map(&map)? as *mut c_void)
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_memref_becomes_innermost_first_dimensions_and_byte_strides() {
        // memref<64x8xf32> with a 4x16 box (outermost first): offset 0, sizes, strides.
        let words = [0, 64, 8, 8, 1];
        let map = tiled_map(0x1000, 2, &words, 7, &[4, 16]).unwrap();
        assert_eq!(map.global_address, 0x1000);
        assert_eq!(map.global_dim, [8, 64]);
        assert_eq!(map.global_strides, [32]);
        assert_eq!(map.box_dim, [16, 4]);
        assert_eq!(map.element_strides, [1, 1]);

        // A rank-3 f16 memref of 2x3x5 with padded rows (stride 6 elements).
        let words = [0, 2, 3, 5, 18, 6, 1];
        let map = tiled_map(0x2000, 3, &words, 6, &[1, 3, 5]).unwrap();
        assert_eq!(map.global_dim, [5, 3, 2]);
        assert_eq!(map.global_strides, [12, 36]);
        assert_eq!(map.box_dim, [5, 3, 1]);
    }

    #[test]
    fn bad_data_types_and_sizes_are_reported() {
        let words = [0, 64, 8, 8, 1];
        let err = tiled_map(0x1000, 2, &words, 13, &[4, 16]).unwrap_err();
        assert!(
            err.message.contains("unknown CUtensorMapDataType 13"),
            "{}",
            err.message
        );
        let err = tiled_map(0x1000, 2, &words, 7, &[0, 16]).unwrap_err();
        assert!(
            err.message.contains("box dimension 0 = 0"),
            "{}",
            err.message
        );
    }

    #[test]
    fn the_cpu_device_encodes_a_descriptor_and_refuses_an_empty_memref() {
        let Ok(device) = default_device() else {
            return;
        };
        if device.backend() != chevron::BackendKind::Cpu {
            return;
        }
        // memref<64x8xf32> at a 16-byte-aligned address, with a box of 4 rows of 8.
        let mut desc = [0x7f00_0000_1000i64, 0x7f00_0000_1000, 0, 64, 8, 8, 1];
        let mut boxes = [4i64, 8];
        // SAFETY: a rank-2 descriptor and two box dimensions.
        let map = unsafe {
            mgpuTensorMapEncodeTiledMemref(
                2,
                desc.as_mut_ptr().cast(),
                7,
                0,
                0,
                0,
                0,
                boxes.as_mut_ptr(),
            )
        };
        assert!(!map.is_null());
        assert_eq!(device.allocation_of(map as u64), Some((map as u64, 128)));
        let mut empty = [0i64; 7];
        // SAFETY: as above.
        let refused = unsafe {
            mgpuTensorMapEncodeTiledMemref(
                2,
                empty.as_mut_ptr().cast(),
                7,
                0,
                0,
                0,
                0,
                boxes.as_mut_ptr(),
            )
        };
        assert!(refused.is_null());
    }
}
