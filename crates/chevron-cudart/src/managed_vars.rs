//! `__managed__` variables: one copy the host reads and writes, one the kernels use.
//!
//! The compiler registers each variable with `__cudaRegisterManagedVar`, passing a slot in
//! which the runtime stores the address of the host copy; host code reaches the variable
//! through that slot after `__cudaInitModule`. chevron gives each variable page-aligned host
//! memory, fills it from the module's initial value when the module is first initialized, copies
//! it to the module's variable before every launch and back at synchronizing calls — the same
//! coherence as managed allocations (see [`crate::mirror`]).

use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use chevron::Stream;

use crate::errors::CudaResult;
use crate::mirror;
use crate::registry::FatBinary;
use crate::state::{self, lock};

struct ManagedVar {
    fatbin: Arc<FatBinary>,
    name: String,
    /// The host copy (from [`mirror::host_alloc`]).
    host: usize,
    size: usize,
    /// The device ordinal whose module copy kernels may have written since the last pull.
    dirty_on: Option<usize>,
    /// The host copy holds the module's initial value (or later contents).
    initialized: bool,
}

impl ManagedVar {
    /// Fills the host copy from the module's variable on device `ordinal`.
    fn fill_host(&mut self, ordinal: usize) -> CudaResult {
        let device = state::device(ordinal)?;
        let global = self
            .fatbin
            .module(ordinal, &self.name)?
            .global(&self.name)?;
        // SAFETY: the host copy is `size` bytes owned by this registry.
        let host = unsafe { std::slice::from_raw_parts_mut(self.host as *mut u8, self.size) };
        device.legacy().copy_to_host_at(host, global.ptr)?;
        self.initialized = true;
        Ok(())
    }
}

static VARS: Mutex<Vec<ManagedVar>> = Mutex::new(Vec::new());
static ANY: AtomicBool = AtomicBool::new(false);

/// Registers a `__managed__` variable and stores its host address in `slot`.
///
/// # Safety
/// `slot` is writable.
pub unsafe fn register(
    fatbin: &Arc<FatBinary>,
    slot: *mut *mut c_void,
    name: String,
    size: usize,
) -> CudaResult {
    let host = mirror::host_alloc(size)?;
    // SAFETY: the caller's guarantee.
    unsafe { slot.write(host) };
    lock(&VARS).push(ManagedVar {
        fatbin: Arc::clone(fatbin),
        name,
        host: host as usize,
        size,
        dirty_on: None,
        initialized: false,
    });
    mirror::add_coherent(mirror::Coherent { in_use, pull });
    ANY.store(true, Ordering::Release);
    Ok(())
}

/// Loads `fatbin` on the current device and fills its variables' host copies from the
/// module's initial values (`__cudaInitModule`).
pub fn initialize(fatbin: &Arc<FatBinary>) -> CudaResult {
    state::current()?;
    let ordinal = state::current_ordinal();
    for var in lock(&VARS).iter_mut() {
        if Arc::ptr_eq(&var.fatbin, fatbin) && !var.initialized {
            var.fill_host(ordinal)?;
        }
    }
    Ok(())
}

/// Copies every host copy to its module variable on device `ordinal`, ordered on `stream`,
/// before a launch there.
pub fn push(ordinal: usize, stream: &Stream) -> CudaResult {
    if !ANY.load(Ordering::Acquire) {
        return Ok(());
    }
    for var in lock(&VARS).iter_mut() {
        if !var.initialized {
            var.fill_host(ordinal)?;
        }
        let global = var.fatbin.module(ordinal, &var.name)?.global(&var.name)?;
        // SAFETY: the host copy is `size` bytes owned by this registry.
        let host = unsafe { std::slice::from_raw_parts(var.host as *const u8, var.size) };
        stream.copy_to_device_at(global.ptr, host)?;
        var.dirty_on = Some(ordinal);
    }
    Ok(())
}

/// Whether any `__managed__` variable is registered.
#[inline]
pub fn in_use() -> bool {
    ANY.load(Ordering::Acquire)
}

/// Copies module variables kernels may have written back to their host copies.
pub fn pull() -> CudaResult {
    if !ANY.load(Ordering::Acquire) {
        return Ok(());
    }
    for var in lock(&VARS).iter_mut() {
        let Some(ordinal) = var.dirty_on else {
            continue;
        };
        // Kernels writing the variable may run on any stream of the device.
        state::device(ordinal)?.device.synchronize()?;
        var.fill_host(ordinal)?;
        var.dirty_on = None;
    }
    Ok(())
}

/// Drops the variables of an unregistered fatbin and their host copies.
pub fn unregister(fatbin: &Arc<FatBinary>) {
    let mut vars = lock(&VARS);
    vars.retain(|var| {
        if !Arc::ptr_eq(&var.fatbin, fatbin) {
            return true;
        }
        // SAFETY: allocated by `register` with this size, freed once here.
        let _ = unsafe { mirror::host_free(var.host as *mut c_void, var.size) };
        false
    });
    ANY.store(!vars.is_empty(), Ordering::Release);
}
