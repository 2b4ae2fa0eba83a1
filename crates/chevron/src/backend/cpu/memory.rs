//! Device memory of a CPU device: the interpreter's allocation table plus a capacity cap.
//!
//! All of a device's memory (allocations, module globals) lives in one
//! [`chevron_ptx::interp::DeviceMemory`], so kernels see out-of-bounds and use-after-free
//! accesses as faults. This file adds what the contract asks on top: a total capacity
//! (`CHEVRON_CPU_MEMORY`), 256-byte alignment like `cuMemAlloc`, and a table of the allocations
//! made through [`crate::backend::Device::alloc`], so that freeing anything else (an unknown
//! pointer, a pointer into the middle of an allocation, a module's global) is an error.
//! Module globals count against the capacity too ([`CpuMemory::charge`]). The addresses lie in
//! a host range reserved for the device ([`super::window`]), so [`CpuMemory::in_window`] tells
//! device addresses from host pointers.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chevron_ptx::interp::{DeviceMemory, MemoryError};

use super::window::AddressWindow;
use crate::backend::DevicePtr;
use crate::error::{Error, Result};

/// Alignment of every allocation, as the CUDA driver guarantees.
const ALLOCATION_ALIGN: u64 = 256;

/// The memory of one CPU device.
pub(crate) struct CpuMemory {
    memory: Arc<DeviceMemory>,
    capacity: u64,
    /// Live allocations made by [`CpuMemory::alloc`]: base → size; the sum is what counts
    /// against `capacity`.
    allocations: Mutex<Allocations>,
    device: String,
    /// Keeps the host range of the device's addresses reserved while the device lives; `None`
    /// where the host refused the reservation (then the range proves nothing).
    window: Option<AddressWindow>,
}

#[derive(Default)]
struct Allocations {
    sizes: HashMap<DevicePtr, u64>,
    used: u64,
}

impl CpuMemory {
    /// Memory of the device labelled `device` (for messages), capped at `capacity` bytes.
    pub fn new(
        memory: Arc<DeviceMemory>,
        window: Option<AddressWindow>,
        capacity: u64,
        device: String,
    ) -> CpuMemory {
        CpuMemory {
            memory,
            capacity,
            allocations: Mutex::new(Allocations::default()),
            device,
            window,
        }
    }

    /// Whether `ptr` lies in the device's reserved address window: device memory (live, freed
    /// or not yet allocated), never a host pointer.
    pub fn in_window(&self, ptr: DevicePtr) -> bool {
        self.window.is_some() && self.memory.in_window_range(ptr)
    }

    /// Counts `bytes` that `what` (a module's globals) takes against the capacity.
    pub fn charge(&self, bytes: u64, what: &str) -> Result<()> {
        let mut allocations = self.lock();
        let used = allocations.used;
        match used
            .checked_add(bytes)
            .filter(|&total| total <= self.capacity)
        {
            Some(total) => {
                allocations.used = total;
                Ok(())
            }
            None => Err(self.out_of_memory(
                bytes,
                used,
                &format!("{what} do not fit in the device's capacity"),
            )),
        }
    }

    /// Gives back bytes counted by [`CpuMemory::charge`].
    pub fn refund(&self, bytes: u64) {
        let mut allocations = self.lock();
        allocations.used = allocations.used.saturating_sub(bytes);
    }

    /// The interpreter's memory, shared with modules and stream workers.
    pub fn shared(&self) -> &Arc<DeviceMemory> {
        &self.memory
    }

    /// Allocates `bytes` (> 0), 256-byte aligned.
    pub fn alloc(&self, bytes: u64) -> Result<DevicePtr> {
        if bytes == 0 {
            return Err(Error::InvalidValue {
                call: "Device::alloc",
                message: format!("cannot allocate 0 bytes on {}", self.device),
            });
        }
        let mut allocations = self.lock();
        let used = allocations.used;
        if used
            .checked_add(bytes)
            .is_none_or(|total| total > self.capacity)
        {
            return Err(self.out_of_memory(bytes, used, "the device's capacity is exhausted"));
        }
        let ptr = self
            .memory
            .alloc(bytes, ALLOCATION_ALIGN)
            .map_err(|e| self.out_of_memory(bytes, used, &e.to_string()))?;
        allocations.sizes.insert(ptr, bytes);
        allocations.used += bytes;
        Ok(ptr)
    }

