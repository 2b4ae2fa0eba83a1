//! Device management and errors: `cudaGetDeviceCount`, `cudaSetDevice`, `cudaGetDevice`,
//! `cudaGetDeviceProperties`, `cudaDeviceGetAttribute`, `cudaSetDeviceFlags`,
//! `cudaDeviceSynchronize`, `cudaDeviceReset`, the versions, and `cudaGetLastError`,
//! `cudaPeekAtLastError`, `cudaGetErrorName`, `cudaGetErrorString`.

use std::ffi::{c_char, c_int, c_uint, CStr};

use chevron::DeviceInfo;

use crate::abi::cudaDeviceProp;
use crate::errors::{self, cudaError_t, guard, CudaError, CudaResult, INVALID_VALUE};
use crate::memory::store;
use crate::{mirror, state};

/// The CUDA version chevron's ABI follows (13.0), as `cudaRuntimeGetVersion` encodes it.
const CUDA_VERSION: c_int = 13000;

/// The number of devices the program sees.
#[no_mangle]
pub extern "C" fn cudaGetDeviceCount(count: *mut c_int) -> cudaError_t {
    guard("cudaGetDeviceCount", || {
        store(count, state::devices()?.len() as c_int, "count")
    })
}

/// Makes `device` current for the calling thread.
#[no_mangle]
pub extern "C" fn cudaSetDevice(device: c_int) -> cudaError_t {
    guard("cudaSetDevice", || {
        state::set_current(usize::try_from(device).unwrap_or(usize::MAX))
    })
}

/// The calling thread's current device.
#[no_mangle]
pub extern "C" fn cudaGetDevice(device: *mut c_int) -> cudaError_t {
    guard("cudaGetDevice", || {
        store(device, state::current_ordinal() as c_int, "device")
    })
}

/// Accepts device flags (scheduling and mapping flags change nothing on chevron's devices).
#[no_mangle]
pub extern "C" fn cudaSetDeviceFlags(flags: c_uint) -> cudaError_t {
    let _ = flags;
    guard("cudaSetDeviceFlags", || state::current().map(drop))
}

/// Waits for all work on the current device and reports its faults.
#[no_mangle]
pub extern "C" fn cudaDeviceSynchronize() -> cudaError_t {
    guard("cudaDeviceSynchronize", || {
        state::current()?.device.synchronize()?;
        mirror::pull_all()
    })
}

/// Waits for the device's work and clears a sticky error; allocations stay valid (chevron's
/// devices keep their state).
#[no_mangle]
pub extern "C" fn cudaDeviceReset() -> cudaError_t {
    let _ = state::device(state::current_ordinal()).map(|d| d.device.synchronize());
    errors::clear_sticky();
    let _ = errors::take_last_error();
    errors::SUCCESS
}

/// The CUDA driver version chevron answers for (13.0).
#[no_mangle]
pub extern "C" fn cudaDriverGetVersion(version: *mut c_int) -> cudaError_t {
    guard("cudaDriverGetVersion", || {
        store(version, CUDA_VERSION, "driverVersion")
    })
}

/// The runtime version (13.0).
#[no_mangle]
pub extern "C" fn cudaRuntimeGetVersion(version: *mut c_int) -> cudaError_t {
    guard("cudaRuntimeGetVersion", || {
        store(version, CUDA_VERSION, "runtimeVersion")
    })
}

/// The thread's last error, cleared (a sticky error stays).
#[no_mangle]
pub extern "C" fn cudaGetLastError() -> cudaError_t {
    errors::take_last_error()
}

/// The thread's last error, left in place.
#[no_mangle]
pub extern "C" fn cudaPeekAtLastError() -> cudaError_t {
    errors::peek_last_error()
}

/// `cudaErrorInvalidValue` and friends.
#[no_mangle]
pub extern "C" fn cudaGetErrorName(error: cudaError_t) -> *const c_char {
    static UNRECOGNIZED: &CStr = c"cudaErrorUnknown";
    match errors::describe(error) {
        Some((name, _)) => static_c_str(name),
        None => UNRECOGNIZED.as_ptr(),
    }
}

/// CUDA's text for `error`.
#[no_mangle]
pub extern "C" fn cudaGetErrorString(error: cudaError_t) -> *const c_char {
    static UNRECOGNIZED: &CStr = c"unrecognized error code";
    match errors::describe(error) {
        Some((_, text)) => static_c_str(text),
        None => UNRECOGNIZED.as_ptr(),
    }
}

