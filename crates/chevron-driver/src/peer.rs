//! Peer access through the driver API (`cuDeviceCanAccessPeer`, `cuCtxEnablePeerAccess`,
//! `cuCtxDisablePeerAccess`), as a statically linked runtime's `cudaDeviceCanAccessPeer` and
//! `cudaDeviceEnablePeerAccess` reach them: the runtime's answers (chevron's devices never
//! address each other's memory), a peer context standing for its device.

use std::ffi::{c_int, c_uint, c_void};

use cudart::limits;

use crate::context;
use crate::forward::through;
use crate::result::{entry, CUresult};

forward! {
    /// Whether contexts on `device` can address `peer`'s memory: 0 on chevron's devices.
    cuDeviceCanAccessPeer => limits::cudaDeviceCanAccessPeer,
        (can: *mut c_int, device: c_int, peer: c_int);
}

/// The device ordinal of the live context `peer`, as the runtime's functions take it.
fn peer_device(peer: *mut c_void) -> Result<c_int, crate::result::DriverError> {
    Ok(context::lookup(peer)?.ordinal as c_int)
}

/// Enables the current context's access to `peer`'s memory: refused as the runtime's
/// `cudaDeviceEnablePeerAccess` refuses it.
#[no_mangle]
pub extern "C" fn cuCtxEnablePeerAccess(peer: *mut c_void, flags: c_uint) -> CUresult {
    entry("cuCtxEnablePeerAccess", || {
        let device = peer_device(peer)?;
        through(|| limits::cudaDeviceEnablePeerAccess(device, flags))
    })
}

/// Disables access to `peer`'s memory: never enabled (`CUDA_ERROR_PEER_ACCESS_NOT_ENABLED`).
#[no_mangle]
pub extern "C" fn cuCtxDisablePeerAccess(peer: *mut c_void) -> CUresult {
    entry("cuCtxDisablePeerAccess", || {
        let device = peer_device(peer)?;
        through(|| limits::cudaDeviceDisablePeerAccess(device))
    })
}
