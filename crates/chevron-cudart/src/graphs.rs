//! Stream capture and CUDA graphs over chevron graphs: `cudaStreamBeginCapture`,
//! `cudaStreamEndCapture`, `cudaStreamIsCapturing`, `cudaGraphGetNodes`,
//! `cudaGraphInstantiate(WithFlags)`, `cudaGraphLaunch`, `cudaGraphExecKernelNodeSetParams`,
//! `cudaGraphDestroy` and `cudaGraphExecDestroy`.
//!
//! While a stream created by `cudaStreamCreate*` captures, kernel launches and
//! `cudaMemsetAsync` on it are recorded (argument values copied at the call, as CUDA does);
//! anything else submitted to it, or a synchronization of it, is refused with
//! `cudaErrorStreamCaptureUnsupported` and invalidates the capture, which `cudaStreamEndCapture`
//! then reports as `cudaErrorStreamCaptureInvalidated`. Instantiation records the captured work
//! into a [`chevron::Graph`] (checked like launches: errors name the kernel and parameter);
//! node parameter updates change argument values (not the kernel or its configuration). Not
//! captured: the legacy and per-thread default streams, copies, events, host functions, cluster
//! launches; host-mapped memory in arguments is passed as the address given.

use std::collections::HashMap;
use std::ffi::{c_int, c_ulonglong, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use chevron::{Graph, Kernel, KernelArg, LaunchConfig, NodeId, Stream};

use crate::abi::{cudaKernelNodeParams, Dim3};
use crate::errors::{cudaError_t, guard, CudaError, CudaResult, ILLEGAL_STATE, INVALID_VALUE};
use crate::memory::store;
use crate::registry::{self, FatBinary, KernelEntry};
use crate::state::{self, lock, STREAM_LEGACY, STREAM_PER_THREAD};

/// `cudaErrorStreamCaptureUnsupported`.
pub const CAPTURE_UNSUPPORTED: cudaError_t = 900;
/// `cudaErrorStreamCaptureInvalidated`.
pub const CAPTURE_INVALIDATED: cudaError_t = 901;

/// An argument value copied at the call.
struct Value(Box<[u8]>);

// SAFETY: the pointer is to the box's `len()` bytes, alive while `self` is borrowed.
unsafe impl KernelArg for Value {
    fn arg_ptr(&self) -> *mut c_void {
        self.0.as_ptr() as *mut c_void
    }
    fn arg_size(&self) -> usize {
        self.0.len()
    }
    fn arg_type_name(&self) -> &'static str {
        "a captured argument"
    }
}

/// Copies one value per parameter of `kernel` from `args`, after checking every pointer
/// ([`crate::launch::argument_pointers`]).
///
/// # Safety
/// `args` is NULL or holds one pointer per parameter, each NULL or to a value of its size.
unsafe fn copy_values(kernel: &Kernel, args: *mut *mut c_void) -> CudaResult<Vec<Value>> {
    let params = kernel.params().unwrap_or(&[]);
    // SAFETY: forwarded from the caller.
    let pointers =
        unsafe { crate::launch::argument_pointers(kernel.display_name(), params, args) }?;
    Ok(params
        .iter()
        .zip(pointers)
        .map(|(param, &pointer)| {
            // SAFETY: non-NULL (checked), and reads a value of its parameter's size (caller).
            let bytes =
                unsafe { std::slice::from_raw_parts(pointer.cast::<u8>(), param.size as usize) };
            Value(bytes.into())
        })
        .collect())
}

fn as_args(values: &[Value]) -> Vec<&dyn KernelArg> {
    values.iter().map(|v| v as &dyn KernelArg).collect()
}

/// One captured operation.
enum Captured {
    Launch {
        /// The fatbin and name of the registered kernel (what `func` resolves to).
        fatbin: Arc<FatBinary>,
        name: String,
        kernel: Kernel,
        config: LaunchConfig,
        values: Vec<Value>,
    },
    Memset {
        dst: u64,
        value: u8,
        bytes: u64,
    },
}

/// A stream's capture in progress.
struct Capture {
    stream: Stream,
    ordinal: usize,
    operations: Vec<Captured>,
    /// Why the capture was invalidated, if it was.
    invalidated: Option<String>,
}

/// Captures in progress, by `cudaStream_t`.
static CAPTURES: Mutex<Option<HashMap<usize, Capture>>> = Mutex::new(None);
/// How many there are (read without the lock on the launch path).
static CAPTURING: AtomicUsize = AtomicUsize::new(0);

