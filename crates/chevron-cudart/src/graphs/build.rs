//! Graphs as a whole: `cudaGraphCreate`, `cudaGraphDestroy`, `cudaGraphClone`,
//! `cudaGraphAddDependencies`, `cudaGraphRemoveDependencies`, `cudaGraphDestroyNode`, and the
//! queries `cudaGraphGetNodes`, `cudaGraphGetRootNodes` and `cudaGraphGetEdges`.

use std::ffi::{c_uint, c_void};

use super::model::Model;
use super::{
    bad_handle, find_graph, find_node, forget_node, next_handle, register_graph, register_node,
    remove_graph,
};
use crate::errors::{cudaError_t, guard, CudaError, CudaResult, INVALID_VALUE};
use crate::memory::store;
use crate::state::lock;

/// Creates an empty graph (`flags` must be 0).
#[no_mangle]
pub extern "C" fn cudaGraphCreate(out: *mut *mut c_void, flags: c_uint) -> cudaError_t {
    guard("cudaGraphCreate", || {
        if flags != 0 {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!("flags {flags} (must be 0)"),
            ));
        }
        if out.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "pGraph is NULL"));
        }
        let key = next_handle();
        register_graph(key, Model::default());
        store(out, key as *mut c_void, "pGraph")
    })
}

/// Destroys a graph and its nodes, releasing the user objects it holds (instantiated graphs
/// of it stay valid, with their own references).
#[no_mangle]
pub extern "C" fn cudaGraphDestroy(graph: *mut c_void) -> cudaError_t {
    guard("cudaGraphDestroy", || {
        remove_graph(graph)?;
        super::user_objects::release_held(graph as usize);
        Ok(())
    })
}

/// Copies a graph: the same nodes, parameters and edges, with node handles of its own.
#[no_mangle]
pub extern "C" fn cudaGraphClone(out: *mut *mut c_void, graph: *mut c_void) -> cudaError_t {
    guard("cudaGraphClone", || {
        if out.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "pGraphClone is NULL"));
        }
        let mut copy = lock(&*find_graph(graph)?).clone();
        let key = next_handle();
        for (index, node) in copy.nodes.iter_mut().enumerate() {
            if node.alive {
                node.handle = next_handle();
                register_node(node.handle, key, index);
            }
        }
        register_graph(key, copy);
        store(out, key as *mut c_void, "pGraphClone")
    })
}

/// The `count` handles at `nodes` (NULL when `count` is 0).
///
/// # Safety
/// `nodes` is NULL or valid for `count` reads.
unsafe fn handles<'a>(
    nodes: *const *mut c_void,
    count: usize,
    what: &str,
) -> CudaResult<&'a [*mut c_void]> {
    if count == 0 {
        return Ok(&[]);
    }
    if nodes.is_null() {
        return Err(CudaError::new(INVALID_VALUE, format!("{what} is NULL")));
    }
    if !chevron::ffi::c_array_fits::<*mut c_void>(count) {
        return Err(CudaError::new(
            INVALID_VALUE,
            format!("{count} {what} handles is more than memory holds"),
        ));
    }
    // SAFETY: `count` readable handles (caller).
    Ok(unsafe { std::slice::from_raw_parts(nodes, count) })
}

/// Checks that every edge's data is the default (zero): chevron has no other edge kinds.
///
/// # Safety
/// `edge_data` is NULL or valid for `count` reads of 8 bytes.
unsafe fn check_default_edges(edge_data: *const [u8; 8], count: usize) -> CudaResult {
    if edge_data.is_null() {
        return Ok(());
    }
    if !chevron::ffi::c_array_fits::<[u8; 8]>(count) {
        return Err(CudaError::new(
            INVALID_VALUE,
            format!("{count} edges is more than memory holds"),
        ));
    }
    // SAFETY: `count` readable entries (caller).
    let data = unsafe { std::slice::from_raw_parts(edge_data, count) };
    if data.iter().any(|d| *d != [0; 8]) {
        return Err(CudaError::new(
            INVALID_VALUE,
            "only default edges (cudaGraphEdgeData of zeros) are provided",
        ));
    }
    Ok(())
}

/// The edges `from[i] -> to[i]` as node indices of `graph`, each node checked.
fn resolve(
    graph: *mut c_void,
    model: &Model,
    from: &[*mut c_void],
    to: &[*mut c_void],
) -> CudaResult<Vec<(usize, usize)>> {
    let index = |node: *mut c_void| {
        model
            .index_of(node as usize)
            .ok_or_else(|| bad_handle(node, &format!("node of graph {graph:p}")))
    };
    from.iter()
        .zip(to)
        .map(|(&f, &t)| Ok((index(f)?, index(t)?)))
        .collect()
}

