//! Choosing and initialising devices and the queries about them that `device.rs` leaves:
//! `cudaChooseDevice`, `cudaInitDevice`, `cudaSetValidDevices`, `cudaDeviceGetP2PAttribute`,
//! `cudaDeviceGetTexture1DLinearMaxWidth`, `cudaCtxResetPersistingL2Cache`.
//!
//! Every chevron device works, so the first device of `cudaSetValidDevices`' list is the one
//! CUDA's sequential trial would settle on: it becomes the device of threads that have not
//! chosen one. Peer attributes are those of chevron's devices, which never address each
//! other's memory (`cudaDeviceCanAccessPeer` says 0; copies between devices still work).

use std::ffi::{c_int, c_uint};

use crate::abi::cudaDeviceProp;
use crate::errors::{
    cudaError_t, guard, CudaError, CudaResult, DEVICE_UNINITIALIZED, INVALID_DEVICE, INVALID_VALUE,
};
use crate::memory::store;
use crate::state;
use crate::textures::ChannelFormatDesc;

/// `cudaInitDeviceFlagsAreValid`: apply `deviceFlags` as `cudaSetDeviceFlags` would.
const INIT_DEVICE_FLAGS_ARE_VALID: c_uint = 0x1;
/// `cudaDevAttrMaxTexture1DLinearWidth`.
const MAX_TEXTURE_1D_LINEAR_WIDTH: c_int = 69;

/// The device `ordinal` names, or `cudaErrorInvalidDevice`.
fn checked_device(device: c_int) -> CudaResult<usize> {
    let ordinal = usize::try_from(device)
        .map_err(|_| CudaError::new(INVALID_DEVICE, format!("device {device}")))?;
    state::device(ordinal)?;
    Ok(ordinal)
}

/// The device that best matches `prop`: the first whose compute capability, memory and
/// multiprocessors are at least those `prop` asks for (a zero asks for nothing), else the
/// device of the highest compute capability.
///
/// # Safety
/// `device` is NULL or writable; `prop` is NULL or points to a `cudaDeviceProp`.
#[no_mangle]
pub unsafe extern "C" fn cudaChooseDevice(
    device: *mut c_int,
    prop: *const cudaDeviceProp,
) -> cudaError_t {
    guard("cudaChooseDevice", || {
        if device.is_null() || prop.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "device or prop is NULL"));
        }
        // SAFETY: the caller's guarantee; read unaligned.
        let prop = unsafe { prop.read_unaligned() };
        let wanted = (prop.major, prop.minor);
        let devices = state::devices()?;
        let mut best: Option<(usize, (c_int, c_int))> = None;
        for (ordinal, state) in devices.iter().enumerate() {
            let info = state.device.info();
            let (major, minor) = info.compute_capability;
            let capability = (major as c_int, minor as c_int);
            let memory = info.total_memory;
            let fits = capability >= wanted
                && memory as u128 >= prop.totalGlobalMem as u128
                && info.multiprocessors as i64 >= i64::from(prop.multiProcessorCount);
            if fits {
                return store(device, ordinal as c_int, "device");
            }
            if best.is_none_or(|(_, highest)| capability > highest) {
                best = Some((ordinal, capability));
            }
        }
        store(
            device,
            best.map_or(0, |(ordinal, _)| ordinal) as c_int,
            "device",
        )
    })
}

/// Initialises `device` (the calling thread's current device does not change); with
/// `cudaInitDeviceFlagsAreValid`, `device_flags` are checked as `cudaSetDeviceFlags` checks them.
#[no_mangle]
pub extern "C" fn cudaInitDevice(
    device: c_int,
    device_flags: c_uint,
    flags: c_uint,
) -> cudaError_t {
    guard("cudaInitDevice", || {
        checked_device(device)?;
        if flags & !INIT_DEVICE_FLAGS_ARE_VALID != 0 {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!("flags {flags:#x} (cudaInitDeviceFlagsAreValid or 0)"),
            ));
        }
        if flags & INIT_DEVICE_FLAGS_ARE_VALID != 0 {
            crate::device::check_device_flags(device_flags)?;
        }
        crate::errors::check_sticky()
    })
}

