//! The graph part of the backend contract: a sequence of steps instantiated once on a device
//! ([`crate::backend::Device::instantiate_graph`]) and launched on a stream as one submission
//! ([`crate::backend::Stream::launch_graph`]), with kernel arguments updatable between launches.
//!
//! Backends without graphs keep the contract's defaults, which report
//! [`graphs_unsupported`]; CUDA builds a driver graph node by node, the CPU device keeps a plan
//! that its stream worker replays as one queue entry.

use std::any::Any;
use std::ffi::c_void;

use super::{DeviceInfo, DevicePtr, Function, LaunchConfig};
use crate::error::Error;

/// A kernel node's launch attribute as CUDA numbers it (`cudaLaunchAttributeID`, the same
/// values as `CUlaunchAttributeID`) with its 64-byte value (`cudaLaunchAttributeValue`): hints
/// such as an L2 access-policy window or a priority, which a backend with a driver hands to it
/// (CUDA: `cuGraphKernelNodeSetAttribute`) and others ignore.
pub type KernelNodeAttribute = (i32, [u64; 8]);

/// One step of a graph, run after the step before it.
#[derive(Clone, Copy)]
#[non_exhaustive]
pub enum GraphStep<'a> {
    /// A kernel launch; `args` as in [`crate::backend::Stream::launch`] (one pointer per
    /// parameter, valid for the duration of the instantiation; the backend copies the values).
    Launch {
        /// The kernel.
        function: &'a dyn Function,
        /// Its geometry.
        config: LaunchConfig,
        /// Pointers to the argument values.
        args: &'a [*mut c_void],
        /// The node's launch attributes ([`KernelNodeAttribute`]).
        attributes: &'a [KernelNodeAttribute],
    },
    /// A copy of `data` (captured when the graph was recorded) to device memory.
    CopyToDevice {
        /// The destination.
        dst: DevicePtr,
        /// The bytes, copied by the backend.
        data: &'a [u8],
    },
    /// A copy between two ranges of the device.
    CopyOnDevice {
        /// The destination.
        dst: DevicePtr,
        /// The source.
        src: DevicePtr,
        /// How many bytes.
        bytes: u64,
    },
    /// A fill of `count` elements of `element_bytes` (1, 2 or 4) bytes with `value`.
    Memset {
        /// The destination.
        dst: DevicePtr,
        /// The element value (its low `element_bytes` bytes).
        value: u32,
        /// 1, 2 or 4.
        element_bytes: u32,
        /// How many elements.
        count: u64,
    },
}

/// The argument updates of [`ExecGraph::set_kernel_args_batch`]: calls its argument once per
/// step to update.
pub type BatchUpdates<'a> =
    dyn FnMut(&mut dyn FnMut(usize, &[*mut c_void]) -> crate::Result<()>) -> crate::Result<()> + 'a;

/// An instantiated graph of one device.
pub trait ExecGraph: Send + Sync + 'static {
    /// Replaces the argument values of launch step `step` for later launches of the graph
    /// (launches already submitted keep the values they were submitted with).
    ///
    /// # Safety
    /// As [`crate::backend::Stream::launch`]: one pointer per parameter of the step's kernel,
    /// each to a readable value of the parameter's size, valid for the call.
    unsafe fn set_kernel_args(&self, step: usize, args: &[*mut c_void]) -> crate::Result<()>;

    /// Replaces the argument values of several launch steps: `updates` calls the function it is
    /// given once per step (the step and its pointers, as [`ExecGraph::set_kernel_args`]). One
    /// batch: CUDA makes the device's context current once for all of them.
    ///
    /// # Safety
    /// As [`ExecGraph::set_kernel_args`], for every step `updates` passes.
    unsafe fn set_kernel_args_batch(&self, updates: &mut BatchUpdates<'_>) -> crate::Result<()> {
        // SAFETY: forwarded from the caller.
        updates(&mut |step, args| unsafe { self.set_kernel_args(step, args) })
    }

    /// For downcasting within the backend.
    fn as_any(&self) -> &dyn Any;
}

/// The error of a graph operation on a backend without graphs.
pub fn graphs_unsupported(info: &DeviceInfo) -> Error {
    Error::Unavailable {
        backend: info.backend.as_str(),
        reason: format!(
            "graphs are not supported on {}:{} ({})",
            info.backend.as_str(),
            info.ordinal,
            info.name
        ),
    }
}

/// The error of a step index that is not a launch of the graph.
pub(crate) fn not_a_launch(step: usize) -> Error {
    Error::InvalidValue {
        call: "Graph::set_args",
        message: format!("graph node {step} is not a kernel launch"),
    }
}
