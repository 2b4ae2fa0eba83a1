//! The rest of the driver's graph API that a statically linked runtime reaches for: child
//! graph and event nodes, dependencies and edges, node queries, cloning, kernel, host and fill
//! node parameters (in a graph and in an instantiated one), enabling nodes and
//! `cuGraphExecUpdate`; event nodes' events, kernel node attributes, a child node's graph,
//! memory nodes and graph memory, capture into a graph and its dependencies updated. Each is the runtime's function of the same meaning
//! (`cudart::graphs`), whose structures and handles the driver's share; kernel nodes name a
//! `CUfunction`, translated as [`crate::graph`] does.

use std::ffi::{c_int, c_uint, c_ulonglong, c_void};

use cudart::graphs::exec::cudaGraphExecUpdateResultInfo;
use cudart::graphs::nodes::{cudaHostNodeParams, cudaMemsetParams};
use cudart::graphs::{
    build, capture, child_graphs, event_nodes, exec, exec_params, kernel_attributes, memory_nodes,
    nodes, params, KernelLaunch,
};

use crate::forward::through;
use crate::graph::{kernel_node_target, CudaKernelNodeParams};
use crate::memory::enter;
use crate::result::{entry, store, CUresult, DriverResult};

forward! {
        /// Adds a node running the graph `child` (copied).
        cuGraphAddChildGraphNode => nodes::cudaGraphAddChildGraphNode,
            (out: *mut *mut c_void, graph: *mut c_void, deps: *const *mut c_void, count: usize, child: *mut c_void);
        /// Adds a node recording `event`.
        cuGraphAddEventRecordNode => nodes::cudaGraphAddEventRecordNode,
            (out: *mut *mut c_void, graph: *mut c_void, deps: *const *mut c_void, count: usize, event: *mut c_void);
        /// Adds a node waiting for `event`.
        cuGraphAddEventWaitNode => nodes::cudaGraphAddEventWaitNode,
            (out: *mut *mut c_void, graph: *mut c_void, deps: *const *mut c_void, count: usize, event: *mut c_void);
        /// Adds edges `from[i] → to[i]` (edge data: default edges only).
        cuGraphAddDependencies_v2 => build::cudaGraphAddDependencies,
            (graph: *mut c_void, from: *const *mut c_void, to: *const *mut c_void, edge_data: *const [u8; 8], count: usize);
        /// Removes edges `from[i] → to[i]`.
        cuGraphRemoveDependencies_v2 => build::cudaGraphRemoveDependencies,
            (graph: *mut c_void, from: *const *mut c_void, to: *const *mut c_void, edge_data: *const [u8; 8], count: usize);
        /// The graph's root nodes.
        cuGraphGetRootNodes => build::cudaGraphGetRootNodes,
            (graph: *mut c_void, nodes: *mut *mut c_void, count: *mut usize);
        /// The graph's edges.
        cuGraphGetEdges_v2 => build::cudaGraphGetEdges,
            (graph: *mut c_void, from: *mut *mut c_void, to: *mut *mut c_void, edge_data: *mut [u8; 8], count: *mut usize);
        /// A node's dependencies.
        cuGraphNodeGetDependencies_v2 => params::cudaGraphNodeGetDependencies,
            (node: *mut c_void, out: *mut *mut c_void, edge_data: *mut [u8; 8], count: *mut usize);
        /// The nodes depending on a node.
        cuGraphNodeGetDependentNodes_v2 => params::cudaGraphNodeGetDependentNodes,
            (node: *mut c_void, out: *mut *mut c_void, edge_data: *mut [u8; 8], count: *mut usize);
        /// A node's type (`CUgraphNodeType` numbers the kinds as `cudaGraphNodeType` does).
        cuGraphNodeGetType => nodes::cudaGraphNodeGetType, (node: *mut c_void, out: *mut c_int);
        /// An instantiated graph's flags.
        cuGraphExecGetFlags => exec_params::cudaGraphExecGetFlags,
            (exec: *mut c_void, out: *mut c_ulonglong);
        /// Whether a node of an instantiated graph is enabled.
        cuGraphNodeGetEnabled => exec_params::cudaGraphNodeGetEnabled,
            (exec: *mut c_void, node: *mut c_void, out: *mut c_uint);
        /// Updates an instantiated graph from `graph` of the same shape.
        cuGraphExecUpdate_v2 => exec::cudaGraphExecUpdate,
            (exec: *mut c_void, graph: *mut c_void, info: *mut cudaGraphExecUpdateResultInfo);
        /// A host node's function and data.
        cuGraphHostNodeGetParams => params::cudaGraphHostNodeGetParams,
            (node: *mut c_void, out: *mut cudaHostNodeParams);
        /// Gives a host node a new function and data.
        cuGraphHostNodeSetParams => params::cudaGraphHostNodeSetParams,
            (node: *mut c_void, params: *const cudaHostNodeParams);
        /// Gives a host node of an instantiated graph a new function and data.
        cuGraphExecHostNodeSetParams => exec_params::cudaGraphExecHostNodeSetParams,
            (exec: *mut c_void, node: *mut c_void, params: *const cudaHostNodeParams);
        /// A fill node's parameters (`CUDA_MEMSET_NODE_PARAMS` has the runtime's layout).
        cuGraphMemsetNodeGetParams => params::cudaGraphMemsetNodeGetParams,
            (node: *mut c_void, out: *mut cudaMemsetParams);
        /// Gives a fill node new parameters.
        cuGraphMemsetNodeSetParams => params::cudaGraphMemsetNodeSetParams,
            (node: *mut c_void, params: *const cudaMemsetParams);
}