/// A NUL-terminated copy of a static string, made once and kept for the process.
fn static_c_str(text: &'static str) -> *const c_char {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static STRINGS: Mutex<Option<HashMap<&'static str, std::ffi::CString>>> = Mutex::new(None);
    let mut strings = state::lock(&STRINGS);
    let map = strings.get_or_insert_with(HashMap::new);
    map.entry(text)
        .or_insert_with(|| std::ffi::CString::new(text).unwrap_or_default())
        .as_ptr()
}

fn info(device: c_int) -> CudaResult<&'static DeviceInfo> {
    let ordinal = usize::try_from(device)
        .map_err(|_| CudaError::new(errors::INVALID_DEVICE, format!("device {device}")))?;
    Ok(state::device(ordinal)?.device.info())
}

/// Fills `prop` with what chevron knows of `device`; the rest is 0.
#[no_mangle]
pub extern "C" fn cudaGetDeviceProperties(prop: *mut cudaDeviceProp, device: c_int) -> cudaError_t {
    guard("cudaGetDeviceProperties", || {
        let info = info(device)?;
        let mut p = cudaDeviceProp::zeroed();
        for (slot, byte) in p.name.iter_mut().zip(info.name.bytes().take(255)) {
            *slot = byte as c_char;
        }
        p.totalGlobalMem = info.total_memory as usize;
        p.sharedMemPerBlock = info.max_shared_per_block as usize;
        p.sharedMemPerBlockOptin = info.max_shared_per_block_optin as usize;
        p.sharedMemPerMultiprocessor = info.max_shared_per_block_optin as usize;
        p.regsPerBlock = 65536;
        p.regsPerMultiprocessor = 65536;
        p.warpSize = info.warp_size as c_int;
        p.memPitch = usize::MAX;
        p.maxThreadsPerBlock = info.max_threads_per_block as c_int;
        p.maxThreadsDim = info.max_block_dim.map(|d| d as c_int);
        p.maxGridSize = info.max_grid_dim.map(|d| d.min(i32::MAX as u32) as c_int);
        p.totalConstMem = 65536;
        p.major = info.compute_capability.0 as c_int;
        p.minor = info.compute_capability.1 as c_int;
        p.multiProcessorCount = info.multiprocessors as c_int;
        p.maxThreadsPerMultiProcessor = 2048;
        p.maxBlocksPerMultiProcessor = 32;
        p.canMapHostMemory = 1;
        p.concurrentKernels = 1;
        p.unifiedAddressing = 1;
        p.managedMemory = 1;
        p.cooperativeLaunch = 1;
        p.asyncEngineCount = 1;
        p.textureAlignment = 512;
        store(prop, p, "prop")
    })
}

/// One attribute of `device`: chevron's figure, or 0 (absent) for features it does not have.
#[no_mangle]
pub extern "C" fn cudaDeviceGetAttribute(
    value: *mut c_int,
    attribute: c_int,
    device: c_int,
) -> cudaError_t {
    guard("cudaDeviceGetAttribute", || {
        let info = info(device)?;
        let int = |v: u32| v.min(i32::MAX as u32) as c_int;
        let answer = match attribute {
            1 => int(info.max_threads_per_block),
            2..=4 => int(info.max_block_dim[attribute as usize - 2]),
            5..=7 => int(info.max_grid_dim[attribute as usize - 5]),
            8 => int(info.max_shared_per_block),
            9 => 65536,
            10 => int(info.warp_size),
            12 | 82 => 65536,
            13 => 1_000_000,
            16 => int(info.multiprocessors),
            19 | 31 | 41 | 83 | 95 => 1,
            39 => 2048,
            75 => int(info.compute_capability.0),
            76 => int(info.compute_capability.1),
            81 | 97 => int(info.max_shared_per_block_optin),
            106 => 32,
            36 => 1_000_000,
            37 => 256,
            // Other attributes of CUDA 13.0 (features, interop, …): reported as absent.
            other if (1..=150).contains(&other) => 0,
            other => {
                return Err(CudaError::new(
                    INVALID_VALUE,
                    format!("{other} is not a cudaDeviceAttr"),
                ))
            }
        };
        store(value, answer, "value")
    })
}
