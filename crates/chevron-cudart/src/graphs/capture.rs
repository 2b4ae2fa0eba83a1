//! Stream capture: `cudaStreamBeginCapture` (`…ToGraph`: into an existing graph),
//! `cudaStreamEndCapture`, `cudaStreamIsCapturing`, `cudaStreamGetCaptureInfo`,
//! `cudaStreamUpdateCaptureDependencies`, and the hooks through which kernel launches, copies, fills,
//! host functions and event records and waits submitted to a capturing stream become nodes.
//!
//! A capture starts on one stream (its origin) and spreads to another stream when that stream
//! waits for an event recorded in the capture (a fork); each stream's next node depends on the
//! stream's last nodes. The capture ends on its origin, once every stream that joined was
//! joined back (an event of it waited for by the origin's chain): otherwise
//! `cudaErrorStreamCaptureUnjoined`. Work the capture cannot record (a synchronization, a
//! stream callback, a cluster launch) is refused with `cudaErrorStreamCaptureUnsupported` and
//! invalidates the capture, which `cudaStreamEndCapture` reports as
//! `cudaErrorStreamCaptureInvalidated`: a capture never ends as a graph missing work.

use std::collections::HashMap;
use std::ffi::{c_int, c_uint, c_ulonglong, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use chevron::Stream;

use super::model::{ChildGraph, Model, NodeKind};
use super::nodes::{check_list, indices_of};
use super::{
    next_handle, register_graph, register_node, CAPTURE_INVALIDATED, CAPTURE_ISOLATION,
    CAPTURE_MERGE, CAPTURE_UNJOINED, CAPTURE_UNMATCHED, CAPTURE_UNSUPPORTED,
};
use crate::abi::Dim3;
use crate::errors::{cudaError_t, guard, CudaError, CudaResult, ILLEGAL_STATE, INVALID_VALUE};
use crate::memory::store;
use crate::registry::KernelEntry;
use crate::state::{self, lock, STREAM_LEGACY, STREAM_PER_THREAD};

/// A capture in progress.
struct Capture {
    /// The stream it began on.
    origin: usize,
    /// The device of the capture.
    ordinal: usize,
    /// The chevron stream of the origin (kernels are checked against its device).
    stream: Stream,
    /// The handle the graph gets when the capture ends.
    graph: usize,
    model: Model,
    /// Each participating stream's last nodes (the next node's dependencies).
    frontier: HashMap<usize, Vec<usize>>,
    /// What `cudaStreamGetCaptureInfo` last wrote, per stream (its array stays valid).
    reported: HashMap<usize, Box<[usize]>>,
    /// Why the capture was invalidated, if it was.
    invalidated: Option<String>,
    /// For a capture into an existing graph (`cudaStreamBeginCaptureToGraph`): how many nodes
    /// the graph had; the capture's model starts as a copy of it and replaces it at the end.
    into: Option<usize>,
}

#[derive(Default)]
struct Captures {
    /// Captures by id (the origin's `cudaStream_t`; ids are also `cudaStreamGetCaptureInfo`'s).
    by_id: HashMap<usize, Capture>,
    /// The capture each capturing stream takes part in.
    streams: HashMap<usize, usize>,
    /// Events recorded in a capture: the capture and the recording stream's nodes then.
    events: HashMap<usize, (usize, Vec<usize>)>,
}

static CAPTURES: Mutex<Option<Captures>> = Mutex::new(None);
/// How many streams capture (read without the lock on every submission).
static CAPTURING: AtomicUsize = AtomicUsize::new(0);

/// Whether any stream captures.
#[inline]
pub fn any_capturing() -> bool {
    CAPTURING.load(Ordering::Acquire) != 0
}

fn publish(captures: &Captures) {
    CAPTURING.store(captures.streams.len(), Ordering::Release);
}

/// Runs `f` on the capture `stream` takes part in, if it does.
fn with_capture<T>(stream: *mut c_void, f: impl FnOnce(&mut Capture, usize) -> T) -> Option<T> {
    if CAPTURING.load(Ordering::Acquire) == 0 {
        return None;
    }
    let mut captures = lock(&CAPTURES);
    let captures = captures.as_mut()?;
    let id = *captures.streams.get(&(stream as usize))?;
    captures
        .by_id
        .get_mut(&id)
        .map(|capture| f(capture, stream as usize))
}

impl Capture {
    /// Adds a node after the stream's last nodes and makes it the stream's last node.
    fn push(&mut self, stream: usize, kind: NodeKind) -> CudaResult {
        if let Some(why) = &self.invalidated {
            return Err(CudaError::new(CAPTURE_INVALIDATED, why.clone()));
        }
        let deps = self.frontier.get(&stream).cloned().unwrap_or_default();
        let handle = next_handle();
        let index = self.model.add(kind, deps, handle);
        register_node(handle, self.graph, index);
        self.frontier.insert(stream, vec![index]);
        Ok(())
    }
}

/// Refuses work on a capturing stream that capture does not record (and invalidates the
/// capture); one atomic load while nothing captures.
pub fn refuse_if_capturing(stream: usize) -> CudaResult {
    let refused = with_capture(stream as *mut c_void, |capture, _| {
        let why = "the stream is capturing, and this operation cannot be captured (a \
                   synchronization or query, a stream callback, or work chevron does not record): \
                   the capture is invalidated";
        capture.invalidated.get_or_insert_with(|| why.to_string());
        CudaError::new(CAPTURE_UNSUPPORTED, why)
    });
    refused.map_or(Ok(()), Err)
}

/// Records a launch on a capturing stream; `None` when `stream` does not capture.
///
/// # Safety
/// `args` as for [`crate::launch::launch`].
pub unsafe fn capture_launch(
    entry: &KernelEntry,
    (grid, block, shared): (Dim3, Dim3, usize),
    cluster: [u32; 3],
    args: *mut *mut c_void,
    stream: *mut c_void,
) -> Option<CudaResult> {
    with_capture(stream, |capture, key| {
        if cluster != [1, 1, 1] {
            capture.invalidated = Some("a cluster launch was submitted".into());
            return Err(CudaError::new(
                CAPTURE_UNSUPPORTED,
                "cluster launches are not captured (the capture is invalidated)",
            ));
        }
        let config = crate::launch::launch_config(grid, block, shared)?;
        // SAFETY: forwarded from the caller.
        let launch = unsafe {
            super::nodes::kernel_launch(
                entry,
                0,
                config,
                capture.ordinal,
                capture.stream.device(),
                args,
            )
        }?;
        capture.push(key, NodeKind::Kernel(Box::new(launch)))
    })
}

/// Records a driver-API launch of `func` (whose kernel is `kernel`) on a capturing stream;
/// `None` when `stream` does not capture.
///
/// # Safety
/// `args` holds one readable pointer per kernel parameter.
pub unsafe fn capture_direct_launch(
    kernel: &chevron::Kernel,
    func: usize,
    config: chevron::LaunchConfig,
    args: *mut *mut c_void,
    stream: *mut c_void,
) -> Option<CudaResult> {
    with_capture(stream, |capture, key| {
        // SAFETY: forwarded from the caller.
        let launch = unsafe {
            super::nodes::direct_launch(kernel, func, config, capture.stream.device(), args)
        }?;
        capture.push(key, NodeKind::Kernel(Box::new(launch)))
    })
}

/// Records `cudaMemsetAsync` on a capturing stream; `None` when `stream` does not capture.
pub fn capture_memset(
    stream: *mut c_void,
    dst: u64,
    value: c_int,
    bytes: usize,
) -> Option<CudaResult> {
    capture_fill(stream, dst, u32::from(value as u8), 1, bytes as u64)
}

/// Records a fill of `count` elements of `element_bytes` (1, 2 or 4) bytes on a capturing
/// stream (the driver's `cuMemsetD*Async`); `None` when `stream` does not capture.
pub fn capture_fill(
    stream: *mut c_void,
    dst: u64,
    value: u32,
    element_bytes: u32,
    count: u64,
) -> Option<CudaResult> {
    with_capture(stream, |capture, key| {
        let kind = NodeKind::Memset {
            dst,
            value,
            element_bytes,
            count,
            pitch: count * u64::from(element_bytes),
            rows: 1,
        };
        capture.push(key, kind)
    })
}

/// `cudaMemcpyDefault`: the kind of a captured copy (its sides are classified by address).
const COPY_DEFAULT: c_int = 4;

/// Records `cudaMemcpyAsync` on a capturing stream (the host side is read or written when the
/// graph runs, as CUDA does); `None` when `stream` does not capture.
pub fn capture_copy(stream: *mut c_void, dst: u64, src: u64, bytes: usize) -> Option<CudaResult> {
    with_capture(stream, |capture, key| {
        if bytes > 0 && (dst == 0 || src == 0) {
            return Err(CudaError::new(INVALID_VALUE, "a NULL pointer"));
        }
        let kind = NodeKind::linear_copy(dst, src, bytes, COPY_DEFAULT);
        capture.push(key, kind)
    })
}

/// Records `cudaLaunchHostFunc` on a capturing stream; `None` when `stream` does not capture.
pub fn capture_host(
    stream: *mut c_void,
    function: unsafe extern "C" fn(*mut c_void),
    user_data: *mut c_void,
) -> Option<CudaResult> {
    with_capture(stream, |capture, key| {
        let kind = NodeKind::Host {
            function,
            user_data: user_data as usize,
        };
        capture.push(key, kind)
    })
}

/// Records `cudaMallocAsync` on a capturing stream as an allocation node of the capture's
/// device (its memory made now, at the address returned); `None` when `stream` does not
/// capture.
pub fn capture_alloc(stream: *mut c_void, bytes: usize) -> Option<CudaResult<u64>> {
    with_capture(stream, |capture, key| {
        let allocation = super::memory_nodes::device_allocation(capture.ordinal, bytes)?;
        let address = allocation.address;
        capture.push(key, NodeKind::MemAlloc(allocation))?;
        Ok(address)
    })
}

/// Records `cudaFreeAsync` on a capturing stream as a free node: of memory an allocation node
/// of the capture made and no free node frees yet (else the capture is invalidated);
/// `None` when `stream` does not capture.
pub fn capture_free(stream: *mut c_void, ptr: u64) -> Option<CudaResult> {
    with_capture(stream, |capture, key| {
        if !super::memory_nodes::freeable(&capture.model, ptr) {
            let why = "cudaFreeAsync in a capture of memory the capture did not allocate (or \
                       freed already)";
            capture.invalidated.get_or_insert_with(|| why.to_string());
            return Err(CudaError::new(CAPTURE_UNSUPPORTED, why));
        }
        capture.push(key, NodeKind::MemFree(ptr))
    })
}

/// Records a `cudaGraphLaunch` on a capturing stream as a child graph node.
pub(crate) fn capture_graph(stream: *mut c_void, model: &Model) -> Option<CudaResult> {
    with_capture(stream, |capture, key| {
        capture.push(key, NodeKind::Child(ChildGraph::new(model.detached())))
    })
}

/// Records `cudaEventRecord` on a capturing stream: the event then stands for the stream's
/// last nodes. `None` when `stream` does not capture (and the event, re-recorded outside a
/// capture, stands for no capture's nodes any more).
pub fn capture_event_record(event: *mut c_void, stream: *mut c_void) -> Option<CudaResult> {
    if CAPTURING.load(Ordering::Acquire) == 0 {
        return None;
    }
    let mut captures = lock(&CAPTURES);
    let captures = captures.as_mut()?;
    let Some(&id) = captures.streams.get(&(stream as usize)) else {
        captures.events.remove(&(event as usize));
        return None;
    };
    if let Err(error) = crate::streams::event_token(event) {
        return Some(Err(error));
    }
    let nodes = captures.by_id[&id]
        .frontier
        .get(&(stream as usize))
        .cloned()
        .unwrap_or_default();
    captures.events.insert(event as usize, (id, nodes));
    Some(Ok(()))
}

/// Records `cudaEventRecordWithFlags(.., cudaEventRecordExternal)` on a capturing stream: an
/// event record node after the stream's last nodes. `None` when `stream` does not capture.
pub fn capture_event_record_node(event: *mut c_void, stream: *mut c_void) -> Option<CudaResult> {
    with_capture(stream, |capture, key| {
        capture.push(key, NodeKind::EventRecord(event as usize))
    })
}

/// Records `cudaStreamWaitEvent` for an event recorded in a capture, or on a capturing
/// stream: a stream outside the capture joins it (a fork), a stream in it gains the event's
/// nodes as dependencies (a join). `None` when neither the stream nor the event takes part in
/// a capture.
pub fn capture_event_wait(stream: *mut c_void, event: *mut c_void) -> Option<CudaResult> {
    if CAPTURING.load(Ordering::Acquire) == 0 {
        return None;
    }
    let mut guard = lock(&CAPTURES);
    let captures = guard.as_mut()?;
    let key = stream as usize;
    let waiting_in = captures.streams.get(&key).copied();
    let Some((id, nodes)) = captures.events.get(&(event as usize)).cloned() else {
        let id = waiting_in?;
        let capture = captures.by_id.get_mut(&id)?;
        let why = "a capturing stream waited for an event recorded outside the capture";
        capture.invalidated.get_or_insert_with(|| why.to_string());
        return Some(Err(CudaError::new(CAPTURE_ISOLATION, why)));
    };
    let result = match waiting_in {
        Some(other) if other != id => Err(CudaError::new(
            CAPTURE_MERGE,
            "the stream takes part in another capture: captures cannot be merged",
        )),
        Some(_) => {
            let capture = captures.by_id.get_mut(&id)?;
            let deps = capture.frontier.entry(key).or_default();
            for node in nodes {
                if !deps.contains(&node) {
                    deps.push(node);
                }
            }
            Ok(())
        }
        None => {
            let joined = match key {
                0 | STREAM_LEGACY | STREAM_PER_THREAD => Err(CudaError::new(
                    CAPTURE_UNSUPPORTED,
                    "a default stream cannot join a capture",
                )),
                _ => state::created_stream(stream).map(drop),
            };
            joined.map(|()| {
                let capture = captures.by_id.get_mut(&id).expect("a live capture");
                capture.frontier.insert(key, nodes);
                captures.streams.insert(key, id);
            })
        }
    };
    publish(captures);
    Some(result)
}

/// Starts capturing the work submitted to `stream` (a stream made by `cudaStreamCreate*`).
/// Every mode (`cudaStreamCaptureModeGlobal`, `ThreadLocal`, `Relaxed`) is taken: chevron
/// never refuses another thread's calls during a capture.
#[no_mangle]
pub extern "C" fn cudaStreamBeginCapture(stream: *mut c_void, mode: c_int) -> cudaError_t {
    guard("cudaStreamBeginCapture", || begin(stream, mode, None))
}

/// Starts capturing the work submitted to `stream` into the existing `graph`, the first
/// captured node depending on the `count` nodes at `deps` (default edges only); the graph
/// holds the captured nodes once `cudaStreamEndCapture` succeeds.
///
/// # Safety
/// `deps` and `edge_data` are NULL or valid for `count` reads.
#[no_mangle]
pub unsafe extern "C" fn cudaStreamBeginCaptureToGraph(
    stream: *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    edge_data: *const [u8; 8],
    count: usize,
    mode: c_int,
) -> cudaError_t {
    guard("cudaStreamBeginCaptureToGraph", || {
        state::ordinal_of(stream)?; // The stream first, as CUDA reports it.
        let model = lock(&*super::find_graph(graph)?).clone();
        // SAFETY: forwarded from the caller.
        let nodes = unsafe { node_indices(&model, deps, edge_data, count) }?;
        begin(stream, mode, Some((graph as usize, model, nodes)))
    })
}

/// The indices in `model` of the `count` node handles at `deps`, each at most once, their
/// edges default ones.
///
/// # Safety
/// `deps` and `edge_data` are NULL or valid for `count` reads.
unsafe fn node_indices(
    model: &Model,
    deps: *const *mut c_void,
    edge_data: *const [u8; 8],
    count: usize,
) -> CudaResult<Vec<usize>> {
    check_list(deps, count)?;
    // SAFETY: forwarded from the caller.
    unsafe { super::nodes::default_edges(edge_data, count) }?;
    // SAFETY: forwarded from the caller.
    unsafe { indices_of(model, deps, count) }
}

/// Begins a capture on `stream`: into a new graph, or into the graph `into` (its handle, a
/// copy of its model, the first node's dependencies there).
fn begin(stream: *mut c_void, mode: c_int, into: Option<(usize, Model, Vec<usize>)>) -> CudaResult {
    if !(0..=2).contains(&mode) {
        return Err(CudaError::new(
            INVALID_VALUE,
            format!("cudaStreamCaptureMode {mode}"),
        ));
    }
    if matches!(stream as usize, 0 | STREAM_LEGACY | STREAM_PER_THREAD) {
        return Err(CudaError::new(
            CAPTURE_UNSUPPORTED,
            "chevron captures streams made by cudaStreamCreate, not the default streams",
        ));
    }
    let (ordinal, chevron_stream) = state::created_stream(stream)?;
    super::capture_hook::install();
    let mut captures = lock(&CAPTURES);
    let captures = captures.get_or_insert_with(Captures::default);
    if captures.streams.contains_key(&(stream as usize)) {
        return Err(CudaError::new(
            ILLEGAL_STATE,
            "the stream is already capturing",
        ));
    }
    let id = stream as usize;
    let (graph, model, first, into) = match into {
        Some((graph, model, first)) => {
            let nodes = model.nodes.len();
            (graph, model, first, Some(nodes))
        }
        None => (next_handle(), Model::default(), Vec::new(), None),
    };
    let capture = Capture {
        origin: id,
        ordinal,
        stream: chevron_stream,
        graph,
        model,
        frontier: HashMap::from([(id, first)]),
        reported: HashMap::new(),
        invalidated: None,
        into,
    };
    captures.by_id.insert(id, capture);
    captures.streams.insert(id, id);
    publish(captures);
    Ok(())
}

/// Adds to (`flags` `cudaStreamAddCaptureDependencies`, 0) or replaces
/// (`cudaStreamSetCaptureDependencies`, 1) the nodes the next work captured on `stream`
/// depends on: `count` nodes of the capture's graph at `deps` (default edges only).
///
/// # Safety
/// `deps` and `edge_data` are NULL or valid for `count` reads.
#[no_mangle]
pub unsafe extern "C" fn cudaStreamUpdateCaptureDependencies(
    stream: *mut c_void,
    deps: *mut *mut c_void,
    edge_data: *const [u8; 8],
    count: usize,
    flags: c_uint,
) -> cudaError_t {
    guard("cudaStreamUpdateCaptureDependencies", || {
        if flags > 1 {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!("flags {flags} (cudaStreamAddCaptureDependencies or Set)"),
            ));
        }
        check_list(deps, count)?;
        let updated = with_capture(stream, |capture, key| {
            // SAFETY: forwarded from the caller.
            let nodes = unsafe { node_indices(&capture.model, deps, edge_data, count) }?;
            let frontier = capture.frontier.entry(key).or_default();
            if flags == 1 {
                frontier.clear();
            }
            for node in nodes {
                if !frontier.contains(&node) {
                    frontier.push(node);
                }
            }
            Ok(())
        });
        updated.unwrap_or_else(|| {
            state::ordinal_of(stream)?; // A live stream.
            Err(CudaError::new(ILLEGAL_STATE, "the stream is not capturing"))
        })
    })
}

