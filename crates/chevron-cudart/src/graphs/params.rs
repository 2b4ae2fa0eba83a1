//! A node's parameters and neighbours in its graph: `cudaGraph{Host,Memset,Memcpy}NodeGetParams`
//! and `…SetParams` (`cudaGraphMemcpyNodeSetParams1D` too), `cudaGraphNodeGetDependencies` and
//! `cudaGraphNodeGetDependentNodes`.
//!
//! A copy node keeps its copy as rows of linear memory: `cudaGraphMemcpyNodeGetParams` gives
//! it back as an equivalent `cudaMemcpy3DParms` (positions folded into the pointers, depth
//! folded into the height), with the `cudaMemcpyKind` the node was given.

use std::ffi::{c_int, c_void};

use super::build::list;
use super::find_node;
use super::model::NodeKind;
use super::nodes::{
    copy_1d, copy_3d, cudaHostNodeParams, cudaMemcpy3DParms, cudaMemsetParams, cudaPitchedPtr,
    host_of, memset_of,
};
use crate::errors::{cudaError_t, guard, CudaError, CudaResult, INVALID_VALUE};
use crate::memory::store;
use crate::state::lock;

/// Runs `read` on the kind of node `node`.
pub(super) fn read_node<T>(
    node: *mut c_void,
    read: impl FnOnce(&NodeKind) -> CudaResult<T>,
) -> CudaResult<T> {
    let (model, index) = find_node(node)?;
    let model = lock(&model);
    read(&model.nodes[index].kind)
}

/// Replaces the kind of node `node` by `new`, a node of the same type (a `what` node).
pub(super) fn replace_node(node: *mut c_void, new: CudaResult<NodeKind>, what: &str) -> CudaResult {
    let (model, index) = find_node(node)?;
    let new = new?;
    let mut model = lock(&model);
    let kind = &mut model.nodes[index].kind;
    if kind.type_code() != new.type_code() {
        return Err(not_a(what));
    }
    *kind = new;
    Ok(())
}

/// `cudaErrorInvalidValue` for a node of another type.
pub(super) fn not_a(what: &str) -> CudaError {
    CudaError::new(INVALID_VALUE, format!("not a {what} node"))
}

/// Writes a host node's function and data.
///
/// # Safety
/// `out` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphHostNodeGetParams(
    node: *mut c_void,
    out: *mut cudaHostNodeParams,
) -> cudaError_t {
    guard("cudaGraphHostNodeGetParams", || {
        let params = read_node(node, |kind| match *kind {
            NodeKind::Host {
                function,
                user_data,
            } => Ok(cudaHostNodeParams {
                r#fn: Some(function),
                userData: user_data as *mut c_void,
            }),
            _ => Err(not_a("host")),
        })?;
        store(out, params, "pNodeParams")
    })
}

/// Gives a host node another function or data.
///
/// # Safety
/// `params` is NULL or valid, its function callable with its data from another thread.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphHostNodeSetParams(
    node: *mut c_void,
    params: *const cudaHostNodeParams,
) -> cudaError_t {
    guard("cudaGraphHostNodeSetParams", || {
        // SAFETY: NULL or valid (caller).
        replace_node(node, host_of(unsafe { params.as_ref() }), "host")
    })
}

/// Writes a memset node's fill.
///
/// # Safety
/// `out` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphMemsetNodeGetParams(
    node: *mut c_void,
    out: *mut cudaMemsetParams,
) -> cudaError_t {
    guard("cudaGraphMemsetNodeGetParams", || {
        let params = read_node(node, |kind| match *kind {
            NodeKind::Memset {
                dst,
                value,
                element_bytes,
                count,
                pitch,
                rows,
            } => Ok(cudaMemsetParams {
                dst: dst as *mut c_void,
                pitch: pitch as usize,
                value,
                elementSize: element_bytes,
                width: count as usize,
                height: rows as usize,
            }),
            _ => Err(not_a("memset")),
        })?;
        store(out, params, "pNodeParams")
    })
}

/// Gives a memset node another fill.
///
/// # Safety
/// `params` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphMemsetNodeSetParams(
    node: *mut c_void,
    params: *const cudaMemsetParams,
) -> cudaError_t {
    guard("cudaGraphMemsetNodeSetParams", || {
        // SAFETY: NULL or valid (caller).
        replace_node(node, memset_of(unsafe { params.as_ref() }), "memset")
    })
}

