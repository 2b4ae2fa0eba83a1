//! CUDA graphs built node by node (`cuGraphCreate`, `cuGraphAdd*Node`), instantiated once
//! (`cuGraphInstantiateWithFlags`) and launched with `cuGraphLaunch`; kernel arguments change
//! with `cuGraphExecKernelNodeSetParams`, without re-instantiating.
//!
//! Each node depends on the one before it (the recorded order). Host-to-device copies read
//! bytes the graph owns (captured when recorded). A kernel node's launch attributes (an L2
//! access-policy window, a priority, ...) go to the driver (`cuGraphKernelNodeSetAttribute`). The graph entry points are optional in the
//! driver table: a driver without them reports graphs as unavailable, and automatic replay
//! stays eager.

use std::any::Any;
use std::ffi::c_void;
use std::sync::Arc;

use super::context::DeviceState;
use super::module::CudaFunction;
use super::stream::CudaStream;
use super::sys::{
    self, CUfunction, CUgraph, CUgraphExec, CUgraphNode, CUresult, CUDA_KERNEL_NODE_PARAMS,
    CUDA_MEMCPY3D, CUDA_MEMSET_NODE_PARAMS,
};
use crate::backend::graph::{not_a_launch, BatchUpdates};
use crate::backend::{self, ExecGraph, GraphStep, KernelNodeAttribute, LaunchConfig};
use crate::error::{Error, Result};

/// An instantiated CUDA graph.
pub(crate) struct CudaGraph {
    state: Arc<DeviceState>,
    graph: CUgraph,
    exec: CUgraphExec,
    /// Per step: the kernel node, its function and geometry (`None` for copies and fills). The
    /// public layer keeps the functions' modules loaded for as long as the graph lives.
    launches: Vec<Option<(CUgraphNode, CUfunction, LaunchConfig)>>,
    /// Bytes of host-to-device copies, read by the driver at every launch.
    _host_data: Vec<Box<[u8]>>,
    /// Kernel names, for fault reports of the stream that launches the graph.
    names: Vec<&'static String>,
}

// SAFETY: graph handles are opaque driver handles usable from any thread; the owned host bytes
// are never written after instantiation.
unsafe impl Send for CudaGraph {}
// SAFETY: as above; `set_kernel_args` and launches go through the driver, which synchronizes.
unsafe impl Sync for CudaGraph {}

/// A missing optional entry point as an error.
fn entry<T>(entry: Option<T>, name: &str, state: &DeviceState) -> Result<T> {
    entry.ok_or_else(|| Error::Unavailable {
        backend: "cuda",
        reason: format!(
            "graphs need {name}, which the driver of {} lacks",
            state.label
        ),
    })
}

fn kernel_params(
    function: CUfunction,
    config: &LaunchConfig,
    args: &[*mut c_void],
) -> CUDA_KERNEL_NODE_PARAMS {
    let [gx, gy, gz] = config.grid;
    let [bx, by, bz] = config.block;
    CUDA_KERNEL_NODE_PARAMS {
        func: function,
        gridDimX: gx,
        gridDimY: gy,
        gridDimZ: gz,
        blockDimX: bx,
        blockDimY: by,
        blockDimZ: bz,
        sharedMemBytes: config.shared_bytes,
        kernelParams: super::stream::kernel_params(args),
        extra: std::ptr::null_mut(),
        kern: std::ptr::null_mut(),
        ctx: std::ptr::null_mut(),
    }
}

/// Hands kernel node `node`'s launch attributes to the driver. A driver without
/// `cuGraphKernelNodeSetAttribute` (before CUDA 11.0) keeps none: they are hints.
fn set_attributes(
    state: &DeviceState,
    node: CUgraphNode,
    attributes: &[KernelNodeAttribute],
) -> Result<()> {
    let Some(set) = state.driver.cuGraphKernelNodeSetAttribute else {
        return Ok(());
    };
    for (id, value) in attributes {
        // SAFETY: `node` is a live kernel node of a graph of this device (whose context the
        // caller made current); `value` is the 64 bytes of a `CUlaunchAttributeValue`, which the
        // driver only reads.
        let code = unsafe { set(node, *id, value.as_ptr().cast()) };
        state.check("cuGraphKernelNodeSetAttribute", code)?;
    }
    Ok(())
}

fn cuda_function(function: &dyn backend::Function) -> Result<&CudaFunction> {
    function
        .as_any()
        .downcast_ref::<CudaFunction>()
        .ok_or_else(|| Error::InvalidValue {
            call: "Graph::instantiate",
            message: format!("kernel `{}` is not a CUDA kernel", function.name()),
        })
}

