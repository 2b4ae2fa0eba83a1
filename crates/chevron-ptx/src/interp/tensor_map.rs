//! Tensor maps (TMA descriptors, CUDA's 128-byte `CUtensorMap`) of the CPU device: what
//! `cuTensorMapEncodeTiled` checks and encodes, and what `cp.async.bulk.tensor` reads back
//! (`exec/bulk_tensor.rs`).
//!
//! The 128 bytes are the CPU device's own layout (a GPU's is opaque and differs): a magic word,
//! the global address, then per dimension (innermost first) the size, the byte stride, the box
//! and the element stride, then element size, interleave, swizzle and out-of-bound fill. Tiled
//! maps with interleave `NONE` are supported, with any swizzle (`NONE`, 32, 64 or 128 bytes).

/// Bytes of a tensor map.
pub const TENSOR_MAP_BYTES: usize = 128;
/// Most dimensions of a tensor map.
pub const MAX_RANK: usize = 5;
/// The first word of every tensor map of the CPU device ("chvTMAP1").
const MAGIC: u64 = u64::from_le_bytes(*b"chvTMAP1");

/// CUDA's `CUtensorMapSwizzle`: how a box is laid out in shared memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Swizzle {
    /// Row after row.
    None,
    /// The 16-byte chunks of each 32-, 64- or 128-byte row segment permuted by the row.
    Bytes(u32),
}

/// A tiled tensor map, decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorMap {
    /// Bytes per element.
    pub element_bytes: u32,
    /// Whether the elements are floating point (out-of-bound NaN fill applies to them).
    pub float: bool,
    /// The tensor's global address.
    pub address: u64,
    /// Elements per dimension, innermost first.
    pub dims: Vec<u64>,
    /// Byte strides per dimension (dimension 0: the element size).
    pub strides: Vec<u64>,
    /// The box in elements per dimension.
    pub boxes: Vec<u32>,
    /// Traversal strides in elements per dimension.
    pub element_strides: Vec<u32>,
    /// Shared-memory layout of the box.
    pub swizzle: Swizzle,
    /// Out-of-bound float elements read as NaN (`CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA`)
    /// instead of zero.
    pub nan_fill: bool,
}

/// The element size and whether it is a float, of a `CUtensorMapDataType`.
fn data_type(value: u32) -> Option<(u32, bool)> {
    Some(match value {
        0 => (1, false),               // UINT8
        1 => (2, false),               // UINT16
        2 | 3 => (4, false),           // UINT32, INT32
        4 | 5 => (8, false),           // UINT64, INT64
        6 | 9 => (2, true),            // FLOAT16, BFLOAT16
        7 | 10 | 11 | 12 => (4, true), // FLOAT32, FLOAT32_FTZ, TFLOAT32, TFLOAT32_FTZ
        8 => (8, true),                // FLOAT64
        _ => return None,
    })
}

/// What `cuTensorMapEncodeTiled` takes (innermost dimension first; `global_strides` has
/// `rank - 1` entries, for dimensions 1 and up).
#[derive(Debug, Clone, Copy)]
pub struct TiledRequest<'a> {
    /// `CUtensorMapDataType`.
    pub data_type: u32,
    /// The tensor's global address.
    pub address: u64,
    /// Elements per dimension.
    pub dims: &'a [u64],
    /// Byte strides of dimensions 1 and up.
    pub global_strides: &'a [u64],
    /// The box in elements.
    pub boxes: &'a [u32],
    /// Traversal strides in elements.
    pub element_strides: &'a [u32],
    /// `CUtensorMapInterleave`.
    pub interleave: u32,
    /// `CUtensorMapSwizzle`.
    pub swizzle: u32,
    /// `CUtensorMapFloatOOBfill`.
    pub oob_fill: u32,
}

