//! CUDA graphs through the driver API: `cuGraphCreate`, the node builders (kernel, copy, fill,
//! host function, empty), instantiation, launch and destruction, and stream capture
//! (`cuStreamBeginCapture`, `cuStreamEndCapture`, `cuStreamGetCaptureInfo`).
//!
//! One graph model serves both APIs: these functions call the runtime's (`cudart::graphs`),
//! so a `CUgraph` is a `cudaGraph_t` and a `CUgraphExec` a `cudaGraphExec_t`. The driver's
//! parameter structures are translated to the runtime's; a kernel node names a `CUfunction`,
//! whose kernel the runtime's model launches directly (`add_direct_kernel_node`), and a
//! `cuLaunchKernel` on a capturing stream becomes a node the same way ([`crate::launch`]).

use std::ffi::{c_int, c_uint, c_ulonglong, c_void};

use std::sync::Arc;

use chevron::LaunchConfig;
use cudart::graphs::{build, capture, exec, nodes};

use crate::forward::through;
use crate::memcpy_2d::CUDA_MEMCPY3D;
use crate::memory::{enter, CUdeviceptr};
use crate::module::{function, FunctionEntry};
use crate::result::{entry, CUresult, DriverError, DriverResult, INVALID_VALUE};

/// `CUDA_KERNEL_NODE_PARAMS` (`_v2`/`_v3`: the same leading fields).
#[repr(C)]
#[allow(non_snake_case, missing_docs)]
pub struct CudaKernelNodeParams {
    pub func: *mut c_void,
    pub grid: [c_uint; 3],
    pub block: [c_uint; 3],
    pub sharedMemBytes: c_uint,
    pub kernelParams: *mut *mut c_void,
    pub extra: *mut *mut c_void,
    pub kern: *mut c_void,
    pub ctx: *mut c_void,
}

/// What a kernel node's parameters name: the function, its handle, the configuration and the
/// argument pointers.
pub(crate) type KernelNodeTarget = (
    Arc<FunctionEntry>,
    *mut c_void,
    LaunchConfig,
    *mut *mut c_void,
);

/// The function (by its handle), configuration and arguments a kernel node's parameters name.
pub(crate) fn kernel_node_target(
    params: Option<&CudaKernelNodeParams>,
) -> DriverResult<KernelNodeTarget> {
    let params = params.ok_or_else(|| DriverError::new(INVALID_VALUE, "nodeParams is NULL"))?;
    if !params.extra.is_null() {
        return Err(DriverError::new(
            INVALID_VALUE,
            "`extra` launch arguments are not provided in graph nodes: pass kernelParams",
        ));
    }
    let handle = if params.func.is_null() {
        params.kern
    } else {
        params.func
    };
    let config = LaunchConfig {
        grid: params.grid,
        block: params.block,
        shared_bytes: params.sharedMemBytes,
    };
    Ok((function(handle)?, handle, config, params.kernelParams))
}

/// `CU_MEMORYTYPE_HOST`, `…_ARRAY`.
const MEMORY_HOST: c_uint = 1;
const MEMORY_ARRAY: c_uint = 3;
/// `cudaMemcpyDefault`: the runtime works out each side from its address.
const COPY_DEFAULT: c_int = 4;

/// Creates an empty graph.
#[no_mangle]
pub extern "C" fn cuGraphCreate(out: *mut *mut c_void, flags: c_uint) -> CUresult {
    entry("cuGraphCreate", || {
        through(|| build::cudaGraphCreate(out, flags))
    })
}

/// Destroys a graph (its instantiations stay valid).
#[no_mangle]
pub extern "C" fn cuGraphDestroy(graph: *mut c_void) -> CUresult {
    entry("cuGraphDestroy", || {
        through(|| build::cudaGraphDestroy(graph))
    })
}

/// A graph's nodes (NULL `nodes`: their number only).
///
/// # Safety
/// `nodes` is NULL or valid for `*count` writes; `count` is writable.
#[no_mangle]
pub unsafe extern "C" fn cuGraphGetNodes(
    graph: *mut c_void,
    nodes: *mut *mut c_void,
    count: *mut usize,
) -> CUresult {
    entry("cuGraphGetNodes", || {
        // SAFETY: forwarded from the caller.
        through(|| unsafe { build::cudaGraphGetNodes(graph, nodes, count) })
    })
}

/// Adds a kernel node launching a `CUfunction` (or a library's `CUkernel`).
///
/// # Safety
/// `deps` is NULL or valid for `count` reads; `params` is NULL or valid, its `kernelParams`
/// holding one readable pointer per kernel parameter.
#[no_mangle]
pub unsafe extern "C" fn cuGraphAddKernelNode_v2(
    out: *mut *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    count: usize,
    params: *const CudaKernelNodeParams,
) -> CUresult {
    entry("cuGraphAddKernelNode", || {
        enter()?;
        // SAFETY: NULL or valid (caller).
        let (function, handle, config, args) = kernel_node_target(unsafe { params.as_ref() })?;
        // SAFETY: forwarded from the caller.
        let added = unsafe {
            nodes::add_direct_kernel_node(
                out,
                graph,
                deps,
                count,
                &function.kernel,
                handle as usize,
                config,
                args,
            )
        };
        added.map_err(Into::into)
    })
}

