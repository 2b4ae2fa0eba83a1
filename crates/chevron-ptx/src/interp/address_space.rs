//! The address window of one device's memory: which ranges are free, first fit, coalesced.
//!
//! [`super::DeviceMemory`] hands out addresses from one window. Each allocation takes a span:
//! its bytes, aligned, followed by an unmapped guard gap, so that running off its end is an
//! out-of-bounds fault rather than an access to the next allocation. Freed spans come back here
//! and are merged with free neighbours, so a device that allocates and frees forever never runs
//! out of addresses. First fit from the lowest address keeps allocations packed at the start of
//! the window.

use std::collections::BTreeMap;

/// Unmapped bytes left after every allocation.
pub(crate) const GUARD_GAP: u64 = 256;

/// Where one allocation lies: the span it holds and its aligned base.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Placement {
    /// Start of the span (returned to the free list when the allocation is reclaimed).
    pub span_start: u64,
    /// End of the span, guard gap included.
    pub span_end: u64,
    /// The allocation's first byte.
    pub base: u64,
}

/// The free ranges of one address window, `start → end`, never adjacent (merged when freed).
#[derive(Debug)]
pub(crate) struct AddressSpace {
    window: (u64, u64),
    free: BTreeMap<u64, u64>,
}

impl AddressSpace {
    /// All of `[start, start + len)` free.
    pub fn new(start: u64, len: u64) -> AddressSpace {
        let end = start.saturating_add(len);
        AddressSpace {
            window: (start, end),
            free: BTreeMap::from([(start, end)]),
        }
    }

    /// Bytes of the window.
    pub fn window_len(&self) -> u64 {
        self.window.1 - self.window.0
    }

    /// The window as `[start, end)`.
    pub fn window(&self) -> (u64, u64) {
        self.window
    }

    /// Takes the lowest free span that holds `bytes` at alignment `align` (a power of two) plus
    /// the guard gap.
    pub fn take(&mut self, bytes: u64, align: u64) -> Option<Placement> {
        let placement = self.free.iter().find_map(|(&start, &end)| {
            let base = start.checked_next_multiple_of(align)?;
            let span_end = base.checked_add(bytes)?.checked_add(GUARD_GAP)?;
            (span_end <= end).then_some(Placement {
                span_start: start,
                span_end,
                base,
            })
        })?;
        let end = self.free.remove(&placement.span_start)?;
        if placement.span_end < end {
            self.free.insert(placement.span_end, end);
        }
        Some(placement)
    }

    /// Returns `[start, end)` to the free ranges, merged with its free neighbours.
    pub fn give_back(&mut self, mut start: u64, mut end: u64) {
        if let Some((&before, &before_end)) = self.free.range(..start).next_back() {
            if before_end == start {
                self.free.remove(&before);
                start = before;
            }
        }
        if let Some(after_end) = self.free.remove(&end) {
            end = after_end;
        }
        self.free.insert(start, end);
    }

    /// Number of separate free ranges (a measure of fragmentation).
    pub fn free_ranges(&self) -> usize {
        self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_spans_merge_and_are_reused() {
        let mut space = AddressSpace::new(0x1000, 0x10000);
        let a = space.take(100, 256).unwrap();
        let b = space.take(100, 256).unwrap();
        assert_eq!(a.base, 0x1000);
        assert!(b.base >= a.base + 100 + GUARD_GAP);
        space.give_back(a.span_start, a.span_end);
        space.give_back(b.span_start, b.span_end);
        assert_eq!(space.free_ranges(), 1);
        assert_eq!(space.take(0x10000 - GUARD_GAP, 256).unwrap().base, 0x1000);
        assert!(space.take(1, 256).is_none());
    }
}