/// A captured graph (`cudaGraph_t`).
struct CapturedGraph {
    stream: Stream,
    operations: Vec<Captured>,
    /// One byte per node: the node handles are their addresses.
    node_handles: Box<[u8]>,
}

impl CapturedGraph {
    fn node_index(&self, node: *mut c_void) -> Option<usize> {
        let offset = (node as usize).checked_sub(self.node_handles.as_ptr() as usize)?;
        (offset < self.node_handles.len()).then_some(offset)
    }
}

/// An instantiated graph (`cudaGraphExec_t`).
struct Exec {
    captured: Arc<CapturedGraph>,
    graph: Mutex<Graph>,
}

type Registry<T> = Mutex<Option<HashMap<usize, Arc<T>>>>;
static GRAPHS: Registry<CapturedGraph> = Mutex::new(None);
static EXECS: Registry<Exec> = Mutex::new(None);

fn register<T>(registry: &Registry<T>, value: T) -> *mut c_void {
    let value = Arc::new(value);
    let key = Arc::as_ptr(&value) as usize;
    lock(registry)
        .get_or_insert_with(HashMap::new)
        .insert(key, value);
    key as *mut c_void
}

fn find<T>(registry: &Registry<T>, handle: *mut c_void, what: &str) -> CudaResult<Arc<T>> {
    lock(registry)
        .as_ref()
        .and_then(|r| r.get(&(handle as usize)).cloned())
        .ok_or_else(|| bad_handle(handle, what))
}

fn remove<T>(registry: &Registry<T>, handle: *mut c_void, what: &str) -> CudaResult {
    lock(registry)
        .as_mut()
        .and_then(|r| r.remove(&(handle as usize)))
        .map(drop)
        .ok_or_else(|| bad_handle(handle, what))
}

fn bad_handle(handle: *mut c_void, what: &str) -> CudaError {
    CudaError::new(INVALID_VALUE, format!("{handle:p} is not a live {what}"))
}

/// Runs `f` on the capture of `stream`, if it captures.
fn with_capture<T>(stream: *mut c_void, f: impl FnOnce(&mut Capture) -> T) -> Option<T> {
    if CAPTURING.load(Ordering::Acquire) == 0 {
        return None;
    }
    lock(&CAPTURES)
        .as_mut()
        .and_then(|c| c.get_mut(&(stream as usize)))
        .map(f)
}

