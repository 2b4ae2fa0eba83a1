//! The generic node API: `cudaGraphAddNode`, `cudaGraphNodeSetParams` and
//! `cudaGraphExecNodeSetParams`, whose `cudaGraphNodeParams` names the node's type and holds
//! that type's parameters (kernel, copy, fill, host function, child graph, empty, event wait
//! and record, memory allocation and free).
//!
//! Each type is read by the same function as its own API reads it (`cudaGraphAddKernelNode`'s,
//! `cudaGraphAddMemcpyNode`'s, …), so the checks and errors are those; a child graph given
//! with `cudaGraphChildGraphOwnershipMove` becomes the node's own graph (its handle now names
//! the node's graph). Memory nodes cannot change; external-semaphore and conditional nodes
//! are not provided (`cudaErrorNotSupported`).

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use super::exec::{exec_set_kernel_node, mismatch};
use super::exec_params::{fill_change_allowed, one_row, set_node, with_node};
use super::memory_nodes::{allocate, cudaMemAllocNodeParams, freeable};
use super::model::{ChildGraph, NodeKind};
use super::nodes::{
    add, copy_3d, cudaHostNodeParams, cudaMemcpy3DParms, cudaMemsetParams, host_of, launch_of,
    memset_of,
};
use super::params::replace_node;
use super::{find_graph, find_node, SharedModel};
use crate::abi::cudaKernelNodeParams;
use crate::errors::{cudaError_t, guard, CudaError, CudaResult, INVALID_VALUE, NOT_SUPPORTED};
use crate::state::lock;

/// `cudaGraphNodeParams`: a type and a 232-byte union of the types' parameters.
#[repr(C)]
#[allow(missing_docs)]
pub struct cudaGraphNodeParams {
    pub r#type: c_int,
    pub reserved0: [c_int; 3],
    /// The union of the types' parameters.
    pub reserved1: [i64; 29],
    pub reserved2: i64,
}

/// `cudaMemcpyNodeParams`.
#[repr(C)]
struct MemcpyNodeParams {
    flags: c_int,
    reserved: [c_int; 3],
    copy: cudaMemcpy3DParms,
}

/// `cudaChildGraphNodeParams`.
#[repr(C)]
struct ChildGraphNodeParams {
    graph: *mut c_void,
    ownership: c_int,
}

/// `cudaGraphNodeType` values chevron's graphs hold.
const KERNEL: c_int = 0;
const MEMCPY: c_int = 1;
const MEMSET: c_int = 2;
const HOST: c_int = 3;
const GRAPH: c_int = 4;
const EMPTY: c_int = 5;
const WAIT_EVENT: c_int = 6;
const EVENT_RECORD: c_int = 7;
const MEM_ALLOC: c_int = 10;
const MEM_FREE: c_int = 11;

/// `p`'s body as a `T` (every parameter structure fits the union).
fn body<T>(p: &cudaGraphNodeParams) -> *const T {
    p.reserved1.as_ptr().cast()
}

/// Whether `graph` is `target` or holds it in a child graph node, at any depth.
fn holds(graph: &SharedModel, target: &SharedModel) -> bool {
    Arc::ptr_eq(graph, target)
        || lock(graph).nodes.iter().any(|node| match &node.kind {
            NodeKind::Child(child) => holds(&child.model, target),
            _ => false,
        })
}

