//! chevron's own C API (`chevron_*`, declared in `include/chevron.h`): devices, modules and
//! kernels, streams and tokens, launches, buffers, incremental CUDA C++ (`chevron_jit_*`).
//!
//! Every function returns a [`chevron_status`](crate::status::chevron_status); results go
//! through out-pointers. Handles are opaque (see [`crate::handles`]): NULL, released and
//! wrong-kind handles are reported as `CHEVRON_ERROR_INVALID_HANDLE`.

pub mod buffer;
pub mod check;
pub mod device;
pub mod graph;
pub mod jit;
pub mod launch;
pub(crate) mod launch_cache;
pub mod module;
pub mod stream;
pub mod trace;

use std::ffi::{c_char, CStr};
use std::sync::{Arc, OnceLock};

use chevron::{Buffer, Device, Kernel, Module, Runtime, Stream, Token};

use crate::error::{CapiError, CapiResult};
use crate::handles::{Kind, Registry};
use crate::status::chevron_status;

// Opaque handle types, written out (cbindgen does not expand macros): `typedef struct
// NAME_s *NAME;` in C. The pointer values are registry keys, never dereferenced.

/// The opaque object behind [`chevron_device`].
#[allow(non_camel_case_types)]
pub struct chevron_device_s {
    _private: [u8; 0],
}
/// A device (valid for the life of the process; never released).
#[allow(non_camel_case_types)]
pub type chevron_device = *mut chevron_device_s;

/// The opaque object behind [`chevron_module`].
#[allow(non_camel_case_types)]
pub struct chevron_module_s {
    _private: [u8; 0],
}
/// A loaded code object. Release with `chevron_module_release`.
#[allow(non_camel_case_types)]
pub type chevron_module = *mut chevron_module_s;

/// The opaque object behind [`chevron_kernel`].
#[allow(non_camel_case_types)]
pub struct chevron_kernel_s {
    _private: [u8; 0],
}
/// A kernel of a module (keeps its module loaded). Release with `chevron_kernel_release`.
#[allow(non_camel_case_types)]
pub type chevron_kernel = *mut chevron_kernel_s;

/// The opaque object behind [`chevron_stream`].
#[allow(non_camel_case_types)]
pub struct chevron_stream_s {
    _private: [u8; 0],
}
/// An in-order queue of work on one device. Release with `chevron_stream_release`.
#[allow(non_camel_case_types)]
pub type chevron_stream = *mut chevron_stream_s;

/// The opaque object behind [`chevron_token`].
#[allow(non_camel_case_types)]
pub struct chevron_token_s {
    _private: [u8; 0],
}
/// The completion of submitted work. Release with `chevron_token_release`.
#[allow(non_camel_case_types)]
pub type chevron_token = *mut chevron_token_s;

/// The opaque object behind [`chevron_buffer`].
#[allow(non_camel_case_types)]
pub struct chevron_buffer_s {
    _private: [u8; 0],
}
/// Device memory. Free with `chevron_buffer_free` (deferred until pending work is done).
#[allow(non_camel_case_types)]
pub type chevron_buffer = *mut chevron_buffer_s;

pub(crate) static DEVICES: Registry<Device> = Registry::new(Kind::Device);
pub(crate) static MODULES: Registry<Module> = Registry::new(Kind::Module);
pub(crate) static KERNELS: Registry<Kernel> = Registry::new(Kind::Kernel);
pub(crate) static STREAMS: Registry<Stream> = Registry::new(Kind::Stream);
pub(crate) static TOKENS: Registry<Token> = Registry::new(Kind::Token);
pub(crate) static BUFFERS: Registry<Arc<Buffer<u8>>> = Registry::new(Kind::Buffer);
pub(crate) static GRAPHS: Registry<graph::SharedGraph> = Registry::new(Kind::Graph);

/// The process-wide runtime (created on first use).
pub(crate) fn runtime() -> CapiResult<&'static Runtime> {
    Runtime::global().map_err(CapiError::from)
}

/// One handle per device of the runtime, made once.
pub(crate) fn device_handles() -> CapiResult<&'static [u64]> {
    static HANDLES: OnceLock<Vec<u64>> = OnceLock::new();
    let runtime = runtime()?;
    Ok(HANDLES.get_or_init(|| {
        runtime
            .devices()
            .iter()
            .map(|d| DEVICES.insert(d.clone()))
            .collect()
    }))
}