/// Refuses work on a capturing stream that capture does not record (and invalidates the
/// capture); one atomic load while nothing captures.
pub fn refuse_if_capturing(stream: usize) -> CudaResult {
    let refused = with_capture(stream as *mut c_void, |capture| {
        let why = "the stream is capturing, and chevron captures only kernel launches and \
                   cudaMemsetAsync (the capture is invalidated)";
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
    with_capture(stream, |capture| {
        if cluster != [1, 1, 1] {
            return Err(CudaError::new(
                CAPTURE_UNSUPPORTED,
                "cluster launches are not captured",
            ));
        }
        let config = crate::launch::launch_config(grid, block, shared)?;
        let kernel = entry.kernel(capture.ordinal)?.clone();
        kernel.check_config(capture.stream.device(), &config)?;
        // SAFETY: forwarded from the caller.
        let values = unsafe { copy_values(&kernel, args) }?;
        capture.operations.push(Captured::Launch {
            fatbin: Arc::clone(&entry.fatbin),
            name: entry.name.clone(),
            kernel,
            config,
            values,
        });
        Ok(())
    })
}

/// Records `cudaMemsetAsync` on a capturing stream; `None` when `stream` does not capture.
pub fn capture_memset(
    stream: *mut c_void,
    dst: u64,
    value: c_int,
    bytes: usize,
) -> Option<CudaResult> {
    with_capture(stream, |capture| {
        capture.operations.push(Captured::Memset {
            dst,
            value: value as u8,
            bytes: bytes as u64,
        });
        Ok(())
    })
}

/// Starts capturing the work submitted to `stream` (a stream made by `cudaStreamCreate*`).
#[no_mangle]
pub extern "C" fn cudaStreamBeginCapture(stream: *mut c_void, mode: c_int) -> cudaError_t {
    let _ = mode; // Capture is per stream: other threads' calls are never affected.
    guard("cudaStreamBeginCapture", || {
        if matches!(stream as usize, 0 | STREAM_LEGACY | STREAM_PER_THREAD) {
            return Err(CudaError::new(
                CAPTURE_UNSUPPORTED,
                "chevron captures streams made by cudaStreamCreate, not the default streams",
            ));
        }
        let (ordinal, chevron_stream) = state::created_stream(stream)?;
        let mut captures = lock(&CAPTURES);
        let captures = captures.get_or_insert_with(HashMap::new);
        if captures.contains_key(&(stream as usize)) {
            return Err(CudaError::new(
                ILLEGAL_STATE,
                "the stream is already capturing",
            ));
        }
        captures.insert(
            stream as usize,
            Capture {
                stream: chevron_stream,
                ordinal,
                operations: Vec::new(),
                invalidated: None,
            },
        );
        CAPTURING.fetch_add(1, Ordering::AcqRel);
        Ok(())
    })
}

/// Drops the captures of `streams` (destroyed, or forgotten by `cudaDeviceReset`): a stream
/// that no longer exists captures nothing.
pub fn forget_captures(streams: &[usize]) {
    if CAPTURING.load(Ordering::Acquire) == 0 {
        return;
    }
    if let Some(captures) = lock(&CAPTURES).as_mut() {
        for stream in streams {
            if captures.remove(stream).is_some() {
                CAPTURING.fetch_sub(1, Ordering::AcqRel);
            }
        }
    }
}

/// Ends the capture of `stream` and writes the captured graph to `graph`.
///
/// # Safety
/// `graph` is NULL (`cudaErrorInvalidValue`) or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaStreamEndCapture(
    stream: *mut c_void,
    graph: *mut *mut c_void,
) -> cudaError_t {
    guard("cudaStreamEndCapture", || {
        if graph.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "pGraph is NULL"));
        }
        let capture = lock(&CAPTURES)
            .as_mut()
            .and_then(|c| c.remove(&(stream as usize)))
            .ok_or_else(|| CudaError::new(ILLEGAL_STATE, "the stream is not capturing"))?;
        CAPTURING.fetch_sub(1, Ordering::AcqRel);
        if let Some(why) = capture.invalidated {
            // SAFETY: non-NULL (checked) and writable (caller).
            unsafe { graph.write(std::ptr::null_mut()) };
            return Err(CudaError::new(CAPTURE_INVALIDATED, why));
        }
        let nodes = capture.operations.len();
        let handle = register(
            &GRAPHS,
            CapturedGraph {
                stream: capture.stream,
                operations: capture.operations,
                node_handles: vec![0u8; nodes.max(1)].into_boxed_slice(),
            },
        );
        store(graph, handle, "pGraph")
    })
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
        let capturing = with_capture(stream, |c| if c.invalidated.is_some() { 2 } else { 1 });
        let status_value = match capturing {
            Some(value) => value,
            None => {
                state::plain_stream(stream)?; // A live stream.
                0
            }
        };
        store(status, status_value, "pCaptureStatus")
    })
}

/// Writes the nodes of `graph` (capture order) to `nodes` (at most `*count`), or their number
/// to `*count` when `nodes` is NULL.
///
/// # Safety
/// `count` is valid for a read and a write; `nodes` is NULL or valid for `*count` writes.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphGetNodes(
    graph: *mut c_void,
    nodes: *mut *mut c_void,
    count: *mut usize,
) -> cudaError_t {
    guard("cudaGraphGetNodes", || {
        let graph = find(&GRAPHS, graph, "cudaGraph_t")?;
        if count.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "numNodes is NULL"));
        }
        let total = graph.operations.len();
        if nodes.is_null() {
            return store(count, total, "numNodes");
        }
        // SAFETY: readable (caller).
        let room = unsafe { count.read() };
        for index in 0..room {
            let node = if index < total {
                // SAFETY: within the node handle bytes.
                unsafe { graph.node_handles.as_ptr().add(index) as *mut c_void }
            } else {
                std::ptr::null_mut()
            };
            // SAFETY: `room` writable slots (caller).
            unsafe { nodes.add(index).write(node) };
        }
        store(count, room.min(total), "numNodes")
    })
}