impl CudaGraph {
    /// Builds and instantiates `steps` on the device of `state`.
    ///
    /// # Safety
    /// As [`crate::backend::Device::instantiate_graph`].
    pub(crate) unsafe fn instantiate(
        state: &Arc<DeviceState>,
        steps: &[GraphStep<'_>],
    ) -> Result<CudaGraph> {
        let driver = state.driver;
        let create = entry(driver.cuGraphCreate, "cuGraphCreate", state)?;
        let context = state.context()?;
        let _entered = state.enter()?;
        let mut graph: CUgraph = std::ptr::null_mut();
        // SAFETY: `graph` is a valid out-pointer.
        state.check("cuGraphCreate", unsafe { create(&mut graph, 0) })?;
        let mut built = CudaGraph {
            state: Arc::clone(state),
            graph,
            exec: std::ptr::null_mut(),
            launches: Vec::with_capacity(steps.len()),
            _host_data: Vec::new(),
            names: Vec::new(),
        };
        let mut previous: Option<CUgraphNode> = None;
        for step in steps {
            let mut node: CUgraphNode = std::ptr::null_mut();
            let (deps, count) = match &previous {
                Some(node) => (node as *const CUgraphNode, 1),
                None => (std::ptr::null(), 0),
            };
            let (call, code, launch): (&'static str, CUresult, _) = match *step {
                GraphStep::Launch {
                    function,
                    config,
                    args,
                    ..
                } => {
                    let cuda = cuda_function(function)?;
                    if config.shared_bytes > 0 {
                        cuda.allow_dynamic_shared(config.shared_bytes)?;
                    }
                    let add = driver
                        .cuGraphAddKernelNode
                        .or(driver.cuGraphAddKernelNodeV1);
                    let add = entry(add, "cuGraphAddKernelNode", state)?;
                    let params = kernel_params(cuda.function, &config, args);
                    built.names.push(cuda.name);
                    // SAFETY: live graph, valid out-pointer and dependency array; the argument
                    // pointers are valid for the call (caller) and the driver copies the values.
                    let code = unsafe { add(&mut node, graph, deps, count, &params) };
                    ("cuGraphAddKernelNode", code, Some((cuda.function, config)))
                }
                GraphStep::CopyToDevice { dst, data } => {
                    let add = entry(driver.cuGraphAddMemcpyNode, "cuGraphAddMemcpyNode", state)?;
                    let owned: Box<[u8]> = data.into();
                    let copy = CUDA_MEMCPY3D {
                        srcMemoryType: sys::CU_MEMORYTYPE_HOST,
                        srcHost: owned.as_ptr() as usize,
                        srcPitch: owned.len(),
                        srcHeight: 1,
                        dstMemoryType: sys::CU_MEMORYTYPE_DEVICE,
                        dstDevice: dst,
                        dstPitch: owned.len(),
                        dstHeight: 1,
                        WidthInBytes: owned.len(),
                        Height: 1,
                        Depth: 1,
                        ..CUDA_MEMCPY3D::default()
                    };
                    built._host_data.push(owned);
                    // SAFETY: live graph and context, valid out-pointer; the host bytes are
                    // owned by the graph for as long as it can be launched.
                    let code = unsafe { add(&mut node, graph, deps, count, &copy, context) };
                    ("cuGraphAddMemcpyNode", code, None)
                }
                GraphStep::CopyOnDevice { dst, src, bytes } => {
                    let add = entry(driver.cuGraphAddMemcpyNode, "cuGraphAddMemcpyNode", state)?;
                    let bytes = bytes as usize;
                    let copy = CUDA_MEMCPY3D {
                        srcMemoryType: sys::CU_MEMORYTYPE_DEVICE,
                        srcDevice: src,
                        srcPitch: bytes,
                        srcHeight: 1,
                        dstMemoryType: sys::CU_MEMORYTYPE_DEVICE,
                        dstDevice: dst,
                        dstPitch: bytes,
                        dstHeight: 1,
                        WidthInBytes: bytes,
                        Height: 1,
                        Depth: 1,
                        ..CUDA_MEMCPY3D::default()
                    };
                    // SAFETY: live graph and context, valid out-pointer.
                    let code = unsafe { add(&mut node, graph, deps, count, &copy, context) };
                    ("cuGraphAddMemcpyNode", code, None)
                }
                GraphStep::Memset {
                    dst,
                    value,
                    element_bytes,
                    count: elements,
                } => {
                    let add = entry(driver.cuGraphAddMemsetNode, "cuGraphAddMemsetNode", state)?;
                    let params = CUDA_MEMSET_NODE_PARAMS {
                        dst,
                        pitch: elements as usize * element_bytes as usize,
                        value,
                        elementSize: element_bytes,
                        width: elements as usize,
                        height: 1,
                    };
                    // SAFETY: live graph and context, valid out-pointer.
                    let code = unsafe { add(&mut node, graph, deps, count, &params, context) };
                    ("cuGraphAddMemsetNode", code, None)
                }
            };
            state.check(call, code)?;
            if let GraphStep::Launch { attributes, .. } = *step {
                set_attributes(state, node, attributes)?;
            }
            built
                .launches
                .push(launch.map(|(f, config)| (node, f, config)));
            previous = Some(node);
        }
        let instantiate = entry(
            driver.cuGraphInstantiateWithFlags,
            "cuGraphInstantiateWithFlags",
            state,
        )?;
        // SAFETY: a live, complete graph and a valid out-pointer.
        let code = unsafe { instantiate(&mut built.exec, graph, 0) };
        state.check("cuGraphInstantiateWithFlags", code)?;
        Ok(built)
    }

    /// Launches the graph on `stream` (of this graph's device).
    pub(crate) fn launch(&self, stream: &CudaStream) -> Result<()> {
        let launch = entry(
            self.state.driver.cuGraphLaunch,
            "cuGraphLaunch",
            &self.state,
        )?;
        // SAFETY: both handles are live and of the same device.
        let code = self
            .state
            .anywhere(|| unsafe { launch(self.exec, stream.stream) });
        self.state.check("cuGraphLaunch", code)?;
        for name in self.names.iter().rev().take(4).rev() {
            stream.remember_launch(name);
        }
        Ok(())
    }

    /// Whether the graph was built on the device of `state`.
    pub(crate) fn belongs_to(&self, state: &DeviceState) -> bool {
        std::ptr::eq(&*self.state, state)
    }
}

impl CudaGraph {
    /// `cuGraphExecKernelNodeSetParams` on launch step `step`; the device's context must be
    /// current (the driver crashes in this call without one, rather than answering
    /// `CUDA_ERROR_INVALID_CONTEXT`).
    ///
    /// # Safety
    /// As [`ExecGraph::set_kernel_args`], with the context current.
    unsafe fn set_params_entered(&self, step: usize, args: &[*mut c_void]) -> Result<()> {
        let Some(Some((node, function, config))) = self.launches.get(step) else {
            return Err(not_a_launch(step));
        };
        let driver = self.state.driver;
        let set = driver
            .cuGraphExecKernelNodeSetParams
            .or(driver.cuGraphExecKernelNodeSetParamsV1);
        let set = entry(set, "cuGraphExecKernelNodeSetParams", &self.state)?;
        let params = kernel_params(*function, config, args);
        // SAFETY: live exec and node of it, the device's context current (caller); the argument
        // pointers are valid for the call (caller) and the driver copies the values.
        let code = unsafe { set(self.exec, *node, &params) };
        self.state.check("cuGraphExecKernelNodeSetParams", code)
    }
}

impl ExecGraph for CudaGraph {
    unsafe fn set_kernel_args(&self, step: usize, args: &[*mut c_void]) -> Result<()> {
        let _entered = self.state.enter()?;
        // SAFETY: forwarded from the caller; the context is current until `_entered` drops.
        unsafe { self.set_params_entered(step, args) }
    }

    unsafe fn set_kernel_args_batch(&self, updates: &mut BatchUpdates<'_>) -> Result<()> {
        let _entered = self.state.enter()?;
        // SAFETY: forwarded from the caller; the context is current until `_entered` drops.
        updates(&mut |step, args| unsafe { self.set_params_entered(step, args) })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Drop for CudaGraph {
    fn drop(&mut self) {
        let driver = self.state.driver;
        if let Ok(_entered) = self.state.enter() {
            // SAFETY: each handle is live (or null, never created) and destroyed once; launches
            // already queued complete regardless.
            unsafe {
                if let (false, Some(destroy)) = (self.exec.is_null(), driver.cuGraphExecDestroy) {
                    destroy(self.exec);
                }
                if let Some(destroy) = driver.cuGraphDestroy {
                    destroy(self.graph);
                }
            }
        }
    }
}
