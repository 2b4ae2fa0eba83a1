//! Adding nodes to a graph by hand (`cudaGraphAdd{Kernel,Memcpy,Memcpy1D,Memset,Host,Empty,
//! ChildGraph,EventRecord,EventWait}Node`) and a node's parameters and type.
//!
//! Each node's parameters are checked when it is added (a kernel's configuration against the
//! current device, argument pointers before they are read); argument values are copied then,
//! host sides of copies are read or written when the graph runs, as CUDA does.

use std::ffi::{c_int, c_uint, c_void};
use std::sync::Arc;

use chevron::{Device, Kernel, LaunchConfig};

use super::model::{ChildGraph, KernelLaunch, Model, NodeKind, Value};
use super::{bad_handle, find_graph, find_node, next_handle, register_node};
use crate::abi::{cudaKernelNodeParams, Dim3};
use crate::errors::{cudaError_t, guard, CudaError, CudaResult, INVALID_VALUE};
use crate::memory::store;
use crate::registry::{self, KernelEntry};
use crate::state::{self, lock};

/// `cudaMemsetParams`.
#[repr(C)]
#[allow(non_snake_case, missing_docs)]
pub struct cudaMemsetParams {
    pub dst: *mut c_void,
    pub pitch: usize,
    pub value: c_uint,
    pub elementSize: c_uint,
    pub width: usize,
    pub height: usize,
}

/// `cudaHostNodeParams`.
#[repr(C)]
#[allow(non_snake_case, missing_docs)]
pub struct cudaHostNodeParams {
    pub r#fn: crate::streams::HostFn,
    pub userData: *mut c_void,
}

/// `cudaPitchedPtr`.
#[repr(C)]
#[allow(missing_docs)]
pub struct cudaPitchedPtr {
    pub ptr: *mut c_void,
    pub pitch: usize,
    pub xsize: usize,
    pub ysize: usize,
}

/// `cudaMemcpy3DParms` (linear memory only: arrays are not provided).
#[repr(C)]
#[allow(non_snake_case, missing_docs)]
pub struct cudaMemcpy3DParms {
    pub srcArray: *mut c_void,
    pub srcPos: [usize; 3],
    pub srcPtr: cudaPitchedPtr,
    pub dstArray: *mut c_void,
    pub dstPos: [usize; 3],
    pub dstPtr: cudaPitchedPtr,
    pub extent: [usize; 3],
    pub kind: c_int,
}

/// Copies one value per parameter of `kernel` from `args`, after checking every pointer.
///
/// # Safety
/// `args` is NULL or holds one pointer per parameter, each NULL or to a value of its size.
unsafe fn copy_values(kernel: &Kernel, args: *mut *mut c_void) -> CudaResult<Vec<Value>> {
    let params = kernel.params().unwrap_or(&[]);
    // SAFETY: forwarded from the caller.
    let pointers =
        unsafe { crate::launch::argument_pointers(kernel.display_name(), params, args) }?;
    Ok(params
        .iter()
        .zip(pointers)
        .map(|(param, &pointer)| {
            // SAFETY: non-NULL (checked), and reads a value of its parameter's size (caller).
            let bytes =
                unsafe { std::slice::from_raw_parts(pointer.cast::<u8>(), param.size as usize) };
            Value(bytes.into())
        })
        .collect())
}

/// A kernel node's launch of `entry` on device `ordinal`, checked, its values copied.
///
/// # Safety
/// `args` as for [`copy_values`].
pub(crate) unsafe fn kernel_launch(
    entry: &KernelEntry,
    func: usize,
    config: LaunchConfig,
    ordinal: usize,
    device: &Device,
    args: *mut *mut c_void,
) -> CudaResult<KernelLaunch> {
    let kernel = entry.kernel(ordinal)?.clone();
    let func = if func == 0 {
        registry::stub_of(entry)
    } else {
        func
    };
    let fatbin = Some(Arc::clone(&entry.fatbin));
    // SAFETY: forwarded from the caller.
    unsafe { checked_launch(kernel, func, fatbin, config, device, args) }
}

