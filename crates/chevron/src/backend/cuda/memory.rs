//! Device memory of a CUDA device: allocation, free, and the table of live allocations used to
//! classify pointers.

use std::collections::BTreeMap;
use std::ffi::{c_int, c_uint, c_void};
use std::sync::Mutex;

use super::context::DeviceState;
use super::sys::{self, CUdeviceptr};
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

    /// Whether the driver knows `ptr` as live device memory of `state`'s device (allocated by
    /// chevron or by anyone else in the process): `cuPointerGetAttributes`, which needs no
    /// context and reports an unknown pointer (host memory, freed device memory) as type 0.
    pub(crate) fn is_device_address(
        &self,
        state: &DeviceState,
        ordinal: u32,
        ptr: DevicePtr,
    ) -> bool {
        let mut attributes = [
            sys::CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
            sys::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
        ];
        let mut memory_type: c_uint = 0;
        let mut device_ordinal: c_int = -1;
        let mut values = [
            (&mut memory_type) as *mut c_uint as *mut c_void,
            (&mut device_ordinal) as *mut c_int as *mut c_void,
        ];
        // SAFETY: two attributes, each with a value pointer of the attribute's type and size.
        let code = unsafe {
            (state.driver.cuPointerGetAttributes)(
                attributes.len() as c_uint,
                attributes.as_mut_ptr(),
                values.as_mut_ptr(),
                ptr,
            )
        };
        code == sys::CUDA_SUCCESS
            && memory_type == sys::CU_MEMORYTYPE_DEVICE
            && u32::try_from(device_ordinal) == Ok(ordinal)
    }
}
