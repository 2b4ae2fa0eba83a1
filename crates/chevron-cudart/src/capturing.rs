//! Stream capture as the layers below graphs see it: the work entry points (launches, copies,
//! fills, host functions, event records and waits, stream-ordered allocations and frees, stream lookups and destruction) ask
//! [`StreamCapture`] first, and a capturing stream records instead of running. Graphs implement it
//! and install it when the first capture begins ([`install`]); until then nothing captures, and
//! each question costs one atomic load. The stream lookups of `state`, a layer below, get their
//! refusal from here at the same moment.

use std::ffi::{c_int, c_void};
use std::sync::OnceLock;

use crate::abi::Dim3;
use crate::errors::CudaResult;
use crate::registry::KernelEntry;

/// What stream capture does with work submitted to a stream. Each recording method returns
/// `None` when the stream does not capture (the work runs as usual).
pub(crate) trait StreamCapture: Sync {
    /// Refuses work on a capturing stream that capture does not record.
    fn refuse_if_capturing(&self, stream: usize) -> CudaResult;

    /// Records a launch.
    ///
    /// # Safety
    /// `args` as for [`crate::launch::launch`].
    unsafe fn launch(
        &self,
        entry: &KernelEntry,
        dims: (Dim3, Dim3, usize),
        cluster: [u32; 3],
        args: *mut *mut c_void,
        stream: *mut c_void,
    ) -> Option<CudaResult>;

    /// Records `cudaMemsetAsync`.
    fn memset(
        &self,
        stream: *mut c_void,
        dst: u64,
        value: c_int,
        bytes: usize,
    ) -> Option<CudaResult>;

    /// Records `cudaMemcpyAsync`.
    fn copy(&self, stream: *mut c_void, dst: u64, src: u64, bytes: usize) -> Option<CudaResult>;

    /// Records `cudaLaunchHostFunc`.
    fn host(
        &self,
        stream: *mut c_void,
        function: unsafe extern "C" fn(*mut c_void),
        user_data: *mut c_void,
    ) -> Option<CudaResult>;

    /// Records `cudaEventRecord`.
    fn event_record(&self, event: *mut c_void, stream: *mut c_void) -> Option<CudaResult>;

    /// Records `cudaEventRecordWithFlags(.., cudaEventRecordExternal)`: an event record node.
    fn event_record_node(&self, event: *mut c_void, stream: *mut c_void) -> Option<CudaResult>;

    /// Records `cudaStreamWaitEvent`.
    fn event_wait(&self, stream: *mut c_void, event: *mut c_void) -> Option<CudaResult>;

    /// Records `cudaMallocAsync` (as an allocation node): the allocation's address.
    fn alloc(&self, stream: *mut c_void, bytes: usize) -> Option<CudaResult<u64>>;

    /// Records `cudaFreeAsync` (as a free node).
    fn free(&self, stream: *mut c_void, ptr: u64) -> Option<CudaResult>;

    /// Drops the captures of destroyed or forgotten `streams`.
    fn forget(&self, streams: &[usize]);
}

static CAPTURE: OnceLock<&'static dyn StreamCapture> = OnceLock::new();

/// Installs stream capture (the first one installed stays).
pub(crate) fn install(capture: &'static dyn StreamCapture) {
    let _ = CAPTURE.set(capture);
    crate::state::install_capture_refusal(refuse_if_capturing);
}

/// See [`StreamCapture::refuse_if_capturing`].
pub(crate) fn refuse_if_capturing(stream: usize) -> CudaResult {
    CAPTURE
        .get()
        .map_or(Ok(()), |c| c.refuse_if_capturing(stream))
}

/// See [`StreamCapture::launch`].
///
/// # Safety
/// As [`StreamCapture::launch`].
pub(crate) unsafe fn launch(
    entry: &KernelEntry,
    dims: (Dim3, Dim3, usize),
    cluster: [u32; 3],
    args: *mut *mut c_void,
    stream: *mut c_void,
) -> Option<CudaResult> {
    // SAFETY: forwarded from the caller.
    CAPTURE
        .get()
        .and_then(|c| unsafe { c.launch(entry, dims, cluster, args, stream) })
}

/// See [`StreamCapture::memset`].
pub(crate) fn memset(
    stream: *mut c_void,
    dst: u64,
    value: c_int,
    bytes: usize,
) -> Option<CudaResult> {
    CAPTURE.get()?.memset(stream, dst, value, bytes)
}

/// See [`StreamCapture::copy`].
pub(crate) fn copy(stream: *mut c_void, dst: u64, src: u64, bytes: usize) -> Option<CudaResult> {
    CAPTURE.get()?.copy(stream, dst, src, bytes)
}

/// See [`StreamCapture::host`].
pub(crate) fn host(
    stream: *mut c_void,
    function: unsafe extern "C" fn(*mut c_void),
    user_data: *mut c_void,
) -> Option<CudaResult> {
    CAPTURE.get()?.host(stream, function, user_data)
}

/// See [`StreamCapture::event_record`].
pub(crate) fn event_record(event: *mut c_void, stream: *mut c_void) -> Option<CudaResult> {
    CAPTURE.get()?.event_record(event, stream)
}

/// See [`StreamCapture::event_record_node`].
pub(crate) fn event_record_node(event: *mut c_void, stream: *mut c_void) -> Option<CudaResult> {
    CAPTURE.get()?.event_record_node(event, stream)
}

/// See [`StreamCapture::event_wait`].
pub(crate) fn event_wait(stream: *mut c_void, event: *mut c_void) -> Option<CudaResult> {
    CAPTURE.get()?.event_wait(stream, event)
}

/// See [`StreamCapture::alloc`].
pub(crate) fn alloc(stream: *mut c_void, bytes: usize) -> Option<CudaResult<u64>> {
    CAPTURE.get()?.alloc(stream, bytes)
}

/// See [`StreamCapture::free`].
pub(crate) fn free(stream: *mut c_void, ptr: u64) -> Option<CudaResult> {
    CAPTURE.get()?.free(stream, ptr)
}

/// See [`StreamCapture::forget`].
pub(crate) fn forget(streams: &[usize]) {
    if let Some(capture) = CAPTURE.get() {
        capture.forget(streams);
    }
}