/// Copies `graph`.
#[no_mangle]
pub extern "C" fn cuGraphClone(out: *mut *mut c_void, graph: *mut c_void) -> CUresult {
    entry("cuGraphClone", || {
        through(|| build::cudaGraphClone(out, graph))
    })
}

/// The node of `clone` made from `original`.
#[no_mangle]
pub extern "C" fn cuGraphNodeFindInClone(
    out: *mut *mut c_void,
    original: *mut c_void,
    clone: *mut c_void,
) -> CUresult {
    entry("cuGraphNodeFindInClone", || {
        through(|| build::cudaGraphNodeFindInClone(out, original, clone))
    })
}

/// Removes a node and its edges.
#[no_mangle]
pub extern "C" fn cuGraphDestroyNode(node: *mut c_void) -> CUresult {
    entry("cuGraphDestroyNode", || {
        through(|| build::cudaGraphDestroyNode(node))
    })
}

/// Enables or disables a node of an instantiated graph.
#[no_mangle]
pub extern "C" fn cuGraphNodeSetEnabled(
    exec: *mut c_void,
    node: *mut c_void,
    enabled: c_uint,
) -> CUresult {
    entry("cuGraphNodeSetEnabled", || {
        through(|| exec_params::cudaGraphNodeSetEnabled(exec, node, enabled))
    })
}

/// Gives a fill node of an instantiated graph new parameters; the context changes nothing.
///
/// # Safety
/// `params` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn cuGraphExecMemsetNodeSetParams(
    exec: *mut c_void,
    node: *mut c_void,
    params: *const cudaMemsetParams,
    _context: *mut c_void,
) -> CUresult {
    entry("cuGraphExecMemsetNodeSetParams", || {
        // SAFETY: forwarded from the caller.
        through(|| unsafe { exec_params::cudaGraphExecMemsetNodeSetParams(exec, node, params) })
    })
}

