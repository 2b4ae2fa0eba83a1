//! Device memory of a CUDA device: allocation, free, and the table of live allocations used to
//! classify pointers.

use std::collections::BTreeMap;
use std::sync::Mutex;

use super::context::DeviceState;
use super::sys::CUdeviceptr;
use crate::backend::DevicePtr;
use crate::error::{Error, Result};

/// Live allocations of one device: base address → size.
pub(crate) struct Allocations {
    live: Mutex<BTreeMap<DevicePtr, u64>>,
}

impl Allocations {
    pub(crate) fn new() -> Allocations {
        Allocations {
            live: Mutex::new(BTreeMap::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<DevicePtr, u64>> {
        self.live
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// `cuMemAlloc` in the device's context.
    pub(crate) fn alloc(&self, state: &DeviceState, bytes: u64) -> Result<DevicePtr> {
        if bytes == 0 {
            return Err(Error::InvalidValue {
                call: "Device::alloc",
                message: "cannot allocate 0 bytes".into(),
            });
        }
        let size = usize::try_from(bytes).map_err(|_| Error::InvalidValue {
            call: "Device::alloc",
            message: format!("{bytes} bytes exceed the address space"),
        })?;
        let _entered = state.enter()?;
        let mut ptr: CUdeviceptr = 0;
        // SAFETY: the device's context is current and `ptr` is a valid out-pointer.
        let code = unsafe { (state.driver.cuMemAlloc)(&mut ptr, size) };
        if code != 0 {
            return Err(state.error("cuMemAlloc", code, format!("{bytes} bytes")));
        }
        self.lock().insert(ptr, bytes);
        Ok(ptr)
    }

    /// `cuMemFree` of a live allocation.
    pub(crate) fn free(&self, state: &DeviceState, ptr: DevicePtr) -> Result<()> {
        if self.lock().remove(&ptr).is_none() {
            return Err(Error::InvalidValue {
                call: "Device::free",
                message: format!("{ptr:#x} is not an allocation of {}", state.label),
            });
        }
        let _entered = state.enter()?;
        // SAFETY: `ptr` was returned by cuMemAlloc on this device and is freed once.
        let code = unsafe { (state.driver.cuMemFree)(ptr) };
        state.check("cuMemFree", code)
    }

    /// The allocation containing `ptr`, as (base, size).
    pub(crate) fn containing(&self, ptr: DevicePtr) -> Option<(DevicePtr, u64)> {
        let live = self.lock();
        let (&base, &size) = live.range(..=ptr).next_back()?;
        (ptr < base + size).then_some((base, size))
    }
}