/// The object behind a C handle, or `CHEVRON_ERROR_INVALID_HANDLE` naming what is wrong.
pub(crate) fn lookup<T: Clone, H>(registry: &Registry<T>, handle: *mut H) -> CapiResult<T> {
    lookup_with(registry, handle, T::clone)
}

/// Calls `f` with the object behind a C handle, borrowed rather than cloned (the launch path);
/// `f` must not release a handle of `registry`.
pub(crate) fn lookup_with<T: Clone, H, R>(
    registry: &Registry<T>,
    handle: *mut H,
    f: impl FnOnce(&T) -> R,
) -> CapiResult<R> {
    let value = handle as usize as u64;
    registry.with(value, f).map_err(|e| {
        CapiError::new(
            chevron_status::CHEVRON_ERROR_INVALID_HANDLE,
            e.describe(registry.kind(), value),
        )
    })
}

/// Unregisters the object behind a C handle.
pub(crate) fn release<T: Clone, H>(registry: &Registry<T>, handle: *mut H) -> CapiResult<T> {
    let value = handle as usize as u64;
    registry.remove(value).map_err(|e| {
        CapiError::new(
            chevron_status::CHEVRON_ERROR_INVALID_HANDLE,
            e.describe(registry.kind(), value),
        )
    })
}

/// Registers `value` and returns its C handle.
pub(crate) fn handle_of<T: Clone, H>(registry: &Registry<T>, value: T) -> *mut H {
    registry.insert(value) as usize as *mut H
}

/// Writes `value` through the out-pointer `out` (named `name` in the error).
///
/// # Safety
/// `out` is NULL or valid for a write of `T`.
pub(crate) unsafe fn write_out<T>(out: *mut T, name: &str, value: T) -> CapiResult<()> {
    if out.is_null() {
        return Err(CapiError::invalid(format!("`{name}` is NULL")));
    }
    // SAFETY: non-null, and valid for a write by the caller's contract.
    unsafe { out.write(value) };
    Ok(())
}

/// Reads a NUL-terminated UTF-8 string argument.
///
/// # Safety
/// `text` is NULL or points to a NUL-terminated string.
pub(crate) unsafe fn read_str<'a>(text: *const c_char, name: &str) -> CapiResult<&'a str> {
    if text.is_null() {
        return Err(CapiError::invalid(format!("`{name}` is NULL")));
    }
    // SAFETY: non-null and NUL-terminated by the caller's contract.
    let text = unsafe { CStr::from_ptr(text) };
    text.to_str()
        .map_err(|_| CapiError::invalid(format!("`{name}` is not UTF-8")))
}

/// The tokens behind an array of token handles.
///
/// # Safety
/// `deps` is NULL (then `count` must be 0) or points to `count` handles.
pub(crate) unsafe fn read_tokens(
    deps: *const chevron_token,
    count: usize,
) -> CapiResult<Vec<Token>> {
    if count == 0 {
        return Ok(Vec::new());
    }
    if deps.is_null() {
        return Err(CapiError::invalid(format!(
            "`deps` is NULL but `ndeps` is {count}"
        )));
    }
    if count > isize::MAX as usize / std::mem::size_of::<chevron_token>() {
        return Err(CapiError::invalid(format!(
            "`ndeps` = {count} is not a count"
        )));
    }
    // SAFETY: non-null and `count` elements long by the caller's contract.
    let handles = unsafe { std::slice::from_raw_parts(deps, count) };
    handles
        .iter()
        .enumerate()
        .map(|(i, &h)| {
            lookup(&TOKENS, h)
                .map_err(|e| CapiError::new(e.status, format!("deps[{i}]: {}", e.message)))
        })
        .collect()
}

/// The stream behind `stream`, or `device`'s default stream when it is NULL.
pub(crate) fn stream_or_default(stream: chevron_stream, device: &Device) -> CapiResult<Stream> {
    if stream.is_null() {
        Ok(device.default_stream()?)
    } else {
        lookup(&STREAMS, stream)
    }
}

/// Stores a token in `out` if `out` is not NULL.
///
/// # Safety
/// `out` is NULL or valid for a write of a handle.
pub(crate) unsafe fn give_token(out: *mut chevron_token, token: Token) {
    if !out.is_null() {
        // SAFETY: non-null and writable by the caller's contract.
        unsafe { out.write(handle_of(&TOKENS, token)) };
    }
}