/// A kernel node's launch of `kernel` (named `func` by the program), checked against `device`,
/// its values copied.
///
/// # Safety
/// `args` as for [`copy_values`].
unsafe fn checked_launch(
    kernel: Kernel,
    func: usize,
    fatbin: Option<Arc<crate::registry::FatBinary>>,
    config: LaunchConfig,
    device: &Device,
    args: *mut *mut c_void,
) -> CudaResult<KernelLaunch> {
    kernel.check_config(device, &config)?;
    // SAFETY: forwarded from the caller.
    let values = unsafe { copy_values(&kernel, args) }?;
    let mut launch = KernelLaunch {
        func,
        fatbin,
        name: kernel.name().to_string(),
        kernel,
        config,
        values,
        pointers: Box::new([]),
    };
    launch.point_at_values();
    Ok(launch)
}

/// A kernel node's launch of a driver-API function (`CUfunction` `func`, its kernel loaded on
/// `device`), checked, its values copied.
///
/// # Safety
/// `args` is NULL or holds one pointer per parameter, each NULL or to a value of its size.
pub unsafe fn direct_launch(
    kernel: &Kernel,
    func: usize,
    config: LaunchConfig,
    device: &Device,
    args: *mut *mut c_void,
) -> CudaResult<KernelLaunch> {
    // SAFETY: forwarded from the caller.
    unsafe { checked_launch(kernel.clone(), func, None, config, device, args) }
}

/// Adds a node launching the driver-API function `func` (whose kernel is `kernel`) with
/// `config`, after the `count` nodes at `deps`: `cuGraphAddKernelNode` over this graph model.
///
/// # Safety
/// `deps` is NULL or valid for `count` reads; `args` as for [`direct_launch`].
#[allow(clippy::too_many_arguments)]
pub unsafe fn add_direct_kernel_node(
    out: *mut *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    count: usize,
    kernel: &Kernel,
    func: usize,
    config: LaunchConfig,
    args: *mut *mut c_void,
) -> CudaResult {
    let kind = || {
        // SAFETY: forwarded from the caller.
        let launch = unsafe { direct_launch(kernel, func, config, kernel.device(), args) }?;
        Ok(NodeKind::Kernel(Box::new(launch)))
    };
    // SAFETY: forwarded from the caller.
    unsafe { add(out, graph, deps, count, kind) }
}

/// The launch `params` describe, on the current device.
///
/// # Safety
/// `params` is NULL or valid, its `kernelParams` as for [`copy_values`].
pub(crate) unsafe fn launch_of(params: *const cudaKernelNodeParams) -> CudaResult<KernelLaunch> {
    // SAFETY: NULL or valid (caller).
    let params = unsafe { params.as_ref() }
        .ok_or_else(|| CudaError::new(INVALID_VALUE, "pNodeParams is NULL"))?;
    if !params.extra.is_null() {
        return Err(CudaError::new(
            INVALID_VALUE,
            "`extra` launch arguments are not provided in graph nodes: pass kernelParams",
        ));
    }
    let entry = registry::kernel_entry(params.func)?;
    let config =
        crate::launch::launch_config(params.gridDim, params.blockDim, params.sharedMemBytes as _)?;
    let ordinal = state::current_ordinal();
    let device = &state::device(ordinal)?.device;
    // SAFETY: forwarded from the caller.
    unsafe {
        kernel_launch(
            &entry,
            params.func as usize,
            config,
            ordinal,
            device,
            params.kernelParams,
        )
    }
}

