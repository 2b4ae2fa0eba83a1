//! CUDA events, recorded on streams: without timing to back tokens, with timing for the
//! device-side durations of the trace.

use std::any::Any;
use std::sync::Arc;

use super::context::DeviceState;
use super::sys::{self, CUevent};
use crate::backend;
use crate::error::Result;

/// A `CUevent` of one device.
pub(crate) struct CudaEvent {
    pub(crate) state: Arc<DeviceState>,
    pub(crate) event: CUevent,
}

// SAFETY: a CUevent is an opaque driver handle usable from any thread.
unsafe impl Send for CudaEvent {}
// SAFETY: as above; the driver synchronizes concurrent use of the handle.
unsafe impl Sync for CudaEvent {}

impl CudaEvent {
    /// An event without timing (the cheapest kind).
    pub(crate) fn create(state: &Arc<DeviceState>) -> Result<CudaEvent> {
        CudaEvent::with_flags(state, sys::CU_EVENT_DISABLE_TIMING)
    }

    /// An event that records the time it completes at.
    pub(crate) fn create_timed(state: &Arc<DeviceState>) -> Result<CudaEvent> {
        CudaEvent::with_flags(state, sys::CU_EVENT_DEFAULT)
    }

    fn with_flags(state: &Arc<DeviceState>, flags: std::ffi::c_uint) -> Result<CudaEvent> {
        let _entered = state.enter()?;
        let mut event: CUevent = std::ptr::null_mut();
        // SAFETY: the device's context is current and `event` is a valid out-pointer.
        let code = unsafe { (state.driver.cuEventCreate)(&mut event, flags) };
        state.check("cuEventCreate", code)?;
        Ok(CudaEvent {
            state: Arc::clone(state),
            event,
        })
    }
}

impl backend::Event for CudaEvent {
    fn query(&self) -> Result<bool> {
        // SAFETY: `event` is a live event.
        let query = || unsafe { (self.state.driver.cuEventQuery)(self.event) };
        match self.state.anywhere(query) {
            sys::CUDA_SUCCESS => Ok(true),
            sys::CUDA_ERROR_NOT_READY => Ok(false),
            code => Err(self.state.error("cuEventQuery", code, String::new())),
        }
    }

    fn synchronize(&self) -> Result<()> {
        // SAFETY: `event` is a live event.
        let sync = || unsafe { (self.state.driver.cuEventSynchronize)(self.event) };
        let code = self.state.anywhere(sync);
        self.state.check("cuEventSynchronize", code)
    }

    fn elapsed_ns_since(&self, earlier: &dyn backend::Event) -> Result<Option<i64>> {
        let Some(earlier) = earlier.as_any().downcast_ref::<CudaEvent>() else {
            return Ok(None);
        };
        let milliseconds = std::cell::Cell::new(0f32);
        // SAFETY: both events are live; `milliseconds` is a valid out-pointer.
        let elapsed = || unsafe {
            (self.state.driver.cuEventElapsedTime)(milliseconds.as_ptr(), earlier.event, self.event)
        };
        match self.state.anywhere(elapsed) {
            sys::CUDA_SUCCESS => Ok(Some((f64::from(milliseconds.get()) * 1e6) as i64)),
            sys::CUDA_ERROR_NOT_READY => Ok(None),
            code => Err(self.state.error("cuEventElapsedTime", code, String::new())),
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Drop for CudaEvent {
    fn drop(&mut self) {
        // Destroying is allowed while the event is pending; the driver frees it afterwards.
        if let Ok(_entered) = self.state.enter() {
            // SAFETY: `event` is live and destroyed once.
            unsafe { (self.state.driver.cuEventDestroy)(self.event) };
        }
    }
}
