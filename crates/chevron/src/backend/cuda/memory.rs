//! Device memory of a CUDA device: allocation (`cuMemAlloc`, or `cuMemAllocAsync` in a stream's
//! order), free, and the table of live allocations used to classify pointers.

use std::collections::BTreeMap;
use std::ffi::{c_int, c_uint, c_void};
use std::sync::Mutex;

use super::context::DeviceState;
use super::sys::{self, CUdeviceptr};
use crate::backend::DevicePtr;
use crate::error::{Error, Result};

/// `CU_STREAM_PER_THREAD`: the calling thread's default stream, which frees memory of
/// `cuMemAllocAsync` at once (the caller of [`Allocations::free`] guarantees that no work uses
/// it any more).
const CU_STREAM_PER_THREAD: sys::CUstream = 2 as sys::CUstream;

/// One live allocation.
#[derive(Clone, Copy)]
struct Allocation {
    bytes: u64,
    /// Made by `cuMemAllocAsync` (returned to its pool by `cuMemFreeAsync`).
    stream_ordered: bool,
}

/// Live allocations of one device: base address → allocation.
pub(crate) struct Allocations {
    live: Mutex<BTreeMap<DevicePtr, Allocation>>,
}

impl Allocations {
    pub(crate) fn new() -> Allocations {
        Allocations {
            live: Mutex::new(BTreeMap::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<DevicePtr, Allocation>> {
        self.live
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// `cuMemAlloc` in the device's context.
    pub(crate) fn alloc(&self, state: &DeviceState, bytes: u64) -> Result<DevicePtr> {
        let size = size_of_allocation("Device::alloc", bytes)?;
        let _entered = state.enter()?;
        let mut ptr: CUdeviceptr = 0;
        // SAFETY: the device's context is current and `ptr` is a valid out-pointer.
        let code = unsafe { (state.driver.cuMemAlloc)(&mut ptr, size) };
        if code != 0 {
            return Err(state.error("cuMemAlloc", code, format!("{bytes} bytes")));
        }
        self.remember(ptr, bytes, false);
        Ok(ptr)
    }

    /// `cuMemAllocAsync` on `stream` (a stream of this device), in the device's context; `None`
    /// without the driver's stream-ordered allocator.
    pub(crate) fn alloc_in_stream_order(
        &self,
        state: &DeviceState,
        bytes: u64,
        stream: sys::CUstream,
    ) -> Option<Result<DevicePtr>> {
        let alloc_async = state.driver.cuMemAllocAsync?;
        state.driver.cuMemFreeAsync?;
        let made = || -> Result<DevicePtr> {
            let size = size_of_allocation("Device::alloc_in_stream_order", bytes)?;
            let _entered = state.enter()?;
            let mut ptr: CUdeviceptr = 0;
            // SAFETY: the device's context is current, `ptr` is a valid out-pointer and
            // `stream` a live stream of this device (the caller's check).
            let code = unsafe { alloc_async(&mut ptr, size, stream) };
            if code != 0 {
                return Err(state.error("cuMemAllocAsync", code, format!("{bytes} bytes")));
            }
            self.remember(ptr, bytes, true);
            Ok(ptr)
        };
        Some(made())
    }

    fn remember(&self, ptr: DevicePtr, bytes: u64, stream_ordered: bool) {
        self.lock().insert(
            ptr,
            Allocation {
                bytes,
                stream_ordered,
            },
        );
    }

    /// Frees a live allocation: `cuMemFree`, or `cuMemFreeAsync` on the calling thread's
    /// default stream for one of `cuMemAllocAsync`.
    pub(crate) fn free(&self, state: &DeviceState, ptr: DevicePtr) -> Result<()> {
        let Some(allocation) = self.lock().remove(&ptr) else {
            return Err(Error::InvalidValue {
                call: "Device::free",
                message: format!("{ptr:#x} is not an allocation of {}", state.label),
            });
        };
        let _entered = state.enter()?;
        match (allocation.stream_ordered, state.driver.cuMemFreeAsync) {
            (true, Some(free_async)) => {
                // SAFETY: `ptr` was returned by cuMemAllocAsync on this device and is freed
                // once; no work uses it any more (the caller's guarantee).
                let code = unsafe { free_async(ptr, CU_STREAM_PER_THREAD) };
                state.check("cuMemFreeAsync", code)
            }
            _ => {
                // SAFETY: `ptr` was returned by cuMemAlloc on this device and is freed once.
                let code = unsafe { (state.driver.cuMemFree)(ptr) };
                state.check("cuMemFree", code)
            }
        }
    }

    /// The allocation containing `ptr`, as (base, size).
    pub(crate) fn containing(&self, ptr: DevicePtr) -> Option<(DevicePtr, u64)> {
        let live = self.lock();
        let (&base, allocation) = live.range(..=ptr).next_back()?;
        (ptr < base + allocation.bytes).then_some((base, allocation.bytes))
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

/// `bytes` as the driver's size: more than 0, within the address space.
fn size_of_allocation(call: &'static str, bytes: u64) -> Result<usize> {
    if bytes == 0 {
        return Err(Error::InvalidValue {
            call,
            message: "cannot allocate 0 bytes".into(),
        });
    }
    usize::try_from(bytes).map_err(|_| Error::InvalidValue {
        call,
        message: format!("{bytes} bytes exceed the address space"),
    })
}
