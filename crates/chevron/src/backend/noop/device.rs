//! A no-op device: its description (the CPU device's limits), memory, streams, events, modules
//! and graphs.

use std::any::Any;
use std::sync::Arc;

use chevron_ptx::interp::DeviceMemory;

use crate::backend::{
    BackendKind, Device, DeviceInfo, DevicePtr, Event, ExecGraph, GraphStep, HostVisibleKind,
    Module, Stream,
};
use crate::code_object::{CodeObject, CodeTargets};
use crate::error::Result;

use super::event::NoopEvent;
use super::memory::NoopMemory;
use super::module;
use super::stream::{NoopGraph, NoopStream};

/// The name every no-op device reports.
pub const DEVICE_NAME: &str = "chevron no-op device";

/// The capacity of a no-op device's memory (real host memory, committed when allocated).
const MEMORY_BYTES: u64 = 4 << 30;

/// One no-op device.
pub(super) struct NoopDevice {
    memory: Arc<NoopMemory>,
}

impl NoopDevice {
    /// No-op device `ordinal`, its addresses those of memory index `memory_index`.
    pub fn new(ordinal: u32, memory_index: u32) -> NoopDevice {
        let info = DeviceInfo {
            name: DEVICE_NAME.into(),
            backend: BackendKind::Noop,
            ordinal,
            // What the CPU device reports: the PTX it loads is the same.
            compute_capability: (9, 0),
            multiprocessors: 1,
            total_memory: MEMORY_BYTES,
            warp_size: 32,
            max_threads_per_block: 1024,
            max_block_dim: [1024, 1024, 64],
            max_grid_dim: [i32::MAX as u32, 65535, 65535],
            max_shared_per_block: 48 << 10,
            max_shared_per_block_optin: 99 << 10,
        };
        let label = format!("noop:{ordinal} ({DEVICE_NAME})");
        let table = DeviceMemory::new(memory_index);
        NoopDevice {
            memory: Arc::new(NoopMemory::new(info, label, table)),
        }
    }
}

impl Device for NoopDevice {
    fn info(&self) -> &DeviceInfo {
        &self.memory.info
    }

    fn alloc(&self, bytes: u64) -> Result<DevicePtr> {
        self.memory.alloc(bytes)
    }

    fn free(&self, ptr: DevicePtr) -> Result<()> {
        self.memory.free(ptr)
    }

    fn releases_are_cheap(&self) -> bool {
        true
    }

    fn alloc_host_visible(&self, bytes: u64, _kind: HostVisibleKind) -> Result<Option<DevicePtr>> {
        if bytes == 0 {
            let message = "cannot allocate 0 bytes".into();
            return Err(self.memory.invalid("Device::alloc_host_visible", message));
        }
        let failed = self.memory.failed("Device::alloc_host_visible");
        self.memory
            .table
            .alloc_host_visible(bytes)
            .map(Some)
            .map_err(failed)
    }

    fn free_host_visible(&self, ptr: DevicePtr) -> Result<()> {
        let failed = self.memory.failed("Device::free_host_visible");
        self.memory.table.free_host_visible(ptr).map_err(failed)
    }

    fn allocation_of(&self, ptr: DevicePtr) -> Option<(DevicePtr, u64)> {
        (!self.memory.table.is_host_visible(ptr))
            .then(|| self.memory.table.contains(ptr))
            .flatten()
    }

    fn is_device_address(&self, ptr: DevicePtr) -> bool {
        self.memory.is_device_address(ptr)
    }

    fn create_stream(&self) -> Result<Arc<dyn Stream>> {
        Ok(Arc::new(NoopStream {
            device: Arc::clone(&self.memory),
        }))
    }

    fn create_event(&self) -> Result<Arc<dyn Event>> {
        Ok(Arc::new(NoopEvent))
    }

    fn code_targets(&self) -> CodeTargets {
        let (major, minor) = self.memory.info.compute_capability;
        CodeTargets::ptx_only(major * 10 + minor)
    }

    fn load_module(&self, code: &CodeObject) -> Result<Arc<dyn Module>> {
        let code = code.for_targets(&self.code_targets())?;
        Ok(Arc::new(module::load(&self.memory, &code)?))
    }

    unsafe fn instantiate_graph(&self, steps: &[GraphStep<'_>]) -> Result<Arc<dyn ExecGraph>> {
        Ok(Arc::new(NoopGraph::instantiate(&self.memory, steps)?))
    }

    fn synchronize(&self) -> Result<()> {
        Ok(())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
