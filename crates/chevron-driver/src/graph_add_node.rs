//! `cuGraphAddNode_v2`: a node of any kind from one `CUgraphNodeParams`, as a statically linked
//! runtime's `cudaGraphAddNode` asks for it. The parameters' union member of the node's type has
//! the layout of the per-kind function's parameters (or begins with it), so each kind is that
//! function: kernel, copy, fill, host function, child graph, event record and wait, memory
//! allocation and free, empty. Conditional, batch memory operation and external semaphore
//! nodes are not provided (`CUDA_ERROR_NOT_SUPPORTED`); edge data must describe default edges
//! (`CUDA_ERROR_INVALID_VALUE`, as the runtime's `cudaGraphAddDependencies`).

use std::ffi::{c_int, c_void};

use crate::graph::{
    cuGraphAddEmptyNode, cuGraphAddHostNode, cuGraphAddKernelNode_v2, cuGraphAddMemcpyNode,
    cuGraphAddMemsetNode, CudaKernelNodeParams,
};
use crate::graph_nodes::{
    cuGraphAddChildGraphNode, cuGraphAddEventRecordNode, cuGraphAddEventWaitNode,
    cuGraphAddMemAllocNode, cuGraphAddMemFreeNode,
};
use crate::memcpy_2d::CUDA_MEMCPY3D;
use crate::result::{entry, CUresult, DriverError, INVALID_VALUE, NOT_SUPPORTED};

/// `CUgraphNodeParams`: the node's type, then a 232-byte union of the kinds' parameters.
#[repr(C)]
pub struct CUgraphNodeParams {
    /// The node's `CUgraphNodeType`.
    pub ty: c_int,
    /// Zero.
    pub reserved0: [c_int; 3],
    /// The union of the kinds' parameters.
    pub body: [u64; 29],
    /// Zero.
    pub reserved2: i64,
}

/// `CUDA_MEMCPY_NODE_PARAMS`: flags, the copy's context and the copy.
#[repr(C)]
struct MemcpyNodeParams {
    flags: c_int,
    reserved: c_int,
    context: *mut c_void,
    copy: CUDA_MEMCPY3D,
}

/// `CUgraphNodeType` values.
mod kind {
    pub const KERNEL: i32 = 0;
    pub const MEMCPY: i32 = 1;
    pub const MEMSET: i32 = 2;
    pub const HOST: i32 = 3;
    pub const GRAPH: i32 = 4;
    pub const EMPTY: i32 = 5;
    pub const WAIT_EVENT: i32 = 6;
    pub const EVENT_RECORD: i32 = 7;
    pub const MEM_ALLOC: i32 = 10;
    pub const MEM_FREE: i32 = 11;
}

/// Whether the `count` edges of `data` (NULL: all default) are default edges.
///
/// # Safety
/// `data` is NULL or valid for `count` reads.
unsafe fn default_edges(data: *const [u8; 8], count: usize) -> bool {
    // SAFETY: NULL or valid for `count` reads (caller).
    data.is_null() || (0..count).all(|i| unsafe { *data.add(i) } == [0; 8])
}

/// Adds a node of `params`' type with `count` dependencies.
///
/// # Safety
/// `deps` and `edges` are NULL or valid for `count` reads; `params` is NULL or a valid
/// `CUgraphNodeParams` whose member for its type is valid as that kind's function takes it.
#[no_mangle]
pub unsafe extern "C" fn cuGraphAddNode_v2(
    out: *mut *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    edges: *const [u8; 8],
    count: usize,
    params: *mut CUgraphNodeParams,
) -> CUresult {
    if out.is_null() {
        return refuse(INVALID_VALUE, "phGraphNode is NULL");
    }
    if count > 0 && deps.is_null() {
        return refuse(
            INVALID_VALUE,
            "dependencies is NULL with numDependencies > 0",
        );
    }
    if !edges.is_null() && !chevron::ffi::c_array_fits::<[u8; 8]>(count) {
        return refuse(
            INVALID_VALUE,
            &format!("{count} edges is more than memory holds"),
        );
    }
    // SAFETY: NULL or valid for `count` reads (caller), `count` checked above.
    if !unsafe { default_edges(edges, count) } {
        return refuse(
            INVALID_VALUE,
            "only default edges (CUgraphEdgeData of zeros) are provided",
        );
    }
    // SAFETY: NULL or valid (caller).
    let Some(p) = (unsafe { params.as_mut() }) else {
        return refuse(INVALID_VALUE, "nodeParams is NULL");
    };
    let body = p.body.as_mut_ptr().cast::<u8>();
    let word = |i: usize| p.body[i] as *mut c_void;
    // SAFETY: each kind's member is read as its function's parameters (the caller's union);
    // the pointers into `body` live across the call.
    unsafe {
        match p.ty {
            kind::KERNEL => {
                cuGraphAddKernelNode_v2(out, graph, deps, count, body.cast::<CudaKernelNodeParams>())
            }
            kind::MEMCPY => {
                let copy = body.cast::<MemcpyNodeParams>();
                cuGraphAddMemcpyNode(out, graph, deps, count, &(*copy).copy, (*copy).context)
            }
            kind::MEMSET => {
                // CUDA_MEMSET_NODE_PARAMS_v2: the fill's fields (five words), then its context.
                let context = word(5);
                cuGraphAddMemsetNode(out, graph, deps, count, body.cast(), context)
            }
            kind::HOST => cuGraphAddHostNode(out, graph, deps, count, body.cast()),
            kind::GRAPH if p.body[1] as u32 != 0 => refuse(
                NOT_SUPPORTED,
                "a child graph node that takes over its graph (CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE) \
                 is not provided",
            ),
            kind::GRAPH => cuGraphAddChildGraphNode(out, graph, deps, count, word(0)),
            kind::EMPTY => cuGraphAddEmptyNode(out, graph, deps, count),
            kind::WAIT_EVENT => cuGraphAddEventWaitNode(out, graph, deps, count, word(0)),
            kind::EVENT_RECORD => cuGraphAddEventRecordNode(out, graph, deps, count, word(0)),
            kind::MEM_ALLOC => cuGraphAddMemAllocNode(out, graph, deps, count, body.cast()),
            kind::MEM_FREE => cuGraphAddMemFreeNode(out, graph, deps, count, word(0)),
            other => refuse(
                NOT_SUPPORTED,
                &format!("graph nodes of type {other} are not provided by cuGraphAddNode"),
            ),
        }
    }
}

/// Fails `cuGraphAddNode` with `code`, saying why.
fn refuse(code: CUresult, why: &str) -> CUresult {
    entry("cuGraphAddNode", || Err(DriverError::new(code, why)))
}