/// Removes capture `id` and every stream and event taking part in it.
fn end(captures: &mut Captures, id: usize) -> Option<Capture> {
    captures.streams.retain(|_, capture| *capture != id);
    captures.events.retain(|_, (capture, _)| *capture != id);
    publish(captures);
    captures.by_id.remove(&id)
}

/// Drops the captures of `streams` (destroyed, or forgotten by `cudaDeviceReset`): a stream
/// that no longer exists captures nothing, and a capture whose origin is gone ends.
pub fn forget_captures(streams: &[usize]) {
    if CAPTURING.load(Ordering::Acquire) == 0 {
        return;
    }
    if let Some(captures) = lock(&CAPTURES).as_mut() {
        for stream in streams {
            if captures.by_id.contains_key(stream) {
                end(captures, *stream);
            } else if let Some(id) = captures.streams.remove(stream) {
                let capture = captures.by_id.get_mut(&id).expect("a live capture");
                capture.invalidated = Some("a stream taking part in it was destroyed".into());
            }
        }
        publish(captures);
    }
}

/// Ends the capture begun on `stream` and writes the captured graph to `graph`.
///
/// # Safety
/// `graph` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaStreamEndCapture(
    stream: *mut c_void,
    graph: *mut *mut c_void,
) -> cudaError_t {
    guard("cudaStreamEndCapture", || {
        if graph.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "pGraph is NULL"));
        }
        // A handle that is no stream at all is that, not a stream that does not capture.
        crate::state::ordinal_of(stream)?;
        let mut guard = lock(&CAPTURES);
        let captures = guard
            .as_mut()
            .ok_or_else(|| CudaError::new(ILLEGAL_STATE, "the stream is not capturing"))?;
        match captures.streams.get(&(stream as usize)) {
            None => return Err(CudaError::new(ILLEGAL_STATE, "the stream is not capturing")),
            Some(&id) if id != stream as usize => {
                let capture = captures.by_id.get_mut(&id).expect("a live capture");
                capture.invalidated = Some("cudaStreamEndCapture on a forked stream".into());
                return Err(CudaError::new(
                    CAPTURE_UNMATCHED,
                    "the capture began on another stream: end it there",
                ));
            }
            Some(_) => {}
        }
        let capture = end(captures, stream as usize).expect("a live capture");
        drop(guard);
        let unjoined = unjoined_stream(&capture);
        let failure = match (&capture.invalidated, unjoined) {
            (Some(why), _) => Some(CudaError::new(CAPTURE_INVALIDATED, why.clone())),
            (None, Some(other)) => Some(CudaError::new(
                CAPTURE_UNJOINED,
                format!(
                    "stream {other:#x} forked from the capture and was not joined back into \
                     the origin stream"
                ),
            )),
            (None, None) => None,
        };
        if let Some(error) = failure {
            // The nodes captured (a graph captured into keeps its own).
            for node in &capture.model.nodes[capture.into.unwrap_or(0)..] {
                super::forget_node(node.handle);
            }
            if !graph.is_null() {
                // SAFETY: non-NULL and writable (caller).
                unsafe { graph.write(std::ptr::null_mut()) };
            }
            return Err(error);
        }
        match capture.into {
            Some(_) => {
                let into = capture.graph as *mut c_void;
                *lock(&*super::find_graph(into)?) = capture.model;
            }
            None => register_graph(capture.graph, capture.model),
        }
        store(graph, capture.graph as *mut c_void, "pGraph")
    })
}

