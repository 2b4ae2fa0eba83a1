//! Copy nodes to and from `__device__`/`__constant__` variables:
//! `cudaGraphAddMemcpyNodeToSymbol/FromSymbol`, `cudaGraphMemcpyNodeSetParamsToSymbol/FromSymbol`
//! and, in an instantiated graph, `cudaGraphExecMemcpyNodeSetParamsToSymbol/FromSymbol`.
//!
//! The variable is resolved on the current device when the node is made or changed (as CUDA
//! does), its range checked then; the node is then a 1D copy of linear memory like
//! `cudaGraphAddMemcpyNode1D`'s, and `cudaGraphMemcpyNodeGetParams` gives the variable's
//! address.

use std::ffi::{c_int, c_void};

use super::exec_params::{one_row, set_node};
use super::model::NodeKind;
use super::nodes::{add, copy_1d};
use super::params::replace_node;
use crate::errors::{
    cudaError_t, guard, CudaError, CudaResult, INVALID_MEMCPY_DIRECTION, INVALID_VALUE,
};
use crate::symbols::symbol_address;

/// `cudaMemcpyHostToDevice`, `cudaMemcpyDeviceToHost`, `cudaMemcpyDeviceToDevice`,
/// `cudaMemcpyDefault`.
const HOST_TO_DEVICE: c_int = 1;
const DEVICE_TO_HOST: c_int = 2;
const DEVICE_TO_DEVICE: c_int = 3;
const DEFAULT: c_int = 4;

/// The copy of `bytes` bytes between `symbol` (at `offset`) and `other`: to the variable when
/// `to_symbol`, else from it.
fn symbol_copy(
    to_symbol: bool,
    symbol: *const c_void,
    other: *const c_void,
    bytes: usize,
    offset: usize,
    kind: c_int,
) -> CudaResult<NodeKind> {
    // The variable and the other side first, the direction last (as CUDA reports them).
    let variable = symbol_address(symbol, offset, bytes)?;
    if other.is_null() {
        return Err(CudaError::new(INVALID_VALUE, "a NULL pointer"));
    }
    let host_side = if to_symbol {
        HOST_TO_DEVICE
    } else {
        DEVICE_TO_HOST
    };
    if ![host_side, DEVICE_TO_DEVICE, DEFAULT].contains(&kind) {
        return Err(CudaError::new(
            INVALID_MEMCPY_DIRECTION,
            format!(
                "cudaMemcpyKind {kind} for a copy {} a symbol",
                if to_symbol { "to" } else { "from" }
            ),
        ));
    }
    let other = other as u64;
    if to_symbol {
        copy_1d(variable, other, bytes, kind)
    } else {
        copy_1d(other, variable, bytes, kind)
    }
}

/// Adds a copy of `bytes` bytes from `src` to `symbol` at `offset`.
///
/// # Safety
/// `deps` is NULL or valid for `count` reads.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cudaGraphAddMemcpyNodeToSymbol(
    out: *mut *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    count: usize,
    symbol: *const c_void,
    src: *const c_void,
    bytes: usize,
    offset: usize,
    kind: c_int,
) -> cudaError_t {
    guard("cudaGraphAddMemcpyNodeToSymbol", || {
        let node = || symbol_copy(true, symbol, src, bytes, offset, kind);
        // SAFETY: forwarded from the caller.
        unsafe { add(out, graph, deps, count, node) }
    })
}

/// Adds a copy of `bytes` bytes from `symbol` at `offset` to `dst`.
///
/// # Safety
/// `deps` is NULL or valid for `count` reads.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cudaGraphAddMemcpyNodeFromSymbol(
    out: *mut *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    count: usize,
    dst: *mut c_void,
    symbol: *const c_void,
    bytes: usize,
    offset: usize,
    kind: c_int,
) -> cudaError_t {
    guard("cudaGraphAddMemcpyNodeFromSymbol", || {
        let node = || symbol_copy(false, symbol, dst, bytes, offset, kind);
        // SAFETY: forwarded from the caller.
        unsafe { add(out, graph, deps, count, node) }
    })
}

/// Gives a memcpy node a copy to `symbol`.
#[no_mangle]
pub extern "C" fn cudaGraphMemcpyNodeSetParamsToSymbol(
    node: *mut c_void,
    symbol: *const c_void,
    src: *const c_void,
    bytes: usize,
    offset: usize,
    kind: c_int,
) -> cudaError_t {
    guard("cudaGraphMemcpyNodeSetParamsToSymbol", || {
        let copy = symbol_copy(true, symbol, src, bytes, offset, kind);
        replace_node(node, copy, "memcpy")
    })
}

/// Gives a memcpy node a copy from `symbol`.
#[no_mangle]
pub extern "C" fn cudaGraphMemcpyNodeSetParamsFromSymbol(
    node: *mut c_void,
    dst: *mut c_void,
    symbol: *const c_void,
    bytes: usize,
    offset: usize,
    kind: c_int,
) -> cudaError_t {
    guard("cudaGraphMemcpyNodeSetParamsFromSymbol", || {
        let copy = symbol_copy(false, symbol, dst, bytes, offset, kind);
        replace_node(node, copy, "memcpy")
    })
}

/// Gives memcpy node `node` of `exec` a copy to `symbol` (the source graph keeps its own).
#[no_mangle]
pub extern "C" fn cudaGraphExecMemcpyNodeSetParamsToSymbol(
    exec: *mut c_void,
    node: *mut c_void,
    symbol: *const c_void,
    src: *const c_void,
    bytes: usize,
    offset: usize,
    kind: c_int,
) -> cudaError_t {
    guard("cudaGraphExecMemcpyNodeSetParamsToSymbol", || {
        let copy = symbol_copy(true, symbol, src, bytes, offset, kind);
        set_node(exec, node, copy, "memcpy", one_row)
    })
}

/// Gives memcpy node `node` of `exec` a copy from `symbol` (the source graph keeps its own).
#[no_mangle]
pub extern "C" fn cudaGraphExecMemcpyNodeSetParamsFromSymbol(
    exec: *mut c_void,
    node: *mut c_void,
    dst: *mut c_void,
    symbol: *const c_void,
    bytes: usize,
    offset: usize,
    kind: c_int,
) -> cudaError_t {
    guard("cudaGraphExecMemcpyNodeSetParamsFromSymbol", || {
        let copy = symbol_copy(false, symbol, dst, bytes, offset, kind);
        set_node(exec, node, copy, "memcpy", one_row)
    })
}
