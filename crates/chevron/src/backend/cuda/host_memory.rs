//! Host memory a CUDA device addresses in place, the driver's own: pinned memory
//! (`cuMemHostAlloc`, portable and mapped), managed memory (`cuMemAllocManaged`) and the
//! program's memory registered with `cuMemHostRegister`. With unified addressing the device
//! address of each is its host address; where the driver gives another one the memory is
//! handed back and the caller keeps its own scheme.

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::Mutex;

use super::context::DeviceState;
use super::sys::{self, CUdeviceptr};
use crate::backend::{DevicePtr, HostVisibleKind};
use crate::error::{Error, Result};

/// What a live host-visible range is, for its free.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Pinned,
    Managed,
}

/// Pinned and managed allocations of one device, by address.
pub(crate) struct HostMemory {
    live: Mutex<HashMap<DevicePtr, Kind>>,
}

impl HostMemory {
    pub(crate) fn new() -> HostMemory {
        HostMemory {
            live: Mutex::new(HashMap::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<DevicePtr, Kind>> {
        self.live
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// `cuMemHostAlloc` (portable, mapped, write-combined if asked) or `cuMemAllocManaged`
    /// (attached globally) in the device's context; `None` where pinned memory's device address
    /// differs from its host address (no unified addressing).
    pub(crate) fn alloc(
        &self,
        state: &DeviceState,
        bytes: u64,
        kind: HostVisibleKind,
    ) -> Result<Option<DevicePtr>> {
        let size = usize::try_from(bytes).map_err(|_| Error::InvalidValue {
            call: "Device::alloc_host_visible",
            message: format!("{bytes} bytes exceed the address space"),
        })?;
        let _entered = state.enter()?;
        match kind {
            HostVisibleKind::Managed => {
                let mut ptr: CUdeviceptr = 0;
                // SAFETY: the device's context is current; `ptr` is a valid out-pointer.
                let code = unsafe {
                    (state.driver.cuMemAllocManaged)(&mut ptr, size, sys::CU_MEM_ATTACH_GLOBAL)
                };
                if code != sys::CUDA_SUCCESS {
                    return Err(state.error("cuMemAllocManaged", code, format!("{bytes} bytes")));
                }
                self.lock().insert(ptr, Kind::Managed);
                Ok(Some(ptr))
            }
            HostVisibleKind::Pinned { write_combined } => {
                let mut flags = sys::CU_MEMHOSTALLOC_PORTABLE | sys::CU_MEMHOSTALLOC_DEVICEMAP;
                if write_combined {
                    flags |= sys::CU_MEMHOSTALLOC_WRITECOMBINED;
                }
                let mut host: *mut c_void = std::ptr::null_mut();
                // SAFETY: the device's context is current; `host` is a valid out-pointer.
                let code = unsafe { (state.driver.cuMemHostAlloc)(&mut host, size, flags) };
                if code != sys::CUDA_SUCCESS {
                    return Err(state.error("cuMemHostAlloc", code, format!("{bytes} bytes")));
                }
                match device_pointer(state, host) {
                    Ok(device) if device == host as u64 => {
                        self.lock().insert(device, Kind::Pinned);
                        Ok(Some(device))
                    }
                    other => {
                        // SAFETY: allocated just above and not handed out.
                        let code = unsafe { (state.driver.cuMemFreeHost)(host) };
                        state.check("cuMemFreeHost", code)?;
                        other.map(|_| None)
                    }
                }
            }
        }
    }

    /// Frees memory from [`HostMemory::alloc`] (`cuMemFreeHost` or `cuMemFree`).
    pub(crate) fn free(&self, state: &DeviceState, ptr: DevicePtr) -> Result<()> {
        let Some(kind) = self.lock().remove(&ptr) else {
            return Err(Error::InvalidValue {
                call: "Device::free_host_visible",
                message: format!(
                    "{ptr:#x} is not pinned or managed memory of {}",
                    state.label
                ),
            });
        };
        let _entered = state.enter()?;
        match kind {
            Kind::Managed => {
                // SAFETY: from cuMemAllocManaged on this device, freed once.
                let code = unsafe { (state.driver.cuMemFree)(ptr) };
                state.check("cuMemFree", code)
            }
            Kind::Pinned => {
                // SAFETY: from cuMemHostAlloc, freed once.
                let code = unsafe { (state.driver.cuMemFreeHost)(ptr as usize as *mut c_void) };
                state.check("cuMemFreeHost", code)
            }
        }
    }

    /// `cuMemHostRegister` (portable, mapped) of the program's memory; returns its device
    /// address.
    ///
    /// # Safety
    /// `host..host + bytes` is host memory the caller keeps alive until [`HostMemory::unmap`].
    pub(crate) unsafe fn map(
        &self,
        state: &DeviceState,
        host: *mut c_void,
        bytes: u64,
    ) -> Result<DevicePtr> {
        let size = usize::try_from(bytes).map_err(|_| Error::InvalidValue {
            call: "Device::map_host_memory",
            message: format!("{bytes} bytes exceed the address space"),
        })?;
        let _entered = state.enter()?;
        let flags = sys::CU_MEMHOSTALLOC_PORTABLE | sys::CU_MEMHOSTALLOC_DEVICEMAP;
        // SAFETY: the caller's guarantee; the device's context is current.
        let code = unsafe { (state.driver.cuMemHostRegister)(host, size, flags) };
        if code != sys::CUDA_SUCCESS {
            return Err(state.error(
                "cuMemHostRegister",
                code,
                format!("{bytes} bytes at {host:p}"),
            ));
        }
        device_pointer(state, host)
    }

    /// `cuMemHostUnregister`.
    pub(crate) fn unmap(&self, state: &DeviceState, host: *mut c_void) -> Result<()> {
        let _entered = state.enter()?;
        // SAFETY: the driver checks that `host` is a registered range.
        let code = unsafe { (state.driver.cuMemHostUnregister)(host) };
        state.check("cuMemHostUnregister", code)
    }
}

/// `cuMemHostGetDevicePointer` of page-locked memory (the device's context is current).
fn device_pointer(state: &DeviceState, host: *mut c_void) -> Result<DevicePtr> {
    let mut device: CUdeviceptr = 0;
    // SAFETY: `device` is a valid out-pointer; the driver checks `host`.
    let code = unsafe { (state.driver.cuMemHostGetDevicePointer)(&mut device, host, 0) };
    if code != sys::CUDA_SUCCESS {
        return Err(state.error("cuMemHostGetDevicePointer", code, format!("{host:p}")));
    }
    Ok(device)
}
