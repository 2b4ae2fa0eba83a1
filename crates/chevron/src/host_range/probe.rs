//! The fallback check: each page of a range probed through the kernel. `process_vm_readv` on
//! this process reads one byte of every page (and, for a destination, `process_vm_writev`
//! writes that byte back); the kernel reports an unmapped or protected page as `EFAULT`
//! instead of faulting.

use std::ffi::c_void;

use super::{Access, Verdict, PROBE_STEP};

/// Pages probed per system call (the kernel's `IOV_MAX`).
const PROBES_PER_CALL: usize = 1024;

/// Probes every page of `[ptr, last]` for `access`; `Unknown` when the kernel does not let this
/// process probe itself.
pub(super) fn check(ptr: u64, last: u64, access: Access) -> Verdict {
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
        if let Some(verdict) = outcome(read, count) {
            return verdict;
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
            if let Some(verdict) = outcome(written, count) {
                return verdict;
            }
        }
        page += count as u64;
    }
    Verdict::Allowed
}

/// `None` when all `count` probes answered (go on); otherwise the verdict.
fn outcome(transferred: isize, count: usize) -> Option<Verdict> {
    if transferred < 0 {
        return Some(match std::io::Error::last_os_error().raw_os_error() {
            Some(libc::ENOSYS) | Some(libc::EPERM) => Verdict::Unknown,
            _ => Verdict::Refused,
        });
    }
    (transferred as usize != count).then_some(Verdict::Refused)
}
