//! A CPU device: its description, memory, streams, events and modules.

use std::any::Any;
use std::sync::{Arc, Mutex, Weak};

use chevron_ptx::interp::DeviceMemory;

use crate::backend::{
    BackendKind, Device, DeviceInfo, DevicePtr, Event, ExecGraph, GraphStep, Module, Stream,
};
use crate::code_object::{CodeObject, CodeTargets};
use crate::error::Result;

use super::config::CpuConfig;
use super::device_core::DeviceCore;
use super::event::CpuEvent;
use super::graph::CpuGraph;
use super::memory::CpuMemory;
use super::module;
use super::pool::WorkerPool;
use super::stream::CpuStream;
use super::timeline::Timeline;
use super::window::AddressWindow;

/// The name every CPU device reports.
pub const DEVICE_NAME: &str = "chevron CPU device";

/// The highest PTX target the CPU device runs, reported as its compute capability.
pub const COMPUTE_CAPABILITY: (u32, u32) = (9, 0);

/// Shared memory per block without opt-in, as on NVIDIA GPUs (48 KiB).
const SHARED_PER_BLOCK: u32 = 48 << 10;
/// Shared memory per block with opt-in (99 KiB, as on sm_80/sm_90 class GPUs).
const SHARED_PER_BLOCK_OPTIN: u32 = 99 << 10;

/// One CPU device.
pub struct CpuDevice {
    core: Arc<DeviceCore>,
    /// Timelines of the device's streams (dropped streams disappear once their work is done).
    streams: Mutex<Vec<Weak<Timeline>>>,
}

impl CpuDevice {
    /// Creates CPU device `ordinal` with its own memory, `memory` (address ranges of different
    /// `DeviceMemory` indices never overlap).
    pub(crate) fn new(
        ordinal: u32,
        memory: DeviceMemory,
        window: Option<AddressWindow>,
        config: &CpuConfig,
    ) -> CpuDevice {
        let launch_threads = config.launch_threads();
        let info = DeviceInfo {
            name: DEVICE_NAME.into(),
            backend: BackendKind::Cpu,
            ordinal,
            compute_capability: COMPUTE_CAPABILITY,
            multiprocessors: u32::try_from(launch_threads).unwrap_or(u32::MAX),
            total_memory: config.memory_bytes,
            warp_size: 32,
            max_threads_per_block: 1024,
            max_block_dim: [1024, 1024, 64],
            max_grid_dim: [i32::MAX as u32, 65535, 65535],
            max_shared_per_block: SHARED_PER_BLOCK,
            max_shared_per_block_optin: SHARED_PER_BLOCK_OPTIN,
        };
        let label = format!("cpu:{ordinal} ({DEVICE_NAME})");
        // initcheck: the memory records which bytes were written from the start.
        memory.track_definedness(crate::check::current().initcheck);
        memory.set_check_barriers(crate::check::current().synccheck);
        let memory = CpuMemory::new(Arc::new(memory), window, config.memory_bytes, label.clone());
        CpuDevice {
            core: Arc::new(DeviceCore {
                info,
                label,
                memory,
                launch_threads,
                deterministic: config.deterministic,
                pool: (launch_threads > 1).then(|| {
                    Arc::new(WorkerPool::start(
                        launch_threads - 1,
                        &format!("chevron-cpu{ordinal}"),
                    ))
                }),
            }),
            streams: Mutex::new(Vec::new()),
        }
    }

    fn live_streams(&self) -> Vec<Arc<Timeline>> {
        let mut streams = self.streams.lock().unwrap_or_else(|e| e.into_inner());
        streams.retain(|weak| weak.strong_count() > 0);
        streams.iter().filter_map(Weak::upgrade).collect()
    }
}

impl Device for CpuDevice {
    fn info(&self) -> &DeviceInfo {
        self.core.info()
    }

    fn alloc(&self, bytes: u64) -> Result<DevicePtr> {
        self.core.memory.alloc(bytes)
    }

    fn free(&self, ptr: DevicePtr) -> Result<()> {
        self.core.memory.free(ptr)
    }

    fn releases_are_cheap(&self) -> bool {
        true
    }

    fn alloc_host_visible(
        &self,
        bytes: u64,
        _kind: crate::backend::HostVisibleKind,
    ) -> Result<Option<DevicePtr>> {
        // Pinned and managed memory are alike here: the device's memory is the host's.
        self.core.memory.alloc_host_visible(bytes).map(Some)
    }

    fn free_host_visible(&self, ptr: DevicePtr) -> Result<()> {
        self.core.memory.free_host_visible(ptr)
    }

    fn allocation_of(&self, ptr: DevicePtr) -> Option<(DevicePtr, u64)> {
        self.core.memory.allocation_of(ptr)
    }

    fn is_device_address(&self, ptr: DevicePtr) -> bool {
        self.core.memory.is_device_address(ptr)
    }

    fn create_stream(&self) -> Result<Arc<dyn Stream>> {
        let stream = CpuStream::start(Arc::clone(&self.core));
        let mut streams = self.streams.lock().unwrap_or_else(|e| e.into_inner());
        if streams.len() == streams.capacity() {
            // Dropped streams are forgotten when the list would grow; keeping half of it free
            // afterwards makes that amortised constant time, even with 100,000 live streams.
            streams.retain(|weak| weak.strong_count() > 0);
            let live = streams.len();
            streams.reserve(live.max(8));
        }
        streams.push(Arc::downgrade(stream.timeline()));
        Ok(Arc::new(stream))
    }

    fn create_event(&self) -> Result<Arc<dyn Event>> {
        Ok(Arc::new(CpuEvent::new()))
    }

    fn tensor_maps(&self) -> Result<()> {
        Ok(())
    }

    fn tensor_map_descriptor(&self, map: &crate::backend::TiledTensorMap) -> Result<[u8; 128]> {
        super::tensor_map::descriptor(map)
    }

    fn encode_tensor_map(&self, map: &crate::backend::TiledTensorMap) -> Result<DevicePtr> {
        super::tensor_map::encode(&self.core, map)
    }

    fn code_targets(&self) -> CodeTargets {
        CodeTargets::ptx_only(COMPUTE_CAPABILITY.0 * 10 + COMPUTE_CAPABILITY.1)
    }

    fn load_module(&self, code: &CodeObject) -> Result<Arc<dyn Module>> {
        let code = code.for_targets(&self.code_targets())?;
        Ok(module::load(&self.core, &code)?)
    }

    unsafe fn instantiate_graph(&self, steps: &[GraphStep<'_>]) -> Result<Arc<dyn ExecGraph>> {
        // SAFETY: forwarded from the caller.
        Ok(Arc::new(unsafe {
            CpuGraph::instantiate(&self.core, steps)
        }?))
    }

    fn synchronize(&self) -> Result<()> {
        let mut first_fault = None;
        for timeline in self.live_streams() {
            if let Err(fault) = timeline.synchronize() {
                first_fault.get_or_insert(fault);
            }
        }
        match first_fault {
            Some(fault) => Err(fault.to_error()),
            None => Ok(()),
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
