//! [`Stream::record`] and its [`Recorder`]: the operations a graph can hold.

use std::ffi::c_void;

use bytemuck::Pod;

use super::values::ArgValues;
use super::{Graph, NodeId};
use crate::backend::{DevicePtr, GraphStep, KernelNodeAttribute, LaunchConfig};
use crate::error::{Error, Result};
use crate::launch::args::KernelArgs;
use crate::launch::kernel::Kernel;
use crate::{Buffer, Stream, Token};

/// One recorded operation.
pub(crate) enum RecordedNode {
    Launch {
        kernel: Kernel,
        config: LaunchConfig,
        values: ArgValues,
        attributes: Vec<KernelNodeAttribute>,
    },
    CopyToDevice {
        dst: DevicePtr,
        data: Vec<u8>,
    },
    CopyOnDevice {
        dst: DevicePtr,
        src: DevicePtr,
        bytes: u64,
    },
    Memset {
        dst: DevicePtr,
        value: u32,
        element_bytes: u32,
        count: u64,
    },
}

impl RecordedNode {
    /// The backend's view of the node; `args` are the pointers into a launch's values.
    pub(crate) fn step<'a>(&'a self, args: &'a [*mut c_void]) -> GraphStep<'a> {
        match self {
            RecordedNode::Launch {
                kernel,
                config,
                attributes,
                ..
            } => GraphStep::Launch {
                function: kernel.backend_function(),
                config: *config,
                args,
                attributes,
            },
            RecordedNode::CopyToDevice { dst, data } => GraphStep::CopyToDevice { dst: *dst, data },
            &RecordedNode::CopyOnDevice { dst, src, bytes } => {
                GraphStep::CopyOnDevice { dst, src, bytes }
            }
            &RecordedNode::Memset {
                dst,
                value,
                element_bytes,
                count,
            } => GraphStep::Memset {
                dst,
                value,
                element_bytes,
                count,
            },
        }
    }

    pub(crate) fn into_kernel(self) -> Option<Kernel> {
        match self {
            RecordedNode::Launch { kernel, .. } => Some(kernel),
            _ => None,
        }
    }
}

/// Records the operations of a graph (see [`Stream::record`]). Every operation is checked as
/// the stream's own would be, and nothing runs until the graph is launched.
pub struct Recorder<'s> {
    stream: &'s Stream,
    nodes: Vec<RecordedNode>,
    waits: Vec<Token>,
}

impl Recorder<'_> {
    fn push(&mut self, node: RecordedNode) -> NodeId {
        self.nodes.push(node);
        NodeId(self.nodes.len() - 1)
    }

    /// Records a launch, checked like [`Kernel::launch`]; the argument values are copied now
    /// and can be changed later with [`Graph::set_args`].
    pub fn launch(
        &mut self,
        kernel: &Kernel,
        config: LaunchConfig,
        args: impl KernelArgs,
    ) -> Result<NodeId> {
        kernel.check(self.stream, &config, &args)?;
        Ok(self.push(RecordedNode::Launch {
            kernel: kernel.clone(),
            config,
            values: ArgValues::capture(&args)?,
            attributes: Vec::new(),
        }))
    }

    /// Gives launch `node` of this recording the launch attributes `attributes` (hints a
    /// backend with a driver hands to it when the graph is instantiated; see
    /// [`KernelNodeAttribute`]). Fails for a node that is not a launch.
    pub fn set_launch_attributes(
        &mut self,
        node: NodeId,
        attributes: &[KernelNodeAttribute],
    ) -> Result<()> {
        match self.nodes.get_mut(node.0) {
            Some(RecordedNode::Launch {
                attributes: kept, ..
            }) => {
                kept.clear();
                kept.extend_from_slice(attributes);
                Ok(())
            }
            _ => Err(Error::InvalidValue {
                call: "Recorder::set_launch_attributes",
                message: format!("node {} is not a launch of this recording", node.0),
            }),
        }
    }

    /// Records a copy of `src` (copied now) into `dst` (equal lengths).
    pub fn copy_to_device<T: Pod>(&mut self, dst: &Buffer<T>, src: &[T]) -> Result<NodeId> {
        const CALL: &str = "Recorder::copy_to_device";
        self.stream.check_buffer(CALL, dst)?;
        crate::stream::check_lengths(CALL, dst.len(), src.len())?;
        Ok(self.push(RecordedNode::CopyToDevice {
            dst: dst.device_ptr(),
            data: bytemuck::cast_slice(src).to_vec(),
        }))
    }

    /// Records a copy between two buffers of the device (equal lengths).
    pub fn copy_buffer<T: Pod>(&mut self, dst: &Buffer<T>, src: &Buffer<T>) -> Result<NodeId> {
        const CALL: &str = "Recorder::copy_buffer";
        self.stream.check_buffer(CALL, dst)?;
        self.stream.check_buffer(CALL, src)?;
        crate::stream::check_lengths(CALL, dst.len(), src.len())?;
        Ok(self.push(RecordedNode::CopyOnDevice {
            dst: dst.device_ptr(),
            src: src.device_ptr(),
            bytes: src.size_bytes(),
        }))
    }

    /// Records a fill of every element of `dst` with `value` (elements of 1, 2 or 4 bytes, or
    /// wider ones whose bytes repeat every 4, as [`Stream::fill`]).
    pub fn fill<T: Pod>(&mut self, dst: &Buffer<T>, value: T) -> Result<NodeId> {
        const CALL: &str = "Recorder::fill";
        self.stream.check_buffer(CALL, dst)?;
        let (value, element_bytes, count) =
            crate::stream::fill_pattern(bytemuck::bytes_of(&value), dst.size_bytes()).ok_or_else(
                || Error::InvalidValue {
                    call: CALL,
                    message: format!(
                        "cannot fill elements of {} bytes whose bytes do not repeat every 4",
                        std::mem::size_of::<T>()
                    ),
                },
            )?;
        Ok(self.push(RecordedNode::Memset {
            dst: dst.device_ptr(),
            value,
            element_bytes,
            count,
        }))
    }

    /// Records a fill of `count` elements of `element_bytes` (1, 2 or 4) bytes with `value` from
    /// device address `dst` (as [`Stream::memset_at`]; the range is checked when the graph is
    /// instantiated).
    pub fn memset_at(
        &mut self,
        dst: DevicePtr,
        value: u32,
        element_bytes: u32,
        count: u64,
    ) -> Result<NodeId> {
        if !matches!(element_bytes, 1 | 2 | 4) {
            return Err(Error::InvalidValue {
                call: "Recorder::memset_at",
                message: format!("elements of {element_bytes} bytes (1, 2 or 4 expected)"),
            });
        }
        Ok(self.push(RecordedNode::Memset {
            dst,
            value,
            element_bytes,
            count,
        }))
    }

    /// Makes every replay wait for `deps` before its first node (waits are hoisted to the start
    /// of the graph: ordering is kept, overlap inside the graph is not).
    pub fn wait_for(&mut self, deps: &[&Token]) {
        self.waits.extend(deps.iter().map(|&token| token.clone()));
    }
}

impl Stream {
    /// Records the operations `body` makes on the [`Recorder`] into a [`Graph`] for this
    /// stream's device, instantiated once. Nothing is submitted to the stream.
    pub fn record(&self, body: impl FnOnce(&mut Recorder<'_>) -> Result<()>) -> Result<Graph> {
        let mut recorder = Recorder {
            stream: self,
            nodes: Vec::new(),
            waits: Vec::new(),
        };
        body(&mut recorder)?;
        Graph::instantiate(self.device(), recorder.nodes, recorder.waits)
    }
}