impl TensorMap {
    /// Checks a request as `cuTensorMapEncodeTiled` documents it; the error says which rule
    /// failed (the driver's `CUDA_ERROR_INVALID_VALUE`).
    pub fn tiled(request: &TiledRequest<'_>) -> Result<TensorMap, String> {
        let rank = request.dims.len();
        if rank == 0 || rank > MAX_RANK {
            return Err(format!("a tensor map has rank 1 to {MAX_RANK}, not {rank}"));
        }
        if request.boxes.len() != rank
            || request.element_strides.len() != rank
            || request.global_strides.len() + 1 != rank
        {
            return Err("box, element strides and global strides must match the rank".into());
        }
        let (element_bytes, float) = data_type(request.data_type)
            .ok_or_else(|| format!("data type {} is not supported", request.data_type))?;
        if request.interleave != 0 {
            return Err("interleaved tensor maps are not supported on the CPU device".into());
        }
        if !request.address.is_multiple_of(16) {
            return Err(format!(
                "the global address {:#x} is not 16-byte aligned",
                request.address
            ));
        }
        if let Some(d) = request.dims.iter().find(|&&d| d == 0 || d > 1 << 32) {
            return Err(format!("a dimension of {d} elements (1 to 2^32)"));
        }
        if let Some(s) = request
            .global_strides
            .iter()
            .find(|&&s| !s.is_multiple_of(16) || s >= 1 << 40)
        {
            return Err(format!(
                "a global stride of {s} bytes (a multiple of 16 below 2^40)"
            ));
        }
        if let Some(b) = request.boxes.iter().find(|&&b| b == 0 || b > 256) {
            return Err(format!("a box dimension of {b} elements (1 to 256)"));
        }
        if let Some(e) = request.element_strides.iter().find(|&&e| e == 0 || e > 8) {
            return Err(format!("an element stride of {e} (1 to 8)"));
        }
        let inner = u64::from(request.boxes[0]) * u64::from(element_bytes);
        if !inner.is_multiple_of(16) {
            return Err(format!(
                "the box's inner dimension is {inner} bytes, not a multiple of 16"
            ));
        }
        let swizzle = match request.swizzle {
            0 => Swizzle::None,
            1..=3 => Swizzle::Bytes(16 << request.swizzle),
            s => return Err(format!("swizzle {s} is not supported")),
        };
        if let Swizzle::Bytes(span) = swizzle {
            if inner > u64::from(span) {
                return Err(format!(
                    "the box's inner dimension of {inner} bytes exceeds the {span}-byte swizzle"
                ));
            }
        }
        let mut strides = vec![u64::from(element_bytes)];
        strides.extend_from_slice(request.global_strides);
        Ok(TensorMap {
            element_bytes,
            float,
            address: request.address,
            dims: request.dims.to_vec(),
            strides,
            boxes: request.boxes.to_vec(),
            element_strides: request.element_strides.to_vec(),
            swizzle,
            nan_fill: request.oob_fill == 1 && float,
        })
    }

    /// The 128 bytes of the map.
    pub fn encode(&self) -> [u8; TENSOR_MAP_BYTES] {
        let mut out = [0u8; TENSOR_MAP_BYTES];
        out[0..8].copy_from_slice(&MAGIC.to_le_bytes());
        out[8..16].copy_from_slice(&self.address.to_le_bytes());
        out[16] = self.dims.len() as u8;
        out[17] = self.element_bytes as u8;
        out[18] = match self.swizzle {
            Swizzle::None => 0,
            Swizzle::Bytes(span) => (span / 32).trailing_zeros() as u8 + 1,
        };
        out[19] = u8::from(self.nan_fill) | u8::from(self.float) << 1;
        for d in 0..self.dims.len() {
            // Per dimension 20 bytes from 24: size - 1 (u32), stride (u64), box - 1 (u8),
            // element stride - 1 (u8).
            let at = 24 + 20 * d;
            out[at..at + 4].copy_from_slice(&((self.dims[d] - 1) as u32).to_le_bytes());
            out[at + 4..at + 12].copy_from_slice(&self.strides[d].to_le_bytes());
            out[at + 12] = (self.boxes[d] - 1) as u8;
            out[at + 13] = (self.element_strides[d] - 1) as u8;
        }
        out
    }

