//! [`DeviceCore`]: what a CPU device's streams, modules and graphs share (its description, memory
//! and launch threads). A leaf of the backend's imports: every other file may use it, it uses
//! only `memory.rs`, so the device (`device.rs`, which creates streams, modules and graphs) is
//! imported by nothing but discovery.

use crate::backend::DeviceInfo;

use super::memory::CpuMemory;

/// What streams and modules of a device share.
pub(crate) struct DeviceCore {
    pub(super) info: DeviceInfo,
    pub(super) label: String,
    pub(super) memory: CpuMemory,
    pub(super) launch_threads: usize,
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
}
