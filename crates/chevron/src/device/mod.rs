//! [`Device`]: one GPU or CPU device, what it is, and the things made on it.
//!
//! A `Device` is a cheap handle (`Clone`); buffers, streams, modules and kernels made from it keep
//! what they need alive. CUDA's `CUdevice` and its primary `CUcontext` both map to a `Device`.

pub(crate) mod event_pool;
pub(crate) mod progress;
pub(crate) mod release_worker;
pub(crate) mod state;

use std::any::Any;
use std::fmt;
use std::sync::{Arc, OnceLock};

use crate::backend::{self, BackendKind, DeviceInfo};
use crate::device::state::DeviceCore;
use crate::error::Result;

/// One device of one backend.
#[derive(Clone)]
pub struct Device {
    pub(crate) shared: Arc<DeviceShared>,
}

pub(crate) struct DeviceShared {
    pub(crate) core: Arc<DeviceCore>,
    /// The default stream's shared part, made and typed by the stream layer above
    /// (`Device::default_stream`, in `stream/mod.rs`).
    pub(crate) default_stream: OnceLock<Arc<dyn Any + Send + Sync>>,
}

impl Device {
    /// Wraps a backend device.
    pub(crate) fn from_backend(backend: Arc<dyn backend::Device>) -> Device {
        Device {
            shared: Arc::new(DeviceShared {
                core: Arc::new(DeviceCore::new(backend)),
                default_stream: OnceLock::new(),
            }),
        }
    }

    pub(crate) fn core(&self) -> &Arc<DeviceCore> {
        &self.shared.core
    }

    /// Everything the device reports about itself.
    pub fn info(&self) -> &DeviceInfo {
        self.shared.core.backend.info()
    }

    /// `cuda:0`, `cpu:1`: the name `CHEVRON_DEVICES` uses.
    pub fn label(&self) -> &str {
        &self.shared.core.label
    }

    /// The marketing name, e.g. `NVIDIA H200`.
    pub fn name(&self) -> &str {
        &self.info().name
    }

    /// The backend.
    pub fn backend(&self) -> BackendKind {
        self.info().backend
    }

    /// The ordinal within the backend.
    pub fn ordinal(&self) -> u32 {
        self.info().ordinal
    }

    /// Compute capability (major, minor).
    pub fn compute_capability(&self) -> (u32, u32) {
        self.info().compute_capability
    }

    /// Streaming multiprocessors (CPU: worker threads).
    pub fn multiprocessor_count(&self) -> u32 {
        self.info().multiprocessors
    }

    /// Total memory in bytes.
    pub fn total_memory(&self) -> u64 {
        self.info().total_memory
    }

    /// Threads per warp.
    pub fn warp_size(&self) -> u32 {
        self.info().warp_size
    }

    /// Launch limits: threads per block, block and grid dimensions, shared memory.
    pub fn limits(&self) -> Limits {
        let info = self.info();
        Limits {
            max_threads_per_block: info.max_threads_per_block,
            max_block_dim: info.max_block_dim,
            max_grid_dim: info.max_grid_dim,
            max_shared_per_block: info.max_shared_per_block,
            max_shared_per_block_optin: info.max_shared_per_block_optin,
        }
    }

    /// Encodes a TMA descriptor (CUDA's `CUtensorMap`) for `map` into 128 bytes of fresh device
    /// memory (never freed) and returns their address. Devices without tensor maps (other than
    /// the CPU device and CUDA GPUs of compute capability 9.0 or later) return an error naming
    /// the device.
    pub fn encode_tensor_map(&self, map: &backend::TiledTensorMap) -> Result<backend::DevicePtr> {
        self.shared.core.backend.encode_tensor_map(map)
    }

    /// The 128 bytes of the TMA descriptor of `map`, as `cuTensorMapEncodeTiled` writes them
    /// into a host `CUtensorMap`: the CPU device's own encoding (which its interpreter reads)
    /// or a GPU driver's. Devices without tensor maps return an error naming the device.
    pub fn tensor_map_descriptor(&self, map: &backend::TiledTensorMap) -> Result<[u8; 128]> {
        self.shared.core.backend.tensor_map_descriptor(map)
    }

    /// The code objects the device runs, as its backend declares them: cubins of which
    /// architectures, PTX of which targets, fatbins whole or not.
    pub fn code_targets(&self) -> crate::code_object::CodeTargets {
        self.shared.core.backend.code_targets()
    }

    /// `Ok` where the device has TMA descriptors (CUDA GPUs), else the error
    /// [`Device::encode_tensor_map`] would give, naming the device.
    pub fn tensor_maps(&self) -> Result<()> {
        self.shared.core.backend.tensor_maps()
    }

    /// The driver's value of a context limit (CUDA: `cuCtxGetLimit`); `None` on devices
    /// without a driver (the CPU device).
    pub fn driver_limit(&self, limit: i32) -> Option<Result<usize>> {
        self.shared.core.backend.driver_limit(limit)
    }

    /// Sets a context limit through the driver (CUDA: `cuCtxSetLimit`); `None` on devices
    /// without a driver.
    pub fn set_driver_limit(&self, limit: i32, value: usize) -> Option<Result<()>> {
        self.shared.core.backend.set_driver_limit(limit, value)
    }

    /// Returns the L2 lines held as persisting to normal through the driver (CUDA:
    /// `cuCtxResetPersistingL2Cache`); `None` on devices without a driver.
    pub fn reset_persisting_l2(&self) -> Option<Result<()>> {
        self.shared.core.backend.reset_persisting_l2()
    }

