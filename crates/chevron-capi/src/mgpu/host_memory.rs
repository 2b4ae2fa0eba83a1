//! Host-shared (`gpu.alloc host_shared`, `mgpuMemAlloc(n, NULL, 1)`) and host-registered
//! (`gpu.host_register`) memory: host memory that kernels use directly.
//!
//! chevron's backend contract has no host-mapped memory, and the CPU device's memory is not
//! host-addressable (its addresses index an allocation table). So each such host range gets a
//! **device mirror** of the same size, and ownership moves between host and device like CUDA's
//! managed memory on devices without concurrent access (before Pascal, or on Windows):
//!
//! - a launch whose arguments hold an address inside a host range (memref descriptors pass
//!   their base and aligned pointers as 8-byte arguments, or inside one by-value aggregate
//!   when the kernel takes the descriptor whole) gets the mirror's address instead;
//!   if the host owned the range, its bytes are first copied to the mirror, and the device
//!   owns it from then on;
//! - at each host synchronization (`mgpuStreamSynchronize`, `mgpuEventSynchronize`,
//!   `mgpuMemcpy`, unregistration, free), a device-owned range whose work is all done is
//!   copied back, and the host owns it again;
//! - `mgpuMemcpy`/`mgpuMemset*` use the mirror while the device owns the range.
//!
//! What this does not give: the host and kernels touching the memory at the same time, and
//! pointers to host ranges stored inside device memory (only kernel arguments are
//! translated). Kernels that share a range with each other (atomics across streams) work: they
//! all use the one mirror. Ranges are per device: the mirror lives on the device that was the
//! default when the range was made.

use std::alloc::Layout;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use chevron::{Buffer, Device, Token};

use super::{default_device, report};
use crate::error::{CapiError, CapiResult};

/// One host range and its mirror.
struct HostRange {
    size: u64,
    mirror: Buffer<u8>,
    /// Whether the mirror holds the current bytes (the device owns the range).
    device_owned: bool,
    /// Work that may use the mirror.
    pending: Vec<Token>,
    /// Launches and copies between taking the mirror and handing in their token.
    in_flight: usize,
    /// For host-shared allocations made here: how to free the host memory.
    allocated: Option<Layout>,
}

impl HostRange {
    fn mirror_address(&self, host_base: u64, ptr: u64) -> u64 {
        self.mirror.device_ptr() + (ptr - host_base)
    }

    /// Copies the host bytes to the mirror and waits for the copy.
    fn upload(&mut self, host_base: u64) -> CapiResult<()> {
        // SAFETY: the range [host_base, host_base + size) was registered as readable host
        // memory that stays valid until it is unregistered or freed.
        let bytes =
            unsafe { std::slice::from_raw_parts(host_base as *const u8, self.size as usize) };
        let stream = self.mirror.device().default_stream()?;
        stream
            .copy_to_device_at(self.mirror.device_ptr(), bytes)?
            .wait()?;
        self.device_owned = true;
        Ok(())
    }

    /// Copies the mirror back to the host bytes.
    fn download(&mut self, host_base: u64) -> CapiResult<()> {
        // SAFETY: as in `upload`; the range is writable host memory.
        let bytes =
            unsafe { std::slice::from_raw_parts_mut(host_base as *mut u8, self.size as usize) };
        let stream = self.mirror.device().default_stream()?;
        stream.copy_to_host_at(bytes, self.mirror.device_ptr())?;
        self.device_owned = false;
        self.pending.clear();
        Ok(())
    }
}

static RANGES: Mutex<BTreeMap<u64, HostRange>> = Mutex::new(BTreeMap::new());
/// How many ranges exist: lets launches and synchronizations skip all of this when none do.
static ACTIVE: AtomicUsize = AtomicUsize::new(0);

fn ranges() -> MutexGuard<'static, BTreeMap<u64, HostRange>> {
    RANGES.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether any host range exists.
pub(crate) fn any() -> bool {
    ACTIVE.load(Ordering::Acquire) > 0
}

/// The range containing `ptr` (its end included: an end pointer belongs to its range).
fn containing(map: &mut BTreeMap<u64, HostRange>, ptr: u64) -> Option<(u64, &mut HostRange)> {
    let (&base, range) = map.range_mut(..=ptr).next_back()?;
    (ptr <= base + range.size).then_some((base, range))
}

fn insert(host: u64, size: u64, allocated: Option<Layout>) -> CapiResult<()> {
    if host == 0 || size == 0 || host.checked_add(size).is_none() {
        return Err(CapiError::invalid(format!("{size} bytes at {host:#x}")));
    }
    let device = default_device()?;
    let mirror = Buffer::<u8>::new(&device, size as usize)?;
    let mut map = ranges();
    let overlaps = map
        .range(..host + size)
        .next_back()
        .is_some_and(|(&base, r)| base + r.size > host);
    if overlaps {
        return Err(CapiError::invalid(format!(
            "{size} bytes at {host:#x} overlap memory that is already registered"
        )));
    }
    map.insert(
        host,
        HostRange {
            size,
            mirror,
            device_owned: false,
            pending: Vec::new(),
            in_flight: 0,
            allocated,
        },
    );
    ACTIVE.fetch_add(1, Ordering::AcqRel);
    Ok(())
}

