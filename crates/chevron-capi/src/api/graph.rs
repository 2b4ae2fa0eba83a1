//! Graphs from C: `chevron_graph_begin` starts recording for a stream's device, `_add_*`
//! append launches, copies and fills (checked like the stream's own operations when the
//! recording ends), `chevron_graph_end` instantiates, `chevron_graph_launch` replays after any
//! number of tokens, `chevron_graph_set_args` changes one launch node's arguments. Automatic
//! replay is `chevron_stream_auto_graph`.

use std::ffi::c_void;
use std::sync::{Arc, Mutex};

use chevron::{Buffer, Graph, Kernel, KernelArg, LaunchConfig, NodeId, Stream, Token};

use super::launch::{chevron_arg, chevron_dim3};
use super::{
    chevron_buffer, chevron_kernel, chevron_stream, chevron_token, give_token, handle_of, lookup,
    read_tokens, release, write_out, BUFFERS, GRAPHS, KERNELS, STREAMS,
};
use crate::error::{entry, CapiError, CapiResult};
use crate::status::chevron_status;

/// The opaque object behind [`chevron_graph`].
#[allow(non_camel_case_types)]
pub struct chevron_graph_s {
    _private: [u8; 0],
}
/// A graph: recording between `chevron_graph_begin` and `chevron_graph_end`, launchable after.
/// Release with `chevron_graph_release`.
#[allow(non_camel_case_types)]
pub type chevron_graph = *mut chevron_graph_s;

/// One recorded operation, replayed into a [`chevron::Recorder`] by `chevron_graph_end`.
pub(crate) enum Operation {
    Launch {
        kernel: Kernel,
        config: LaunchConfig,
        values: Vec<Bytes>,
    },
    Fill {
        buffer: Arc<Buffer<u8>>,
        value: u8,
    },
    CopyToDevice {
        buffer: Arc<Buffer<u8>>,
        data: Vec<u8>,
    },
}

/// A graph handle's state.
pub(crate) enum GraphState {
    Recording {
        stream: Stream,
        operations: Vec<Operation>,
    },
    Ready(Graph),
    /// `chevron_graph_end` failed: the recording is gone.
    Failed,
}

/// What the registry holds for a graph handle.
pub(crate) type SharedGraph = Arc<Mutex<GraphState>>;

/// An argument value copied from a [`chevron_arg`].
pub(crate) struct Bytes(Vec<u8>);

// SAFETY: the pointer is to the vector's `len()` bytes, alive while `self` is borrowed.
unsafe impl KernelArg for Bytes {
    fn arg_ptr(&self) -> *mut c_void {
        self.0.as_ptr() as *mut c_void
    }
    fn arg_size(&self) -> usize {
        self.0.len()
    }
    fn arg_type_name(&self) -> &'static str {
        "chevron_arg"
    }
}

/// Copies the values of `nargs` arguments.
///
/// # Safety
/// `args` points to `nargs` arguments whose `value`s point to `size` readable bytes.
unsafe fn copy_args(args: *const chevron_arg, nargs: usize) -> CapiResult<Vec<Bytes>> {
    if nargs == 0 {
        return Ok(Vec::new());
    }
    if args.is_null() {
        return Err(CapiError::invalid(format!(
            "`args` is NULL but `nargs` is {nargs}"
        )));
    }
    if !chevron::ffi::c_array_fits::<chevron_arg>(nargs) {
        return Err(CapiError::invalid(format!(
            "`nargs` = {nargs} is not a count"
        )));
    }
    // SAFETY: `nargs` arguments by the caller's contract.
    let args = unsafe { std::slice::from_raw_parts(args, nargs) };
    // Sizes first: no launch takes more than the kernel parameter space, so a larger size is
    // refused before a byte is read or allocated.
    let mut total = 0u64;
    for (i, arg) in args.iter().enumerate() {
        total = total.saturating_add(arg.size as u64);
        if total > chevron::MAX_PARAM_BYTES {
            return Err(CapiError::invalid(format!(
                "argument {i} is {} bytes: a launch's arguments take at most {} bytes together",
                arg.size,
                chevron::MAX_PARAM_BYTES
            )));
        }
    }
    args.iter()
        .enumerate()
        .map(|(i, arg)| {
            if arg.value.is_null() {
                return Err(CapiError::invalid(format!(
                    "argument {i} has a NULL value pointer"
                )));
            }
            // SAFETY: `size` readable bytes by the caller's contract.
            let bytes = unsafe { std::slice::from_raw_parts(arg.value.cast::<u8>(), arg.size) };
            Ok(Bytes(bytes.to_vec()))
        })
        .collect()
}

