//! The compiler-emitted ABI: what nvcc 13.0's and clang's host code calls.
//!
//! Module constructors call `__cudaRegisterFatBinary`, `__cudaRegisterFunction` and
//! `__cudaRegisterVar` per translation unit, then `__cudaRegisterFatBinaryEnd`; an `atexit`
//! handler calls `__cudaUnregisterFatBinary`. `k<<<g, b, s, st>>>(args)` becomes
//! `__cudaPushCallConfiguration(g, b, s, st)` and a call of the kernel's host stub, which pops
//! the configuration and launches: nvcc through `__cudaGetKernel` (once per stub) and
//! `__cudaLaunchKernel`, clang through `cudaLaunchKernel` with the stub's address.

use std::cell::Cell;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::Arc;

use crate::abi::Dim3;
use crate::errors::{cudaError_t, guard, CudaError, INVALID_VALUE, MISSING_CONFIGURATION};
use crate::launch::launch;
use crate::managed_vars;
use crate::registry::{self, FatBinary, KernelEntry};

/// A pushed launch configuration.
#[derive(Clone, Copy)]
struct CallConfiguration {
    grid: Dim3,
    block: Dim3,
    shared: usize,
    stream: *mut c_void,
}

/// The deepest nesting of pushed configurations (a launch inside a launch's arguments).
const DEPTH: usize = 8;

const NO_CONFIGURATION: CallConfiguration = CallConfiguration {
    grid: Dim3 { x: 0, y: 0, z: 0 },
    block: Dim3 { x: 0, y: 0, z: 0 },
    shared: 0,
    stream: std::ptr::null_mut(),
};

/// Pushed, not yet popped configurations: a fixed stack with nothing to drop, so that a
/// push/pop pair is a few stores and loads in thread-local memory.
struct ConfigurationStack {
    len: Cell<usize>,
    slots: [Cell<CallConfiguration>; DEPTH],
}

thread_local! {
    static CONFIGURATIONS: ConfigurationStack = const {
        ConfigurationStack {
            len: Cell::new(0),
            slots: [const { Cell::new(NO_CONFIGURATION) }; DEPTH],
        }
    };
}

/// Registers a translation unit's fatbin; the handle is passed to the other registrations.
///
/// # Safety
/// `fat_cubin` points to a `__fatBinC_Wrapper_t` that stays mapped until unregistration.
#[no_mangle]
pub unsafe extern "C" fn __cudaRegisterFatBinary(fat_cubin: *mut c_void) -> *mut *mut c_void {
    let mut handle = std::ptr::null_mut();
    guard("__cudaRegisterFatBinary", || {
        // SAFETY: forwarded from the caller.
        let fatbin = unsafe { registry::register_fatbin(fat_cubin) }?;
        handle = Arc::into_raw(fatbin) as *mut *mut c_void;
        Ok(())
    });
    handle
}

/// Ends a translation unit's registration (loading stays lazy).
#[no_mangle]
pub extern "C" fn __cudaRegisterFatBinaryEnd(handle: *mut *mut c_void) {
    let _ = handle;
}

/// Borrows the fatbin behind a registration handle.
///
/// # Safety
/// `handle` is NULL or came from [`__cudaRegisterFatBinary`] and is not yet unregistered.
unsafe fn fatbin_of(handle: *mut *mut c_void) -> Result<Arc<FatBinary>, CudaError> {
    if handle.is_null() {
        return Err(CudaError::new(
            INVALID_VALUE,
            "a NULL fatbin handle (its registration failed)",
        ));
    }
    let raw = handle as *const FatBinary;
    // SAFETY: `raw` came from `Arc::into_raw`; the registration's reference stays alive.
    unsafe { Arc::increment_strong_count(raw) };
    // SAFETY: the count was just incremented for this new `Arc`.
    Ok(unsafe { Arc::from_raw(raw) })
}

