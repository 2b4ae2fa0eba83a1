//! One node of an instantiated graph changed: `cudaGraphExec{Memset,Memcpy,Memcpy1D,Host}NodeSetParams`,
//! `cudaGraphNodeSetEnabled`/`cudaGraphNodeGetEnabled`, and `cudaGraphExecGetFlags`.
//!
//! Each change applies to the instantiation's own copy of the graph (the source graph keeps
//! its parameters) and instantiates that copy again, with CUDA's limits: a 2D fill may change
//! only its destination and value, a 1D fill not its height, a 1D copy only replaces a 1D
//! copy whose memory keeps its mappings (see `same_mappings`), and only kernel, memset and
//! memcpy nodes can be disabled (a disabled node runs as an empty node).

use std::ffi::{c_int, c_uint, c_ulonglong, c_void};

use super::bad_handle;
use super::exec::{find_exec, Exec};
use super::model::NodeKind;
use super::nodes::{
    copy_1d, copy_3d, cudaHostNodeParams, cudaMemcpy3DParms, cudaMemsetParams, host_of, memset_of,
};
use super::params::not_a;
use crate::errors::{cudaError_t, guard, CudaError, CudaResult, INVALID_VALUE};
use crate::memory::{place_of, store, Place};
use crate::mirror;
use crate::state::lock;

/// Runs `change` on `exec` and the index of `node` in its graph.
pub(super) fn with_node<T>(
    exec: *mut c_void,
    node: *mut c_void,
    change: impl FnOnce(&mut Exec, usize) -> CudaResult<T>,
) -> CudaResult<T> {
    let exec = find_exec(exec)?;
    let mut exec = lock(&exec);
    let index = exec
        .model
        .index_of(node as usize)
        .ok_or_else(|| bad_handle(node, "node of the instantiated graph"))?;
    change(&mut exec, index)
}

/// Replaces node `node` of `exec` by `new` after `allowed(old, new)` agrees.
pub(super) fn set_node(
    exec: *mut c_void,
    node: *mut c_void,
    new: CudaResult<NodeKind>,
    what: &str,
    allowed: impl FnOnce(&NodeKind, &NodeKind) -> CudaResult,
) -> CudaResult {
    with_node(exec, node, |exec, index| {
        let new = new?;
        let old = &exec.model.nodes[index].kind;
        if old.type_code() != new.type_code() {
            return Err(not_a(what));
        }
        allowed(old, &new)?;
        let mut model = exec.model.clone();
        model.nodes[index].kind = new;
        exec.rebuild(model)
    })
}

/// Whether a fill of an instantiation may become `new`: a 2D fill keeps its shape, a 1D
/// fill its height.
pub(super) fn fill_change_allowed(old: &NodeKind, new: &NodeKind) -> CudaResult {
    let shape = |kind: &NodeKind| match *kind {
        NodeKind::Memset {
            element_bytes,
            count,
            pitch,
            rows,
            ..
        } => (element_bytes, count, pitch, rows),
        _ => unreachable!("both are fills"),
    };
    let (old, new) = (shape(old), shape(new));
    if old.3 != new.3 || (old.3 > 1 && old != new) {
        return Err(CudaError::new(
            INVALID_VALUE,
            "a 2D fill of an instantiated graph may change only its destination and value, \
             a 1D fill not its height",
        ));
    }
    Ok(())
}

/// Gives memset node `node` of `exec` another fill.
///
/// # Safety
/// `params` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphExecMemsetNodeSetParams(
    exec: *mut c_void,
    node: *mut c_void,
    params: *const cudaMemsetParams,
) -> cudaError_t {
    guard("cudaGraphExecMemsetNodeSetParams", || {
        // SAFETY: NULL or valid (caller).
        let new = memset_of(unsafe { params.as_ref() });
        set_node(exec, node, new, "memset", fill_change_allowed)
    })
}

/// Gives memcpy node `node` of `exec` another copy between linear memory.
///
/// # Safety
/// `params` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphExecMemcpyNodeSetParams(
    exec: *mut c_void,
    node: *mut c_void,
    params: *const cudaMemcpy3DParms,
) -> cudaError_t {
    guard("cudaGraphExecMemcpyNodeSetParams", || {
        // SAFETY: NULL or valid (caller).
        let new = copy_3d(unsafe { params.as_ref() });
        // CUDA changes only 1-dimensional copies in an instantiation (an H200 answers
        // cudaErrorInvalidValue for a 2D one, as the runtime API's documentation says).
        set_node(exec, node, new, "memcpy", |old, new| match (old, new) {
            (NodeKind::Memcpy { rows: 1, .. }, NodeKind::Memcpy { rows: 1, .. }) => {
                same_mappings(old, new)
            }
            _ => Err(CudaError::new(
                INVALID_VALUE,
                "an instantiated memcpy node changes only 1-dimensional copies (one row, one \
                 slice), both before and after",
            )),
        })
    })
}

/// Whether an instantiated copy may change to `new`, a copy of one row: CUDA changes only
/// 1-dimensional copies there, whose memory keeps its mappings ([`same_mappings`]).
pub(super) fn one_row(old: &NodeKind, new: &NodeKind) -> CudaResult {
    match *old {
        NodeKind::Memcpy { rows: 1, .. } => same_mappings(old, new),
        _ => Err(CudaError::new(
            INVALID_VALUE,
            "the node's copy was instantiated with more than one row",
        )),
    }
}