    /// Frees an allocation made by [`CpuMemory::alloc`]; anything else is an error.
    pub fn free(&self, ptr: DevicePtr) -> Result<()> {
        let mut allocations = self.lock();
        let Some(bytes) = allocations.sizes.remove(&ptr) else {
            let what = match self.memory.contains(ptr) {
                Some((base, _)) if base != ptr => {
                    format!("{ptr:#x} points into the allocation at {base:#x}, not at its start")
                }
                Some(_) => format!("{ptr:#x} was not allocated with Device::alloc"),
                None if self.in_window(ptr) => format!("{ptr:#x} is not a live allocation"),
                None => format!("{ptr:#x} is not an address of this device"),
            };
            return Err(Error::InvalidValue {
                call: "Device::free",
                message: format!("{what} on {}", self.device),
            });
        };
        allocations.used -= bytes;
        self.memory.free(ptr).map_err(|e| Error::InvalidValue {
            call: "Device::free",
            message: format!("{ptr:#x} on {}: {e}", self.device),
        })
    }

    /// Allocates `bytes` (> 0) of host-visible memory: host memory at the same address for the
    /// host and for kernels, not counted against the device's capacity.
    pub fn alloc_host_visible(&self, bytes: u64) -> Result<DevicePtr> {
        if bytes == 0 {
            return Err(Error::InvalidValue {
                call: "Device::alloc_host_visible",
                message: format!("cannot allocate 0 bytes on {}", self.device),
            });
        }
        self.memory
            .alloc_host_visible(bytes)
            .map_err(|e| self.out_of_memory(bytes, self.lock().used, &e.to_string()))
    }

    /// Frees memory from [`CpuMemory::alloc_host_visible`].
    pub fn free_host_visible(&self, ptr: DevicePtr) -> Result<()> {
        self.memory
            .free_host_visible(ptr)
            .map_err(|e| Error::InvalidValue {
                call: "Device::free_host_visible",
                message: format!("{ptr:#x} on {}: {e}", self.device),
            })
    }

    /// The live allocation (or module global) containing `ptr`, as (base, size); host-visible
    /// memory is the host's, not the device's.
    pub fn allocation_of(&self, ptr: DevicePtr) -> Option<(DevicePtr, u64)> {
        if self.memory.is_host_visible(ptr) {
            return None;
        }
        self.memory.contains(ptr)
    }

    /// Whether `ptr` is an address of this device: inside a live allocation or global, inside a
    /// freed range the table still remembers (an access there is a use after free), or, when
    /// the window is reserved (no host mapping can be there), anywhere in the window.
    pub fn is_device_address(&self, ptr: DevicePtr) -> bool {
        if self.memory.is_host_visible(ptr) {
            return false;
        }
        matches!(
            self.memory.read(ptr, &mut []),
            Ok(()) | Err(MemoryError::UseAfterFree { .. })
        ) || self.in_window(ptr)
    }

    /// Checks that `[ptr, ptr + bytes)` lies inside one live allocation of this device.
    pub fn check_range(&self, call: &'static str, ptr: DevicePtr, bytes: u64) -> Result<()> {
        let inside = self.memory.contains(ptr).is_some_and(|(base, size)| {
            ptr.checked_add(bytes)
                .is_some_and(|end| end <= base.saturating_add(size))
        });
        if inside {
            Ok(())
        } else {
            Err(Error::InvalidValue {
                call,
                message: format!(
                    "{bytes} bytes at {ptr:#x} are not inside one live allocation of {}",
                    self.device
                ),
            })
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Allocations> {
        // No code panics while holding this lock; recover from poisoning regardless.
        self.allocations.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn out_of_memory(&self, bytes: u64, used: u64, why: &str) -> Error {
        Error::Driver {
            call: "Device::alloc",
            code: 2,
            name: "OUT_OF_MEMORY".into(),
            text: format!(
                "{bytes} bytes requested, {used} of {} in use: {why}",
                self.capacity
            ),
            device: self.device.clone(),
            context: String::new(),
        }
    }
}
