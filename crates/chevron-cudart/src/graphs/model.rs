//! A graph's nodes and edges, as capture and the explicit API build them, and the order in
//! which an instantiation runs them.

use std::ffi::c_void;
use std::sync::{Arc, Mutex};

use chevron::{Kernel, KernelArg, LaunchConfig};

use crate::errors::{CudaError, CudaResult, INVALID_VALUE};
use crate::registry::FatBinary;
use crate::state::lock;

/// An argument value copied when the node was made (as CUDA does).
#[derive(Clone)]
pub struct Value(pub Box<[u8]>);

// SAFETY: the pointer is to the box's `len()` bytes, alive while `self` is borrowed.
unsafe impl KernelArg for Value {
    fn arg_ptr(&self) -> *mut c_void {
        self.0.as_ptr() as *mut c_void
    }
    fn arg_size(&self) -> usize {
        self.0.len()
    }
    fn arg_type_name(&self) -> &'static str {
        "a graph node's argument"
    }
}

/// The values as launch arguments.
pub fn as_args(values: &[Value]) -> Vec<&dyn KernelArg> {
    values.iter().map(|v| v as &dyn KernelArg).collect()
}

/// A kernel node's launch.
#[derive(Clone)]
pub struct KernelLaunch {
    /// The host stub the program names the kernel by (`cudaKernelNodeParams::func`), or the
    /// driver API's `CUfunction`.
    pub func: usize,
    /// The fatbin and name of the registered kernel (`None`: a driver-API module's kernel).
    pub fatbin: Option<Arc<FatBinary>>,
    /// The kernel's name.
    pub name: String,
    /// The kernel, on the graph's device.
    pub kernel: Kernel,
    /// Grid, block and dynamic shared memory.
    pub config: LaunchConfig,
    /// The argument values, copied when the node was made or given new parameters.
    pub values: Vec<Value>,
    /// One pointer per value, for `cudaGraphKernelNodeGetParams`.
    pub pointers: Box<[usize]>,
}

impl KernelLaunch {
    /// Sets the value pointers after the values changed.
    pub fn point_at_values(&mut self) {
        self.pointers = self.values.iter().map(|v| v.0.as_ptr() as usize).collect();
    }
}

/// A child graph node's graph: a model of its own, which `cudaGraphChildGraphNodeGetGraph`
/// hands out as a `cudaGraph_t` (`handle`, 0 until asked for), so that changes made through
/// that handle reach the node. A copy of the node (a cloned graph, an instantiation) copies
/// the graph, without handles.
pub struct ChildGraph {
    pub model: Arc<Mutex<Model>>,
    pub handle: usize,
}

impl ChildGraph {
    /// A node's graph holding `model`.
    pub fn new(model: Model) -> ChildGraph {
        ChildGraph {
            model: Arc::new(Mutex::new(model)),
            handle: 0,
        }
    }

    /// The graph as it is now.
    pub fn snapshot(&self) -> Model {
        lock(&self.model).clone()
    }
}

impl Clone for ChildGraph {
    fn clone(&self) -> ChildGraph {
        ChildGraph::new(self.snapshot().detached())
    }
}

/// What a node does (`cudaGraphNodeType` in [`NodeKind::type_code`]).
#[derive(Clone)]
pub enum NodeKind {
    Kernel(Box<KernelLaunch>),
    /// `rows` rows of `count` elements of `element_bytes` bytes, `pitch` bytes apart.
    Memset {
        dst: u64,
        value: u32,
        element_bytes: u32,
        count: u64,
        pitch: u64,
        rows: u64,
    },
    /// `rows` rows of `width` bytes, each side `*_pitch` bytes apart; the host side is read or
    /// written when the node runs. `kind` is the `cudaMemcpyKind` given (sides are classified
    /// by address whatever it says).
    Memcpy {
        dst: u64,
        dst_pitch: u64,
        src: u64,
        src_pitch: u64,
        width: u64,
        rows: u64,
        kind: i32,
    },
    Host {
        function: unsafe extern "C" fn(*mut c_void),
        user_data: usize,
    },
    Empty,
    /// A copy of the child graph made when the node was added.
    Child(ChildGraph),
    EventRecord(usize),
    EventWait(usize),
    /// Memory allocated when the node was added, shared by every copy of the model.
    MemAlloc(Arc<super::memory_nodes::GraphAllocation>),
    /// The end of an allocation's use (its address).
    MemFree(u64),
}

