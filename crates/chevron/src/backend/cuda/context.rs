//! The device's primary context, and the scoped push/pop that keeps the caller's current
//! context unchanged.
//!
//! Context-sensitive calls (allocation, module loading, stream and event creation, copies) run
//! between a `cuCtxPushCurrent` of the device's primary context and the matching
//! `cuCtxPopCurrent` (64 ns together), so whatever context the calling thread had current is
//! current again afterwards. Launches, stream waits and event records need no current context.

use std::sync::{Mutex, OnceLock};

use super::error::{check, driver_error};
use super::sys::{CUcontext, CUdevice, CUresult, Driver, CUDA_ERROR_INVALID_CONTEXT};
use crate::error::Result;

/// A retained primary context handle.
#[derive(Clone, Copy)]
struct Retained(CUcontext);

// SAFETY: a CUcontext is an opaque driver handle usable from any thread.
unsafe impl Send for Retained {}
// SAFETY: as above; the driver synchronizes its own use of the handle.
unsafe impl Sync for Retained {}

/// What every object of one CUDA device shares: the driver, the device, its primary context.
pub(crate) struct DeviceState {
    /// The driver table.
    pub(crate) driver: &'static Driver,
    /// The device handle.
    pub(crate) device: CUdevice,
    /// `cuda:0 (NVIDIA H200)`: how errors name the device.
    pub(crate) label: String,
    context: OnceLock<Retained>,
    retain_lock: Mutex<()>,
}

impl DeviceState {
    pub(crate) fn new(driver: &'static Driver, device: CUdevice, label: String) -> DeviceState {
        DeviceState {
            driver,
            device,
            label,
            context: OnceLock::new(),
            retain_lock: Mutex::new(()),
        }
    }

    /// The primary context, retained on first use (creating it is slow, so devices that are only
    /// listed never create one).
    pub(crate) fn context(&self) -> Result<CUcontext> {
        if let Some(retained) = self.context.get() {
            return Ok(retained.0);
        }
        let _guard = self
            .retain_lock
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(retained) = self.context.get() {
            return Ok(retained.0);
        }
        let mut context: CUcontext = std::ptr::null_mut();
        // SAFETY: `device` is a valid device handle and `context` a valid out-pointer.
        let code = unsafe { (self.driver.cuDevicePrimaryCtxRetain)(&mut context, self.device) };
        self.check("cuDevicePrimaryCtxRetain", code)?;
        let _ = self.context.set(Retained(context));
        Ok(context)
    }

    /// Makes the primary context current until the guard is dropped.
    pub(crate) fn enter(&self) -> Result<Entered<'_>> {
        let context = self.context()?;
        // SAFETY: `context` is a retained primary context.
        let code = unsafe { (self.driver.cuCtxPushCurrent)(context) };
        self.check("cuCtxPushCurrent", code)?;
        Ok(Entered { state: self })
    }

    /// Runs a call that normally needs no current context (launches, records, waits,
    /// synchronizations: the handles carry their context). Should a driver still answer
    /// `CUDA_ERROR_INVALID_CONTEXT`, the call is repeated once with the device's context pushed;
    /// the success path costs nothing extra.
    #[inline]
    pub(crate) fn anywhere(&self, call: impl Fn() -> CUresult) -> CUresult {
        let code = call();
        if code != CUDA_ERROR_INVALID_CONTEXT {
            return code;
        }
        match self.enter() {
            Ok(_entered) => call(),
            Err(_) => code,
        }
    }

    /// `Ok` for success, else a driver error naming this device.
    pub(crate) fn check(&self, call: &'static str, code: CUresult) -> Result<()> {
        check(self.driver, call, code, &self.label)
    }

    /// A driver error naming this device and what was being done.
    pub(crate) fn error(
        &self,
        call: &'static str,
        code: CUresult,
        context: String,
    ) -> crate::error::Error {
        driver_error(self.driver, call, code, &self.label, context)
    }
}

impl Drop for DeviceState {
    fn drop(&mut self) {
        if self.context.get().is_some() {
            // SAFETY: the primary context was retained once by this object.
            unsafe { (self.driver.cuDevicePrimaryCtxRelease)(self.device) };
        }
    }
}

/// The device's context is current on this thread until this is dropped.
pub(crate) struct Entered<'a> {
    state: &'a DeviceState,
}

impl Drop for Entered<'_> {
    fn drop(&mut self) {
        let mut popped: CUcontext = std::ptr::null_mut();
        // SAFETY: `enter` pushed a context on this thread; this pops exactly that one.
        unsafe { (self.state.driver.cuCtxPopCurrent)(&mut popped) };
    }
}