/// A stream that forked from the capture and whose last nodes the origin's last nodes do not
/// depend on.
fn unjoined_stream(capture: &Capture) -> Option<usize> {
    let origin = capture.frontier.get(&capture.origin)?;
    let joined = capture.model.ancestors(origin);
    capture
        .frontier
        .iter()
        .find(|(_, nodes)| nodes.iter().any(|&n| !joined[n]))
        .map(|(&stream, _)| stream)
}

/// The capture status of `stream`: 0 none, 1 active, 2 invalidated.
fn status_of(stream: *mut c_void) -> CudaResult<c_int> {
    let status = with_capture(stream, |c, _| if c.invalidated.is_some() { 2 } else { 1 });
    match status {
        Some(status) => Ok(status),
        None => {
            state::ordinal_of(stream)?; // A live stream.
            Ok(0)
        }
    }
}

/// Writes whether `stream` captures (`cudaStreamCaptureStatus`: 0 no, 1 yes, 2 invalidated).
///
/// # Safety
/// `status` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaStreamIsCapturing(
    stream: *mut c_void,
    status: *mut c_int,
) -> cudaError_t {
    guard("cudaStreamIsCapturing", || {
        store(status, status_of(stream)?, "pCaptureStatus")
    })
}

/// Writes the capture status of `stream` and, while it captures, the capture's id, graph, and
/// the stream's current dependencies (valid until the next call for the stream); edge data is
/// always NULL (default edges only).
///
/// # Safety
/// Every out-pointer is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaStreamGetCaptureInfo(
    stream: *mut c_void,
    status_out: *mut c_int,
    id_out: *mut c_ulonglong,
    graph_out: *mut *mut c_void,
    deps_out: *mut *const *mut c_void,
    edge_data_out: *mut *const c_void,
    count_out: *mut usize,
) -> cudaError_t {
    guard("cudaStreamGetCaptureInfo", || {
        let status = status_of(stream)?;
        store(status_out, status, "captureStatus_out")?;
        let info = with_capture(stream, |capture, key| {
            let handles: Box<[usize]> = capture.frontier[&key]
                .iter()
                .map(|&n| capture.model.nodes[n].handle)
                .collect();
            let reported = capture.reported.entry(key).or_default();
            *reported = handles;
            (
                capture.origin as c_ulonglong,
                capture.graph,
                reported.as_ptr(),
                reported.len(),
            )
        });
        let (id, graph, deps, count) = info.unwrap_or((0, 0, std::ptr::null(), 0));
        // SAFETY: each is NULL or writable (caller).
        unsafe {
            if let Some(out) = id_out.as_mut() {
                *out = id;
            }
            if let Some(out) = graph_out.as_mut() {
                *out = graph as *mut c_void;
            }
            if let Some(out) = deps_out.as_mut() {
                *out = deps.cast();
            }
            if let Some(out) = edge_data_out.as_mut() {
                *out = std::ptr::null();
            }
            if let Some(out) = count_out.as_mut() {
                *out = count;
            }
        }
        Ok(())
    })
}