/// Unregisters a fatbin: its kernels, variables and loaded modules are dropped.
///
/// # Safety
/// `handle` came from [`__cudaRegisterFatBinary`] and is unregistered once.
#[no_mangle]
pub unsafe extern "C" fn __cudaUnregisterFatBinary(handle: *mut *mut c_void) {
    guard("__cudaUnregisterFatBinary", || {
        if handle.is_null() {
            return Ok(());
        }
        // SAFETY: takes back the registration's reference, once.
        let fatbin = unsafe { Arc::from_raw(handle as *const FatBinary) };
        registry::unregister(&fatbin);
        managed_vars::unregister(&fatbin);
        Ok(())
    });
}

/// Maps a kernel's host stub to its device name.
///
/// # Safety
/// `handle` came from [`__cudaRegisterFatBinary`]; `device_name` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn __cudaRegisterFunction(
    handle: *mut *mut c_void,
    host_fun: *const c_char,
    device_fun: *mut c_char,
    device_name: *const c_char,
    thread_limit: c_int,
    tid: *mut Dim3,
    bid: *mut Dim3,
    block_dim: *mut Dim3,
    grid_dim: *mut Dim3,
    warp_size: *mut c_int,
) {
    let _ = (
        device_fun,
        thread_limit,
        tid,
        bid,
        block_dim,
        grid_dim,
        warp_size,
    );
    guard("__cudaRegisterFunction", || {
        // SAFETY: forwarded from the caller.
        let fatbin = unsafe { fatbin_of(handle) }?;
        // SAFETY: the compiler passes the kernel's name as a C string.
        let name = unsafe { CStr::from_ptr(device_name) };
        registry::register_function(&fatbin, host_fun as usize, name);
        Ok(())
    });
}

/// Maps a `__device__`/`__constant__` variable's host shadow to its device name.
///
/// # Safety
/// `handle` came from [`__cudaRegisterFatBinary`]; `device_name` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn __cudaRegisterVar(
    handle: *mut *mut c_void,
    host_var: *mut c_char,
    device_address: *mut c_char,
    device_name: *const c_char,
    ext: c_int,
    size: usize,
    constant: c_int,
    global: c_int,
) {
    let _ = (device_address, ext, constant, global);
    guard("__cudaRegisterVar", || {
        // SAFETY: forwarded from the caller.
        let fatbin = unsafe { fatbin_of(handle) }?;
        // SAFETY: the compiler passes the variable's name as a C string.
        let name = unsafe { CStr::from_ptr(device_name) };
        registry::register_var(&fatbin, host_var as usize, name, size);
        Ok(())
    });
}

/// Registers a `__managed__` variable: its host copy's address goes to `host_var_ptr_address`
/// (see [`crate::managed_vars`]).
///
/// # Safety
/// `handle` came from [`__cudaRegisterFatBinary`]; `host_var_ptr_address` is writable;
/// `device_name` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn __cudaRegisterManagedVar(
    handle: *mut *mut c_void,
    host_var_ptr_address: *mut *mut c_void,
    device_address: *mut c_char,
    device_name: *const c_char,
    ext: c_int,
    size: usize,
    constant: c_int,
    global: c_int,
) {
    let _ = (device_address, ext, constant, global);
    guard("__cudaRegisterManagedVar", || {
        // SAFETY: forwarded from the caller.
        let fatbin = unsafe { fatbin_of(handle) }?;
        // SAFETY: the compiler passes the variable's name as a C string.
        let name = unsafe { CStr::from_ptr(device_name) }
            .to_string_lossy()
            .into_owned();
        // SAFETY: forwarded from the caller.
        unsafe { managed_vars::register(&fatbin, host_var_ptr_address, name, size) }
    });
}

/// Initializes a fatbin's `__managed__` variables before host code touches them: loads the
/// module on the current device and fills the host copies. Returns 1, or 0 on failure.
///
/// # Safety
/// `handle` came from [`__cudaRegisterFatBinary`].
#[no_mangle]
pub unsafe extern "C" fn __cudaInitModule(handle: *mut *mut c_void) -> c_char {
    let code = guard("__cudaInitModule", || {
        // SAFETY: forwarded from the caller.
        let fatbin = unsafe { fatbin_of(handle) }?;
        managed_vars::initialize(&fatbin)
    });
    c_char::from(code == 0)
}

