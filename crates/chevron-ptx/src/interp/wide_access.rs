//! 16-byte global accesses made whole: a `.v2.u64`, `.v2.f64`, `.v4.u32` or `.v4.f32` load or
//! store reads or writes its two words under one of a few striped locks, so a block that
//! publishes a 16-byte (status, value) pair — CUB's decoupled look-back does, for
//! `ReduceByKeyScanTileState` and every tile state wider than eight bytes — is never seen half
//! written by a block on another worker thread, as on NVIDIA's hardware, where an aligned
//! 16-byte access is one transaction. Accesses of up to eight bytes are whole already (one
//! `AtomicU64` word, `memory.rs`).

use std::sync::atomic::{AtomicBool, Ordering};

use super::memory::Allocation;

/// How many locks the 16-byte accesses share (by address).
const STRIPES: usize = 64;

static LOCKS: [AtomicBool; STRIPES] = [const { AtomicBool::new(false) }; STRIPES];

/// One stripe held; released when dropped.
struct Held(&'static AtomicBool);

impl Drop for Held {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// Takes the stripe of the 16 bytes at `addr`.
fn hold(addr: u64) -> Held {
    let index = ((addr >> 4) ^ (addr >> 10)) as usize % STRIPES;
    let lock = &LOCKS[index];
    while lock
        .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
        .is_err()
    {
        std::hint::spin_loop();
    }
    Held(lock)
}

/// The two words at `offset` of `alloc` (16-byte aligned, in bounds), read as one access.
pub(crate) fn load(alloc: &Allocation, offset: u64) -> [u64; 2] {
    let _held = hold(alloc.base.wrapping_add(offset));
    [
        alloc.word(offset).load(Ordering::Relaxed),
        alloc.word(offset + 8).load(Ordering::Relaxed),
    ]
}

/// Writes `words` at `offset` of `alloc` (16-byte aligned, in bounds) as one access.
pub(crate) fn store(alloc: &Allocation, offset: u64, words: [u64; 2]) {
    let _held = hold(alloc.base.wrapping_add(offset));
    alloc.store(offset, 8, words[0]);
    alloc.store(offset + 8, 8, words[1]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::memory::DeviceMemory;
    use std::sync::atomic::AtomicUsize;

    /// A writer publishing (n, n) pairs while a reader loads them a million times: the reader
    /// never sees two different halves. Unlocked accesses tear here only when both threads
    /// really run at once; the end-to-end check is `tests/samples/cub_lookback`, whose
    /// look-back descriptors were wrong in 1 to 4 of 10 runs before.
    #[test]
    fn pairs_are_never_torn() {
        let memory = DeviceMemory::new(0);
        let addr = memory.alloc(64, 16).unwrap();
        let alloc = memory.lookup(addr, 16).unwrap();
        let torn = AtomicUsize::new(0);
        let done = AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| {
                let mut n = 0u64;
                while !done.load(Ordering::Acquire) {
                    n += 1;
                    store(&alloc, 0, [n, n]);
                }
            });
            s.spawn(|| {
                while load(&alloc, 0)[0] == 0 {
                    std::hint::spin_loop();
                }
                for _ in 0..1_000_000 {
                    let [a, b] = load(&alloc, 0);
                    if a != b {
                        torn.fetch_add(1, Ordering::Relaxed);
                    }
                }
                done.store(true, Ordering::Release);
            });
        });
        assert_eq!(torn.load(Ordering::Relaxed), 0);
    }
}