/// Checks that `deps` can hold `count` node handles.
pub(super) fn check_list(deps: *const *mut c_void, count: usize) -> CudaResult {
    if count > 0 && deps.is_null() {
        return Err(CudaError::new(INVALID_VALUE, "pDependencies is NULL"));
    }
    if !chevron::ffi::c_array_fits::<*mut c_void>(count) {
        return Err(CudaError::new(
            INVALID_VALUE,
            format!("numDependencies {count} is more than memory holds"),
        ));
    }
    Ok(())
}

/// Checks that the `count` edges at `edge_data` (NULL: default ones) are default edges, the
/// only kind chevron's graphs have.
///
/// # Safety
/// `edge_data` is NULL or valid for `count` reads.
pub(super) unsafe fn default_edges(edge_data: *const [u8; 8], count: usize) -> CudaResult {
    if count > 0 && !edge_data.is_null() {
        // SAFETY: `count` readable edges (caller).
        let edges = unsafe { std::slice::from_raw_parts(edge_data, count) };
        if edges.iter().any(|edge| *edge != [0; 8]) {
            return Err(CudaError::new(
                crate::errors::NOT_SUPPORTED,
                "only default edges are provided",
            ));
        }
    }
    Ok(())
}

/// The indices in `model` of the `count` node handles at `deps` (checked by [`check_list`]),
/// each at most once.
///
/// # Safety
/// `deps` is NULL or valid for `count` reads.
pub(super) unsafe fn indices_of(
    model: &Model,
    deps: *const *mut c_void,
    count: usize,
) -> CudaResult<Vec<usize>> {
    let handles = if count == 0 {
        &[][..]
    } else {
        // SAFETY: `count` readable handles (caller).
        unsafe { std::slice::from_raw_parts(deps, count) }
    };
    let mut indices = Vec::with_capacity(count);
    for &handle in handles {
        let index = model
            .index_of(handle as usize)
            .ok_or_else(|| bad_handle(handle, "node of this graph"))?;
        if indices.contains(&index) {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!("dependency {handle:p} is given twice"),
            ));
        }
        indices.push(index);
    }
    Ok(indices)
}

/// Adds a node of `kind` to `graph` after the `count` nodes at `deps`, writing its handle.
///
/// # Safety
/// `deps` is NULL or valid for `count` reads.
pub(super) unsafe fn add(
    out: *mut *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    count: usize,
    kind: impl FnOnce() -> CudaResult<NodeKind>,
) -> CudaResult {
    if out.is_null() {
        return Err(CudaError::new(INVALID_VALUE, "pGraphNode is NULL"));
    }
    let model = find_graph(graph)?;
    check_list(deps, count)?;
    let kind = kind()?;
    let mut model = lock(&model);
    // SAFETY: forwarded from the caller.
    let indices = unsafe { indices_of(&model, deps, count) }?;
    let handle = next_handle();
    let index = model.add(kind, indices, handle);
    register_node(handle, graph as usize, index);
    store(out, handle as *mut c_void, "pGraphNode")
}

/// Adds a kernel node.
///
/// # Safety
/// Pointers as CUDA documents them: `deps` valid for `count` reads, `params` valid with one
/// readable pointer per kernel parameter.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphAddKernelNode(
    out: *mut *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    count: usize,
    params: *const cudaKernelNodeParams,
) -> cudaError_t {
    guard("cudaGraphAddKernelNode", || {
        // SAFETY: forwarded from the caller.
        let kind = || Ok(NodeKind::Kernel(Box::new(unsafe { launch_of(params) }?)));
        // SAFETY: forwarded from the caller.
        unsafe { add(out, graph, deps, count, kind) }
    })
}

/// Adds a fill of `height` rows of `width` elements of 1, 2 or 4 bytes.
///
/// # Safety
/// As [`cudaGraphAddKernelNode`]; `params` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphAddMemsetNode(
    out: *mut *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    count: usize,
    params: *const cudaMemsetParams,
) -> cudaError_t {
    guard("cudaGraphAddMemsetNode", || {
        // SAFETY: NULL or valid (caller).
        let kind = memset_of(unsafe { params.as_ref() })?;
        // SAFETY: forwarded from the caller.
        unsafe { add(out, graph, deps, count, || Ok(kind)) }
    })
}

