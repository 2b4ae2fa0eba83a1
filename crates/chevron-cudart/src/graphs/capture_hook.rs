//! Graphs' stream capture, installed into the layers below (`crate::capturing`) when the first
//! capture begins.

use std::ffi::{c_int, c_void};

use super::capture;
use crate::abi::Dim3;
use crate::capturing::StreamCapture;
use crate::errors::CudaResult;
use crate::registry::KernelEntry;

/// The captures of `capture.rs`, as the layers below ask them.
struct GraphCapture;

/// Installs graphs' stream capture (once; later calls change nothing).
pub(crate) fn install() {
    crate::capturing::install(&GraphCapture);
}

impl StreamCapture for GraphCapture {
    fn refuse_if_capturing(&self, stream: usize) -> CudaResult {
        capture::refuse_if_capturing(stream)
    }

    unsafe fn launch(
        &self,
        entry: &KernelEntry,
        dims: (Dim3, Dim3, usize),
        cluster: [u32; 3],
        args: *mut *mut c_void,
        stream: *mut c_void,
    ) -> Option<CudaResult> {
        // SAFETY: forwarded from the caller.
        unsafe { capture::capture_launch(entry, dims, cluster, args, stream) }
    }

    fn memset(
        &self,
        stream: *mut c_void,
        dst: u64,
        value: c_int,
        bytes: usize,
    ) -> Option<CudaResult> {
        capture::capture_memset(stream, dst, value, bytes)
    }

    fn copy(&self, stream: *mut c_void, dst: u64, src: u64, bytes: usize) -> Option<CudaResult> {
        capture::capture_copy(stream, dst, src, bytes)
    }

    fn host(
        &self,
        stream: *mut c_void,
        function: unsafe extern "C" fn(*mut c_void),
        user_data: *mut c_void,
    ) -> Option<CudaResult> {
        capture::capture_host(stream, function, user_data)
    }

    fn event_record(&self, event: *mut c_void, stream: *mut c_void) -> Option<CudaResult> {
        capture::capture_event_record(event, stream)
    }

    fn event_record_node(&self, event: *mut c_void, stream: *mut c_void) -> Option<CudaResult> {
        capture::capture_event_record_node(event, stream)
    }

    fn event_wait(&self, stream: *mut c_void, event: *mut c_void) -> Option<CudaResult> {
        capture::capture_event_wait(stream, event)
    }

    fn alloc(&self, stream: *mut c_void, bytes: usize) -> Option<CudaResult<u64>> {
        capture::capture_alloc(stream, bytes)
    }

    fn free(&self, stream: *mut c_void, ptr: u64) -> Option<CudaResult> {
        capture::capture_free(stream, ptr)
    }

    fn forget(&self, streams: &[usize]) {
        capture::forget_captures(streams);
    }
}
