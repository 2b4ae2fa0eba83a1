//! Where `wgmma` finds a matrix in shared memory: the 64-bit matrix descriptor and the PTX ISA's
//! canonical layouts ("Asynchronous Warpgroup Level Matrix Shared Memory Layout").
//!
//! The descriptor holds, each as a byte value shifted right by 4 (14 bits): the start address
//! (bits 0–13), the leading-dimension byte offset LBO (16–29) and the stride-dimension byte
//! offset SBO (32–45); then the base offset (49–51) and the swizzle mode (62–63: none, 128-,
//! 64- or 32-byte).
//!
//! In CuTe's notation, with T the elements of 16 bytes and c = 1, 2, 4, 8 the 16-byte chunks of
//! a swizzle line (none, 32B, 64B, 128B):
//!
//! - K-major, no swizzle: `((8,m),(T,2k)):((1T,SBO),(1,LBO))` — core matrices of 8 rows of 16
//!   bytes, LBO apart along K and SBO apart along M/N;
//! - K-major, swizzled: `((8,m),(T,2k)):((cT,SBO),(1,T))` — rows of 16·c bytes, 8-row atoms SBO
//!   apart (LBO unused);
//! - MN-major, no swizzle: `((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))`;
//! - MN-major, swizzled: `((T,c,m),(8,k)):((1,T,LBO),(cT,SBO))` — lines of 16·c bytes along M/N,
//!   LBO between line groups along M/N, SBO between 8-line groups along K.
//!
//! The swizzle (CuTe's `Swizzle<B,4,3>`, B = 1, 2, 3) is that of TMA's `SWIZZLE_32B/64B/128B`:
//! address bits 4.. (the 16-byte chunk) are XORed with bits 7.. (the line within the repeating
//! 256/512/1024-byte pattern). The pattern is taken from the shared-memory address itself, minus
//! the descriptor's base offset, which the PTX ISA asks for (as `(pattern start >> 7) & 7`) when
//! a pattern does not start on its boundary; CUTLASS and MLIR align their tiles and pass 0.

/// The swizzle mode of a descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Swizzle {
    /// No swizzle ("interleave"): 8x16-byte core matrices.
    None,
    /// 32-byte lines, pattern of 256 bytes.
    B32,
    /// 64-byte lines, pattern of 512 bytes.
    B64,
    /// 128-byte lines, pattern of 1024 bytes.
    B128,
}

impl Swizzle {
    /// Bytes of a swizzle line (16 without swizzle: one core-matrix row).
    pub fn line_bytes(self) -> u64 {
        match self {
            Swizzle::None => 16,
            Swizzle::B32 => 32,
            Swizzle::B64 => 64,
            Swizzle::B128 => 128,
        }
    }

    /// The XOR mask of the line index (address bits 7..) onto the chunk (bits 4..).
    fn mask(self) -> u64 {
        self.line_bytes() / 16 - 1
    }

    /// The shared-memory address that logical address `a` is stored at.
    pub fn apply(self, a: u64, base_offset: u64) -> u64 {
        let line = ((a >> 7).wrapping_sub(base_offset)) & self.mask();
        a ^ (line << 4)
    }
}

/// Which dimension of the operand is contiguous in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Major {
    /// K contiguous (`imm-trans` 0): A row-major, B column-major.
    K,
    /// M (of A) or N (of B) contiguous (`imm-trans` 1).
    Mn,
}

/// A decoded 64-bit `wgmma` matrix descriptor (byte values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Descriptor {
    /// Start address in the shared state space.
    pub start: u64,
    /// Leading-dimension byte offset.
    pub lbo: u64,
    /// Stride-dimension byte offset.
    pub sbo: u64,
    /// Base offset (bits 49–51).
    pub base_offset: u64,
    pub swizzle: Swizzle,
}

impl Descriptor {
    /// Decodes a descriptor's bits.
    pub fn decode(bits: u64) -> Descriptor {
        let field = |at: u32| ((bits >> at) & 0x3fff) << 4;
        Descriptor {
            start: field(0),
            lbo: field(16),
            sbo: field(32),
            base_offset: (bits >> 49) & 7,
            swizzle: match bits >> 62 {
                0 => Swizzle::None,
                1 => Swizzle::B128,
                2 => Swizzle::B64,
                _ => Swizzle::B32,
            },
        }
    }