/// Sets the devices CUDA tries, in order, for threads that have not chosen one; `len` 0 goes
/// back to every device. The first listed becomes the device of such threads (the calling
/// thread's too, unless it chose one).
///
/// # Safety
/// `device_arr` is NULL or points to `len` ints.
#[no_mangle]
pub unsafe extern "C" fn cudaSetValidDevices(device_arr: *const c_int, len: c_int) -> cudaError_t {
    guard("cudaSetValidDevices", || {
        let count = state::devices()?.len();
        let len = usize::try_from(len)
            .map_err(|_| CudaError::new(INVALID_VALUE, format!("len {len}")))?;
        if len > 0 && device_arr.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "device_arr is NULL"));
        }
        if len > count {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!("len {len} exceeds the {count} devices"),
            ));
        }
        let mut first = 0;
        for index in (0..len).rev() {
            // SAFETY: the caller's guarantee: `len` ints.
            first = checked_device(unsafe { device_arr.add(index).read_unaligned() })?;
        }
        state::set_default_device(first);
        // A thread that did not choose its device picks again from the new list: NVIDIA's
        // runtime leaves it without a context until a call that needs one binds it again (a
        // context call such as cudaCtxResetPersistingL2Cache then finds none).
        if !state::chosen_here() {
            state::set_current_known(first);
            state::set_bound_here(false);
        }
        Ok(())
    })
}

/// An attribute of the link from `src` to `dst` (`cudaDevP2PAttr`): chevron's devices never
/// address each other's memory, so every attribute is 0.
#[no_mangle]
pub extern "C" fn cudaDeviceGetP2PAttribute(
    value: *mut c_int,
    attr: c_int,
    src: c_int,
    dst: c_int,
) -> cudaError_t {
    guard("cudaDeviceGetP2PAttribute", || {
        if value.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "value is NULL"));
        }
        let (from, to) = (checked_device(src)?, checked_device(dst)?);
        if !(1..=5).contains(&attr) {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!("{attr} is not a cudaDeviceP2PAttr"),
            ));
        }
        if from == to {
            return Err(CudaError::new(
                INVALID_DEVICE,
                format!("srcDevice and dstDevice are both {src}"),
            ));
        }
        store(value, 0, "value")
    })
}

/// The widest 1D texture over linear memory of elements `desc` describes, in elements: the
/// device's `cudaDevAttrMaxTexture1DLinearWidth` (the driver's on GPUs).
///
/// # Safety
/// `width` is NULL or writable; `desc` is NULL or points to a `cudaChannelFormatDesc`.
#[no_mangle]
pub unsafe extern "C" fn cudaDeviceGetTexture1DLinearMaxWidth(
    width: *mut usize,
    desc: *const ChannelFormatDesc,
    device: c_int,
) -> cudaError_t {
    guard("cudaDeviceGetTexture1DLinearMaxWidth", || {
        if width.is_null() || desc.is_null() {
            return Err(CudaError::new(
                INVALID_VALUE,
                "maxWidthInElements or fmtDesc is NULL",
            ));
        }
        let ordinal = checked_device(device)?;
        // SAFETY: the caller's guarantee; read unaligned.
        crate::textures::format(&unsafe { desc.read_unaligned() })?;
        let device = &state::device(ordinal)?.device;
        let max = crate::device::attribute(device, MAX_TEXTURE_1D_LINEAR_WIDTH)?;
        store(
            width,
            usize::try_from(max).unwrap_or(0),
            "maxWidthInElements",
        )
    })
}

/// Returns the L2 lines held as persisting to normal in the calling thread's context: the
/// GPU's driver resets them (`cuCtxResetPersistingL2Cache`); the CPU device holds none. A
/// context call: it binds no context itself, so a thread without one (no runtime call yet, or
/// none since `cudaSetValidDevices` dropped its implicit one) gets
/// `cudaErrorDeviceUninitialized`, as from NVIDIA's runtime on an H200.
#[no_mangle]
pub extern "C" fn cudaCtxResetPersistingL2Cache() -> cudaError_t {
    guard("cudaCtxResetPersistingL2Cache", || {
        if !state::bound_here() {
            return Err(CudaError::new(
                DEVICE_UNINITIALIZED,
                "no context is bound to the calling thread (cudaSetDevice or a runtime call \
                 that needs the device binds one)",
            ));
        }
        let state = state::current()?;
        match state.device.reset_persisting_l2() {
            Some(reset) => Ok(reset?),
            None => Ok(()),
        }
    })
}