/// Pushes the configuration of the next launch (`<<<grid, block, shared, stream>>>`).
#[no_mangle]
pub extern "C" fn __cudaPushCallConfiguration(
    grid: Dim3,
    block: Dim3,
    shared: usize,
    stream: *mut c_void,
) -> c_uint {
    let config = CallConfiguration {
        grid,
        block,
        shared,
        stream,
    };
    let pushed = CONFIGURATIONS.with(|stack| {
        let len = stack.len.get();
        let slot = stack.slots.get(len)?;
        slot.set(config);
        stack.len.set(len + 1);
        Some(())
    });
    if pushed.is_some() {
        return 0;
    }
    // A non-zero result makes the compiler's code skip the launch.
    guard("__cudaPushCallConfiguration", || {
        Err(CudaError::new(
            INVALID_VALUE,
            format!("more than {DEPTH} launch configurations pushed without a launch"),
        ))
    }) as c_uint
}

/// Pops the configuration pushed for this launch.
///
/// # Safety
/// The pointers are writable; `stream` points to a `cudaStream_t`.
#[no_mangle]
pub unsafe extern "C" fn __cudaPopCallConfiguration(
    grid: *mut Dim3,
    block: *mut Dim3,
    shared: *mut usize,
    stream: *mut c_void,
) -> cudaError_t {
    let popped = CONFIGURATIONS.with(|stack| {
        let len = stack.len.get().checked_sub(1)?;
        stack.len.set(len);
        Some(stack.slots[len].get())
    });
    let Some(config) = popped else {
        return guard("__cudaPopCallConfiguration", || {
            Err(CudaError::new(
                MISSING_CONFIGURATION,
                "no launch configuration was pushed",
            ))
        });
    };
    // SAFETY: the host stub passes its locals.
    unsafe {
        *grid = config.grid;
        *block = config.block;
        *shared = config.shared;
        *(stream as *mut *mut c_void) = config.stream;
    }
    0
}

/// Resolves a host stub to its kernel handle (nvcc calls this once per stub).
///
/// # Safety
/// `kernel` is writable.
#[no_mangle]
pub unsafe extern "C" fn __cudaGetKernel(
    kernel: *mut *const c_void,
    stub: *const c_void,
) -> cudaError_t {
    guard("__cudaGetKernel", || {
        if kernel.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "kernelPtr is NULL"));
        }
        let entry = registry::kernel_entry(stub)?;
        // SAFETY: the caller passes a writable slot; the entry lives until unregistration.
        unsafe { *kernel = Arc::as_ptr(&entry) as *const c_void };
        Ok(())
    })
}

/// Launches a kernel by the handle from [`__cudaGetKernel`].
///
/// # Safety
/// `kernel` came from [`__cudaGetKernel`]; `args` holds one pointer per kernel parameter.
#[no_mangle]
pub unsafe extern "C" fn __cudaLaunchKernel(
    kernel: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: *mut c_void,
) -> cudaError_t {
    guard("__cudaLaunchKernel", || {
        if kernel.is_null() {
            return Err(CudaError::new(
                crate::errors::INVALID_DEVICE_FUNCTION,
                "a NULL kernel handle (the stub was not registered)",
            ));
        }
        // SAFETY: the handle is a live entry's address (see `__cudaGetKernel`).
        let entry = unsafe { &*(kernel as *const KernelEntry) };
        // SAFETY: forwarded from the caller.
        unsafe { launch(entry, grid, block, args, shared, stream) }
    })
}

/// [`__cudaLaunchKernel`] for programs built with `--default-stream per-thread`.
///
/// # Safety
/// As [`__cudaLaunchKernel`].
#[no_mangle]
pub unsafe extern "C" fn __cudaLaunchKernel_ptsz(
    kernel: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: *mut c_void,
) -> cudaError_t {
    let stream = crate::launch::per_thread_default(stream);
    // SAFETY: forwarded from the caller.
    unsafe { __cudaLaunchKernel(kernel, grid, block, args, shared, stream) }
}
