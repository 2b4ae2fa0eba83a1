//! Host functions in stream order through the driver: `cuLaunchHostFunc`, so the submitting
//! thread never waits (the contract's default would synchronize the stream first).
//!
//! The boxed function travels to the driver's callback thread as the user-data pointer and is
//! called there once. The driver calls it only when the earlier work succeeded; after a fault
//! the context is unusable and the host function is dropped unrun, as CUDA drops it.

use std::ffi::c_void;

use super::stream::CudaStream;
use super::sys;
use crate::backend::HostFunction;
use crate::error::Result;

/// Enqueues `function` on `stream`. Without `cuLaunchHostFunc` (drivers before CUDA 10.0) it
/// runs on the caller once the earlier work is done.
pub(super) fn launch(stream: &CudaStream, function: HostFunction) -> Result<()> {
    let state = &stream.state;
    let Some(launch_host_func) = state.driver.cuLaunchHostFunc else {
        function(crate::backend::Stream::synchronize(stream));
        return Ok(());
    };
    let boxed: *mut HostFunction = Box::into_raw(Box::new(function));
    // SAFETY: `trampoline` takes back exactly the box made above, once; the stream is live.
    let call = || unsafe { launch_host_func(stream.stream, Some(trampoline), boxed.cast()) };
    let code = state.anywhere(call);
    if code != sys::CUDA_SUCCESS {
        // SAFETY: the driver refused the call, so it will never run `trampoline` with `boxed`.
        drop(unsafe { Box::from_raw(boxed) });
        return Err(state.error("cuLaunchHostFunc", code, String::new()));
    }
    Ok(())
}

/// The driver's callback: runs the boxed host function with the stream's status (the driver
/// runs host functions only after successful work).
///
/// # Safety
/// `data` is a `Box<HostFunction>` made by [`launch`], not yet taken back.
unsafe extern "C" fn trampoline(data: *mut c_void) {
    // SAFETY: the caller's guarantee.
    let function = unsafe { Box::from_raw(data.cast::<HostFunction>()) };
    // A panic must not unwind into the driver's thread.
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || function(Ok(()))));
    if ran.is_err() {
        eprintln!("chevron: a host function queued with cuLaunchHostFunc panicked");
    }
}