/// The launch a driver kernel node's parameters describe, checked, its values copied.
///
/// # Safety
/// `params` is NULL or valid, its `kernelParams` holding one readable pointer per kernel
/// parameter.
unsafe fn launch_of(params: *const CudaKernelNodeParams) -> DriverResult<KernelLaunch> {
    enter()?;
    // SAFETY: NULL or valid (caller).
    let (function, handle, config, args) = kernel_node_target(unsafe { params.as_ref() })?;
    let kernel = &function.kernel;
    // SAFETY: forwarded from the caller.
    let launch =
        unsafe { nodes::direct_launch(kernel, handle as usize, config, kernel.device(), args) };
    launch.map_err(Into::into)
}

/// A kernel node's function, configuration and argument pointers (valid while the node is
/// unchanged). The function is given as both `func` and `kern`: a library kernel and its
/// function are one handle here, and NVIDIA's runtime (statically linked) finds the node's
/// `__global__` function by `kern`, the `CUkernel` it got from `cuLibraryGetKernel`; with
/// `kern` NULL its `cudaGraphKernelNodeGetParams` failed with `cudaErrorInvalidDeviceFunction`.
///
/// # Safety
/// `out` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuGraphKernelNodeGetParams_v2(
    node: *mut c_void,
    out: *mut CudaKernelNodeParams,
) -> CUresult {
    entry("cuGraphKernelNodeGetParams", || {
        enter()?;
        let params = nodes::with_kernel_node(node, |launch| CudaKernelNodeParams {
            func: launch.func as *mut c_void,
            grid: launch.config.grid,
            block: launch.config.block,
            sharedMemBytes: launch.config.shared_bytes,
            kernelParams: launch.pointers.as_ptr() as *mut *mut c_void,
            extra: std::ptr::null_mut(),
            kern: launch.func as *mut c_void,
            ctx: std::ptr::null_mut(),
        })?;
        store(out, params, "nodeParams")
    })
}

/// Gives a kernel node a new function, configuration and argument values.
///
/// # Safety
/// As [`launch_of`].
#[no_mangle]
pub unsafe extern "C" fn cuGraphKernelNodeSetParams_v2(
    node: *mut c_void,
    params: *const CudaKernelNodeParams,
) -> CUresult {
    entry("cuGraphKernelNodeSetParams", || {
        // SAFETY: forwarded from the caller.
        let launch = unsafe { launch_of(params) }?;
        nodes::set_kernel_node(node, launch).map_err(Into::into)
    })
}

/// Gives a kernel node of an instantiated graph new parameters (in place when the function
/// and configuration stay).
///
/// # Safety
/// As [`launch_of`].
#[no_mangle]
pub unsafe extern "C" fn cuGraphExecKernelNodeSetParams_v2(
    exec: *mut c_void,
    node: *mut c_void,
    params: *const CudaKernelNodeParams,
) -> CUresult {
    entry("cuGraphExecKernelNodeSetParams", || {
        // SAFETY: forwarded from the caller.
        let launch = unsafe { launch_of(params) }?;
        exec::exec_set_kernel_node(exec, node, launch).map_err(Into::into)
    })
}