    /// The shared-memory address of element (`mn`, `k`) (row `mn` of A, or column `mn` of B) of
    /// an operand of `bytes`-byte elements laid out `major`.
    pub fn address(&self, major: Major, mn: u64, k: u64, bytes: u64) -> u64 {
        let line = self.swizzle.line_bytes();
        let logical = match (major, self.swizzle) {
            (Major::K, Swizzle::None) => {
                let kb = k * bytes;
                (mn / 8) * self.sbo + (mn % 8) * 16 + (kb / 16) * self.lbo + kb % 16
            }
            (Major::K, _) => (mn / 8) * self.sbo + (mn % 8) * line + k * bytes,
            (Major::Mn, Swizzle::None) => {
                let mb = mn * bytes;
                (mb / 16) * self.sbo + mb % 16 + (k % 8) * 16 + (k / 8) * self.lbo
            }
            (Major::Mn, _) => {
                let mb = mn * bytes;
                (mb / line) * self.lbo + mb % line + (k % 8) * line + (k / 8) * self.sbo
            }
        };
        let a = self.start + logical;
        match self.swizzle {
            Swizzle::None => a,
            s => s.apply(a, self.base_offset),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(start: u64, lbo: u64, sbo: u64, base: u64, mode: u64) -> u64 {
        (start >> 4) | (lbo >> 4) << 16 | (sbo >> 4) << 32 | base << 49 | mode << 62
    }

    #[test]
    fn fields_decode_from_their_bits() {
        let d = Descriptor::decode(encode(0x1230, 0x80, 0x400, 5, 1));
        assert_eq!(
            d,
            Descriptor {
                start: 0x1230,
                lbo: 0x80,
                sbo: 0x400,
                base_offset: 5,
                swizzle: Swizzle::B128
            }
        );
        let modes = [Swizzle::None, Swizzle::B128, Swizzle::B64, Swizzle::B32];
        for (bits, mode) in modes.iter().enumerate() {
            assert_eq!(Descriptor::decode((bits as u64) << 62).swizzle, *mode);
        }
        // 14-bit fields: the highest start address is 0x3fff0; bits 14-15 belong to nothing.
        let d = Descriptor::decode(0xffff);
        assert_eq!((d.start, d.lbo), (0x3fff0, 0));
    }

    #[test]
    fn swizzles_xor_the_chunk_with_the_line_of_their_pattern() {
        // 128B: line 3 of a 1024-byte pattern moves chunk 1 to chunk 2.
        assert_eq!(Swizzle::B128.apply(3 * 128 + 16 + 5, 0), 3 * 128 + 32 + 5);
        // 64B: lines of 64 bytes, address bits 7-8 select the XOR.
        assert_eq!(Swizzle::B64.apply(0x180 + 0x10, 0), 0x180 + 0x20);
        assert_eq!(Swizzle::B64.apply(0x200 + 0x10, 0), 0x200 + 0x10);
        // 32B: bit 7 flips bit 4.
        assert_eq!(Swizzle::B32.apply(0x80, 0), 0x90);
        assert_eq!(Swizzle::B32.apply(0x100, 0), 0x100);
        // A pattern starting at line 3 of its boundary: the base offset makes it line 0.
        assert_eq!(Swizzle::B128.apply(0x180 + 0x10, 3), 0x180 + 0x10);
    }

    #[test]
    fn k_major_without_swizzle_walks_core_matrices() {
        let d = Descriptor::decode(encode(0x100, 128, 256, 0, 0));
        // f16: row 9, k 10 → core matrix (1, 1), row 1, byte 4.
        assert_eq!(d.address(Major::K, 9, 10, 2), 0x100 + 256 + 128 + 16 + 4);
    }

    #[test]
    fn mn_major_swizzled_lines_run_along_mn() {
        let d = Descriptor::decode(encode(0, 2048, 1024, 0, 1));
        // bf16 MN-major 128B: n = 70 is line group 1 (LBO), byte 12 of its line; k = 9 is
        // 8-line group 1 (SBO), line 1, whose chunk 0 is swizzled to chunk 1.
        assert_eq!(
            d.address(Major::Mn, 70, 9, 2),
            (2048 + 1024 + 128 + 12) ^ 0x10
        );
    }
}
