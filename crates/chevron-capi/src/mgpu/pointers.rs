//! What a bare pointer handed to `mgpuMemcpy`/`mgpuMemset*` is: device memory of some device,
//! host memory that a device mirror currently holds ([`super::host_memory`]), or plain host
//! memory.
//!
//! Pointers are looked up, never guessed from their value: a pointer is device memory when a
//! device says it is its address ([`chevron::Device::is_device_address`]: the CPU device's
//! address window, live or freed; on CUDA any device allocation the driver knows). Such a
//! pointer goes to that device, which checks it against its live allocations, so a freed one
//! is an error rather than a host read. Everything else is taken for host memory only after
//! the range was checked to be readable (a destination: writable) host memory
//! ([`chevron::host_range`]), so a freed CUDA allocation or a stray pointer is reported
//! instead of crashing the process.

use chevron::host_range::Access;
use chevron::{Device, Token};

use super::host_memory::{self, Place};
use crate::error::{CapiError, CapiResult};

/// A classified pointer.
pub(crate) enum Resolved {
    Host(u64),
    Device {
        device: Device,
        address: u64,
        after: Vec<Token>,
        mirror_base: Option<u64>,
    },
}

impl Resolved {
    /// The host-shared or registered range whose mirror this pointer resolved to.
    pub(crate) fn mirror_base(&self) -> Option<u64> {
        match self {
            Resolved::Device { mirror_base, .. } => *mirror_base,
            Resolved::Host(_) => None,
        }
    }
}

/// Classifies the `bytes` bytes at `ptr` (named `what` in errors): device memory, a mirrored
/// host range, or host memory checked to allow `access`.
pub(crate) fn classify(what: &str, ptr: u64, bytes: u64, access: Access) -> CapiResult<Resolved> {
    if let Place::Mirror {
        device,
        address,
        after,
        base,
    } = host_memory::resolve(ptr)
    {
        return Ok(Resolved::Device {
            device,
            address,
            after,
            mirror_base: Some(base),
        });
    }
    for device in crate::api::runtime()?.devices() {
        if device.is_device_address(ptr) {
            return Ok(Resolved::Device {
                device: device.clone(),
                address: ptr,
                after: Vec::new(),
                mirror_base: None,
            });
        }
    }
    check_host_range(what, ptr, bytes, access)?;
    Ok(Resolved::Host(ptr))
}

/// Checks that `[ptr, ptr + bytes)` is host memory allowing `access` (see
/// [`chevron::host_range`]).
fn check_host_range(what: &str, ptr: u64, bytes: u64, access: Access) -> CapiResult<()> {
    chevron::host_range::check_host_range("mgpu", what, ptr, bytes, access).map_err(|error| {
        match error {
            chevron::Error::InvalidValue { message, .. } => CapiError::invalid(message),
            other => CapiError::from(other),
        }
    })
}