impl NodeKind {
    /// A copy of `bytes` contiguous bytes.
    pub fn linear_copy(dst: u64, src: u64, bytes: usize, kind: i32) -> NodeKind {
        NodeKind::Memcpy {
            dst,
            dst_pitch: bytes as u64,
            src,
            src_pitch: bytes as u64,
            width: bytes as u64,
            rows: 1,
            kind,
        }
    }

    /// The `cudaGraphNodeType` value.
    pub fn type_code(&self) -> i32 {
        match self {
            NodeKind::Kernel(_) => 0,
            NodeKind::Memcpy { .. } => 1,
            NodeKind::Memset { .. } => 2,
            NodeKind::Host { .. } => 3,
            NodeKind::Child(_) => 4,
            NodeKind::Empty => 5,
            NodeKind::EventWait(_) => 6,
            NodeKind::EventRecord(_) => 7,
            NodeKind::MemAlloc(_) => 10,
            NodeKind::MemFree(_) => 11,
        }
    }
}

/// A node: what it does and the nodes it runs after.
#[derive(Clone)]
pub struct Node {
    pub kind: NodeKind,
    /// Indices of the nodes this one depends on (each at most once).
    pub deps: Vec<usize>,
    /// Its `cudaGraphNode_t` (0 for nodes of a child graph's copy, which have none).
    pub handle: usize,
    /// False once destroyed (`cudaGraphDestroyNode`): indices of the others stay.
    pub alive: bool,
    /// A kernel node's launch attributes set by `cudaGraphKernelNodeSetAttribute`: id and
    /// 64-byte value, each id at most once.
    pub attributes: Vec<(i32, [u64; 8])>,
}

/// A graph: nodes in the order they were added.
#[derive(Clone, Default)]
pub struct Model {
    pub nodes: Vec<Node>,
}

impl Model {
    /// Adds a node after `deps` (live indices of this graph, each at most once).
    pub fn add(&mut self, kind: NodeKind, deps: Vec<usize>, handle: usize) -> usize {
        self.nodes.push(Node {
            kind,
            deps,
            handle,
            alive: true,
            attributes: Vec::new(),
        });
        self.nodes.len() - 1
    }

    /// The live nodes' indices.
    pub fn live(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.nodes.len()).filter(|&i| self.nodes[i].alive)
    }

    /// The index of the live node with handle `handle`.
    pub fn index_of(&self, handle: usize) -> Option<usize> {
        self.live().find(|&i| self.nodes[i].handle == handle)
    }

    /// The edges `(from, to)`, in node order.
    pub fn edges(&self) -> Vec<(usize, usize)> {
        self.live()
            .flat_map(|to| self.nodes[to].deps.iter().map(move |&from| (from, to)))
            .collect()
    }

    /// The live nodes in an order where every node comes after all its dependencies (the
    /// earliest-added ready node first); `cudaErrorInvalidValue` if the edges form a cycle.
    pub fn order(&self) -> CudaResult<Vec<usize>> {
        let mut waiting: Vec<usize> = self.nodes.iter().map(|n| n.deps.len()).collect();
        let mut dependents = vec![Vec::new(); self.nodes.len()];
        for (from, to) in self.edges() {
            dependents[from].push(to);
        }
        let mut ready: std::collections::BTreeSet<usize> =
            self.live().filter(|&i| waiting[i] == 0).collect();
        let mut order = Vec::with_capacity(self.nodes.len());
        while let Some(next) = ready.pop_first() {
            order.push(next);
            for &to in &dependents[next] {
                waiting[to] -= 1;
                if waiting[to] == 0 {
                    ready.insert(to);
                }
            }
        }
        if order.len() != self.live().count() {
            return Err(CudaError::new(
                INVALID_VALUE,
                "the graph's dependencies form a cycle",
            ));
        }
        Ok(order)
    }

    /// Every node `nodes` depend on, directly or not, and `nodes` themselves.
    pub fn ancestors(&self, nodes: &[usize]) -> Vec<bool> {
        let mut seen = vec![false; self.nodes.len()];
        let mut stack = nodes.to_vec();
        while let Some(node) = stack.pop() {
            if !std::mem::replace(&mut seen[node], true) {
                stack.extend(&self.nodes[node].deps);
            }
        }
        seen
    }

    /// The same nodes and edges without handles (a child graph's copy).
    pub fn detached(&self) -> Model {
        let mut copy = self.clone();
        for node in &mut copy.nodes {
            node.handle = 0;
        }
        copy
    }
}
