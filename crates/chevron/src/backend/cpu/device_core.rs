//! [`DeviceCore`]: what a CPU device's streams, modules and graphs share (its description,
//! memory, launch threads and worker pool). A leaf of the backend's imports: every other file
//! may use it, it uses only `memory.rs` and `pool.rs`, so the device (`device.rs`, which creates
//! streams, modules and graphs) is imported by nothing but discovery.

use std::sync::Arc;

use crate::backend::DeviceInfo;

use super::memory::CpuMemory;
use super::pool::WorkerPool;

/// What streams and modules of a device share.
pub(crate) struct DeviceCore {
    pub(super) info: DeviceInfo,
    pub(super) label: String,
    pub(super) memory: CpuMemory,
    pub(super) launch_threads: usize,
    /// `CHEVRON_CPU_DETERMINISTIC=1`: one launch thread, and executors chosen by the program
    /// alone (`tier.rs`).
    pub(super) deterministic: bool,
    /// Helper threads that run launches' blocks beside the stream threads (none with one
    /// launch thread).
    pub(super) pool: Option<Arc<WorkerPool>>,
}

impl DeviceCore {
    /// The device's description.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// `cpu:N (chevron CPU device)`, for messages.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The device's memory.
    pub fn memory(&self) -> &CpuMemory {
        &self.memory
    }

    /// Interpreter threads each launch runs its blocks on.
    pub fn launch_threads(&self) -> usize {
        self.launch_threads
    }

    /// Whether launches must be reproducible (`CpuConfig::deterministic`).
    pub fn deterministic(&self) -> bool {
        self.deterministic
    }

    /// The device's worker pool, shared by its streams.
    pub fn pool(&self) -> Option<&Arc<WorkerPool>> {
        self.pool.as_ref()
    }
}
