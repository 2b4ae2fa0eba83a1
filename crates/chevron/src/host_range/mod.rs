//! Checks that a range of host addresses is mapped memory of this process before chevron
//! touches it, so a stray or freed pointer handed to a copy is an error instead of a crash.
//!
//! The check asks the kernel about the process's memory maps rather than touching the range:
//! [`maps`] walks the mappings that cover the range (one `PROCMAP_QUERY` ioctl on
//! `/proc/self/maps` per mapping, Linux 6.11 and later; the text of `/proc/self/maps` on older
//! kernels) and requires each to allow the access. Where neither can be read, [`probe`] probes
//! each page of the range through `process_vm_readv`/`process_vm_writev`, which report an
//! unmapped or protected page as `EFAULT` instead of faulting; where the kernel refuses even
//! that (a sandbox), the range is taken on trust.
//!
//! The maps are asked because probing costs about a microsecond per page: a 64 MiB pageable
//! copy spent longer in its probe than in the copy. A query costs the same for any length.
//! What a map cannot tell, and the probe could: a file mapping past the end of its file (an
//! access raises `SIGBUS`), which copies of such memory are left to meet as the CPU would.

mod maps;
mod probe;

use crate::error::{Error, Result};

/// Page size used to probe host ranges (the smallest Linux page; probing more often than the
/// real page size is harmless).
const PROBE_STEP: u64 = 4096;

/// How a host range will be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read (the source of a copy).
    Read,
    /// Written (the destination of a copy); checked readable and writable.
    Write,
}

/// What a check of a range found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    /// Every byte is mapped with the access asked for.
    Allowed,
    /// Some byte is unmapped or does not allow the access.
    Refused,
    /// This way of checking is not available here (old kernel, no `/proc`, a sandbox).
    Unknown,
}

/// Checks that every page of `[ptr, ptr + bytes)` is host memory of this process allowing
/// `access`. `what` names the range in the error (`src`, `dst`, …); `call` is the caller's
/// entry point. An empty range is always valid.
pub fn check_host_range(
    call: &'static str,
    what: &str,
    ptr: u64,
    bytes: u64,
    access: Access,
) -> Result<()> {
    let invalid = || Error::InvalidValue {
        call,
        message: format!(
            "{what} {ptr:#x} ({bytes} bytes) is neither device memory of a chevron device nor \
             {} host memory (a freed or stray pointer?)",
            match access {
                Access::Read => "readable",
                Access::Write => "writable",
            }
        ),
    };
    if bytes == 0 {
        return Ok(());
    }
    let last = ptr.checked_add(bytes - 1).ok_or_else(invalid)?;
    if ptr == 0 {
        return Err(invalid());
    }
    let mut verdict = maps::check(ptr, last, access);
    if verdict == Verdict::Unknown {
        verdict = probe::check(ptr, last, access);
    }
    match verdict {
        Verdict::Allowed | Verdict::Unknown => Ok(()),
        Verdict::Refused => Err(invalid()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Six pages of one mapping made into every case a check meets: read-write, read-write,
    /// read-only, no access, unmapped, read-write.
    pub(super) struct Fixture {
        base: u64,
    }

    const PAGE: u64 = PROBE_STEP;

    impl Fixture {
        pub(super) fn new() -> Fixture {
            // SAFETY: a fresh anonymous mapping of six pages, owned by the fixture; the calls
            // after it change only pages of that mapping.
            unsafe {
                let base = libc::mmap(
                    std::ptr::null_mut(),
                    6 * PAGE as usize,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                );
                assert_ne!(base, libc::MAP_FAILED);
                let page = |n: u64| (base as u64 + n * PAGE) as *mut libc::c_void;
                assert_eq!(libc::mprotect(page(2), PAGE as usize, libc::PROT_READ), 0);
                assert_eq!(libc::mprotect(page(3), PAGE as usize, libc::PROT_NONE), 0);
                assert_eq!(libc::munmap(page(4), PAGE as usize), 0);
                Fixture { base: base as u64 }
            }
        }

        /// `(ptr, last, access, verdict)` for ranges over the fixture's pages.
        pub(super) fn cases(&self) -> Vec<(u64, u64, Access, Verdict)> {
            let at = |page: u64, offset: u64| self.base + page * PAGE + offset;
            use Access::{Read, Write};
            use Verdict::{Allowed, Refused};
            vec![
                (at(0, 3), at(1, PAGE - 1), Read, Allowed),
                (at(0, 3), at(1, PAGE - 1), Write, Allowed),
                (at(1, 8), at(2, 8), Read, Allowed),
                (at(1, 8), at(2, 8), Write, Refused),
                (at(2, 0), at(2, PAGE - 1), Write, Refused),
                (at(2, 0), at(3, 0), Read, Refused),
                (at(3, 5), at(3, 6), Read, Refused),
                (at(4, 0), at(4, 0), Read, Refused),
                (at(5, 0), at(5, PAGE - 1), Write, Allowed),
                (at(0, 0), at(5, 0), Read, Refused),
            ]
        }
    }

    impl Drop for Fixture {
        fn drop(&mut self) {
            // SAFETY: the fixture's own mapping (the unmapped page among it is ignored).
            unsafe { libc::munmap(self.base as *mut libc::c_void, 6 * PAGE as usize) };
        }
    }

    #[test]
    fn every_way_of_checking_gives_the_same_verdicts() {
        let fixture = Fixture::new();
        for (ptr, last, access, expected) in fixture.cases() {
            let probed = probe::check(ptr, last, access);
            if probed != Verdict::Unknown {
                assert_eq!(probed, expected, "probe {ptr:#x}..{last:#x} {access:?}");
            }
            let mapped = maps::check(ptr, last, access);
            if mapped != Verdict::Unknown {
                assert_eq!(mapped, expected, "maps {ptr:#x}..{last:#x} {access:?}");
            }
            let checked = check_host_range(CALL, "src", ptr, last - ptr + 1, access);
            assert_eq!(checked.is_ok(), expected == Verdict::Allowed);
        }
    }

    const CALL: &str = "test";

    #[test]
    fn host_ranges_are_probed_page_by_page() {
        let data = vec![7u8; 3 * PROBE_STEP as usize + 5];
        let ptr = data.as_ptr() as u64;
        let len = data.len() as u64;
        assert!(check_host_range(CALL, "src", ptr + 3, len - 3, Access::Read).is_ok());
        assert!(check_host_range(CALL, "dst", ptr, len, Access::Write).is_ok());
        assert!(
            data.iter().all(|&b| b == 7),
            "a write probe keeps the bytes"
        );
        assert!(check_host_range(CALL, "src", ptr, 0, Access::Read).is_ok());
        let message = check_host_range(CALL, "src", 8, 16, Access::Read)
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("src 0x8 (16 bytes) is neither device memory"),
            "{message}"
        );
        assert!(check_host_range(CALL, "dst", u64::MAX - 4, 16, Access::Write).is_err());
        assert!(check_host_range(CALL, "dst", 0, 1, Access::Read).is_err());
    }

    #[test]
    fn read_only_memory_is_not_a_copy_destination() {
        static READ_ONLY: [u8; 64] = [1; 64];
        let ptr = READ_ONLY.as_ptr() as u64;
        assert!(check_host_range(CALL, "src", ptr, 64, Access::Read).is_ok());
        let message = check_host_range(CALL, "dst", ptr, 64, Access::Write)
            .unwrap_err()
            .to_string();
        assert!(message.contains("writable host memory"), "{message}");
    }
}