/// The fill `p` describes, checked.
pub(crate) fn memset_of(p: Option<&cudaMemsetParams>) -> CudaResult<NodeKind> {
    let p = p.ok_or_else(|| CudaError::new(INVALID_VALUE, "pMemsetParams is NULL"))?;
    let element = p.elementSize as usize;
    if !matches!(element, 1 | 2 | 4) || p.dst.is_null() || p.width == 0 || p.height == 0 {
        return Err(CudaError::new(
            INVALID_VALUE,
            "a memset node needs a destination, elements of 1, 2 or 4 bytes, and a nonzero \
             width and height",
        ));
    }
    if p.height > 1 && p.pitch < p.width * element {
        return Err(CudaError::new(
            INVALID_VALUE,
            "the pitch is below the row's width",
        ));
    }
    Ok(NodeKind::Memset {
        dst: p.dst as u64,
        value: p.value,
        element_bytes: element as u32,
        count: p.width as u64,
        pitch: p.pitch as u64,
        rows: p.height as u64,
    })
}

/// Adds a copy of `bytes` bytes (every `cudaMemcpyKind`; sides classified by address).
///
/// # Safety
/// As [`cudaGraphAddKernelNode`].
#[no_mangle]
pub unsafe extern "C" fn cudaGraphAddMemcpyNode1D(
    out: *mut *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    count: usize,
    dst: *mut c_void,
    src: *const c_void,
    bytes: usize,
    kind: c_int,
) -> cudaError_t {
    guard("cudaGraphAddMemcpyNode1D", || {
        let node = copy_1d(dst as u64, src as u64, bytes, kind)?;
        // SAFETY: forwarded from the caller.
        unsafe { add(out, graph, deps, count, || Ok(node)) }
    })
}

/// A copy of `bytes` bytes, checked.
pub(crate) fn copy_1d(dst: u64, src: u64, bytes: usize, kind: c_int) -> CudaResult<NodeKind> {
    check_copy(dst, src, bytes, kind)?;
    Ok(NodeKind::linear_copy(dst, src, bytes, kind))
}

fn check_copy(dst: u64, src: u64, bytes: usize, kind: c_int) -> CudaResult {
    if !(0..=4).contains(&kind) {
        return Err(CudaError::new(
            crate::errors::INVALID_MEMCPY_DIRECTION,
            format!("cudaMemcpyKind {kind}"),
        ));
    }
    if bytes == 0 || dst == 0 || src == 0 {
        return Err(CudaError::new(
            INVALID_VALUE,
            "a copy node needs two pointers and a nonzero size",
        ));
    }
    Ok(())
}

/// Adds a copy between pitched linear memory (`cudaMemcpy3DParms` without arrays).
///
/// # Safety
/// As [`cudaGraphAddKernelNode`]; `params` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphAddMemcpyNode(
    out: *mut *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    count: usize,
    params: *const cudaMemcpy3DParms,
) -> cudaError_t {
    guard("cudaGraphAddMemcpyNode", || {
        // SAFETY: NULL or valid (caller).
        let node = copy_3d(unsafe { params.as_ref() })?;
        // SAFETY: forwarded from the caller.
        unsafe { add(out, graph, deps, count, || Ok(node)) }
    })
}

