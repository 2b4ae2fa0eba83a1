//! A child graph node's graph: `cudaGraphChildGraphNodeGetGraph` (the node's own graph, not a
//! copy: changes made through it reach the node) and `cudaGraphExecChildGraphNodeSetParams`.
//!
//! The graph handed out is the node's [`ChildGraph`] model registered under a handle of its
//! own, its nodes given handles then; it goes with the node (or the graph holding it), as CUDA
//! keeps it owned by the node.

use std::ffi::c_void;
use std::sync::Arc;

use super::exec::mismatch;
use super::exec_params::set_node;
use super::model::{ChildGraph, NodeKind};
use super::params::not_a;
use super::{
    find_graph, find_node, next_handle, register_node, register_shared_graph, EXEC_UPDATE_FAILURE,
};
use crate::errors::{cudaError_t, guard, CudaError, INVALID_VALUE};
use crate::memory::store;
use crate::state::lock;

/// Writes the graph of child graph node `node` (registered on the first call).
///
/// # Safety
/// `out` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphChildGraphNodeGetGraph(
    node: *mut c_void,
    out: *mut *mut c_void,
) -> cudaError_t {
    guard("cudaGraphChildGraphNodeGetGraph", || {
        let (model, index) = find_node(node)?;
        if out.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "pGraph is NULL"));
        }
        let mut model = lock(&model);
        let NodeKind::Child(child) = &mut model.nodes[index].kind else {
            return Err(not_a("child graph"));
        };
        if child.handle == 0 {
            let key = next_handle();
            for (i, inner) in lock(&child.model).nodes.iter_mut().enumerate() {
                if inner.alive {
                    inner.handle = next_handle();
                    register_node(inner.handle, key, i);
                }
            }
            register_shared_graph(key, Arc::clone(&child.model));
            child.handle = key;
        }
        store(out, child.handle as *mut c_void, "pGraph")
    })
}

/// Gives child graph node `node` of `exec` the graph `graph`, whose topology (nodes, their
/// types and order, and edges) must be that of the node's graph (else
/// `cudaErrorGraphExecUpdateFailure`).
#[no_mangle]
pub extern "C" fn cudaGraphExecChildGraphNodeSetParams(
    exec: *mut c_void,
    node: *mut c_void,
    graph: *mut c_void,
) -> cudaError_t {
    guard("cudaGraphExecChildGraphNodeSetParams", || {
        let copy = find_graph(graph).map(|g| lock(&*g).detached());
        let new = copy.map(|model| NodeKind::Child(ChildGraph::new(model)));
        set_node(exec, node, new, "child graph", |old, new| {
            let (NodeKind::Child(old), NodeKind::Child(new)) = (old, new) else {
                unreachable!("both are child graph nodes");
            };
            match mismatch(&old.snapshot(), &new.snapshot()) {
                None => Ok(()),
                // NVIDIA's runtime (an H200): cudaErrorGraphExecUpdateFailure.
                Some(_) => Err(CudaError::new(
                    EXEC_UPDATE_FAILURE,
                    "the graph's topology differs from the node's",
                )),
            }
        })
    })
}
