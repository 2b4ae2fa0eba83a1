//! CUDA graphs over chevron: stream capture ([`capture`]), graphs built node by node
//! ([`build`], [`nodes`], [`params`]), and their instantiation, launch and update ([`exec`],
//! [`exec_params`]); the per-thread-default-stream forms in [`per_thread`].
//!
//! A `cudaGraph_t` is a [`model::Model`]: nodes (kernels, copies, fills, host functions, empty
//! nodes, child graphs, event records and waits) and the edges between them. Capture builds
//! the same model as the explicit API: every operation submitted to a capturing stream becomes
//! a node depending on the stream's last nodes, and an event recorded in one capturing stream
//! and waited for by another joins that stream into the capture (fork and join). Instantiation
//! orders the nodes so that each runs after all its dependencies, packs each run of kernels and
//! fills into one [`chevron::Graph`] (replayed as one submission), and runs copies, host
//! functions and event nodes between them in the launch stream's order. A node handle is a key
//! of this module's registry; a stale or foreign handle is `cudaErrorInvalidValue`.

pub mod build;
pub mod capture;
mod capture_hook;
pub mod child_graphs;
pub mod event_nodes;
pub mod exec;
pub mod exec_params;
pub mod generic_nodes;
pub mod kernel_attributes;
pub mod memory_nodes;
pub(crate) mod model;
pub mod nodes;
pub mod params;
pub mod per_thread;
pub mod symbol_nodes;
pub mod user_objects;

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::errors::{cudaError_t, CudaError, CudaResult, INVALID_VALUE};
use crate::state::lock;

pub use model::KernelLaunch;

pub use capture::{
    any_capturing, capture_copy, capture_direct_launch, capture_event_record, capture_event_wait,
    capture_fill, capture_host, capture_launch, capture_memset, forget_captures,
    refuse_if_capturing,
};

/// `cudaErrorStreamCaptureUnsupported`.
pub const CAPTURE_UNSUPPORTED: cudaError_t = 900;
/// `cudaErrorStreamCaptureInvalidated`.
pub const CAPTURE_INVALIDATED: cudaError_t = 901;
/// `cudaErrorStreamCaptureMerge`.
pub const CAPTURE_MERGE: cudaError_t = 902;
/// `cudaErrorStreamCaptureUnmatched`.
pub const CAPTURE_UNMATCHED: cudaError_t = 903;
/// `cudaErrorStreamCaptureUnjoined`.
pub const CAPTURE_UNJOINED: cudaError_t = 904;
/// `cudaErrorStreamCaptureIsolation`.
pub const CAPTURE_ISOLATION: cudaError_t = 905;
/// `cudaErrorGraphExecUpdateFailure`.
pub const EXEC_UPDATE_FAILURE: cudaError_t = 910;

/// A graph under construction or captured (`cudaGraph_t`).
pub(crate) type SharedModel = Arc<Mutex<model::Model>>;

/// Graphs by handle.
static GRAPHS: Mutex<Option<HashMap<usize, SharedModel>>> = Mutex::new(None);
/// Node handles: the graph holding each node and its index there.
static NODES: Mutex<Option<HashMap<usize, (usize, usize)>>> = Mutex::new(None);
/// The next handle given out (graphs and nodes share the counter: no handle is ever reused).
static NEXT_HANDLE: AtomicUsize = AtomicUsize::new(0x7c00_0000);

/// A fresh handle, never given out before.
pub(crate) fn next_handle() -> usize {
    NEXT_HANDLE.fetch_add(16, Ordering::Relaxed)
}

/// Makes `model` the graph of handle `key`.
pub(crate) fn register_graph(key: usize, model: model::Model) {
    register_shared_graph(key, Arc::new(Mutex::new(model)));
}

/// Makes `model` (a child graph node's graph, say) the graph of handle `key`.
pub(crate) fn register_shared_graph(key: usize, model: SharedModel) {
    lock(&GRAPHS)
        .get_or_insert_with(HashMap::new)
        .insert(key, model);
}

/// The graph of handle `graph`.
pub(crate) fn find_graph(graph: *mut c_void) -> CudaResult<SharedModel> {
    lock(&GRAPHS)
        .as_ref()
        .and_then(|g| g.get(&(graph as usize)).cloned())
        .ok_or_else(|| bad_handle(graph, "cudaGraph_t"))
}

/// Forgets graph `graph` and its nodes.
pub(crate) fn remove_graph(graph: *mut c_void) -> CudaResult<SharedModel> {
    let removed = lock(&GRAPHS)
        .as_mut()
        .and_then(|g| g.remove(&(graph as usize)))
        .ok_or_else(|| bad_handle(graph, "cudaGraph_t"))?;
    let handles: Vec<usize> = lock(&removed).nodes.iter().map(|n| n.handle).collect();
    if let Some(nodes) = lock(&NODES).as_mut() {
        for handle in handles {
            nodes.remove(&handle);
        }
    }
    // The graphs of its child graph nodes handed out go with it.
    let children = child_handles(&lock(&removed).nodes);
    for child in children {
        drop(remove_graph(child as *mut c_void));
    }
    Ok(removed)
}

/// The graph handles of the child graph nodes among `nodes` that `cudaGraphChildGraphNodeGetGraph`
/// handed out.
pub(crate) fn child_handles(nodes: &[model::Node]) -> Vec<usize> {
    nodes
        .iter()
        .filter_map(|n| match &n.kind {
            model::NodeKind::Child(child) if child.handle != 0 => Some(child.handle),
            _ => None,
        })
        .collect()
}

/// Records that node `index` of graph `graph` has handle `handle`.
pub(crate) fn register_node(handle: usize, graph: usize, index: usize) {
    lock(&NODES)
        .get_or_insert_with(HashMap::new)
        .insert(handle, (graph, index));
}

/// Forgets node handle `handle`.
pub(crate) fn forget_node(handle: usize) {
    if let Some(nodes) = lock(&NODES).as_mut() {
        nodes.remove(&handle);
    }
}

/// The graph holding node `node`, and the node's index there.
pub(crate) fn find_node(node: *mut c_void) -> CudaResult<(SharedModel, usize)> {
    let (graph, index) = lock(&NODES)
        .as_ref()
        .and_then(|n| n.get(&(node as usize)).copied())
        .ok_or_else(|| bad_handle(node, "cudaGraphNode_t"))?;
    let model = find_graph(graph as *mut c_void)?;
    // A node captured into an existing graph joins it when the capture ends.
    if index >= lock(&model).nodes.len() {
        return Err(bad_handle(
            node,
            "node of a graph (its capture has not ended)",
        ));
    }
    Ok((model, index))
}

/// `cudaErrorInvalidValue` naming a handle that is not live.
pub(crate) fn bad_handle(handle: *const c_void, what: &str) -> CudaError {
    CudaError::new(INVALID_VALUE, format!("{handle:p} is not a live {what}"))
}