/// Adds a fill node (`CUDA_MEMSET_NODE_PARAMS` has the runtime's layout); the context argument
/// changes nothing (the graph's device is the current one).
///
/// # Safety
/// As [`cuGraphAddKernelNode_v2`]; `params` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn cuGraphAddMemsetNode(
    out: *mut *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    count: usize,
    params: *const nodes::cudaMemsetParams,
    context: *mut c_void,
) -> CUresult {
    let _ = context;
    entry("cuGraphAddMemsetNode", || {
        // SAFETY: forwarded from the caller.
        through(|| unsafe { nodes::cudaGraphAddMemsetNode(out, graph, deps, count, params) })
    })
}

/// One side of a `CUDA_MEMCPY3D` as the runtime's pitched pointer and position.
fn copy_side(
    memory_type: c_uint,
    host: *const c_void,
    device: CUdeviceptr,
    pitch: usize,
    height: usize,
) -> DriverResult<nodes::cudaPitchedPtr> {
    if memory_type == MEMORY_ARRAY {
        return Err(DriverError::new(
            INVALID_VALUE,
            "copy nodes of CUDA arrays are not provided (linear memory only)",
        ));
    }
    let ptr = if memory_type == MEMORY_HOST {
        host as *mut c_void
    } else {
        device as *mut c_void
    };
    Ok(nodes::cudaPitchedPtr {
        ptr,
        pitch,
        xsize: pitch,
        ysize: height,
    })
}

/// Adds a copy node (linear memory, host or device on either side).
///
/// # Safety
/// As [`cuGraphAddKernelNode_v2`]; `params` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn cuGraphAddMemcpyNode(
    out: *mut *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    count: usize,
    params: *const CUDA_MEMCPY3D,
    context: *mut c_void,
) -> CUresult {
    let _ = context;
    entry("cuGraphAddMemcpyNode", || {
        // SAFETY: NULL or valid (caller).
        let p = unsafe { params.as_ref() }
            .ok_or_else(|| DriverError::new(INVALID_VALUE, "copyParams is NULL"))?;
        let row = |pitch: usize| if pitch == 0 { p.WidthInBytes } else { pitch };
        let src = copy_side(
            p.srcMemoryType,
            p.srcHost,
            p.srcDevice,
            row(p.srcPitch),
            p.srcHeight,
        )?;
        let dst = copy_side(
            p.dstMemoryType,
            p.dstHost,
            p.dstDevice,
            row(p.dstPitch),
            p.dstHeight,
        )?;
        let runtime_params = nodes::cudaMemcpy3DParms {
            srcArray: std::ptr::null_mut(),
            srcPos: [p.srcXInBytes, p.srcY, p.srcZ],
            srcPtr: src,
            dstArray: std::ptr::null_mut(),
            dstPos: [p.dstXInBytes, p.dstY, p.dstZ],
            dstPtr: dst,
            extent: [p.WidthInBytes, p.Height.max(1), p.Depth.max(1)],
            kind: COPY_DEFAULT,
        };
        // SAFETY: forwarded from the caller; the parameters live across the call.
        through(|| unsafe {
            nodes::cudaGraphAddMemcpyNode(out, graph, deps, count, &runtime_params)
        })
    })
}

/// Adds a host function node (`CUDA_HOST_NODE_PARAMS` has the runtime's layout).
///
/// # Safety
/// As [`cuGraphAddKernelNode_v2`]; `params` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn cuGraphAddHostNode(
    out: *mut *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    count: usize,
    params: *const nodes::cudaHostNodeParams,
) -> CUresult {
    entry("cuGraphAddHostNode", || {
        // SAFETY: forwarded from the caller.
        through(|| unsafe { nodes::cudaGraphAddHostNode(out, graph, deps, count, params) })
    })
}

/// Adds an empty node (a join point).
///
/// # Safety
/// `deps` is NULL or valid for `count` reads.
#[no_mangle]
pub unsafe extern "C" fn cuGraphAddEmptyNode(
    out: *mut *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    count: usize,
) -> CUresult {
    entry("cuGraphAddEmptyNode", || {
        // SAFETY: forwarded from the caller.
        through(|| unsafe { nodes::cudaGraphAddEmptyNode(out, graph, deps, count) })
    })
}

/// Instantiates a graph (every flag is accepted, as the runtime's).
#[no_mangle]
pub extern "C" fn cuGraphInstantiateWithFlags(
    out: *mut *mut c_void,
    graph: *mut c_void,
    flags: c_ulonglong,
) -> CUresult {
    entry("cuGraphInstantiate", || {
        through(|| exec::cudaGraphInstantiateWithFlags(out, graph, flags))
    })
}

/// `CUDA_GRAPH_INSTANTIATE_PARAMS`.
#[repr(C)]
#[allow(missing_docs)]
pub struct InstantiateParams {
    pub flags: c_ulonglong,
    pub upload_stream: *mut c_void,
    pub error_node: *mut c_void,
    pub result: c_int,
}