forward! {
        /// The event an event record node records.
        cuGraphEventRecordNodeGetEvent => event_nodes::cudaGraphEventRecordNodeGetEvent,
            (node: *mut c_void, out: *mut *mut c_void);
        /// Gives an event record node another event.
        cuGraphEventRecordNodeSetEvent => event_nodes::cudaGraphEventRecordNodeSetEvent,
            (node: *mut c_void, event: *mut c_void);
        /// The event an event wait node waits for.
        cuGraphEventWaitNodeGetEvent => event_nodes::cudaGraphEventWaitNodeGetEvent,
            (node: *mut c_void, out: *mut *mut c_void);
        /// Gives an event wait node another event.
        cuGraphEventWaitNodeSetEvent => event_nodes::cudaGraphEventWaitNodeSetEvent,
            (node: *mut c_void, event: *mut c_void);
        /// Gives an instantiation's event record node another event.
        cuGraphExecEventRecordNodeSetEvent => event_nodes::cudaGraphExecEventRecordNodeSetEvent,
            (exec: *mut c_void, node: *mut c_void, event: *mut c_void);
        /// Gives an instantiation's event wait node another event.
        cuGraphExecEventWaitNodeSetEvent => event_nodes::cudaGraphExecEventWaitNodeSetEvent,
            (exec: *mut c_void, node: *mut c_void, event: *mut c_void);
        /// A kernel node's launch attribute (`CUkernelNodeAttrValue` is the runtime's union).
        cuGraphKernelNodeGetAttribute => kernel_attributes::cudaGraphKernelNodeGetAttribute,
            (node: *mut c_void, id: c_int, out: *mut [u64; 8]);
        /// Sets a kernel node's launch attribute.
        cuGraphKernelNodeSetAttribute => kernel_attributes::cudaGraphKernelNodeSetAttribute,
            (node: *mut c_void, id: c_int, value: *const [u64; 8]);
        /// Gives kernel node `dst` the attributes of `src`.
        cuGraphKernelNodeCopyAttributes => kernel_attributes::cudaGraphKernelNodeCopyAttributes,
            (dst: *mut c_void, src: *mut c_void);
        /// A child graph node's own graph.
        cuGraphChildGraphNodeGetGraph => child_graphs::cudaGraphChildGraphNodeGetGraph,
            (node: *mut c_void, out: *mut *mut c_void);
        /// Replaces an instantiation's child graph by one of the same topology.
        cuGraphExecChildGraphNodeSetParams => child_graphs::cudaGraphExecChildGraphNodeSetParams,
            (exec: *mut c_void, node: *mut c_void, graph: *mut c_void);
        /// Adds a memory allocation node (`CUDA_MEM_ALLOC_NODE_PARAMS` is the runtime's).
        cuGraphAddMemAllocNode => memory_nodes::cudaGraphAddMemAllocNode,
            (out: *mut *mut c_void, graph: *mut c_void, deps: *const *mut c_void, count: usize,
             params: *mut memory_nodes::cudaMemAllocNodeParams);
        /// Adds a node freeing memory of an allocation node of the graph.
        cuGraphAddMemFreeNode => memory_nodes::cudaGraphAddMemFreeNode,
            (out: *mut *mut c_void, graph: *mut c_void, deps: *const *mut c_void, count: usize,
             dptr: *mut c_void);
        /// An allocation node's parameters.
        cuGraphMemAllocNodeGetParams => memory_nodes::cudaGraphMemAllocNodeGetParams,
            (node: *mut c_void, out: *mut memory_nodes::cudaMemAllocNodeParams);
        /// The address a free node frees.
        cuGraphMemFreeNodeGetParams => memory_nodes::cudaGraphMemFreeNodeGetParams,
            (node: *mut c_void, out: *mut *mut c_void);
        /// A graph memory attribute of a device (`CUdevice` is its ordinal).
        cuDeviceGetGraphMemAttribute => memory_nodes::cudaDeviceGetGraphMemAttribute,
            (device: c_int, attribute: c_int, value: *mut c_void);
        /// Resets a high of a device's graph memory.
        cuDeviceSetGraphMemAttribute => memory_nodes::cudaDeviceSetGraphMemAttribute,
            (device: c_int, attribute: c_int, value: *mut c_void);
        /// Gives back a device's unused graph memory.
        cuDeviceGraphMemTrim => memory_nodes::cudaDeviceGraphMemTrim, (device: c_int);
        /// Captures a stream's work into an existing graph.
        cuStreamBeginCaptureToGraph => capture::cudaStreamBeginCaptureToGraph,
            (stream: *mut c_void, graph: *mut c_void, deps: *const *mut c_void,
             edge_data: *const [u8; 8], count: usize, mode: c_int);
        /// Adds to or replaces a capturing stream's last nodes.
        cuStreamUpdateCaptureDependencies_v2 => capture::cudaStreamUpdateCaptureDependencies,
            (stream: *mut c_void, deps: *mut *mut c_void, edge_data: *const [u8; 8], count: usize,
             flags: c_uint);
}
