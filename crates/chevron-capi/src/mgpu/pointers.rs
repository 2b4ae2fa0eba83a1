//! What a bare pointer handed to `mgpuMemcpy`/`mgpuMemset*` is: device memory of some device,
//! host memory that a device mirror currently holds ([`super::host_memory`]), or plain host
//! memory.
//!
//! Pointers are looked up, never guessed from their value: a pointer is device memory when a
//! device says it is its address ([`chevron::Device::is_device_address`]: the CPU device's
//! address window, live or freed; on CUDA any device allocation the driver knows). Such a
//! pointer goes to that device, which checks it against its live allocations, so a freed one
//! is an error rather than a host read. Everything else is taken for host memory only after
//! the range was checked to be readable host memory (`process_vm_readv` on this process), so a
//! freed CUDA allocation or a stray pointer is reported instead of crashing the process.

use std::ffi::c_void;

use chevron::{Device, Token};

use super::host_memory::{self, Place};
use crate::error::{CapiError, CapiResult};

/// A classified pointer.
pub(crate) enum Resolved {
    Host(u64),
    Device {
        device: Device,
        address: u64,
        after: Vec<Token>,
        mirror_base: Option<u64>,
    },
}

impl Resolved {
    /// The host-shared or registered range whose mirror this pointer resolved to.
    pub(crate) fn mirror_base(&self) -> Option<u64> {
        match self {
            Resolved::Device { mirror_base, .. } => *mirror_base,
            Resolved::Host(_) => None,
        }
    }
}

/// Classifies the `bytes` bytes at `ptr` (named `what` in errors): device memory, a mirrored
/// host range, or host memory checked to be readable.
pub(crate) fn classify(what: &str, ptr: u64, bytes: u64) -> CapiResult<Resolved> {
    if let Place::Mirror {
        device,
        address,
        after,
        base,
    } = host_memory::resolve(ptr)
    {
        return Ok(Resolved::Device {
            device,
            address,
            after,
            mirror_base: Some(base),
        });
    }
    for device in crate::api::runtime()?.devices() {
        if device.is_device_address(ptr) {
            return Ok(Resolved::Device {
                device: device.clone(),
                address: ptr,
                after: Vec::new(),
                mirror_base: None,
            });
        }
    }
    check_host_readable(what, ptr, bytes)?;
    Ok(Resolved::Host(ptr))
}

/// Page size used to probe host ranges (the smallest Linux page; probing more often than the
/// real page size is harmless).
const PROBE_STEP: u64 = 4096;
/// Pages probed per `process_vm_readv` call (the kernel's `IOV_MAX`).
const PROBES_PER_CALL: usize = 1024;

/// Checks that every page of `[ptr, ptr + bytes)` is readable host memory, reading one byte of
/// each through the kernel (`process_vm_readv` on this process fails with `EFAULT` instead of
/// faulting). Where the kernel refuses the call itself (no such system call, or forbidden by a
/// sandbox), the range is taken on trust, as before.
fn check_host_readable(what: &str, ptr: u64, bytes: u64) -> CapiResult<()> {
    let unreadable = || {
        CapiError::invalid(format!(
            "{what} {ptr:#x} ({bytes} bytes) is neither device memory of a chevron device nor \
             readable host memory (a freed device allocation?)"
        ))
    };
    if bytes == 0 {
        return Ok(());
    }
    let last = ptr.checked_add(bytes - 1).ok_or_else(unreadable)?;
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
        if read < 0 {
            return match std::io::Error::last_os_error().raw_os_error() {
                Some(libc::ENOSYS) | Some(libc::EPERM) => Ok(()),
                _ => Err(unreadable()),
            };
        }
        if read as usize != count {
            return Err(unreadable());
        }
        page += count as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_ranges_are_probed_page_by_page() {
        let data = vec![7u8; 3 * PROBE_STEP as usize + 5];
        let ptr = data.as_ptr() as u64;
        assert!(check_host_readable("src", ptr + 3, data.len() as u64 - 3).is_ok());
        assert!(check_host_readable("src", ptr, 0).is_ok());
        let message = check_host_readable("src", 8, 16).unwrap_err().message;
        assert!(
            message.contains("src 0x8 (16 bytes) is neither device memory"),
            "{message}"
        );
        assert!(check_host_readable("dst", u64::MAX - 4, 16).is_err());
    }
}
