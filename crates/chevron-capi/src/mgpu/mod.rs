//! MLIR's `mgpu*` runtime ABI (what `gpu-to-llvm` emits calls to; upstream implements it in
//! `CudaRuntimeWrappers.cpp`), over chevron, with LLVM 22's caller signatures.
//!
//! The ABI has no error channel: like upstream, errors are printed to stderr (naming the
//! function and, for launches, the kernel) and execution continues; `CHEVRON_ABORT_ON_ERROR=1`
//! aborts instead. The device is the first of `CHEVRON_DEVICES` (default: the best present),
//! changed by `mgpuSetDefaultDevice`, so an MLIR program runs on the CPU device on a machine
//! without a GPU.
//!
//! | file | functions |
//! |---|---|
//! | `module.rs` | `mgpuModuleLoad`, `mgpuModuleLoadJIT`, `mgpuModuleUnload`, `mgpuModuleGetFunction` |
//! | `launch.rs` | `mgpuLaunchKernel`, `mgpuLaunchClusterKernel` |
//! | `tensor_map.rs` | `mgpuTensorMapEncodeTiledMemref` (TMA descriptors, CUDA only) |
//! | `stream.rs` | streams and events, `mgpuSetDefaultDevice` |
//! | `memory.rs` | `mgpuMemAlloc`, `mgpuMemFree`, `mgpuMemcpy`, `mgpuMemset32/16`, host registration |
//! | `host_memory.rs` | host-shared and host-registered memory and its device mirrors |
//! | `pointers.rs` | what a bare pointer is: device memory, a mirrored host range, host memory |
//! | `report.rs` | error reports on stderr, `CHEVRON_ABORT_ON_ERROR` |
//!
//! What real MLIR output relies on, and how it is honoured:
//! - modules are loaded by global constructors before `main` and unloaded by destructors at
//!   exit: nothing here needs `main`, and exit joins no thread; the per-thread caches of the
//!   last function looked up and the last launch's kernel and stream fall back to the
//!   registries where thread-locals are gone (during a thread's exit);
//! - `mgpuModuleGetFunction` is called before every launch: it is a hash lookup by (module,
//!   name) returning the same handle;
//! - a module unloaded right after an asynchronous launch (LLVM ≤ 20) stays loaded until the
//!   device's streams have passed the launch (chevron's deferred release);
//! - `mgpuEventDestroy` right after `mgpuStreamWaitEvent` does not cancel the wait; a stream
//!   passed where an event is expected (LLVM 22.1.8's `async.execute` lowering) is waited for
//!   or synchronized as intended;
//! - `mgpuMemFree` before the final synchronization is deferred until the device's streams
//!   have passed it;
//! - `mgpuMemcpy` classifies both pointers itself by looking them up: an address of some
//!   device (`is_device_address`; a freed one is reported by that device), host-shared or
//!   host-registered memory, or else host memory checked to be readable (never a crash);
//! - launch arguments are copied during the call; streams run concurrently (the backend's).

pub mod host_memory;
pub mod launch;
pub mod memory;
pub mod module;
mod pointers;
mod report;
pub mod stream;
pub mod tensor_map;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use chevron::{Device, Stream};

use crate::error::{CapiError, CapiResult};
use crate::handles::{Kind, Registry};
use crate::status::chevron_status;

pub(crate) use report::report;

pub(crate) static MODULES: Registry<Arc<module::MgpuModule>> = Registry::new(Kind::MgpuModule);
pub(crate) static FUNCTIONS: Registry<Arc<module::MgpuFunction>> =
    Registry::new(Kind::MgpuFunction);
pub(crate) static STREAMS: Registry<Stream> = Registry::new(Kind::MgpuStream);
pub(crate) static EVENTS: Registry<Arc<stream::MgpuEvent>> = Registry::new(Kind::MgpuEvent);

/// Index (in the runtime's device list) of the device new modules, streams and allocations use.
pub(crate) static DEFAULT_DEVICE: AtomicUsize = AtomicUsize::new(0);

/// The device `mgpu*` calls use (see `mgpuSetDefaultDevice`).
pub(crate) fn default_device() -> CapiResult<Device> {
    let runtime = crate::api::runtime()?;
    let index = DEFAULT_DEVICE.load(Ordering::Relaxed);
    if let Some(device) = runtime.devices().get(index) {
        return Ok(device.clone());
    }
    let reasons: Vec<String> = runtime
        .backends()
        .iter()
        .filter_map(|b| {
            b.unavailable
                .as_ref()
                .map(|r| format!("{}: {r}", b.backend.as_str()))
        })
        .collect();
    Err(CapiError::new(
        chevron_status::CHEVRON_ERROR_UNAVAILABLE,
        format!(
            "no device {index} among the {} in use ({})",
            runtime.devices().len(),
            if reasons.is_empty() {
                "check CHEVRON_DEVICES".to_string()
            } else {
                reasons.join("; ")
            }
        ),
    ))
}

/// Sets the default device by index in the runtime's device list.
pub(crate) fn set_default_device(index: usize) -> CapiResult<()> {
    let count = crate::api::runtime()?.devices().len();
    if index >= count {
        return Err(CapiError::invalid(format!(
            "device {index} requested, {count} in use (CHEVRON_DEVICES orders them)"
        )));
    }
    DEFAULT_DEVICE.store(index, Ordering::Relaxed);
    Ok(())
}

/// Looks up an `mgpu` handle, with a message naming the handle's problem.
pub(crate) fn lookup<T: Clone, H>(registry: &Registry<T>, handle: *mut H) -> CapiResult<T> {
    crate::api::lookup(registry, handle)
}

/// The stream behind a `CUstream`, or the default device's default stream for NULL.
pub(crate) fn stream_or_default(stream: *mut std::ffi::c_void) -> CapiResult<Stream> {
    if stream.is_null() {
        Ok(default_device()?.default_stream()?)
    } else {
        lookup(&STREAMS, stream)
    }
}

/// Runs the body of `mgpu*` function `call` (through `chevron::ffi::entry`): a failure or a
/// panic is reported on stderr (or aborts under `CHEVRON_ABORT_ON_ERROR=1`) and `fallback` is
/// returned.
#[inline]
pub(crate) fn guard<T>(call: &str, fallback: T, body: impl FnOnce() -> CapiResult<T>) -> T {
    chevron::ffi::entry(call, || body().map_err(report::Reported)).unwrap_or(fallback)
}
