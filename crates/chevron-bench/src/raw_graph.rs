//! The hand-written baseline of the graph benchmark: a CUDA graph of kernel nodes built,
//! instantiated, launched and updated straight through the driver table, as a program using
//! the driver API by hand would (`chevron::backend::cuda::raw`).

use std::ffi::{c_int, c_void};

use chevron::backend::cuda::raw::{self, Driver, CUDA_KERNEL_NODE_PARAMS};
use chevron::{Error, Kernel, LaunchConfig, Result, Stream};

// The driver's names for what `chevron::backend::cuda::raw` passes as opaque pointers and codes.
pub(crate) type CUresult = c_int;
pub(crate) type CUfunction = *mut c_void;
pub(crate) type CUstream = *mut c_void;
type CUcontext = *mut c_void;
type CUgraph = *mut c_void;
type CUgraphExec = *mut c_void;
type CUgraphNode = *mut c_void;
/// `CUDA_SUCCESS`.
pub(crate) const CUDA_SUCCESS: CUresult = 0;

/// A chain of `count` launches of one kernel as a raw CUDA graph.
pub(crate) struct RawGraph {
    driver: &'static Driver,
    /// The stream's device context, made current around the calls that need one (building,
    /// updating, destroying): without a current context the driver crashes in them.
    context: CUcontext,
    stream: CUstream,
    graph: CUgraph,
    exec: CUgraphExec,
    nodes: Vec<CUgraphNode>,
    /// The argument pointers `params` points at.
    args: Vec<*mut c_void>,
    params: CUDA_KERNEL_NODE_PARAMS,
}

fn call(name: &str, code: CUresult) -> Result<()> {
    if code == CUDA_SUCCESS {
        return Ok(());
    }
    Err(Error::InvalidValue {
        call: "bench",
        message: format!("raw {name} returned {code}"),
    })
}

fn missing(name: &str) -> Error {
    Error::InvalidValue {
        call: "bench",
        message: format!("the driver lacks {name}"),
    }
}

impl RawGraph {
    /// Builds the graph; `None` unless kernel and stream are CUDA's.
    ///
    /// # Safety
    /// `args` holds one pointer per kernel parameter to a value of its size; the values stay
    /// valid while the graph lives.
    pub(crate) unsafe fn new(
        kernel: &Kernel,
        stream: &Stream,
        config: LaunchConfig,
        args: &[*mut c_void],
        count: usize,
    ) -> Option<Result<RawGraph>> {
        let function = raw::function(kernel.backend_function())?;
        let cuda_stream = raw::stream(stream.backend_stream())?;
        let driver = raw::driver().ok()?;
        let context = match raw::context(stream.backend_stream())? {
            Ok(context) => context,
            Err(err) => return Some(Err(err)),
        };
        let [gx, gy, gz] = config.grid;
        let [bx, by, bz] = config.block;
        let params = CUDA_KERNEL_NODE_PARAMS {
            func: function,
            gridDimX: gx,
            gridDimY: gy,
            gridDimZ: gz,
            blockDimX: bx,
            blockDimY: by,
            blockDimZ: bz,
            sharedMemBytes: config.shared_bytes,
            kernelParams: std::ptr::null_mut(),
            extra: std::ptr::null_mut(),
            kern: std::ptr::null_mut(),
            ctx: std::ptr::null_mut(),
        };
        let mut raw = RawGraph {
            driver,
            context,
            stream: cuda_stream,
            graph: std::ptr::null_mut(),
            exec: std::ptr::null_mut(),
            nodes: Vec::with_capacity(count),
            args: args.to_vec(),
            params,
        };
        raw.params.kernelParams = raw.args.as_mut_ptr();
        // SAFETY: forwarded from the caller; the handles are live chevron objects.
        Some(unsafe { raw.build(count) }.map(|()| raw))
    }