fn instantiate(out: *mut *mut c_void, graph: *mut c_void) -> CudaResult {
    if out.is_null() {
        return Err(CudaError::new(INVALID_VALUE, "pGraphExec is NULL"));
    }
    let captured = find(&GRAPHS, graph, "cudaGraph_t")?;
    let graph = captured.stream.record(|recorder| {
        for operation in &captured.operations {
            match operation {
                Captured::Launch {
                    kernel,
                    config,
                    values,
                    ..
                } => recorder.launch(kernel, *config, as_args(values).as_slice())?,
                &Captured::Memset { dst, value, bytes } => {
                    recorder.memset_at(dst, u32::from(value), 1, bytes)?
                }
            };
        }
        Ok(())
    })?;
    let exec = register(
        &EXECS,
        Exec {
            captured,
            graph: Mutex::new(graph),
        },
    );
    store(out, exec, "pGraphExec")
}

/// Instantiates `graph` (flags are ignored: chevron graphs have none).
#[no_mangle]
pub extern "C" fn cudaGraphInstantiate(
    exec: *mut *mut c_void,
    graph: *mut c_void,
    flags: c_ulonglong,
) -> cudaError_t {
    let _ = flags;
    guard("cudaGraphInstantiate", || instantiate(exec, graph))
}

/// As [`cudaGraphInstantiate`].
#[no_mangle]
pub extern "C" fn cudaGraphInstantiateWithFlags(
    exec: *mut *mut c_void,
    graph: *mut c_void,
    flags: c_ulonglong,
) -> cudaError_t {
    let _ = flags;
    guard("cudaGraphInstantiateWithFlags", || instantiate(exec, graph))
}

/// Replays `exec` on `stream` as one submission.
#[no_mangle]
pub extern "C" fn cudaGraphLaunch(exec: *mut c_void, stream: *mut c_void) -> cudaError_t {
    guard("cudaGraphLaunch", || {
        let exec = find(&EXECS, exec, "cudaGraphExec_t")?;
        let (_, stream) = state::submit_stream(stream)?;
        lock(&exec.graph).launch(&stream, &[])?;
        Ok(())
    })
}

/// Gives kernel node `node` of `exec` new argument values (same kernel and configuration).
///
/// # Safety
/// `params` is NULL or points to valid parameters whose `kernelParams` holds one readable
/// pointer per kernel parameter.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphExecKernelNodeSetParams(
    exec: *mut c_void,
    node: *mut c_void,
    params: *const cudaKernelNodeParams,
) -> cudaError_t {
    guard("cudaGraphExecKernelNodeSetParams", || {
        let exec = find(&EXECS, exec, "cudaGraphExec_t")?;
        // SAFETY: NULL or valid (caller).
        let params = unsafe { params.as_ref() }
            .ok_or_else(|| CudaError::new(INVALID_VALUE, "pNodeParams is NULL"))?;
        let index = exec
            .captured
            .node_index(node)
            .filter(|&i| i < exec.captured.operations.len())
            .ok_or_else(|| bad_handle(node, "node of the graph"))?;
        let Captured::Launch {
            fatbin,
            name,
            kernel,
            config,
            ..
        } = &exec.captured.operations[index]
        else {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!("node {index} is not a kernel node"),
            ));
        };
        let entry = registry::kernel_entry(params.func)?;
        if !Arc::ptr_eq(&entry.fatbin, fatbin) || entry.name != *name {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!(
                    "node {index} launches `{name}`: changing a node's kernel is not supported"
                ),
            ));
        }
        let wanted = LaunchConfig {
            grid: [params.gridDim.x, params.gridDim.y, params.gridDim.z],
            block: [params.blockDim.x, params.blockDim.y, params.blockDim.z],
            shared_bytes: params.sharedMemBytes,
        };
        if wanted != *config || !params.extra.is_null() {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!(
                    "node {index} (`{name}`): only argument values can change (not the grid, \
                     block, shared memory, or `extra` arguments)"
                ),
            ));
        }
        // SAFETY: forwarded from the caller.
        let values = unsafe { copy_values(kernel, params.kernelParams) }?;
        lock(&exec.graph).set_args(NodeId(index), as_args(&values).as_slice())?;
        Ok(())
    })
}

/// Destroys a captured graph (instantiated graphs of it stay valid).
#[no_mangle]
pub extern "C" fn cudaGraphDestroy(graph: *mut c_void) -> cudaError_t {
    guard("cudaGraphDestroy", || remove(&GRAPHS, graph, "cudaGraph_t"))
}

/// Destroys an instantiated graph (replays already submitted complete).
#[no_mangle]
pub extern "C" fn cudaGraphExecDestroy(exec: *mut c_void) -> cudaError_t {
    guard("cudaGraphExecDestroy", || {
        remove(&EXECS, exec, "cudaGraphExec_t")
    })
}