/// Reads the edges `from[i] -> to[i]` of `graph` (default edge data only) as node indices and
/// runs `change` on them with the graph locked: what adding and removing dependencies share.
///
/// # Safety
/// As [`cudaGraphAddDependencies`].
unsafe fn with_edges(
    graph: *mut c_void,
    from: *const *mut c_void,
    to: *const *mut c_void,
    edge_data: *const [u8; 8],
    count: usize,
    change: impl FnOnce(&mut Model, Vec<(usize, usize)>) -> CudaResult,
) -> CudaResult {
    let model = find_graph(graph)?;
    // SAFETY: forwarded from the caller.
    let (from, to) = unsafe { (handles(from, count, "from")?, handles(to, count, "to")?) };
    // SAFETY: forwarded from the caller.
    unsafe { check_default_edges(edge_data, count) }?;
    let mut model = lock(&model);
    let edges = resolve(graph, &model, from, to)?;
    change(&mut model, edges)
}

/// Adds the edges `from[i] -> to[i]`.
///
/// # Safety
/// `from` and `to` are valid for `count` reads; `edge_data` NULL or too.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphAddDependencies(
    graph: *mut c_void,
    from: *const *mut c_void,
    to: *const *mut c_void,
    edge_data: *const [u8; 8],
    count: usize,
) -> cudaError_t {
    guard("cudaGraphAddDependencies", || {
        // SAFETY: forwarded from the caller.
        unsafe {
            with_edges(graph, from, to, edge_data, count, |model, edges| {
                for (i, &(f, t)) in edges.iter().enumerate() {
                    if f == t || model.nodes[t].deps.contains(&f) || edges[..i].contains(&(f, t)) {
                        return Err(CudaError::new(
                            INVALID_VALUE,
                            format!("edge {i} joins a node to itself or exists already"),
                        ));
                    }
                }
                for (f, t) in edges {
                    model.nodes[t].deps.push(f);
                }
                Ok(())
            })
        }
    })
}

/// Removes the edges `from[i] -> to[i]`.
///
/// # Safety
/// As [`cudaGraphAddDependencies`].
#[no_mangle]
pub unsafe extern "C" fn cudaGraphRemoveDependencies(
    graph: *mut c_void,
    from: *const *mut c_void,
    to: *const *mut c_void,
    edge_data: *const [u8; 8],
    count: usize,
) -> cudaError_t {
    guard("cudaGraphRemoveDependencies", || {
        // SAFETY: forwarded from the caller.
        unsafe {
            with_edges(graph, from, to, edge_data, count, |model, edges| {
                if let Some(i) = edges
                    .iter()
                    .position(|&(f, t)| !model.nodes[t].deps.contains(&f))
                {
                    return Err(CudaError::new(
                        INVALID_VALUE,
                        format!("edge {i} does not exist"),
                    ));
                }
                for (f, t) in edges {
                    model.nodes[t].deps.retain(|&d| d != f);
                }
                Ok(())
            })
        }
    })
}

/// Removes a node and its edges.
#[no_mangle]
pub extern "C" fn cudaGraphDestroyNode(node: *mut c_void) -> cudaError_t {
    guard("cudaGraphDestroyNode", || {
        let (model, index) = find_node(node)?;
        let mut model = lock(&model);
        for child in super::child_handles(&model.nodes[index..=index]) {
            drop(super::remove_graph(child as *mut c_void));
        }
        model.nodes[index].alive = false;
        model.nodes[index].deps.clear();
        for other in &mut model.nodes {
            other.deps.retain(|&d| d != index);
        }
        forget_node(node as usize);
        Ok(())
    })
}

/// Writes up to `*count` entries of `items` to `out` (NULL past the end, `*count` set to the
/// number written), or only their number when `out` is NULL.
///
/// # Safety
/// `count` is NULL or valid for a read and a write; `out` NULL or valid for `*count` writes.
pub(super) unsafe fn list<T: Copy>(
    items: &[T],
    empty: T,
    out: *mut T,
    count: *mut usize,
) -> CudaResult {
    if count.is_null() {
        return Err(CudaError::new(INVALID_VALUE, "the count is NULL"));
    }
    if out.is_null() {
        return store(count, items.len(), "count");
    }
    // SAFETY: readable (caller).
    let room = unsafe { count.read() };
    for slot in 0..room {
        // SAFETY: `room` writable entries (caller).
        unsafe {
            out.add(slot)
                .write(items.get(slot).copied().unwrap_or(empty))
        };
    }
    store(count, room.min(items.len()), "count")
}