/// The copy of a `cudaMemcpy3DParms` between linear memory, as rows, checked.
pub(crate) fn copy_3d(p: Option<&cudaMemcpy3DParms>) -> CudaResult<NodeKind> {
    let p = p.ok_or_else(|| CudaError::new(INVALID_VALUE, "pCopyParams is NULL"))?;
    if !p.srcArray.is_null() || !p.dstArray.is_null() {
        return Err(CudaError::new(
            crate::errors::NOT_SUPPORTED,
            "CUDA arrays are not provided: copy nodes take linear memory",
        ));
    }
    let [width, height, depth] = p.extent;
    let side = |ptr: &cudaPitchedPtr, pos: [usize; 3]| -> CudaResult<(u64, u64)> {
        let pitch = ptr.pitch.max(width);
        if depth > 1 && ptr.ysize != height {
            return Err(CudaError::new(
                crate::errors::NOT_SUPPORTED,
                "3D copy nodes whose slices are taller than the extent are not provided",
            ));
        }
        let offset = (pos[2] * ptr.ysize.max(1) + pos[1]) * pitch + pos[0];
        Ok((ptr.ptr as u64 + offset as u64, pitch as u64))
    };
    let (src, src_pitch) = side(&p.srcPtr, p.srcPos)?;
    let (dst, dst_pitch) = side(&p.dstPtr, p.dstPos)?;
    check_copy(dst, src, width * height.max(1) * depth.max(1), p.kind)?;
    Ok(NodeKind::Memcpy {
        dst,
        dst_pitch,
        src,
        src_pitch,
        width: width as u64,
        rows: (height.max(1) * depth.max(1)) as u64,
        kind: p.kind,
    })
}

/// Adds a host function node.
///
/// # Safety
/// As [`cudaGraphAddKernelNode`]; `params` NULL or valid, its function callable with its data
/// from another thread.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphAddHostNode(
    out: *mut *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    count: usize,
    params: *const cudaHostNodeParams,
) -> cudaError_t {
    guard("cudaGraphAddHostNode", || {
        // SAFETY: NULL or valid (caller).
        let node = host_of(unsafe { params.as_ref() })?;
        // SAFETY: forwarded from the caller.
        unsafe { add(out, graph, deps, count, || Ok(node)) }
    })
}

/// The host function call `p` describes, checked.
pub(crate) fn host_of(p: Option<&cudaHostNodeParams>) -> CudaResult<NodeKind> {
    let p = p.ok_or_else(|| CudaError::new(INVALID_VALUE, "pNodeParams is NULL"))?;
    let function = p
        .r#fn
        .ok_or_else(|| CudaError::new(INVALID_VALUE, "the host function is NULL"))?;
    Ok(NodeKind::Host {
        function,
        user_data: p.userData as usize,
    })
}

/// Adds a node that does nothing (a point of dependencies).
///
/// # Safety
/// As [`cudaGraphAddKernelNode`].
#[no_mangle]
pub unsafe extern "C" fn cudaGraphAddEmptyNode(
    out: *mut *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    count: usize,
) -> cudaError_t {
    guard("cudaGraphAddEmptyNode", || {
        // SAFETY: forwarded from the caller.
        unsafe { add(out, graph, deps, count, || Ok(NodeKind::Empty)) }
    })
}

/// Adds a node running a copy of `child` (later changes to `child` do not reach it).
///
/// # Safety
/// As [`cudaGraphAddKernelNode`].
#[no_mangle]
pub unsafe extern "C" fn cudaGraphAddChildGraphNode(
    out: *mut *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    count: usize,
    child: *mut c_void,
) -> cudaError_t {
    guard("cudaGraphAddChildGraphNode", || {
        if child == graph {
            return Err(CudaError::new(
                INVALID_VALUE,
                "a graph cannot contain itself",
            ));
        }
        let copy = lock(&*find_graph(child)?).detached();
        // SAFETY: forwarded from the caller.
        unsafe {
            add(out, graph, deps, count, || {
                Ok(NodeKind::Child(ChildGraph::new(copy)))
            })
        }
    })
}

/// Adds a node recording `event`.
///
/// # Safety
/// As [`cudaGraphAddKernelNode`].
#[no_mangle]
pub unsafe extern "C" fn cudaGraphAddEventRecordNode(
    out: *mut *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    count: usize,
    event: *mut c_void,
) -> cudaError_t {
    guard("cudaGraphAddEventRecordNode", || {
        crate::streams::event_token(event)?;
        let node = NodeKind::EventRecord(event as usize);
        // SAFETY: forwarded from the caller.
        unsafe { add(out, graph, deps, count, || Ok(node)) }
    })
}

