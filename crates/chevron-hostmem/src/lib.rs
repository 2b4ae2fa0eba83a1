//! chevron-hostmem: the zeroed `AtomicU64` words behind one allocation of the CPU device.
//!
//! The one place below the runtime where host memory is mapped by hand (the interpreter crate,
//! `chevron-ptx`, has no `unsafe`).
//!
//! Small allocations are an ordinary boxed slice. Allocations of [`HUGE_PAGE`] bytes or more
//! are mapped from the kernel directly (zeroed and committed by the kernel), aligned
//! to a huge page and offered to transparent huge pages (`MADV_HUGEPAGE`), as a GPU backs device
//! memory with large pages: a kernel striding through tens of megabytes then walks a few dozen
//! pages instead of thousands of 4 KiB ones (the benchmark's cooperative grid reduction, whose
//! grid-stride loop reads 64 KiB apart, and its tile scan ran about a tenth faster). Where the
//! host grants no huge pages the mapping works as before, with small pages.

use std::sync::atomic::AtomicU64;

/// The huge-page size that allocations of at least this many bytes are aligned to.
pub const HUGE_PAGE: usize = 2 << 20;

/// An allocation's words, zeroed.
#[derive(Debug)]
pub enum Words {
    /// An ordinary boxed slice (small allocations).
    Boxed(Box<[AtomicU64]>),
    /// A huge-page aligned mapping of its own (large allocations).
    Mapped(Mapped),
}

/// `count` words in an anonymous mapping of their own.
#[derive(Debug)]
pub struct Mapped {
    /// The mapping's start (huge-page aligned) and length in bytes.
    base: *mut libc::c_void,
    len: usize,
    count: usize,
}

// SAFETY: the mapping is owned exclusively by this value and only ever read and written
// through `AtomicU64`s, which are `Sync`; moving the owner to another thread is like moving a
// `Box<[AtomicU64]>`.
unsafe impl Send for Mapped {}
// SAFETY: shared access hands out `&[AtomicU64]` only (see above).
unsafe impl Sync for Mapped {}

impl Words {
    /// `count` zeroed words, or `None` when the host has no memory for them.
    pub fn zeroed(count: usize) -> Option<Words> {
        let bytes = count.checked_mul(8)?;
        if bytes >= HUGE_PAGE {
            if let Some(mapped) = Mapped::new(count, bytes) {
                return Some(Words::Mapped(mapped));
            }
        }
        let mut words = Vec::new();
        words.try_reserve_exact(count).ok()?;
        words.resize_with(count, || AtomicU64::new(0));
        Some(Words::Boxed(words.into_boxed_slice()))
    }
}

impl std::ops::Deref for Words {
    type Target = [AtomicU64];

    fn deref(&self) -> &[AtomicU64] {
        match self {
            Words::Boxed(words) => words,
            // SAFETY: `base` is a live, readable and writable mapping of at least `count * 8`
            // bytes, aligned to a huge page (so to `AtomicU64`), zero-filled by the kernel
            // (a valid `AtomicU64` bit pattern), owned by `self` until `drop` unmaps it.
            Words::Mapped(m) => unsafe {
                std::slice::from_raw_parts(m.base.cast::<AtomicU64>(), m.count)
            },
        }
    }
}

impl Mapped {
    fn new(count: usize, bytes: usize) -> Option<Mapped> {
        // Room to align the start to a huge page; the ends beyond the aligned run are unmapped.
        let len = bytes.checked_next_multiple_of(HUGE_PAGE)?;
        let reserve = len.checked_add(HUGE_PAGE)?;
        // SAFETY: an anonymous private mapping at an address of the kernel's choosing touches
        // no existing memory; the result is checked against MAP_FAILED.
        let raw = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                reserve,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if raw == libc::MAP_FAILED {
            return None;
        }
        let start = raw as usize;
        let aligned = start.next_multiple_of(HUGE_PAGE);
        let (head, tail) = (aligned - start, reserve - (aligned - start) - len);
        // SAFETY: both ranges lie inside the mapping just made and outside the aligned run kept;
        // unmapping them cannot touch anything else. A failure leaves them mapped (harmless).
        unsafe {
            if head > 0 {
                libc::munmap(raw, head);
            }
            if tail > 0 {
                libc::munmap((aligned + len) as *mut libc::c_void, tail);
            }
        }
        let base = aligned as *mut libc::c_void;
        // SAFETY: advice on the mapping this function owns; huge pages are a hint the kernel
        // may ignore (its answer is not needed: small pages work the same). The pages are then
        // committed at once, zeroed by the kernel, as device memory is at allocation: left to
        // their first writes, a big upload's stream worker took the page faults while the
        // uploading thread ran ahead of it, and the chunks waiting between them raised a
        // 512 MiB buffer's peak from about 550 to 960 MB of host memory. A kernel without
        // `MADV_POPULATE_WRITE` (before Linux 5.14) leaves them to their first writes.
        unsafe {
            libc::madvise(base, len, libc::MADV_HUGEPAGE);
            libc::madvise(base, len, libc::MADV_POPULATE_WRITE);
        }
        Some(Mapped { base, len, count })
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        // SAFETY: `base..base + len` is the mapping `new` kept, owned by `self`; no reference
        // into it outlives `self` (`Deref` borrows `self`).
        unsafe {
            libc::munmap(self.base, self.len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn small_and_huge_allocations_are_zeroed_aligned_and_writable() {
        for count in [1, 1000, HUGE_PAGE / 8, HUGE_PAGE / 8 * 3 + 5] {
            let words = Words::zeroed(count).expect("memory");
            assert_eq!(words.len(), count);
            assert!(words
                .iter()
                .step_by(4099)
                .all(|w| w.load(Ordering::Relaxed) == 0));
            words[count - 1].store(7, Ordering::Relaxed);
            assert_eq!(words[count - 1].load(Ordering::Relaxed), 7);
            if count * 8 >= HUGE_PAGE {
                assert!(matches!(words, Words::Mapped(_)));
                assert_eq!(words.as_ptr() as usize % HUGE_PAGE, 0);
            }
        }
    }
}
