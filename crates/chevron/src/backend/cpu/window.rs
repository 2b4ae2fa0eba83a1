//! The host address range a CPU device's memory addresses live in, reserved so that no host
//! mapping can ever be there.
//!
//! CPU device addresses are plain numbers into the interpreter's allocation table, not host
//! pointers. Code that must tell host from device pointers by value (the MLIR `mgpuMemcpy` ABI)
//! needs the two never to coincide, so the device's window is mapped inaccessible
//! (`PROT_NONE`, `MAP_NORESERVE`: no memory is committed) for the device's lifetime. The mapping
//! still counts against `ulimit -v`, so its size is twice the device's capacity plus 1 GiB,
//! capped at a quarter of the address-space limit shared by all devices, and halved until the
//! host grants it.

use chevron_ptx::interp::DeviceMemory;

/// Smallest window worth reserving.
const MIN_WINDOW: u64 = 64 << 20;

/// A reserved, inaccessible range of the host's address space.
pub(crate) struct AddressWindow {
    base: u64,
    len: u64,
}

impl AddressWindow {
    /// Reserves a window for a device of `capacity` bytes, one of `devices`; `None` if the host
    /// refuses even the smallest.
    pub fn reserve(capacity: u64, devices: u32) -> Option<AddressWindow> {
        let mut len = capacity.saturating_mul(2).saturating_add(1 << 30);
        if let Some(limit) = address_space_limit() {
            len = len.min(limit / 4 / u64::from(devices.max(1)));
        }
        len &= !0xffff;
        while len >= MIN_WINDOW {
            if let Some(window) = map_inaccessible(len) {
                return Some(window);
            }
            len /= 2;
        }
        None
    }

    /// Device memory whose addresses lie in this window.
    pub fn memory(&self, device_index: u32) -> Option<DeviceMemory> {
        DeviceMemory::with_window(device_index, self.base, self.len).ok()
    }
}

/// The soft `RLIMIT_AS`, if one is set.
fn address_space_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one `rlimit` to the valid pointer it is given.
    let status = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) };
    (status == 0 && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur)
}

fn map_inaccessible(len: u64) -> Option<AddressWindow> {
    let size = usize::try_from(len).ok()?;
    // SAFETY: an anonymous PROT_NONE mapping at an address the kernel picks touches no
    // existing memory; the result is checked before use.
    let ptr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            size,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    (ptr != libc::MAP_FAILED).then_some(AddressWindow {
        base: ptr as u64,
        len,
    })
}

impl Drop for AddressWindow {
    fn drop(&mut self) {
        // SAFETY: the range is the mapping made in `map_inaccessible`, unmapped only here; it was
        // never accessible, so nothing can refer to memory in it.
        unsafe {
            libc::munmap(self.base as *mut libc::c_void, self.len as usize);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_addresses_lie_in_a_reserved_host_range() {
        let window = AddressWindow::reserve(64 << 20, 1).expect("reservation");
        let memory = window.memory(0).expect("window outside the interpreter's");
        let ptr = memory.alloc(4096, 0).unwrap();
        assert!((window.base..window.base + window.len).contains(&ptr));
        // A fresh host mapping never lands inside the window.
        let host = vec![0u8; 1 << 20];
        let host = host.as_ptr() as u64;
        assert!(!(window.base..window.base + window.len).contains(&host));
    }
}
