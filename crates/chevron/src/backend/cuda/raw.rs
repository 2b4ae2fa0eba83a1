//! The CUDA driver as a hand-written program calls it, for baselines that measure chevron
//! against it (`chevron-bench`): the handles behind a kernel and a stream, and the few driver
//! entry points a launch, a synchronization and a CUDA graph of kernel nodes need, taken from
//! the table chevron loaded itself (`sys.rs`), so a baseline calls the same library with the
//! same handles. Nothing else of the driver table is public.
//!
//! Every call through [`Driver`] is `unsafe` and unchecked: the caller keeps the kernel and the
//! stream (and so their module, context and device) alive while it uses their handles, and
//! passes arguments as the driver API documents them. The signatures name the driver's types
//! as `cuda.h` does: `CUfunction`, `CUstream`, `CUcontext`, `CUgraph`, `CUgraphNode` and
//! `CUgraphExec` are its opaque handles (`*mut c_void`), `CUresult` its return code (`c_int`,
//! 0 for success); only the one structure, [`CUDA_KERNEL_NODE_PARAMS`], is exported.

#![allow(non_snake_case)]

use std::ffi::c_uint;
use std::sync::OnceLock;

use super::sys::{self, CUcontext, CUfunction, CUgraph, CUgraphExec, CUgraphNode, CUresult};
use super::sys::{CUstream, LaunchKernelFn};
use super::{CudaFunction, CudaStream};
use crate::backend;
use crate::error::{Error, Result};

pub use super::sys::CUDA_KERNEL_NODE_PARAMS;

/// The driver entry points a baseline calls, resolved from the library chevron loaded. Graph
/// entry points are `None` on a driver without them; the kernel-node calls are the CUDA ≥ 12.0
/// names where the driver has them, else the CUDA 10/11 ones (same parameter struct prefix).
#[derive(Debug, Clone, Copy)]
pub struct Driver {
    /// `cuLaunchKernel(f, grid xyz, block xyz, shared, stream, params, extra)`.
    pub cuLaunchKernel: LaunchKernelFn,
    /// `cuStreamSynchronize(stream)`.
    pub cuStreamSynchronize: unsafe extern "C" fn(CUstream) -> CUresult,
    /// `cuCtxPushCurrent(context)`: graph building and destruction need a current context.
    pub cuCtxPushCurrent: unsafe extern "C" fn(CUcontext) -> CUresult,
    /// `cuCtxPopCurrent(&context)`.
    pub cuCtxPopCurrent: unsafe extern "C" fn(*mut CUcontext) -> CUresult,
    /// `cuGraphCreate(&graph, flags)`.
    pub cuGraphCreate: Option<unsafe extern "C" fn(*mut CUgraph, c_uint) -> CUresult>,
    /// `cuGraphAddKernelNode(&node, graph, deps, count, &params)`.
    pub cuGraphAddKernelNode: Option<
        unsafe extern "C" fn(
            *mut CUgraphNode,
            CUgraph,
            *const CUgraphNode,
            usize,
            *const CUDA_KERNEL_NODE_PARAMS,
        ) -> CUresult,
    >,
    /// `cuGraphInstantiateWithFlags(&exec, graph, flags)`.
    pub cuGraphInstantiateWithFlags:
        Option<unsafe extern "C" fn(*mut CUgraphExec, CUgraph, u64) -> CUresult>,
    /// `cuGraphLaunch(exec, stream)`.
    pub cuGraphLaunch: Option<unsafe extern "C" fn(CUgraphExec, CUstream) -> CUresult>,
    /// `cuGraphExecKernelNodeSetParams(exec, node, &params)`.
    pub cuGraphExecKernelNodeSetParams: Option<
        unsafe extern "C" fn(CUgraphExec, CUgraphNode, *const CUDA_KERNEL_NODE_PARAMS) -> CUresult,
    >,
    /// `cuGraphExecDestroy(exec)`.
    pub cuGraphExecDestroy: Option<unsafe extern "C" fn(CUgraphExec) -> CUresult>,
    /// `cuGraphDestroy(graph)`.
    pub cuGraphDestroy: Option<unsafe extern "C" fn(CUgraph) -> CUresult>,
}

/// The entry points of the driver chevron loaded, or [`Error::Unavailable`] where no CUDA
/// driver could be loaded.
pub fn driver() -> Result<&'static Driver> {
    static DRIVER: OnceLock<Driver> = OnceLock::new();
    if let Some(driver) = DRIVER.get() {
        return Ok(driver);
    }
    let table = sys::driver().map_err(|reason| Error::Unavailable {
        backend: "cuda",
        reason: reason.to_string(),
    })?;
    Ok(DRIVER.get_or_init(|| Driver {
        cuLaunchKernel: table.cuLaunchKernel,
        cuStreamSynchronize: table.cuStreamSynchronize,
        cuCtxPushCurrent: table.cuCtxPushCurrent,
        cuCtxPopCurrent: table.cuCtxPopCurrent,
        cuGraphCreate: table.cuGraphCreate,
        cuGraphAddKernelNode: table.cuGraphAddKernelNode.or(table.cuGraphAddKernelNodeV1),
        cuGraphInstantiateWithFlags: table.cuGraphInstantiateWithFlags,
        cuGraphLaunch: table.cuGraphLaunch,
        cuGraphExecKernelNodeSetParams: table
            .cuGraphExecKernelNodeSetParams
            .or(table.cuGraphExecKernelNodeSetParamsV1),
        cuGraphExecDestroy: table.cuGraphExecDestroy,
        cuGraphDestroy: table.cuGraphDestroy,
    }))
}

/// The `CUfunction` of a CUDA backend function (`Kernel::backend_function`); `None` for
/// another backend's. Valid while the kernel (which keeps its module loaded) lives.
pub fn function(function: &dyn backend::Function) -> Option<CUfunction> {
    let cuda = function.as_any().downcast_ref::<CudaFunction>()?;
    Some(cuda.function)
}

/// The `CUstream` of a CUDA backend stream (`Stream::backend_stream`); `None` for another
/// backend's. Valid while the stream lives.
pub fn stream(stream: &dyn backend::Stream) -> Option<CUstream> {
    let cuda = stream.as_any().downcast_ref::<CudaStream>()?;
    Some(cuda.stream)
}

/// The primary context of a CUDA backend stream's device (retained by chevron, valid while the
/// device lives); `None` for another backend's stream.
pub fn context(stream: &dyn backend::Stream) -> Option<Result<CUcontext>> {
    let cuda = stream.as_any().downcast_ref::<CudaStream>()?;
    Some(cuda.state.context())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cpu::discover;

    #[test]
    fn handles_of_another_backend_are_none() {
        let device = discover().unwrap().remove(0);
        let stream = device.create_stream().unwrap();
        assert!(super::stream(&*stream).is_none());
        assert!(context(&*stream).is_none());
    }

    #[test]
    fn the_driver_is_there_or_unavailable() {
        match driver() {
            Ok(raw) => {
                let table = sys::driver().unwrap();
                assert_eq!(raw.cuLaunchKernel as usize, table.cuLaunchKernel as usize);
            }
            Err(Error::Unavailable { backend, reason }) => {
                assert_eq!(backend, "cuda");
                assert_eq!(Some(reason.as_str()), sys::driver().err());
            }
            Err(other) => panic!("unexpected {other}"),
        }
    }
}