/// The node `p` describes for graph `graph` (its handle; a free node must free memory of it).
/// An allocation node's address is written to `p`'s `dptr`.
///
/// # Safety
/// `p`'s body holds the parameters of its type, their pointers valid as that type's API takes
/// them.
unsafe fn node_of(p: &mut cudaGraphNodeParams, graph: Option<*mut c_void>) -> CudaResult<NodeKind> {
    if p.reserved0 != [0; 3] || p.reserved2 != 0 {
        return Err(CudaError::new(
            INVALID_VALUE,
            "reserved fields must be zero",
        ));
    }
    // Each read below: the body is 232 readable bytes holding the parameters of `p.type`
    // (caller), each structure smaller than it and at most 8-aligned like it.
    Ok(match p.r#type {
        // SAFETY: the body holds this type's parameters (see above).
        KERNEL => unsafe {
            NodeKind::Kernel(Box::new(launch_of(body::<cudaKernelNodeParams>(p))?))
        },
        MEMCPY => {
            // SAFETY: the body holds this type's parameters (see above).
            let params = unsafe { &*body::<MemcpyNodeParams>(p) };
            if params.flags != 0 || params.reserved != [0; 3] {
                return Err(CudaError::new(INVALID_VALUE, "memcpy flags must be zero"));
            }
            copy_3d(Some(&params.copy))?
        }
        // SAFETY: the body holds this type's parameters (see above).
        MEMSET => memset_of(unsafe { body::<cudaMemsetParams>(p).as_ref() })?,
        // SAFETY: the body holds this type's parameters (see above).
        HOST => host_of(unsafe { body::<cudaHostNodeParams>(p).as_ref() })?,
        GRAPH => {
            // SAFETY: the body holds this type's parameters (see above).
            let params = unsafe { &*body::<ChildGraphNodeParams>(p) };
            if Some(params.graph) == graph {
                return Err(CudaError::new(
                    INVALID_VALUE,
                    "a graph cannot contain itself",
                ));
            }
            let child = find_graph(params.graph)?;
            match params.ownership {
                0 => NodeKind::Child(ChildGraph::new(lock(&child).detached())),
                1 => {
                    // A graph moved into a node of a graph it holds would hold itself.
                    let parent = graph.map(find_graph).transpose()?;
                    if parent.is_some_and(|parent| holds(&child, &parent)) {
                        return Err(CudaError::new(
                            INVALID_VALUE,
                            "the child graph holds the graph it would be moved into",
                        ));
                    }
                    NodeKind::Child(ChildGraph {
                        model: Arc::clone(&child),
                        handle: params.graph as usize,
                    })
                }
                other => {
                    return Err(CudaError::new(
                        INVALID_VALUE,
                        format!("cudaGraphChildGraphNodeOwnership {other}"),
                    ))
                }
            }
        }
        EMPTY => NodeKind::Empty,
        WAIT_EVENT | EVENT_RECORD => {
            // SAFETY: the body holds this type's parameters (see above).
            let event = unsafe { *body::<*mut c_void>(p) };
            crate::streams::event_token(event)?;
            match p.r#type {
                WAIT_EVENT => NodeKind::EventWait(event as usize),
                _ => NodeKind::EventRecord(event as usize),
            }
        }
        MEM_ALLOC => {
            // SAFETY: the body holds this type's parameters (see above).
            let params =
                unsafe { &mut *(p.reserved1.as_mut_ptr().cast::<cudaMemAllocNodeParams>()) };
            let allocation = allocate(params)?;
            params.dptr = allocation.address as *mut c_void;
            NodeKind::MemAlloc(allocation)
        }
        MEM_FREE => {
            // SAFETY: the body holds this type's parameters (see above).
            let address = unsafe { *body::<u64>(p) };
            let model = find_graph(graph.unwrap_or(std::ptr::null_mut()))?;
            if !freeable(&lock(&model), address) {
                return Err(CudaError::new(
                    INVALID_VALUE,
                    format!("{address:#x} is not freeable by a free node of this graph"),
                ));
            }
            NodeKind::MemFree(address)
        }
        8 | 9 | 12 | 13 => {
            return Err(CudaError::new(
                NOT_SUPPORTED,
                "external-semaphore and conditional nodes are not provided",
            ))
        }
        other => {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!("cudaGraphNodeType {other}"),
            ))
        }
    })
}

