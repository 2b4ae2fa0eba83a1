//! racecheck's shadow memory: for each 4-byte word touched, the last write and up to two reads
//! by distinct threads, and the rule that says when two of them conflict.

/// Who made an access, where, and what ordered it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Access {
    /// Linear block index in the grid.
    pub block: u32,
    /// Linear thread index in the block.
    pub thread: u32,
    /// The instruction: (function, pc).
    pub site: (u32, u32),
    /// Shared memory: the block's barrier epoch; global memory: the block's fence count.
    pub stamp: u32,
    /// Shared memory: the thread's `__syncwarp` count at the access.
    pub syncs: u32,
    /// The bytes of the word accessed (bit `i`: byte `i`).
    pub mask: u8,
    /// A write's bytes (little-endian, only those in `mask`).
    pub value: u32,
    /// Whether it wrote.
    pub write: bool,
}

impl Access {
    fn overlaps(&self, other: &Access) -> bool {
        self.mask & other.mask != 0
    }

    /// Whether two writes leave the same bytes where they overlap (a benign conflict).
    fn same_value(&self, other: &Access) -> bool {
        let mut both = 0u32;
        for i in 0..4 {
            if self.mask & other.mask & (1 << i) != 0 {
                both |= 0xff << (8 * i);
            }
        }
        self.value & both == other.value & both
    }
}

/// One word's recent accesses.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Word {
    write: Option<Access>,
    reads: [Option<Access>; 2],
}

impl Word {
    /// Records `now`; returns the earlier access it conflicts with, if any. `unordered(a)`
    /// says whether earlier access `a` (of another thread or block, as `distinct` decides)
    /// and `now` are unordered; `stale(a)` whether a kept read no longer matters.
    pub fn access(
        &mut self,
        now: Access,
        distinct: impl Fn(&Access) -> bool,
        unordered: impl Fn(&Access) -> bool,
        stale: impl Fn(&Access) -> bool,
    ) -> Option<Access> {
        let conflicts = |a: &Access| a.overlaps(&now) && distinct(a) && unordered(a);
        let mut found = self
            .write
            .filter(|w| conflicts(w) && !(now.write && w.same_value(&now)));
        if now.write {
            if found.is_none() {
                found = self.reads.iter().flatten().copied().find(|r| conflicts(r));
            }
            self.write = Some(now);
            self.reads = [None, None];
            return found;
        }
        // Keep reads by two distinct threads: a later write by any other thread conflicts
        // with at least one of them.
        let keep = self.reads.iter().position(|r| match r {
            None => true,
            Some(r) => stale(r) || !distinct(r),
        });
        if let Some(slot) = keep {
            self.reads[slot] = Some(now);
        }
        found
    }
}

/// The word index and byte mask of each word `[offset, offset + len)` touches, with the value
/// bytes that fall in it (`value` is the access's little-endian bytes, up to 16).
pub(crate) fn words(offset: u64, len: u64, value: u128) -> impl Iterator<Item = (u64, u8, u32)> {
    let end = offset + len.max(1);
    (offset / 4..end.div_ceil(4)).map(move |word| {
        let start = word * 4;
        let mut mask = 0u8;
        let mut bytes = 0u32;
        for i in 0..4u64 {
            let at = start + i;
            if at >= offset && at < end {
                mask |= 1 << i;
                let byte = ((value >> (8 * (at - offset))) & 0xff) as u32;
                bytes |= byte << (8 * i);
            }
        }
        (word, mask, bytes)
    })
}

/// A hasher for word indices (one `u64` each): a multiply, far cheaper than the default
/// SipHash on racecheck's hot path; the keys are addresses, not chosen by an adversary.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct WordHasher(u64);

impl std::hash::Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

/// Builds [`WordHasher`]s.
pub(crate) type WordHash = std::hash::BuildHasherDefault<WordHasher>;

#[cfg(test)]
mod tests {
    use super::*;

    fn at(thread: u32, write: bool, value: u32) -> Access {
        Access {
            block: 0,
            thread,
            site: (0, thread),
            stamp: 0,
            syncs: 0,
            mask: 0xf,
            value,
            write,
        }
    }

    #[test]
    fn conflicts_need_two_threads_a_write_and_no_order() {
        let distinct = |now: u32| move |a: &Access| a.thread != now;
        let mut word = Word::default();
        assert_eq!(
            word.access(at(1, false, 0), distinct(1), |_| true, |_| false),
            None
        );
        assert_eq!(
            word.access(at(1, true, 5), distinct(1), |_| true, |_| false),
            None
        );
        let found = word.access(at(2, false, 0), distinct(2), |_| true, |_| false);
        assert_eq!(found.map(|a| a.thread), Some(1));
        // Write after read: the read by thread 2 is found.
        let found = word.access(at(3, true, 7), distinct(3), |_| true, |_| false);
        assert_eq!(found.map(|a| a.thread), Some(1));
        // The same value again is benign; ordered accesses never conflict.
        assert_eq!(
            word.access(at(4, true, 7), distinct(4), |_| true, |_| false),
            None
        );
        assert_eq!(
            word.access(at(5, true, 9), distinct(5), |_| false, |_| false),
            None
        );
    }

    #[test]
    fn words_split_an_access_into_masks_and_bytes() {
        let split: Vec<_> = words(2, 4, 0x4433_2211).collect();
        assert_eq!(split, vec![(0, 0b1100, 0x2211_0000), (1, 0b0011, 0x4433)]);
        assert_eq!(words(8, 16, 0).count(), 4);
    }
}
