//! initcheck's record of which bytes of an allocation were written: one bit per byte, set by
//! every store, atomic, host write, fill and copy, read before each kernel load. Allocations get
//! one only while their memory tracks definedness ([`DeviceMemory::track_definedness`]).
//!
//! [`DeviceMemory::track_definedness`]: super::DeviceMemory::track_definedness

use std::sync::atomic::{AtomicU64, Ordering};

/// The written bytes of one allocation.
#[derive(Debug)]
pub(crate) struct DefinedBytes {
    bits: Box<[AtomicU64]>,
}

impl DefinedBytes {
    /// Nothing written yet.
    pub fn new(size: u64) -> DefinedBytes {
        let words = usize::try_from(size.div_ceil(64).max(1)).unwrap_or(usize::MAX);
        DefinedBytes {
            bits: (0..words).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// Bits `[first, first + len)` of the word holding byte `offset`, as a mask, and how many of
    /// the `len` bytes from `offset` that word covers.
    fn span(offset: u64, len: u64) -> (u64, u64) {
        let first = offset & 63;
        let take = len.min(64 - first);
        let mask = if take == 64 {
            u64::MAX
        } else {
            ((1u64 << take) - 1) << first
        };
        (mask, take)
    }

    /// Marks `len` bytes from `offset` written.
    pub fn mark(&self, mut offset: u64, mut len: u64) {
        while len > 0 {
            let (mask, take) = Self::span(offset, len);
            if let Some(word) = self.bits.get((offset >> 6) as usize) {
                word.fetch_or(mask, Ordering::Relaxed);
            }
            offset += take;
            len -= take;
        }
    }

    /// The first byte of `len` from `offset` never written, if any.
    pub fn first_undefined(&self, mut offset: u64, mut len: u64) -> Option<u64> {
        while len > 0 {
            let (mask, take) = Self::span(offset, len);
            let word = self
                .bits
                .get((offset >> 6) as usize)
                .map_or(u64::MAX, |w| w.load(Ordering::Relaxed));
            let missing = !word & mask;
            if missing != 0 {
                return Some((offset & !63) + u64::from(missing.trailing_zeros()));
            }
            offset += take;
            len -= take;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::DefinedBytes;

    #[test]
    fn marks_and_finds_across_words() {
        let defined = DefinedBytes::new(200);
        assert_eq!(defined.first_undefined(0, 4), Some(0));
        defined.mark(60, 10);
        assert_eq!(defined.first_undefined(60, 10), None);
        assert_eq!(defined.first_undefined(58, 4), Some(58));
        assert_eq!(defined.first_undefined(66, 8), Some(70));
        defined.mark(0, 200);
        assert_eq!(defined.first_undefined(0, 200), None);
    }
}