/// Writes a memcpy node's copy (see the module's note on its form).
///
/// # Safety
/// `out` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphMemcpyNodeGetParams(
    node: *mut c_void,
    out: *mut cudaMemcpy3DParms,
) -> cudaError_t {
    guard("cudaGraphMemcpyNodeGetParams", || {
        let params = read_node(node, |kind| match *kind {
            NodeKind::Memcpy {
                dst,
                dst_pitch,
                src,
                src_pitch,
                width,
                rows,
                kind,
            } => {
                let side = |ptr: u64, pitch: u64| cudaPitchedPtr {
                    ptr: ptr as *mut c_void,
                    pitch: pitch as usize,
                    xsize: width as usize,
                    ysize: rows as usize,
                };
                Ok(cudaMemcpy3DParms {
                    srcArray: std::ptr::null_mut(),
                    srcPos: [0; 3],
                    srcPtr: side(src, src_pitch),
                    dstArray: std::ptr::null_mut(),
                    dstPos: [0; 3],
                    dstPtr: side(dst, dst_pitch),
                    extent: [width as usize, rows as usize, 1],
                    kind,
                })
            }
            _ => Err(not_a("memcpy")),
        })?;
        store(out, params, "pNodeParams")
    })
}

/// Gives a memcpy node another copy between linear memory.
///
/// # Safety
/// `params` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphMemcpyNodeSetParams(
    node: *mut c_void,
    params: *const cudaMemcpy3DParms,
) -> cudaError_t {
    guard("cudaGraphMemcpyNodeSetParams", || {
        // SAFETY: NULL or valid (caller).
        replace_node(node, copy_3d(unsafe { params.as_ref() }), "memcpy")
    })
}

/// Gives a memcpy node another copy of `bytes` bytes.
#[no_mangle]
pub extern "C" fn cudaGraphMemcpyNodeSetParams1D(
    node: *mut c_void,
    dst: *mut c_void,
    src: *const c_void,
    bytes: usize,
    kind: c_int,
) -> cudaError_t {
    guard("cudaGraphMemcpyNodeSetParams1D", || {
        let copy = copy_1d(dst as u64, src as u64, bytes, kind);
        replace_node(node, copy, "memcpy")
    })
}

/// Writes the handles of `node`'s dependencies (`dependents` false) or of the nodes that
/// depend on it (true), with default edge data.
///
/// # Safety
/// As `cudaGraphNodeGetDependencies`.
unsafe fn neighbours(
    node: *mut c_void,
    dependents: bool,
    out: *mut *mut c_void,
    edge_data: *mut [u8; 8],
    count: *mut usize,
) -> CudaResult {
    let (model, index) = find_node(node)?;
    let handles: Vec<*mut c_void> = {
        let model = lock(&model);
        let of = |i: usize| model.nodes[i].handle as *mut c_void;
        if dependents {
            model
                .live()
                .filter(|&i| model.nodes[i].deps.contains(&index))
                .map(of)
                .collect()
        } else {
            model.nodes[index].deps.iter().map(|&i| of(i)).collect()
        }
    };
    if !out.is_null() && !edge_data.is_null() && !count.is_null() {
        // SAFETY: `count` readable (checked non-NULL; valid by the caller's contract).
        let mut room = unsafe { count.read() };
        let zeros = vec![[0u8; 8]; handles.len()];
        // SAFETY: forwarded from the caller.
        unsafe { list(&zeros, [0; 8], edge_data, &mut room) }?;
    }
    // SAFETY: forwarded from the caller.
    unsafe { list(&handles, std::ptr::null_mut(), out, count) }
}

/// Writes the nodes `node` depends on (or their number, when `out` is NULL).
///
/// # Safety
/// `count` is NULL or valid for a read and a write; `out` and `edge_data` NULL or valid for
/// `*count` writes.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphNodeGetDependencies(
    node: *mut c_void,
    out: *mut *mut c_void,
    edge_data: *mut [u8; 8],
    count: *mut usize,
) -> cudaError_t {
    guard("cudaGraphNodeGetDependencies", || {
        // SAFETY: forwarded from the caller.
        unsafe { neighbours(node, false, out, edge_data, count) }
    })
}

/// Writes the nodes that depend on `node` (or their number, when `out` is NULL).
///
/// # Safety
/// As [`cudaGraphNodeGetDependencies`].
#[no_mangle]
pub unsafe extern "C" fn cudaGraphNodeGetDependentNodes(
    node: *mut c_void,
    out: *mut *mut c_void,
    edge_data: *mut [u8; 8],
    count: *mut usize,
) -> cudaError_t {
    guard("cudaGraphNodeGetDependentNodes", || {
        // SAFETY: forwarded from the caller.
        unsafe { neighbours(node, true, out, edge_data, count) }
    })
}
