//! [`Graph`]: a sequence of launches, copies and fills recorded once and replayed as one
//! submission (CUDA graphs on a GPU, a replayed plan on the CPU device).
//!
//! [`Stream::record`] records; [`Graph::launch`] replays after any number of dependency tokens
//! and returns the token of the whole replay; [`Graph::set_args`] changes one launch's
//! arguments (checked against the kernel's parameter layout like any launch) without
//! re-instantiating. A replay runs the nodes in recorded order; a fault inside one names the
//! node's kernel as an eager launch would. Buffers that nodes use must outlive the graph's
//! replays, as with CUDA graphs.
//!
//! Automatic replay (`auto`) uses the same machinery for sequences of launches it sees repeat.
//!
//! ```
//! # fn main() -> chevron::Result<()> {
//! # let runtime = chevron::Runtime::new()?;
//! # let device = runtime.default_device()?;
//! # let ptx = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/basics.ptx");
//! # let module = chevron::Module::from_file(device, ptx)?;
//! let add = module.kernel("add_one")?;
//! let data = chevron::Buffer::<u32>::zeroed(device, 32)?;
//! let stream = device.create_stream()?;
//! let config = chevron::LaunchConfig::new(1, 32);
//! let mut graph = stream.record(|s| {
//!     s.fill(&data, 1u32)?;
//!     s.launch(&add, config, (&data, 32u32))?;
//!     s.launch(&add, config, (&data, 32u32))?;
//!     Ok(())
//! })?;
//! graph.launch(&stream, &[])?.wait()?;
//! assert_eq!(data.to_vec()?[0], 3);
//! graph.set_args(graph.node(2), (&data, 0u32))?; // the second launch now touches nothing
//! graph.launch(&stream, &[])?.wait()?;
//! assert_eq!(data.to_vec()?[31], 2);
//! # Ok(()) }
//! ```

mod instrumented;
mod record;
pub(crate) mod values;

use std::sync::Arc;

use crate::backend::{self, GraphStep};
use crate::error::{Error, Result};
use crate::launch::args::KernelArgs;
use crate::launch::kernel::Kernel;
use crate::{Device, Stream, Token};

use instrumented::{pointers_with_hidden, InstrumentedNode};
use record::RecordedNode;
pub use record::Recorder;

/// A node of a [`Graph`], in recorded order (0 is the first recorded operation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NodeId(pub usize);

/// A recorded, instantiated sequence of work of one device.
pub struct Graph {
    device: Device,
    exec: Arc<dyn backend::ExecGraph>,
    /// The kernel of each launch node (`None` for copies and fills); keeps modules loaded.
    kernels: Vec<Option<Kernel>>,
    /// Tokens waited for while recording: every replay waits for them first.
    waits: Vec<Token>,
    /// Launch nodes of instrumented kernels, whose hidden parameter every replay sets.
    instrumented: Vec<InstrumentedNode>,
}

impl Graph {
    /// Instantiates the recorded nodes on `device`.
    pub(crate) fn instantiate(
        device: &Device,
        nodes: Vec<RecordedNode>,
        waits: Vec<Token>,
    ) -> Result<Graph> {
        let mut instrumented = Vec::new();
        let pointers: Vec<Vec<*mut std::ffi::c_void>> = nodes
            .iter()
            .enumerate()
            .map(|(index, node)| match node {
                RecordedNode::Launch {
                    kernel,
                    config,
                    values,
                    ..
                } => match InstrumentedNode::of(index, kernel, *config, values) {
                    Some(node) => {
                        instrumented.push(node);
                        pointers_with_hidden(values)
                    }
                    None => values.with_pointers(|p| p.to_vec()),
                },
                _ => Vec::new(),
            })
            .collect();
        let steps: Vec<GraphStep<'_>> = nodes
            .iter()
            .zip(&pointers)
            .map(|(node, args)| node.step(args))
            .collect();
        // SAFETY: every launch node passed `Kernel::check` on a stream of `device` (kernel of
        // this device, one value per parameter of its size, plus the hidden u64 of an
        // instrumented kernel); the pointers point into `nodes` (or a static), alive for the
        // call.
        let exec = unsafe { device.core().backend.instantiate_graph(&steps) }?;
        let kernels = nodes.into_iter().map(RecordedNode::into_kernel).collect();
        Ok(Graph {
            device: device.clone(),
            exec,
            kernels,
            waits,
            instrumented,
        })
    }

    /// The number of nodes.
    pub fn len(&self) -> usize {
        self.kernels.len()
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.kernels.is_empty()
    }

    /// The device the graph runs on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The id of node `index` (in recorded order).
    pub fn node(&self, index: usize) -> NodeId {
        NodeId(index)
    }

    /// Replays the graph on `stream` after `deps` (and the tokens waited for while recording);
    /// returns the token of the whole replay.
    pub fn launch(&self, stream: &Stream, deps: &[&Token]) -> Result<Token> {
        if !stream.device().same_device(&self.device) {
            return Err(Error::InvalidValue {
                call: "Graph::launch",
                message: format!(
                    "the graph was recorded for {}, the stream is on {}",
                    self.device.label(),
                    stream.device().label()
                ),
            });
        }
        stream.wait_for(deps)?;
        let recorded: Vec<&Token> = self.waits.iter().collect();
        stream.wait_for(&recorded)?;
        let hidden = (self.instrumented.iter())
            .map(|node| node.prepare(&*self.exec, stream))
            .collect::<Result<Vec<_>>>()?;
        stream.backend_stream().launch_graph(&*self.exec)?;
        for (node, hidden) in self.instrumented.iter().zip(hidden) {
            node.launched(stream, hidden);
        }
        Ok(stream.submitted())
    }

    /// Replaces the arguments of launch node `node` for later replays, checked against the
    /// kernel's parameter layout like any launch.
    pub fn set_args(&mut self, node: NodeId, args: impl KernelArgs) -> Result<()> {
        let kernel = match self.kernels.get(node.0) {
            Some(Some(kernel)) => kernel,
            Some(None) => return Err(backend::graph::not_a_launch(node.0)),
            None => {
                return Err(Error::InvalidValue {
                    call: "Graph::set_args",
                    message: format!("node {} of a graph of {} nodes", node.0, self.len()),
                })
            }
        };
        kernel.check_args(&self.device, &args)?;
        if let Some(node) = self.instrumented.iter_mut().find(|n| n.node == node.0) {
            // Given to the node with its hidden value at each replay.
            return node.set_values(&args);
        }
        // SAFETY: the arguments match the kernel's layout (checked) and stay borrowed for the
        // call.
        args.with_pointers(|pointers| unsafe { self.exec.set_kernel_args(node.0, pointers) })
    }
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph")
            .field("device", &self.device.label())
            .field("nodes", &self.len())
            .finish()
    }
}