/// Adds a node of the type `params` names, after the `count` nodes at `deps` (default edges
/// only).
///
/// # Safety
/// `deps` and `edge_data` are NULL or valid for `count` reads; `params` NULL or valid for a
/// read and a write, its parameters valid as their type's API takes them.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphAddNode(
    out: *mut *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    edge_data: *const [u8; 8],
    count: usize,
    params: *mut cudaGraphNodeParams,
) -> cudaError_t {
    guard("cudaGraphAddNode", || {
        find_graph(graph)?;
        // SAFETY: NULL or valid (caller).
        let p = unsafe { params.as_mut() }
            .ok_or_else(|| CudaError::new(INVALID_VALUE, "nodeParams is NULL"))?;
        super::nodes::check_list(deps, count)?;
        // SAFETY: forwarded from the caller.
        unsafe { super::nodes::default_edges(edge_data, count) }?;
        // SAFETY: forwarded from the caller.
        unsafe { add(out, graph, deps, count, || node_of(p, Some(graph))) }
    })
}

/// Why a node of type `what` cannot be changed by the generic API, if it cannot.
fn changeable(kind: &NodeKind) -> CudaResult {
    match kind {
        NodeKind::MemAlloc(_) | NodeKind::MemFree(_) => Err(CudaError::new(
            INVALID_VALUE,
            "memory allocation and free nodes cannot be changed",
        )),
        _ => Ok(()),
    }
}

/// Whether a child graph may become `new`: the same topology.
fn same_topology(old: &NodeKind, new: &NodeKind) -> CudaResult {
    if let (NodeKind::Child(old), NodeKind::Child(new)) = (old, new) {
        if mismatch(&old.snapshot(), &new.snapshot()).is_some() {
            return Err(CudaError::new(
                INVALID_VALUE,
                "the graph's topology differs from the node's",
            ));
        }
    }
    Ok(())
}

/// Gives `node` the parameters `params` describes, of its own type.
///
/// # Safety
/// `params` is NULL or valid, its parameters valid as their type's API takes them.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphNodeSetParams(
    node: *mut c_void,
    params: *mut cudaGraphNodeParams,
) -> cudaError_t {
    guard("cudaGraphNodeSetParams", || {
        let (model, index) = find_node(node)?;
        let old = lock(&model).nodes[index].kind.clone();
        changeable(&old)?;
        // SAFETY: NULL or valid (caller).
        let p = unsafe { params.as_mut() }
            .ok_or_else(|| CudaError::new(INVALID_VALUE, "nodeParams is NULL"))?;
        // SAFETY: forwarded from the caller.
        let new = unsafe { node_of(p, None) }?;
        if new.type_code() == old.type_code() {
            same_topology(&old, &new)?;
        }
        replace_node(node, Ok(new), "same type of")
    })
}

/// Gives `node` of the instantiated graph `exec` the parameters `params` describes (the
/// limits of each type's `cudaGraphExec…SetParams`).
///
/// # Safety
/// As [`cudaGraphNodeSetParams`].
#[no_mangle]
pub unsafe extern "C" fn cudaGraphExecNodeSetParams(
    exec: *mut c_void,
    node: *mut c_void,
    params: *mut cudaGraphNodeParams,
) -> cudaError_t {
    guard("cudaGraphExecNodeSetParams", || {
        // The node first, as CUDA reports it.
        with_node(exec, node, |_, _| Ok(()))?;
        // SAFETY: NULL or valid (caller).
        let p = unsafe { params.as_mut() }
            .ok_or_else(|| CudaError::new(INVALID_VALUE, "nodeParams is NULL"))?;
        // SAFETY: forwarded from the caller.
        let new = unsafe { node_of(p, None) }?;
        if let NodeKind::Kernel(launch) = new {
            return exec_set_kernel_node(exec, node, *launch);
        }
        set_node(exec, node, Ok(new), "same type of", |old, new| {
            changeable(old)?;
            match old {
                NodeKind::Memset { .. } => fill_change_allowed(old, new),
                NodeKind::Memcpy { .. } => one_row(old, new),
                _ => same_topology(old, new),
            }
        })
    })
}