/// Allocates `bytes` of zeroed host-shared memory (256-byte aligned).
pub(crate) fn alloc_shared(bytes: u64) -> CapiResult<*mut u8> {
    let layout = Layout::from_size_align(bytes as usize, 256)
        .map_err(|e| CapiError::invalid(format!("{bytes} bytes: {e}")))?;
    // SAFETY: the layout has a non-zero size (callers never pass 0).
    let host = unsafe { std::alloc::alloc_zeroed(layout) };
    if host.is_null() {
        return Err(CapiError::invalid(format!(
            "out of host memory for {bytes} bytes"
        )));
    }
    if let Err(error) = insert(host as u64, bytes, Some(layout)) {
        // SAFETY: allocated above with this layout and not shared with anyone.
        unsafe { std::alloc::dealloc(host, layout) };
        return Err(error);
    }
    Ok(host)
}

/// Registers `bytes` of host memory at `host` for kernels.
pub(crate) fn register(host: u64, bytes: u64) -> CapiResult<()> {
    insert(host, bytes, None)
}

/// Removes the range starting at `host`: waits for its work and copies the bytes back (unless
/// `discard`). Returns whether there was one, and frees host-shared memory.
fn remove(host: u64, discard: bool) -> CapiResult<bool> {
    let Some(mut range) = ranges().remove(&host) else {
        return Ok(false);
    };
    ACTIVE.fetch_sub(1, Ordering::AcqRel);
    let mut result = Ok(());
    if !discard && range.device_owned {
        for token in &range.pending {
            if let Err(e) = token.wait() {
                result = Err(CapiError::from(e));
            }
        }
        if let Err(e) = range.download(host) {
            result = result.and(Err(e));
        }
    }
    if let Some(layout) = range.allocated {
        // SAFETY: allocated by `alloc_shared` with this layout; the range is gone, so no
        // later copy touches it (the mirror is released once pending work is done).
        unsafe { std::alloc::dealloc(host as *mut u8, layout) };
    }
    result.map(|()| true)
}

/// Unregisters host memory registered at `host`, copying the device's changes back.
pub(crate) fn unregister(host: u64) -> CapiResult<()> {
    if remove(host, false)? {
        Ok(())
    } else {
        Err(CapiError::invalid(format!(
            "{host:#x} is not registered host memory"
        )))
    }
}

/// Frees host-shared memory allocated at `host`; `None` if `host` is not such an allocation.
pub(crate) fn free_shared(host: u64) -> Option<CapiResult<()>> {
    let is_shared = ranges().get(&host).is_some_and(|r| r.allocated.is_some());
    is_shared.then(|| remove(host, true).map(|_| ()))
}

/// Where the bytes at a host address currently are.
pub(crate) enum Place {
    /// In host memory (the host owns the range, or it is plain host memory).
    Host,
    /// In a mirror: `address` on `device`, after `after`. Hand the range's base to
    /// [`finish`] with the token of the work that used it.
    Mirror {
        device: Device,
        address: u64,
        after: Vec<Token>,
        base: u64,
    },
}

/// Where the bytes at `ptr` are, for a copy or fill. A `Mirror` answer must be finished.
pub(crate) fn resolve(ptr: u64) -> Place {
    if !any() {
        return Place::Host;
    }
    let mut map = ranges();
    match containing(&mut map, ptr) {
        Some((base, range)) if range.device_owned => {
            range.in_flight += 1;
            Place::Mirror {
                device: range.mirror.device().clone(),
                address: range.mirror_address(base, ptr),
                after: range.pending.clone(),
                base,
            }
        }
        _ => Place::Host,
    }
}

/// Replaces the host-range addresses among 8-byte launch argument words on `device` by mirror
/// addresses (uploading host-owned ranges first). Returns the bases of the ranges used, to
/// hand to [`finish`] with the launch's token.
pub(crate) fn translate(device: &Device, values: &mut [u64]) -> CapiResult<Vec<u64>> {
    let mut used: Vec<u64> = Vec::new();
    let mut map = ranges();
    let mut result = Ok(());
    for value in values.iter_mut() {
        let Some((base, range)) = containing(&mut map, *value) else {
            continue;
        };
        if !range.mirror.device().same_device(device) {
            result = Err(CapiError::invalid(format!(
                "host memory at {base:#x} is mirrored on {}, the launch is on {}",
                range.mirror.device().label(),
                device.label()
            )));
            break;
        }
        if !range.device_owned {
            if let Err(error) = range.upload(base) {
                result = Err(error);
                break;
            }
        }
        *value = range.mirror_address(base, *value);
        if !used.contains(&base) {
            range.in_flight += 1;
            used.push(base);
        }
    }
    drop(map);
    match result {
        Ok(()) => Ok(used),
        Err(error) => {
            finish(&used, None);
            Err(error)
        }
    }
}

/// Hands in the token of work that used the mirrors of `bases` (or `None` if it failed).
pub(crate) fn finish(bases: &[u64], token: Option<&Token>) {
    if bases.is_empty() {
        return;
    }
    let mut map = ranges();
    for base in bases {
        if let Some(range) = map.get_mut(base) {
            range.in_flight = range.in_flight.saturating_sub(1);
            if let Some(token) = token {
                range.device_owned = true;
                range.pending.push(token.clone());
            }
        }
    }
}

/// Copies back every device-owned range whose work is all done.
pub(crate) fn reconcile() {
    if !any() {
        return;
    }
    let mut map = ranges();
    for (&base, range) in map.iter_mut() {
        if !range.device_owned || range.in_flight > 0 {
            continue;
        }
        // A faulted launch counts as done: its fault is reported by the synchronization.
        if range.pending.iter().all(|t| t.is_done().unwrap_or(true)) {
            if let Err(error) = range.download(base) {
                report(
                    "host memory",
                    &format!("copying {base:#x} back: {}", error.message),
                );
            }
        }
    }
}