fn as_args(values: &[Bytes]) -> Vec<&dyn KernelArg> {
    values.iter().map(|v| v as &dyn KernelArg).collect()
}

fn lock(graph: &SharedGraph) -> std::sync::MutexGuard<'_, GraphState> {
    graph
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Appends `operation` to a recording graph and writes its node index to `node` (if not NULL).
///
/// # Safety
/// `node` is NULL or valid for a write.
unsafe fn append(graph: chevron_graph, operation: Operation, node: *mut usize) -> CapiResult<()> {
    let graph = lookup(&GRAPHS, graph)?;
    let mut state = lock(&graph);
    let GraphState::Recording { operations, .. } = &mut *state else {
        return Err(CapiError::invalid(
            "the graph is not recording (chevron_graph_end was called)",
        ));
    };
    operations.push(operation);
    if !node.is_null() {
        // SAFETY: non-null and writable by the caller's contract.
        unsafe { node.write(operations.len() - 1) };
    }
    Ok(())
}

/// Starts recording a graph for the device of `stream` (nothing is submitted to it).
///
/// # Safety
/// `graph` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn chevron_graph_begin(
    stream: chevron_stream,
    graph: *mut chevron_graph,
) -> chevron_status {
    entry("chevron_graph_begin", || {
        let stream = lookup(&STREAMS, stream)?;
        let state = GraphState::Recording {
            stream,
            operations: Vec::new(),
        };
        let handle = handle_of(&GRAPHS, Arc::new(Mutex::new(state)));
        // SAFETY: forwarded from the caller.
        unsafe { write_out(graph, "graph", handle)? };
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Records a launch of `kernel` (arguments copied now; checked against the kernel's
/// parameters when the recording ends). `node` (may be NULL) receives the node's index.
///
/// # Safety
/// As `chevron_launch` for `args`; `node` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn chevron_graph_add_launch(
    graph: chevron_graph,
    kernel: chevron_kernel,
    grid: chevron_dim3,
    block: chevron_dim3,
    shared_bytes: u32,
    args: *const chevron_arg,
    nargs: usize,
    node: *mut usize,
) -> chevron_status {
    entry("chevron_graph_add_launch", || {
        let kernel = lookup(&KERNELS, kernel)?;
        // SAFETY: forwarded from the caller.
        let values = unsafe { copy_args(args, nargs) }?;
        let config = LaunchConfig {
            grid: [grid.x, grid.y, grid.z],
            block: [block.x, block.y, block.z],
            shared_bytes,
        };
        let operation = Operation::Launch {
            kernel,
            config,
            values,
        };
        // SAFETY: forwarded from the caller.
        unsafe { append(graph, operation, node) }?;
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Records a fill of every byte of `buffer` with `value`.
///
/// # Safety
/// `node` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn chevron_graph_add_fill(
    graph: chevron_graph,
    buffer: chevron_buffer,
    value: u8,
    node: *mut usize,
) -> chevron_status {
    entry("chevron_graph_add_fill", || {
        let buffer = lookup(&BUFFERS, buffer)?;
        // SAFETY: forwarded from the caller.
        unsafe { append(graph, Operation::Fill { buffer, value }, node) }?;
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Records a copy of `bytes` bytes from `src` (copied now) into `buffer`, whose size they
/// must equal.
///
/// # Safety
/// `src` points to `bytes` readable bytes; `node` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn chevron_graph_add_copy_to_device(
    graph: chevron_graph,
    buffer: chevron_buffer,
    src: *const c_void,
    bytes: usize,
    node: *mut usize,
) -> chevron_status {
    entry("chevron_graph_add_copy_to_device", || {
        let buffer = lookup(&BUFFERS, buffer)?;
        if src.is_null() && bytes > 0 {
            return Err(CapiError::invalid("`src` is NULL"));
        }
        let data = if bytes == 0 {
            Vec::new()
        } else {
            // SAFETY: `bytes` readable bytes by the caller's contract.
            unsafe { std::slice::from_raw_parts(src.cast::<u8>(), bytes) }.to_vec()
        };
        // SAFETY: forwarded from the caller.
        unsafe { append(graph, Operation::CopyToDevice { buffer, data }, node) }?;
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Ends the recording: checks every operation (errors name the kernel and parameter) and
/// instantiates the graph once. After a failure the graph can only be released.
#[no_mangle]
pub extern "C" fn chevron_graph_end(graph: chevron_graph) -> chevron_status {
    entry("chevron_graph_end", || {
        let graph = lookup(&GRAPHS, graph)?;
        let mut state = lock(&graph);
        let GraphState::Recording { stream, operations } =
            std::mem::replace(&mut *state, GraphState::Failed)
        else {
            return Err(CapiError::invalid("the graph is not recording"));
        };
        let recorded = stream.record(|s| {
            for operation in &operations {
                match operation {
                    Operation::Launch {
                        kernel,
                        config,
                        values,
                    } => s.launch(kernel, *config, as_args(values).as_slice())?,
                    Operation::Fill { buffer, value } => s.fill(buffer, *value)?,
                    Operation::CopyToDevice { buffer, data } => s.copy_to_device(buffer, data)?,
                };
            }
            Ok(())
        })?;
        *state = GraphState::Ready(recorded);
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// The instantiated graph behind a handle.
fn ready<T>(graph: chevron_graph, f: impl FnOnce(&mut Graph) -> CapiResult<T>) -> CapiResult<T> {
    let graph = lookup(&GRAPHS, graph)?;
    let mut state = lock(&graph);
    match &mut *state {
        GraphState::Ready(graph) => f(graph),
        GraphState::Recording { .. } => Err(CapiError::invalid(
            "the graph is still recording (call chevron_graph_end first)",
        )),
        GraphState::Failed => Err(CapiError::invalid("the graph's recording failed")),
    }
}

/// Replays the graph on `stream` after `ndeps` tokens; `token` (may be NULL) receives the
/// token of the whole replay.
///
/// # Safety
/// `deps` points to `ndeps` token handles (may be NULL when `ndeps` is 0); `token` is NULL or
/// valid for a write.
#[no_mangle]
pub unsafe extern "C" fn chevron_graph_launch(
    graph: chevron_graph,
    stream: chevron_stream,
    deps: *const chevron_token,
    ndeps: usize,
    token: *mut chevron_token,
) -> chevron_status {
    entry("chevron_graph_launch", || {
        let stream = lookup(&STREAMS, stream)?;
        // SAFETY: forwarded from the caller.
        let tokens = unsafe { read_tokens(deps, ndeps)? };
        let refs: Vec<&Token> = tokens.iter().collect();
        let done = ready(graph, |graph| Ok(graph.launch(&stream, &refs)?))?;
        // SAFETY: forwarded from the caller.
        unsafe { give_token(token, done) };
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Replaces the arguments of launch node `node` for later replays, checked against the
/// kernel's parameters (`CHEVRON_ERROR_ARGUMENT` names the kernel and parameter).
///
/// # Safety
/// As `chevron_launch` for `args`.
#[no_mangle]
pub unsafe extern "C" fn chevron_graph_set_args(
    graph: chevron_graph,
    node: usize,
    args: *const chevron_arg,
    nargs: usize,
) -> chevron_status {
    entry("chevron_graph_set_args", || {
        // SAFETY: forwarded from the caller.
        let values = unsafe { copy_args(args, nargs) }?;
        ready(graph, |graph| {
            Ok(graph.set_args(NodeId(node), as_args(&values).as_slice())?)
        })?;
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Releases a graph handle (replays already submitted still run).
#[no_mangle]
pub extern "C" fn chevron_graph_release(graph: chevron_graph) -> chevron_status {
    entry("chevron_graph_release", || {
        release(&GRAPHS, graph)?;
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Turns automatic graph replay on (`on` true) or off for `stream`: launch sequences repeated
/// between synchronizations replay as graphs (docs/graphs.md).
#[no_mangle]
pub extern "C" fn chevron_stream_auto_graph(stream: chevron_stream, on: bool) -> chevron_status {
    entry("chevron_stream_auto_graph", || {
        lookup(&STREAMS, stream)?.auto_graph(on)?;
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// What automatic replay did on `stream` so far: `replays` receives the number of graph
/// replays, `replayed` the launches that ran inside them, `eager` the launches enqueued one by
/// one.
///
/// # Safety
/// `replays`, `replayed` and `eager` are valid for a write.
#[no_mangle]
pub unsafe extern "C" fn chevron_stream_auto_graph_stats(
    stream: chevron_stream,
    replays: *mut u64,
    replayed: *mut u64,
    eager: *mut u64,
) -> chevron_status {
    entry("chevron_stream_auto_graph_stats", || {
        let stats = lookup(&STREAMS, stream)?.auto_graph_stats();
        // SAFETY: valid for writes (caller).
        unsafe {
            write_out(replays, "replays", stats.replays)?;
            write_out(replayed, "replayed", stats.replayed_launches)?;
            write_out(eager, "eager", stats.eager_launches)?;
        }
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}
