//! Checks that a range of host addresses is mapped memory of this process before chevron
//! touches it, so a stray or freed pointer handed to a copy is an error instead of a crash.
//!
//! Each page of the range is probed through the kernel: `process_vm_readv` on this process
//! reads one byte of it (and, for a destination, `process_vm_writev` writes that byte back),
//! and the kernel reports an unmapped or protected page as `EFAULT` instead of faulting.
//! Where the kernel refuses the call itself (no such system call, or a sandbox forbids it),
//! the range is taken on trust.

use std::ffi::c_void;

use crate::error::{Error, Result};

/// Page size used to probe host ranges (the smallest Linux page; probing more often than the
/// real page size is harmless).
const PROBE_STEP: u64 = 4096;
/// Pages probed per system call (the kernel's `IOV_MAX`).
const PROBES_PER_CALL: usize = 1024;

/// How a host range will be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read (the source of a copy).
    Read,
    /// Written (the destination of a copy); checked readable and writable.
    Write,
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
    let first_page = ptr / PROBE_STEP;
    let pages = last / PROBE_STEP - first_page + 1;
    let mut sink = [0u8; PROBES_PER_CALL];
    let mut page = 0u64;
    while page < pages {
        let count = (pages - page).min(PROBES_PER_CALL as u64) as usize;
        let remote: Vec<libc::iovec> = (0..count as u64)
            .map(|k| libc::iovec {
                iov_base: ((first_page + page + k) * PROBE_STEP).max(ptr) as usize as *mut c_void,
                iov_len: 1,
            })
            .collect();
        let local = libc::iovec {
            iov_base: sink.as_mut_ptr() as *mut c_void,
            iov_len: count,
        };
        // SAFETY: `local` is `count` writable bytes of `sink`; the remote ranges are only read
        // by the kernel, which reports unreadable ones as EFAULT rather than faulting.
        let read = unsafe {
            libc::process_vm_readv(
                libc::getpid(),
                &local,
                1,
                remote.as_ptr(),
                count as libc::c_ulong,
                0,
            )
        };
        match probe_outcome(read, count) {
            Probe::Trusted => return Ok(()),
            Probe::Refused => return Err(invalid()),
            Probe::Done => {}
        }
        if access == Access::Write {
            // The bytes just read are written back: the caller is about to overwrite the
            // range, so a concurrent change of these bytes is no more lost than by the copy.
            // SAFETY: as above; the kernel writes the `count` bytes read into the remote
            // pages, or reports a page that is not writable as EFAULT.
            let written = unsafe {
                libc::process_vm_writev(
                    libc::getpid(),
                    &local,
                    1,
                    remote.as_ptr(),
                    count as libc::c_ulong,
                    0,
                )
            };
            match probe_outcome(written, count) {
                Probe::Trusted => return Ok(()),
                Probe::Refused => return Err(invalid()),
                Probe::Done => {}
            }
        }
        page += count as u64;
    }
    Ok(())
}

enum Probe {
    /// Every page answered.
    Done,
    /// A page is not accessible.
    Refused,
    /// The kernel does not let this process probe itself: take the range on trust.
    Trusted,
}

fn probe_outcome(transferred: isize, count: usize) -> Probe {
    if transferred < 0 {
        return match std::io::Error::last_os_error().raw_os_error() {
            Some(libc::ENOSYS) | Some(libc::EPERM) => Probe::Trusted,
            _ => Probe::Refused,
        };
    }
    if transferred as usize == count {
        Probe::Done
    } else {
        Probe::Refused
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