/// Writes the graph's nodes (in the order they were added).
///
/// # Safety
/// As [`list`].
#[no_mangle]
pub unsafe extern "C" fn cudaGraphGetNodes(
    graph: *mut c_void,
    nodes: *mut *mut c_void,
    count: *mut usize,
) -> cudaError_t {
    guard("cudaGraphGetNodes", || {
        let model = find_graph(graph)?;
        let model = lock(&model);
        let all: Vec<*mut c_void> = model
            .live()
            .map(|i| model.nodes[i].handle as *mut c_void)
            .collect();
        // SAFETY: forwarded from the caller.
        unsafe { list(&all, std::ptr::null_mut(), nodes, count) }
    })
}

/// Writes the graph's nodes without dependencies.
///
/// # Safety
/// As [`list`].
#[no_mangle]
pub unsafe extern "C" fn cudaGraphGetRootNodes(
    graph: *mut c_void,
    nodes: *mut *mut c_void,
    count: *mut usize,
) -> cudaError_t {
    guard("cudaGraphGetRootNodes", || {
        let model = find_graph(graph)?;
        let model = lock(&model);
        let roots: Vec<*mut c_void> = model
            .live()
            .filter(|&i| model.nodes[i].deps.is_empty())
            .map(|i| model.nodes[i].handle as *mut c_void)
            .collect();
        // SAFETY: forwarded from the caller.
        unsafe { list(&roots, std::ptr::null_mut(), nodes, count) }
    })
}

/// Writes the graph's edges as `from[i] -> to[i]` (default edge data).
///
/// # Safety
/// As [`list`], for `from`, `to` and `edge_data` alike (`from` and `to` both NULL or neither).
#[no_mangle]
pub unsafe extern "C" fn cudaGraphGetEdges(
    graph: *mut c_void,
    from: *mut *mut c_void,
    to: *mut *mut c_void,
    edge_data: *mut [u8; 8],
    count: *mut usize,
) -> cudaError_t {
    guard("cudaGraphGetEdges", || {
        let model = find_graph(graph)?;
        if from.is_null() != to.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "from and to: one is NULL"));
        }
        let model = lock(&model);
        let handle = |i: usize| model.nodes[i].handle as *mut c_void;
        let edges = model.edges();
        let froms: Vec<_> = edges.iter().map(|&(f, _)| handle(f)).collect();
        let tos: Vec<_> = edges.iter().map(|&(_, t)| handle(t)).collect();
        if count.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "numEdges is NULL"));
        }
        // SAFETY: readable (caller).
        let room = unsafe { count.read() };
        let null = std::ptr::null_mut();
        if !edge_data.is_null() && !from.is_null() {
            let zeros = vec![[0u8; 8]; edges.len()];
            let mut room_copy = room;
            // SAFETY: forwarded from the caller.
            unsafe { list(&zeros, [0; 8], edge_data, &mut room_copy) }?;
        }
        // SAFETY: forwarded from the caller.
        unsafe {
            if !from.is_null() {
                let mut room_copy = room;
                list(&froms, null, from, &mut room_copy)?;
            }
            list(&tos, null, to, count)
        }
    })
}

/// Writes the node of `clone` (made by `cudaGraphClone`) that copies `original`.
#[no_mangle]
pub extern "C" fn cudaGraphNodeFindInClone(
    out: *mut *mut c_void,
    original: *mut c_void,
    clone: *mut c_void,
) -> cudaError_t {
    guard("cudaGraphNodeFindInClone", || {
        let (_, index) = find_node(original)?;
        let clone_model = find_graph(clone)?;
        let copy = lock(&clone_model)
            .nodes
            .get(index)
            .filter(|n| n.alive)
            .map(|n| n.handle);
        // A clone keeps the original's node indices; a node of another graph at that index is
        // not a copy of it.
        let copy = copy.filter(|&handle| {
            super::find_node(handle as *mut c_void)
                .is_ok_and(|(m, _)| std::sync::Arc::ptr_eq(&m, &clone_model))
        });
        let copy = copy.ok_or_else(|| bad_handle(original, "node cloned into this graph"))?;
        store(out, copy as *mut c_void, "pNode")
    })
}