/// Adds a node waiting for `event` (as recorded when the node runs).
///
/// # Safety
/// As [`cudaGraphAddKernelNode`].
#[no_mangle]
pub unsafe extern "C" fn cudaGraphAddEventWaitNode(
    out: *mut *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    count: usize,
    event: *mut c_void,
) -> cudaError_t {
    guard("cudaGraphAddEventWaitNode", || {
        crate::streams::event_token(event)?;
        let node = NodeKind::EventWait(event as usize);
        // SAFETY: forwarded from the caller.
        unsafe { add(out, graph, deps, count, || Ok(node)) }
    })
}

/// Writes a node's `cudaGraphNodeType`.
///
/// # Safety
/// `out` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphNodeGetType(node: *mut c_void, out: *mut c_int) -> cudaError_t {
    guard("cudaGraphNodeGetType", || {
        let (model, index) = find_node(node)?;
        let code = lock(&model).nodes[index].kind.type_code();
        store(out, code, "pType")
    })
}

/// Writes a kernel node's parameters; `kernelParams` points to the node's own copies of the
/// values (valid while the node lives and its parameters stay).
///
/// # Safety
/// `out` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphKernelNodeGetParams(
    node: *mut c_void,
    out: *mut cudaKernelNodeParams,
) -> cudaError_t {
    guard("cudaGraphKernelNodeGetParams", || {
        with_kernel_node(node, |launch| {
            let dim = |d: [u32; 3]| Dim3 {
                x: d[0],
                y: d[1],
                z: d[2],
            };
            let params = cudaKernelNodeParams {
                func: launch.func as *mut c_void,
                gridDim: dim(launch.config.grid),
                blockDim: dim(launch.config.block),
                sharedMemBytes: launch.config.shared_bytes,
                kernelParams: launch.pointers.as_ptr() as *mut *mut c_void,
                extra: std::ptr::null_mut(),
            };
            store(out, params, "pNodeParams")
        })?
    })
}

/// Runs `read` on the launch of kernel node `node` (`cudaErrorInvalidValue` for another
/// kind of node).
pub fn with_kernel_node<T>(
    node: *mut c_void,
    read: impl FnOnce(&KernelLaunch) -> T,
) -> CudaResult<T> {
    let (model, index) = find_node(node)?;
    let model = lock(&model);
    let NodeKind::Kernel(launch) = &model.nodes[index].kind else {
        return Err(CudaError::new(INVALID_VALUE, "not a kernel node"));
    };
    Ok(read(launch))
}

/// Gives kernel node `node` the launch `launch` (`cudaErrorInvalidValue` for another kind of
/// node).
pub fn set_kernel_node(node: *mut c_void, launch: KernelLaunch) -> CudaResult {
    let (model, index) = find_node(node)?;
    let mut model = lock(&model);
    let kind = &mut model.nodes[index].kind;
    if !matches!(kind, NodeKind::Kernel(_)) {
        return Err(CudaError::new(INVALID_VALUE, "not a kernel node"));
    }
    *kind = NodeKind::Kernel(Box::new(launch));
    Ok(())
}

/// Gives a kernel node new parameters (kernel, configuration and argument values).
///
/// # Safety
/// `params` is NULL or valid, with one readable pointer per kernel parameter.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphKernelNodeSetParams(
    node: *mut c_void,
    params: *const cudaKernelNodeParams,
) -> cudaError_t {
    guard("cudaGraphKernelNodeSetParams", || {
        find_node(node)?;
        // SAFETY: forwarded from the caller.
        let launch = unsafe { launch_of(params) }?;
        set_kernel_node(node, launch)
    })
}
