//! [`NoopMemory`]: what a no-op device's streams, modules and graphs share: its description and
//! its memory, the interpreter's allocation table ([`DeviceMemory`], as on the CPU device) with a
//! capacity and a table of the allocations made through [`crate::backend::Device::alloc`]
//! (freeing anything else, a module's variable or the middle of an allocation, is an error).
//! Copies and fills happen at once, on the calling thread, each checked by the table: a range
//! outside every live allocation, or inside a freed one, is an error naming the call.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chevron_ptx::interp::{DeviceMemory, MemoryError};

use crate::backend::{DeviceInfo, DevicePtr};
use crate::error::{Error, Result};

/// Alignment of every allocation, as the CUDA driver guarantees.
const ALLOCATION_ALIGN: u64 = 256;

/// A no-op device's description and memory.
pub(super) struct NoopMemory {
    pub info: DeviceInfo,
    /// `noop:N (chevron no-op device)`, for messages.
    pub label: String,
    pub table: Arc<DeviceMemory>,
    /// Live allocations of `Device::alloc` (base → size) and their total.
    allocations: Mutex<(HashMap<DevicePtr, u64>, u64)>,
}

impl NoopMemory {
    pub fn new(info: DeviceInfo, label: String, table: DeviceMemory) -> NoopMemory {
        NoopMemory {
            info,
            label,
            table: Arc::new(table),
            allocations: Mutex::default(),
        }
    }

    /// Allocates `bytes` (> 0), 256-byte aligned, zero-filled.
    pub fn alloc(&self, bytes: u64) -> Result<DevicePtr> {
        if bytes == 0 {
            return Err(self.invalid("Device::alloc", "cannot allocate 0 bytes".into()));
        }
        let mut allocations = self.lock();
        let used = allocations.1;
        let capacity = self.info.total_memory;
        let out_of_memory = |why: String| Error::Driver {
            call: "Device::alloc",
            code: 2,
            name: "OUT_OF_MEMORY".into(),
            text: format!("{bytes} bytes requested, {used} of {capacity} in use: {why}"),
            device: self.label.clone(),
            context: String::new(),
        };
        if used.checked_add(bytes).is_none_or(|total| total > capacity) {
            return Err(out_of_memory("the device's capacity is exhausted".into()));
        }
        let ptr = self
            .table
            .alloc(bytes, ALLOCATION_ALIGN)
            .map_err(|e| out_of_memory(e.to_string()))?;
        allocations.0.insert(ptr, bytes);
        allocations.1 += bytes;
        Ok(ptr)
    }

    /// Frees an allocation made by [`NoopMemory::alloc`]; anything else is an error.
    pub fn free(&self, ptr: DevicePtr) -> Result<()> {
        let mut allocations = self.lock();
        let Some(bytes) = allocations.0.remove(&ptr) else {
            let what = match self.table.contains(ptr) {
                Some((base, _)) if base != ptr => {
                    format!("{ptr:#x} points into the allocation at {base:#x}, not at its start")
                }
                Some(_) => format!("{ptr:#x} was not allocated with Device::alloc"),
                None => format!("{ptr:#x} is not a live allocation"),
            };
            return Err(self.invalid("Device::free", what));
        };
        allocations.1 -= bytes;
        self.table
            .free(ptr)
            .map_err(|e| self.invalid("Device::free", e.to_string()))
    }

    /// Whether `ptr` is an address of this device (its window holds no host memory).
    pub fn is_device_address(&self, ptr: DevicePtr) -> bool {
        !self.table.is_host_visible(ptr) && self.table.in_window_range(ptr)
    }

    /// The error of `call` on this device: `message on LABEL`.
    pub fn invalid(&self, call: &'static str, message: String) -> Error {
        Error::InvalidValue {
            call,
            message: format!("{message} on {}", self.label),
        }
    }

    /// A failed check of the table, as the error of `call`.
    pub fn failed(&self, call: &'static str) -> impl Fn(MemoryError) -> Error + '_ {
        move |e| self.invalid(call, e.to_string())
    }

    /// Checks that `[ptr, ptr + bytes)` lies inside one live allocation of this device.
    pub fn check_range(&self, call: &'static str, ptr: DevicePtr, bytes: u64) -> Result<()> {
        let inside = self.table.contains(ptr).is_some_and(|(base, size)| {
            ptr.checked_add(bytes)
                .is_some_and(|end| end <= base.saturating_add(size))
        });
        if inside {
            return Ok(());
        }
        let message = format!("{bytes} bytes at {ptr:#x} are not inside one live allocation");
        Err(self.invalid(call, message))
    }

    /// Checks a fill of `count` elements of `element_bytes` (1, 2 or 4) at `dst`.
    pub fn check_fill(
        &self,
        call: &'static str,
        dst: DevicePtr,
        element_bytes: u32,
        count: u64,
    ) -> Result<()> {
        if !matches!(element_bytes, 1 | 2 | 4) {
            let message = format!("element size {element_bytes} (must be 1, 2 or 4)");
            return Err(self.invalid(call, message));
        }
        if !dst.is_multiple_of(u64::from(element_bytes)) {
            let message = format!("{dst:#x} is not aligned to its {element_bytes}-byte elements");
            return Err(self.invalid(call, message));
        }
        match count.checked_mul(u64::from(element_bytes)) {
            Some(0) => Ok(()),
            Some(bytes) => self.check_range(call, dst, bytes),
            None => Err(self.invalid(call, format!("{count} elements overflow"))),
        }
    }

    /// Fills `count` elements of `element_bytes` (1, 2 or 4) at `dst` with `value`.
    pub fn fill(&self, dst: DevicePtr, value: u32, element_bytes: u32, count: u64) -> Result<()> {
        let call = "Stream::memset";
        self.check_fill(call, dst, element_bytes, count)?;
        if count == 0 {
            return Ok(());
        }
        let pattern = &value.to_le_bytes()[..element_bytes as usize];
        self.table
            .fill(dst, pattern, count)
            .map_err(self.failed(call))
    }

    /// Copies `bytes` from `src` to `dst`, both of this device.
    pub fn copy(&self, dst: DevicePtr, src: DevicePtr, bytes: u64) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        let call = "Stream::copy_on_device";
        self.table.copy(dst, src, bytes).map_err(self.failed(call))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (HashMap<DevicePtr, u64>, u64)> {
        // No code panics while holding this lock; recover from poisoning regardless.
        self.allocations.lock().unwrap_or_else(|e| e.into_inner())
    }
}