/// The memory mapping an operand of a copy lies in, as an instantiated copy must keep it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mapping {
    /// Memory of device `.0` (its allocations, module variables): one context's.
    Device(usize),
    /// Page-locked, managed or registered host memory (any such allocation of the context).
    Mapped,
    /// Pageable host memory.
    Pageable,
}

impl std::fmt::Display for Mapping {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Mapping::Device(ordinal) => write!(f, "memory of device {ordinal}"),
            Mapping::Mapped => write!(f, "mapped host memory"),
            Mapping::Pageable => write!(f, "pageable host memory"),
        }
    }
}

fn mapping_of(ptr: u64) -> Mapping {
    match place_of(ptr) {
        Place::Device(ordinal) => Mapping::Device(ordinal),
        Place::Host => match mirror::find(ptr as usize) {
            Some(_) => Mapping::Mapped,
            None => Mapping::Pageable,
        },
    }
}

/// CUDA's rule for an instantiated copy's new operands (`cudaGraphExecMemcpyNodeSetParams*`):
/// "the source and destination memory ... must be allocated from the same contexts as the
/// original", and a change of "the memory operands' mappings" is `cudaErrorInvalidValue`.
/// Device memory may move within its device, host memory the device maps (page-locked,
/// managed, registered) to other such memory (NVIDIA's runtime on an H200 took a copy from a
/// `__device__` variable retargeted to another `cudaMallocHost` allocation); pageable host
/// memory stays pageable.
pub(super) fn same_mappings(old: &NodeKind, new: &NodeKind) -> CudaResult {
    let (
        NodeKind::Memcpy {
            dst: old_dst,
            src: old_src,
            ..
        },
        NodeKind::Memcpy { dst, src, .. },
    ) = (old, new)
    else {
        return Ok(());
    };
    for (side, before, after) in [("destination", *old_dst, *dst), ("source", *old_src, *src)] {
        let (was, now) = (mapping_of(before), mapping_of(after));
        if was != now {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!(
                    "the copy's {side} {after:#x} is in {now}, the instantiated one's \
                     ({before:#x}) in {was}: an instantiated copy keeps its memory mappings"
                ),
            ));
        }
    }
    Ok(())
}

/// Gives 1D memcpy node `node` of `exec` another copy of `bytes` bytes.
#[no_mangle]
pub extern "C" fn cudaGraphExecMemcpyNodeSetParams1D(
    exec: *mut c_void,
    node: *mut c_void,
    dst: *mut c_void,
    src: *const c_void,
    bytes: usize,
    kind: c_int,
) -> cudaError_t {
    guard("cudaGraphExecMemcpyNodeSetParams1D", || {
        let new = copy_1d(dst as u64, src as u64, bytes, kind);
        set_node(exec, node, new, "memcpy", one_row)
    })
}

/// Gives host node `node` of `exec` another function or data.
///
/// # Safety
/// `params` is NULL or valid, its function callable with its data from another thread.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphExecHostNodeSetParams(
    exec: *mut c_void,
    node: *mut c_void,
    params: *const cudaHostNodeParams,
) -> cudaError_t {
    guard("cudaGraphExecHostNodeSetParams", || {
        // SAFETY: NULL or valid (caller).
        let new = host_of(unsafe { params.as_ref() });
        set_node(exec, node, new, "host", |_, _| Ok(()))
    })
}

/// Disables (`enabled` 0) or enables kernel, memset or memcpy node `node` of `exec`.
#[no_mangle]
pub extern "C" fn cudaGraphNodeSetEnabled(
    exec: *mut c_void,
    node: *mut c_void,
    enabled: c_uint,
) -> cudaError_t {
    guard("cudaGraphNodeSetEnabled", || {
        with_node(exec, node, |exec, index| {
            let kind = &exec.model.nodes[index].kind;
            if !matches!(
                kind,
                NodeKind::Kernel(_) | NodeKind::Memset { .. } | NodeKind::Memcpy { .. }
            ) {
                return Err(CudaError::new(
                    INVALID_VALUE,
                    "only kernel, memset and memcpy nodes can be disabled",
                ));
            }
            let changed = if enabled == 0 {
                exec.disabled.insert(node as usize)
            } else {
                exec.disabled.remove(&(node as usize))
            };
            if changed {
                let model = exec.model.clone();
                exec.rebuild(model)?;
            }
            Ok(())
        })
    })
}

/// Writes 1 when node `node` of `exec` is enabled, else 0.
///
/// # Safety
/// `out` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphNodeGetEnabled(
    exec: *mut c_void,
    node: *mut c_void,
    out: *mut c_uint,
) -> cudaError_t {
    guard("cudaGraphNodeGetEnabled", || {
        let enabled = with_node(exec, node, |exec, _| {
            Ok(c_uint::from(!exec.disabled.contains(&(node as usize))))
        })?;
        store(out, enabled, "isEnabled")
    })
}

/// Writes the flags `exec` was instantiated with.
///
/// # Safety
/// `out` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphExecGetFlags(
    exec: *mut c_void,
    out: *mut c_ulonglong,
) -> cudaError_t {
    guard("cudaGraphExecGetFlags", || {
        let flags = lock(&*find_exec(exec)?).flags;
        store(out, flags, "flags")
    })
}