    /// Reads a map back; `None` for 128 bytes that are not a tensor map of the CPU device.
    pub fn decode(bytes: &[u8; TENSOR_MAP_BYTES]) -> Option<TensorMap> {
        let u32_at =
            |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or_default());
        let u64_at =
            |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or_default());
        let rank = usize::from(bytes[16]);
        if u64_at(0) != MAGIC || rank == 0 || rank > MAX_RANK || bytes[18] > 3 {
            return None;
        }
        let per = |d: usize| 24 + 20 * d;
        Some(TensorMap {
            element_bytes: u32::from(bytes[17]),
            float: bytes[19] & 2 != 0,
            address: u64_at(8),
            dims: (0..rank).map(|d| u64::from(u32_at(per(d))) + 1).collect(),
            strides: (0..rank).map(|d| u64_at(per(d) + 4)).collect(),
            boxes: (0..rank)
                .map(|d| u32::from(bytes[per(d) + 12]) + 1)
                .collect(),
            element_strides: (0..rank)
                .map(|d| u32::from(bytes[per(d) + 13]) + 1)
                .collect(),
            swizzle: match bytes[18] {
                0 => Swizzle::None,
                s => Swizzle::Bytes(16 << s),
            },
            nan_fill: bytes[19] & 1 != 0,
        })
    }

    /// Bytes of a box in shared memory: the elements a copy moves, traversal strides included
    /// (each dimension holds `ceil(box / element stride)` elements).
    pub fn box_bytes(&self) -> u64 {
        self.boxes
            .iter()
            .zip(&self.element_strides)
            .map(|(&b, &e)| u64::from(b.div_ceil(e)))
            .product::<u64>()
            * u64::from(self.element_bytes)
    }

    /// The shared-memory offset of byte `offset` of a box whose copy starts at shared offset
    /// `base`: swizzled maps permute the 16-byte chunks of each row segment by bits 7-9 of the
    /// address, as the hardware does (CUTLASS's `Swizzle<B, 4, 3>`).
    pub fn shared_offset(&self, base: u64, offset: u64) -> u64 {
        let a = base + offset;
        match self.swizzle {
            Swizzle::None => a,
            Swizzle::Bytes(span) => {
                let mask = u64::from(span / 16 - 1) << 4;
                a ^ ((a >> 3) & mask)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request<'a>(dims: &'a [u64], strides: &'a [u64], boxes: &'a [u32]) -> TiledRequest<'a> {
        TiledRequest {
            data_type: 7,
            address: 0x7f00_0000_0100,
            dims,
            global_strides: strides,
            boxes,
            element_strides: &[1, 1, 1, 1, 1][..dims.len()],
            interleave: 0,
            swizzle: 0,
            oob_fill: 0,
        }
    }

    #[test]
    fn a_map_encodes_and_decodes_to_itself() {
        let map = TensorMap::tiled(&request(&[100, 37, 3], &[400, 400 * 37], &[32, 8, 1])).unwrap();
        assert_eq!(TensorMap::decode(&map.encode()), Some(map.clone()));
        assert_eq!(map.box_bytes(), 32 * 8 * 4);
        assert_eq!(TensorMap::decode(&[0; 128]), None);
    }

    #[test]
    fn the_documented_limits_are_checked() {
        let bad = |r: TiledRequest<'_>| TensorMap::tiled(&r).unwrap_err();
        assert!(bad(request(&[100, 37], &[400], &[512, 8])).contains("1 to 256"));
        assert!(bad(request(&[100, 37], &[404], &[32, 8])).contains("multiple of 16"));
        assert!(bad(request(&[100, 37], &[400], &[3, 8])).contains("inner dimension"));
        assert!(bad(request(&[100, 37], &[400, 4], &[32, 8])).contains("match the rank"));
        let mut swizzled = request(&[100, 37], &[400], &[64, 8]);
        swizzled.swizzle = 3;
        assert!(bad(swizzled).contains("128-byte swizzle"));
    }

    #[test]
    fn the_128_byte_swizzle_permutes_chunks_by_row() {
        let mut r = request(&[64, 8], &[256], &[32, 8]);
        r.swizzle = 3;
        let map = TensorMap::tiled(&r).unwrap();
        // Row 1 (bytes 128..256): chunk 0 goes to chunk 1.
        assert_eq!(map.shared_offset(0, 128), 128 + 16);
        assert_eq!(map.shared_offset(0, 128 + 16 + 4), 128 + 4);
        assert_eq!(map.shared_offset(0, 7 * 128), 7 * 128 + 7 * 16);
        assert_eq!(map.shared_offset(0, 8 * 128), 8 * 128);
    }
}
