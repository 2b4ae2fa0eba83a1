//! The hints given about managed memory (`cudaMemAdvise`, `cudaMemPrefetchAsync`), kept by
//! byte range so that `cudaMemRangeGetAttribute` reports them back as CUDA does.
//!
//! chevron's devices keep managed memory coherent without hints, so they change nothing else.
//! The ranges of a managed allocation are forgotten when it is freed.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::c_int;
use std::sync::Mutex;

use crate::state::lock;

/// A `cudaMemLocation` as kept: (`cudaMemLocationType`, id).
pub type Location = (c_int, c_int);

/// The hints of one byte range.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Hints {
    /// `cudaMemAdviseSetReadMostly`.
    pub read_mostly: bool,
    /// `cudaMemAdviseSetPreferredLocation`.
    pub preferred: Option<Location>,
    /// The devices (`cudaCpuDeviceId` for the host) of `cudaMemAdviseSetAccessedBy`.
    pub accessed_by: BTreeSet<c_int>,
    /// Where the range was last prefetched to.
    pub last_prefetch: Option<Location>,
}

/// Ranges with hints: start → (end, hints), not overlapping.
static RANGES: Mutex<BTreeMap<usize, (usize, Hints)>> = Mutex::new(BTreeMap::new());

/// Splits the range containing `at` (if any starts before it and ends after it) at `at`.
fn split(ranges: &mut BTreeMap<usize, (usize, Hints)>, at: usize) {
    let Some((&start, (end, hints))) = ranges.range(..at).next_back() else {
        return;
    };
    if *end > at {
        let (end, hints) = (*end, hints.clone());
        ranges.insert(start, (at, hints.clone()));
        ranges.insert(at, (end, hints));
    }
}

/// Applies `change` to the hints of every byte of `[start, end)`.
pub fn apply(start: usize, end: usize, change: impl Fn(&mut Hints)) {
    if start >= end {
        return;
    }
    let mut ranges = lock(&RANGES);
    split(&mut ranges, start);
    split(&mut ranges, end);
    let mut at = start;
    let inside: Vec<(usize, usize)> = ranges
        .range(start..end)
        .map(|(&from, (to, _))| (from, *to))
        .collect();
    for (from, to) in inside {
        if at < from {
            ranges.insert(at, (from, Hints::default()));
        }
        at = to;
    }
    if at < end {
        ranges.insert(at, (end, Hints::default()));
    }
    for (_, (_, hints)) in ranges.range_mut(start..end) {
        change(hints);
    }
}

/// The hints of each part of `[start, end)` (bytes never hinted have the default hints).
pub fn query(start: usize, end: usize) -> Vec<Hints> {
    let ranges = lock(&RANGES);
    let mut parts = Vec::new();
    let mut at = start;
    let first = ranges
        .range(..start)
        .next_back()
        .filter(|(_, (to, _))| *to > start)
        .map(|(&from, _)| from)
        .unwrap_or(start);
    for (&from, (to, hints)) in ranges.range(first..end) {
        if from > at {
            parts.push(Hints::default());
        }
        parts.push(hints.clone());
        at = *to;
    }
    if at < end {
        parts.push(Hints::default());
    }
    parts
}

/// Forgets the hints of `[start, end)` (an allocation freed).
pub fn forget(start: usize, end: usize) {
    let mut ranges = lock(&RANGES);
    split(&mut ranges, start);
    split(&mut ranges, end);
    let inside: Vec<usize> = ranges.range(start..end).map(|(&from, _)| from).collect();
    for from in inside {
        ranges.remove(&from);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Each test uses addresses of its own: the ranges are process-wide.

    #[test]
    fn a_partial_hint_splits_the_range_and_leaves_the_rest_default() {
        apply(0x1000, 0x1100, |h| h.read_mostly = true);
        apply(0x1080, 0x1200, |h| h.preferred = Some((1, 0)));
        let parts = query(0x1000, 0x1200);
        assert!(parts.iter().any(|h| h.read_mostly && h.preferred.is_none()));
        assert!(parts
            .iter()
            .any(|h| h.read_mostly && h.preferred == Some((1, 0))));
        assert!(parts
            .iter()
            .any(|h| !h.read_mostly && h.preferred == Some((1, 0))));
        assert!(query(0x1000, 0x1080).iter().all(|h| h.read_mostly));
        assert!(query(0x1100, 0x1200).iter().all(|h| !h.read_mostly));
        assert_eq!(query(0x1200, 0x1300), vec![Hints::default()]);
    }

    #[test]
    fn a_gap_between_hinted_ranges_reads_as_default() {
        let by_device_0 = |h: &mut Hints| {
            h.accessed_by.insert(0);
        };
        apply(0x2000, 0x2010, by_device_0);
        apply(0x2020, 0x2030, by_device_0);
        let parts = query(0x2000, 0x2030);
        assert_eq!(parts.len(), 3);
        assert!(parts[1].accessed_by.is_empty());
        apply(0x2000, 0x2030, by_device_0);
        assert!(query(0x2000, 0x2030)
            .iter()
            .all(|h| h.accessed_by.contains(&0)));
    }

    #[test]
    fn forgetting_an_allocation_drops_its_hints_only() {
        apply(0x3000, 0x3100, |h| h.last_prefetch = Some((1, 0)));
        forget(0x3000, 0x3080);
        assert_eq!(query(0x3000, 0x3080), vec![Hints::default()]);
        assert!(query(0x3080, 0x3100)
            .iter()
            .all(|h| h.last_prefetch == Some((1, 0))));
    }
}