    /// The device's UUID: a GPU's driver's, else 16 bytes hashed from the device's label
    /// (the same in every run of every program).
    pub fn uuid(&self) -> Result<[u8; 16]> {
        if let Some(identity) = self.shared.core.backend.driver_identity() {
            return Ok(identity?.uuid);
        }
        let (mut a, mut b) = (0xcbf2_9ce4_8422_2325_u64, 0x8422_2325_cbf2_9ce4_u64);
        for byte in self.label().bytes() {
            a = (a ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3);
            b = (b ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3 + 2);
        }
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&a.to_le_bytes());
        bytes[8..].copy_from_slice(&b.to_le_bytes());
        Ok(bytes)
    }

    /// The device's PCI bus id (`domain:bus:device.function`): a GPU's driver's, else
    /// `0000:00:NN.0` with NN the device's ordinal (devices without a driver are on no bus).
    pub fn pci_bus_id(&self) -> Result<String> {
        if let Some(identity) = self.shared.core.backend.driver_identity() {
            return Ok(identity?.pci_bus_id);
        }
        Ok(format!("0000:00:{:02x}.0", self.info().ordinal))
    }

    /// The driver's answer to a device attribute query (CUDA: `cuDeviceGetAttribute` with a
    /// `CUdevice_attribute` value); `None` on devices without a driver (the CPU device).
    pub fn driver_attribute(&self, attribute: i32) -> Option<Result<i32>> {
        self.shared.core.backend.driver_attribute(attribute)
    }

    /// Stream priorities as (least, greatest), numerically lower being greater (CUDA:
    /// `cuCtxGetStreamPriorityRange`); `(0, 0)` where all streams run alike (the CPU device).
    pub fn stream_priority_range(&self) -> Result<(i32, i32)> {
        self.shared.core.backend.stream_priority_range()
    }

    /// Waits until all work on all streams of the device is done, then releases buffers and
    /// modules dropped meanwhile (also when a stream's fault is reported).
    pub fn synchronize(&self) -> Result<()> {
        self.shared.core.flush_streams()?;
        let synchronized = self.shared.core.backend.synchronize();
        // Work that faulted is over too: what was dropped meanwhile is released either way.
        self.shared.core.settle();
        self.shared.core.collect();
        synchronized?;
        crate::trace::device_synchronized(self.label());
        Ok(())
    }

    /// Allocates `bytes` (> 0) of memory of `kind` that the host and this device's kernels
    /// address at the same address, zero-copy: on a CPU device, host memory its kernels reach
    /// directly; on CUDA, the driver's pinned or managed memory; `Ok(None)` on devices without
    /// it (the caller keeps its own scheme).
    pub fn alloc_host_visible(
        &self,
        bytes: u64,
        kind: backend::HostVisibleKind,
    ) -> Result<Option<backend::DevicePtr>> {
        self.shared.core.backend.alloc_host_visible(bytes, kind)
    }

    /// Maps `bytes` of the program's host memory at `host` into this device (CUDA:
    /// `cuMemHostRegister`); returns the device address, or the backend's error where it
    /// cannot map host memory (the CPU device).
    ///
    /// # Safety
    /// `host..host + bytes` is host memory the caller keeps alive until
    /// [`Device::unmap_host_memory`].
    pub unsafe fn map_host_memory(
        &self,
        host: *mut std::ffi::c_void,
        bytes: u64,
    ) -> Result<backend::DevicePtr> {
        // SAFETY: forwarded from the caller.
        unsafe { self.shared.core.backend.map_host_memory(host, bytes) }
    }

    /// Undoes [`Device::map_host_memory`]. The caller guarantees that no pending work uses it.
    pub fn unmap_host_memory(&self, host: *mut std::ffi::c_void) -> Result<()> {
        self.shared.core.backend.unmap_host_memory(host)
    }

    /// Frees memory from [`Device::alloc_host_visible`]. The caller guarantees that no pending
    /// work uses it.
    pub fn free_host_visible(&self, ptr: backend::DevicePtr) -> Result<()> {
        self.shared.core.backend.free_host_visible(ptr)
    }

    /// The live allocation of this device containing `ptr`, as (base, size): lets callers that
    /// hold bare pointers (C ABIs) tell device memory from host memory.
    pub fn allocation_of(&self, ptr: backend::DevicePtr) -> Option<(backend::DevicePtr, u64)> {
        self.shared.core.backend.allocation_of(ptr)
    }

    /// Whether `ptr` is an address of this device rather than of the host, live or not (see
    /// [`backend::Device::is_device_address`]): such a pointer must not be read on the host.
    pub fn is_device_address(&self, ptr: backend::DevicePtr) -> bool {
        self.shared.core.backend.is_device_address(ptr)
    }

    /// Whether two handles name the same device object.
    pub fn same_device(&self, other: &Device) -> bool {
        Arc::ptr_eq(&self.shared.core, &other.shared.core)
    }
}

/// Launch limits of a device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Maximum threads per block.
    pub max_threads_per_block: u32,
    /// Maximum block dimensions.
    pub max_block_dim: [u32; 3],
    /// Maximum grid dimensions.
    pub max_grid_dim: [u32; 3],
    /// Shared memory per block without opt-in, in bytes.
    pub max_shared_per_block: u32,
    /// Shared memory per block with opt-in, in bytes.
    pub max_shared_per_block_optin: u32,
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.label(), self.name())
    }
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Device")
            .field("label", &self.label())
            .field("name", &self.name())
            .finish()
    }
}