/// `CUDA_GRAPH_INSTANTIATE_ERROR`: the graph's structure is invalid.
const INSTANTIATE_ERROR: c_int = 1;

/// Instantiates a graph with parameters (every flag is taken: an upload is immediate, so the
/// upload stream has nothing to wait for); the result is `CUDA_GRAPH_INSTANTIATE_SUCCESS` or
/// `…_ERROR`, no error node is reported.
///
/// # Safety
/// `params` is NULL or valid for reads and writes.
#[no_mangle]
pub unsafe extern "C" fn cuGraphInstantiateWithParams(
    out: *mut *mut c_void,
    graph: *mut c_void,
    params: *mut InstantiateParams,
) -> CUresult {
    // SAFETY: NULL or valid (caller).
    let Some(params) = (unsafe { params.as_mut() }) else {
        return entry("cuGraphInstantiateWithParams", || {
            Err(DriverError::new(INVALID_VALUE, "instantiateParams is NULL"))
        });
    };
    let code = cuGraphInstantiateWithFlags(out, graph, params.flags);
    params.error_node = std::ptr::null_mut();
    params.result = if code == 0 { 0 } else { INSTANTIATE_ERROR };
    code
}

/// Instantiates a graph (the CUDA 11 form: no error node is ever reported, the log stays
/// empty).
///
/// # Safety
/// `error_node` is NULL or writable; `log` is NULL or valid for `log_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn cuGraphInstantiate_v2(
    out: *mut *mut c_void,
    graph: *mut c_void,
    error_node: *mut *mut c_void,
    log: *mut u8,
    log_size: usize,
) -> CUresult {
    entry("cuGraphInstantiate", || {
        // SAFETY: NULL or writable (caller).
        if let Some(node) = unsafe { error_node.as_mut() } {
            *node = std::ptr::null_mut();
        }
        if !log.is_null() && log_size > 0 {
            // SAFETY: at least one writable byte (caller).
            unsafe { *log = 0 };
        }
        through(|| exec::cudaGraphInstantiate(out, graph, 0))
    })
}

/// Launches an instantiated graph on a stream.
#[no_mangle]
pub extern "C" fn cuGraphLaunch(exec: *mut c_void, stream: *mut c_void) -> CUresult {
    entry("cuGraphLaunch", || {
        through(|| exec::cudaGraphLaunch(exec, stream))
    })
}

/// Uploads an instantiated graph (instantiation already did).
#[no_mangle]
pub extern "C" fn cuGraphUpload(exec: *mut c_void, stream: *mut c_void) -> CUresult {
    entry("cuGraphUpload", || {
        through(|| exec::cudaGraphUpload(exec, stream))
    })
}

/// Destroys an instantiated graph.
#[no_mangle]
pub extern "C" fn cuGraphExecDestroy(exec: *mut c_void) -> CUresult {
    entry("cuGraphExecDestroy", || {
        through(|| exec::cudaGraphExecDestroy(exec))
    })
}

/// Starts capturing a stream's work into a graph (every `CUstreamCaptureMode` is taken).
#[no_mangle]
pub extern "C" fn cuStreamBeginCapture_v2(stream: *mut c_void, mode: c_int) -> CUresult {
    entry("cuStreamBeginCapture", || {
        through(|| capture::cudaStreamBeginCapture(stream, mode))
    })
}

/// Ends a capture and hands back its graph.
///
/// # Safety
/// `graph` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn cuStreamEndCapture(
    stream: *mut c_void,
    graph: *mut *mut c_void,
) -> CUresult {
    entry("cuStreamEndCapture", || {
        // SAFETY: forwarded from the caller.
        through(|| unsafe { capture::cudaStreamEndCapture(stream, graph) })
    })
}

/// A stream's capture status, id, graph and current dependencies (edge data always NULL).
///
/// # Safety
/// Every out-pointer is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCaptureInfo_v3(
    stream: *mut c_void,
    status: *mut c_int,
    id: *mut c_ulonglong,
    graph: *mut *mut c_void,
    deps: *mut *const *mut c_void,
    edges: *mut *const c_void,
    count: *mut usize,
) -> CUresult {
    entry("cuStreamGetCaptureInfo", || {
        // SAFETY: forwarded from the caller.
        through(|| unsafe {
            capture::cudaStreamGetCaptureInfo(stream, status, id, graph, deps, edges, count)
        })
    })
}

/// [`cuStreamGetCaptureInfo_v3`] without edge data (the CUDA 12 form).
///
/// # Safety
/// As [`cuStreamGetCaptureInfo_v3`].
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCaptureInfo_v2(
    stream: *mut c_void,
    status: *mut c_int,
    id: *mut c_ulonglong,
    graph: *mut *mut c_void,
    deps: *mut *const *mut c_void,
    count: *mut usize,
) -> CUresult {
    // SAFETY: forwarded from the caller.
    unsafe {
        cuStreamGetCaptureInfo_v3(stream, status, id, graph, deps, std::ptr::null_mut(), count)
    }
}