    /// Runs `f` with the device's context current.
    fn in_context<T>(&self, f: impl FnOnce() -> Result<T>) -> Result<T> {
        // SAFETY: a retained primary context, pushed and popped on this thread.
        call("cuCtxPushCurrent", unsafe {
            (self.driver.cuCtxPushCurrent)(self.context)
        })?;
        let result = f();
        let mut popped: CUcontext = std::ptr::null_mut();
        // SAFETY: pops the context pushed above.
        unsafe { (self.driver.cuCtxPopCurrent)(&mut popped) };
        result
    }

    /// # Safety
    /// As [`RawGraph::new`].
    unsafe fn build(&mut self, count: usize) -> Result<()> {
        let create = self
            .driver
            .cuGraphCreate
            .ok_or_else(|| missing("cuGraphCreate"))?;
        let add = self
            .driver
            .cuGraphAddKernelNode
            .ok_or_else(|| missing("cuGraphAddKernelNode"))?;
        let instantiate = self
            .driver
            .cuGraphInstantiateWithFlags
            .ok_or_else(|| missing("cuGraphInstantiateWithFlags"))?;
        let mut graph: CUgraph = std::ptr::null_mut();
        let mut exec: CUgraphExec = std::ptr::null_mut();
        let mut nodes: Vec<CUgraphNode> = Vec::with_capacity(count);
        let params = &self.params;
        // SAFETY: valid out-pointers, a live graph, each node depending on the previous one;
        // the argument pointers are valid (caller) and copied by the driver.
        let built = self.in_context(|| unsafe {
            call("cuGraphCreate", create(&mut graph, 0))?;
            for _ in 0..count {
                let mut node = std::ptr::null_mut();
                let (deps, n) = match nodes.last() {
                    Some(last) => (last as *const CUgraphNode, 1),
                    None => (std::ptr::null(), 0),
                };
                call(
                    "cuGraphAddKernelNode",
                    add(&mut node, graph, deps, n, params),
                )?;
                nodes.push(node);
            }
            call(
                "cuGraphInstantiateWithFlags",
                instantiate(&mut exec, graph, 0),
            )
        });
        self.graph = graph;
        self.exec = exec;
        self.nodes = nodes;
        built
    }

    /// One `cuGraphLaunch`.
    pub(crate) fn launch(&self) -> Result<()> {
        let launch = self
            .driver
            .cuGraphLaunch
            .ok_or_else(|| missing("cuGraphLaunch"))?;
        // SAFETY: live exec and stream.
        call("cuGraphLaunch", unsafe { launch(self.exec, self.stream) })
    }

    /// `cuGraphExecKernelNodeSetParams` on every node with the arguments it was built with.
    pub(crate) fn set_all_params(&self) -> Result<()> {
        let set = self
            .driver
            .cuGraphExecKernelNodeSetParams
            .ok_or_else(|| missing("cuGraphExecKernelNodeSetParams"))?;
        self.in_context(|| {
            for &node in &self.nodes {
                // SAFETY: live exec and node; the argument pointers are those of `new`, which
                // the caller keeps valid while the graph is used.
                call("cuGraphExecKernelNodeSetParams", unsafe {
                    set(self.exec, node, &self.params)
                })?;
            }
            Ok(())
        })
    }
}

impl Drop for RawGraph {
    fn drop(&mut self) {
        let _ = self.in_context(|| {
            // SAFETY: handles created by `build` (or null), destroyed once.
            unsafe { self.destroy() };
            Ok(())
        });
    }
}

impl RawGraph {
    /// # Safety
    /// Called once, by `drop`.
    unsafe fn destroy(&self) {
        // SAFETY: handles created by `build` (or null), destroyed once (caller).
        unsafe {
            if let (false, Some(destroy)) = (self.exec.is_null(), self.driver.cuGraphExecDestroy) {
                destroy(self.exec);
            }
            if let (false, Some(destroy)) = (self.graph.is_null(), self.driver.cuGraphDestroy) {
                destroy(self.graph);
            }
        }
    }
}
