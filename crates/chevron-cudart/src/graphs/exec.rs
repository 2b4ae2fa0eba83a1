//! Instantiated graphs (`cudaGraphExec_t`): `cudaGraphInstantiate(WithFlags)`,
//! `cudaGraphLaunch`, `cudaGraphUpload`, `cudaGraphExecUpdate`,
//! `cudaGraphExecKernelNodeSetParams` and `cudaGraphExecDestroy`.
//!
//! Instantiation orders the nodes (each after all its dependencies, child graphs inlined) and
//! packs every run of kernels and fills into one [`chevron::Graph`]; copies, host functions
//! and event records and waits run between those on the launch stream, in that order. A
//! launch is therefore one submission per run of device work, ordered on one stream.

use std::collections::{HashMap, HashSet};
use std::ffi::{c_int, c_ulonglong, c_void};
use std::sync::{Arc, Mutex};

use chevron::{Graph, NodeId, Stream};

use super::model::{as_args, KernelLaunch, Model, Node, NodeKind};
use super::{bad_handle, find_graph, EXEC_UPDATE_FAILURE};
use crate::abi::cudaKernelNodeParams;
use crate::errors::{cudaError_t, guard, CudaError, CudaResult, INVALID_VALUE};
use crate::memory::store;
use crate::mirror;
use crate::state::{self, lock};

/// One step of a launch.
enum Step {
    /// A run of kernels and fills, replayed as one submission.
    Device(Graph),
    Copy {
        dst: u64,
        dst_pitch: u64,
        src: u64,
        src_pitch: u64,
        width: u64,
        rows: u64,
    },
    Host {
        function: unsafe extern "C" fn(*mut c_void),
        user_data: usize,
    },
    Record(usize),
    Wait(usize),
}

/// An instantiated graph.
pub(super) struct Exec {
    /// The graph as instantiated (node handles: the source graph's).
    pub(super) model: Model,
    steps: Vec<Step>,
    /// Each kernel node's step and node there, by handle.
    kernels: HashMap<usize, (usize, NodeId)>,
    /// Handles of the nodes disabled by `cudaGraphNodeSetEnabled` (run as empty nodes).
    pub(super) disabled: HashSet<usize>,
    /// The flags it was instantiated with.
    pub(super) flags: u64,
}

impl Exec {
    /// Instantiates `model` again in place of this instantiation, keeping its disabled nodes
    /// and flags (what changing a node of an instantiated graph amounts to here).
    pub(super) fn rebuild(&mut self, model: Model) -> CudaResult {
        let disabled = std::mem::take(&mut self.disabled);
        let rebuilt = instantiate_model(model, state::current_ordinal(), &disabled);
        let flags = self.flags;
        match rebuilt {
            Ok(rebuilt) => {
                *self = rebuilt;
                self.flags = flags;
                self.disabled = disabled;
                Ok(())
            }
            Err(error) => {
                self.disabled = disabled;
                Err(error)
            }
        }
    }
}

static EXECS: Mutex<Option<HashMap<usize, Arc<Mutex<Exec>>>>> = Mutex::new(None);

pub(super) fn find_exec(exec: *mut c_void) -> CudaResult<Arc<Mutex<Exec>>> {
    lock(&EXECS)
        .as_ref()
        .and_then(|e| e.get(&(exec as usize)).cloned())
        .ok_or_else(|| bad_handle(exec, "cudaGraphExec_t"))
}

/// The nodes of `model` in running order, child graphs inlined, empty and `disabled` nodes
/// left out.
fn flatten(model: &Model, disabled: &HashSet<usize>, out: &mut Vec<Node>) -> CudaResult {
    for index in model.order()? {
        let node = &model.nodes[index];
        match &node.kind {
            _ if node.handle != 0 && disabled.contains(&node.handle) => {}
            NodeKind::Child(child) => flatten(&child.snapshot(), disabled, out)?,
            // Memory nodes' memory exists from the node's adding on (`memory_nodes`).
            NodeKind::Empty | NodeKind::MemAlloc(_) | NodeKind::MemFree(_) => {}
            _ => out.push(node.clone()),
        }
    }
    Ok(())
}

/// Packs the device nodes `run` into one graph, noting each kernel node's place.
fn pack(
    stream: &Stream,
    run: &[&Node],
    step: usize,
    kernels: &mut HashMap<usize, (usize, NodeId)>,
) -> CudaResult<Step> {
    let graph = stream.record(|recorder| {
        for node in run {
            match &node.kind {
                NodeKind::Kernel(launch) => {
                    let id = recorder.launch(
                        &launch.kernel,
                        launch.config,
                        as_args(&launch.values).as_slice(),
                    )?;
                    // The attributes set on the node (`kernel_attributes`): hints a GPU's
                    // driver is given for the instantiation's node.
                    if !node.attributes.is_empty() {
                        recorder.set_launch_attributes(id, &node.attributes)?;
                    }
                    if node.handle != 0 {
                        kernels.insert(node.handle, (step, id));
                    }
                }
                &NodeKind::Memset {
                    dst,
                    value,
                    element_bytes,
                    count,
                    pitch,
                    rows,
                } => {
                    for row in 0..rows {
                        recorder.memset_at(dst + row * pitch, value, element_bytes, count)?;
                    }
                }
                _ => unreachable!("only device nodes are packed"),
            }
        }
        Ok(())
    })?;
    Ok(Step::Device(graph))
}

/// Instantiates `model` on device `ordinal`, its `disabled` nodes left out.
fn instantiate_model(model: Model, ordinal: usize, disabled: &HashSet<usize>) -> CudaResult<Exec> {
    let stream = state::device(ordinal)?.legacy();
    let mut nodes = Vec::new();
    flatten(&model, disabled, &mut nodes)?;
    let mut steps = Vec::new();
    let mut kernels = HashMap::new();
    let mut run: Vec<&Node> = Vec::new();
    for node in &nodes {
        let step = match node.kind {
            NodeKind::Kernel(_) | NodeKind::Memset { .. } => {
                run.push(node);
                continue;
            }
            NodeKind::Memcpy {
                dst,
                dst_pitch,
                src,
                src_pitch,
                width,
                rows,
                ..
            } => Step::Copy {
                dst,
                dst_pitch,
                src,
                src_pitch,
                width,
                rows,
            },
            NodeKind::Host {
                function,
                user_data,
            } => Step::Host {
                function,
                user_data,
            },
            NodeKind::EventRecord(event) => Step::Record(event),
            NodeKind::EventWait(event) => Step::Wait(event),
            NodeKind::Empty | NodeKind::Child(_) | NodeKind::MemAlloc(_) | NodeKind::MemFree(_) => {
                unreachable!("flattened")
            }
        };
        if !run.is_empty() {
            steps.push(pack(&stream, &run, steps.len(), &mut kernels)?);
            run.clear();
        }
        steps.push(step);
    }
    if !run.is_empty() {
        steps.push(pack(&stream, &run, steps.len(), &mut kernels)?);
    }
    Ok(Exec {
        model,
        steps,
        kernels,
        disabled: HashSet::new(),
        flags: 0,
    })
}

fn instantiate(out: *mut *mut c_void, graph: *mut c_void, flags: u64) -> CudaResult {
    if out.is_null() {
        return Err(CudaError::new(INVALID_VALUE, "pGraphExec is NULL"));
    }
    // Auto-free on launch, upload, device launch, node priorities.
    if flags & !0xf != 0 {
        return Err(CudaError::new(
            INVALID_VALUE,
            format!("flags {flags:#x} has unknown bits"),
        ));
    }
    let model = lock(&*find_graph(graph)?).clone();
    let mut exec = instantiate_model(model, state::current_ordinal(), &HashSet::new())?;
    exec.flags = flags;
    let exec = Arc::new(Mutex::new(exec));
    let key = Arc::as_ptr(&exec) as usize;
    lock(&EXECS)
        .get_or_insert_with(HashMap::new)
        .insert(key, exec);
    super::user_objects::share_held(graph as usize, key);
    store(out, key as *mut c_void, "pGraphExec")
}

/// Instantiates `graph` (every flag is accepted: uploads are immediate, and memory nodes,
/// which auto-free-on-launch concerns, are not provided).
#[no_mangle]
pub extern "C" fn cudaGraphInstantiate(
    exec: *mut *mut c_void,
    graph: *mut c_void,
    flags: c_ulonglong,
) -> cudaError_t {
    guard("cudaGraphInstantiate", || instantiate(exec, graph, flags))
}

/// As [`cudaGraphInstantiate`].
#[no_mangle]
pub extern "C" fn cudaGraphInstantiateWithFlags(
    exec: *mut *mut c_void,
    graph: *mut c_void,
    flags: c_ulonglong,
) -> cudaError_t {
    guard("cudaGraphInstantiateWithFlags", || {
        instantiate(exec, graph, flags)
    })
}

/// Runs a host node's function in stream order (see `streams::in_stream_order` for mirrored
/// memory, where it runs on the caller once the earlier work is done).
fn host_in_order(
    stream: &Stream,
    function: unsafe extern "C" fn(*mut c_void),
    user_data: usize,
) -> CudaResult {
    let call = move |status: chevron::Result<()>| {
        if status.is_ok() {
            // SAFETY: the program's guarantee when it added the node.
            unsafe { function(user_data as *mut c_void) };
        }
    };
    if mirror::in_use() {
        let status = stream.synchronize();
        mirror::pull_all()?;
        call(status);
        return Ok(());
    }
    stream.launch_host_function(call)?;
    Ok(())
}

fn run(exec: &Exec, stream: &Stream) -> CudaResult {
    for step in &exec.steps {
        match *step {
            Step::Device(ref graph) => drop(graph.launch(stream, &[])?),
            Step::Copy {
                dst,
                dst_pitch,
                src,
                src_pitch,
                width,
                rows,
            } => {
                for row in 0..rows {
                    let (to, from) = (dst + row * dst_pitch, src + row * src_pitch);
                    crate::copy::copy(stream, to, from, width as usize)?;
                }
            }
            Step::Host {
                function,
                user_data,
            } => host_in_order(stream, function, user_data)?,
            Step::Record(event) => crate::streams::record_event(event as *mut c_void, stream)?,
            Step::Wait(event) => {
                stream.wait_for(&[&crate::streams::event_token(event as *mut c_void)?])?
            }
        }
    }
    Ok(())
}

/// Replays `exec` on `stream` (on a capturing stream: adds it to the capture as a child graph).
#[no_mangle]
pub extern "C" fn cudaGraphLaunch(exec: *mut c_void, stream: *mut c_void) -> cudaError_t {
    guard("cudaGraphLaunch", || {
        let exec = find_exec(exec)?;
        let exec = lock(&exec);
        if let Some(captured) = super::capture::capture_graph(stream, &exec.model) {
            return captured;
        }
        let (_, stream) = state::submit_stream(stream)?;
        run(&exec, &stream)
    })
}

/// Checks `exec` and `stream`: chevron prepares a graph's work when instantiating it.
#[no_mangle]
pub extern "C" fn cudaGraphUpload(exec: *mut c_void, stream: *mut c_void) -> cudaError_t {
    guard("cudaGraphUpload", || {
        find_exec(exec)?;
        state::ordinal_of(stream).map(drop)
    })
}

/// Gives kernel node `node` of `exec` new parameters (the source graph is unchanged).
///
/// # Safety
/// `params` is NULL or valid, with one readable pointer per kernel parameter.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphExecKernelNodeSetParams(
    exec: *mut c_void,
    node: *mut c_void,
    params: *const cudaKernelNodeParams,
) -> cudaError_t {
    guard("cudaGraphExecKernelNodeSetParams", || {
        find_exec(exec)?;
        // SAFETY: forwarded from the caller.
        let launch = unsafe { super::nodes::launch_of(params) }?;
        exec_set_kernel_node(exec, node, launch)
    })
}

/// Gives kernel node `node` of the instantiated graph `exec` the launch `launch`: in place
/// when the kernel and configuration are the node's, else by rebuilding the graph's steps.
pub fn exec_set_kernel_node(
    exec: *mut c_void,
    node: *mut c_void,
    launch: KernelLaunch,
) -> CudaResult {
    let exec = find_exec(exec)?;
    let mut exec = lock(&exec);
    let index = exec
        .model
        .index_of(node as usize)
        .ok_or_else(|| bad_handle(node, "node of the instantiated graph"))?;
    let NodeKind::Kernel(old) = &exec.model.nodes[index].kind else {
        return Err(CudaError::new(
            crate::errors::INVALID_VALUE,
            "not a kernel node",
        ));
    };
    let same_code = match (&old.fatbin, &launch.fatbin) {
        (Some(old), Some(new)) => Arc::ptr_eq(old, new),
        (None, None) => old.func == launch.func,
        _ => false,
    };
    let same = same_code && old.name == launch.name && old.config == launch.config;
    match exec.kernels.get(&(node as usize)).copied() {
        Some((step, id)) if same => {
            let Step::Device(graph) = &mut exec.steps[step] else {
                unreachable!("kernel nodes are packed into device steps");
            };
            graph.set_args(id, as_args(&launch.values).as_slice())?;
            exec.model.nodes[index].kind = NodeKind::Kernel(Box::new(launch));
            Ok(())
        }
        _ => {
            let mut model = exec.model.clone();
            model.nodes[index].kind = NodeKind::Kernel(Box::new(launch));
            exec.rebuild(model)
        }
    }
}

/// Destroys an instantiated graph, releasing its user objects (replays already submitted
/// complete).
#[no_mangle]
pub extern "C" fn cudaGraphExecDestroy(exec: *mut c_void) -> cudaError_t {
    guard("cudaGraphExecDestroy", || {
        lock(&EXECS)
            .as_mut()
            .and_then(|e| e.remove(&(exec as usize)))
            .ok_or_else(|| bad_handle(exec, "cudaGraphExec_t"))?;
        super::user_objects::release_held(exec as usize);
        Ok(())
    })
}

/// `cudaGraphExecUpdateResultInfo`.
#[repr(C)]
#[allow(non_snake_case, missing_docs)]
pub struct cudaGraphExecUpdateResultInfo {
    pub result: c_int,
    pub errorNode: *mut c_void,
    pub errorFromNode: *mut c_void,
}

/// `cudaGraphExecUpdateResult` values.
const UPDATE_SUCCESS: c_int = 0;
const UPDATE_ERROR: c_int = 1;
const UPDATE_TOPOLOGY_CHANGED: c_int = 2;
const UPDATE_NODE_TYPE_CHANGED: c_int = 3;

/// Why `new` cannot update an instantiation of `old`: the result and the node of `new`.
pub(super) fn mismatch(old: &Model, new: &Model) -> Option<(c_int, usize)> {
    let old_live: Vec<usize> = old.live().collect();
    let new_live: Vec<usize> = new.live().collect();
    if old_live.len() != new_live.len() {
        return Some((UPDATE_TOPOLOGY_CHANGED, 0));
    }
    let position = |live: &[usize], i: usize| live.iter().position(|&l| l == i);
    for (&o, &n) in old_live.iter().zip(&new_live) {
        let (a, b) = (&old.nodes[o], &new.nodes[n]);
        if a.kind.type_code() != b.kind.type_code() {
            return Some((UPDATE_NODE_TYPE_CHANGED, b.handle));
        }
        let deps = |node: &Node, live: &[usize]| -> Vec<Option<usize>> {
            let mut d: Vec<_> = node.deps.iter().map(|&i| position(live, i)).collect();
            d.sort();
            d
        };
        if deps(a, &old_live) != deps(b, &new_live) {
            return Some((UPDATE_TOPOLOGY_CHANGED, b.handle));
        }
        if let (NodeKind::Child(x), NodeKind::Child(y)) = (&a.kind, &b.kind) {
            if mismatch(&x.snapshot(), &y.snapshot()).is_some() {
                return Some((UPDATE_TOPOLOGY_CHANGED, b.handle));
            }
        }
    }
    None
}

/// Updates `exec` to the parameters of `graph`, a graph of the same topology (the same nodes
/// of the same types with the same edges, in the same order): kernel nodes may change their
/// kernel, configuration and arguments, copies, fills and host nodes their parameters.
///
/// # Safety
/// `info` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphExecUpdate(
    exec: *mut c_void,
    graph: *mut c_void,
    info: *mut cudaGraphExecUpdateResultInfo,
) -> cudaError_t {
    guard("cudaGraphExecUpdate", || {
        let exec = find_exec(exec)?;
        let new = lock(&*find_graph(graph)?).clone();
        let mut exec = lock(&exec);
        let report = |result: c_int, node: usize| {
            // SAFETY: NULL or writable (caller).
            if let Some(info) = unsafe { info.as_mut() } {
                *info = cudaGraphExecUpdateResultInfo {
                    result,
                    errorNode: node as *mut c_void,
                    errorFromNode: std::ptr::null_mut(),
                };
            }
        };
        if let Some((result, node)) = mismatch(&exec.model, &new) {
            report(result, node);
            return Err(CudaError::new(
                EXEC_UPDATE_FAILURE,
                "the graph's topology differs from the instantiated one",
            ));
        }
        // The instantiated nodes keep their handles (those of the graph instantiated).
        let mut model = new;
        let handles: Vec<usize> = exec
            .model
            .live()
            .map(|i| exec.model.nodes[i].handle)
            .collect();
        let live: Vec<usize> = model.live().collect();
        for (index, handle) in live.into_iter().zip(handles) {
            model.nodes[index].handle = handle;
        }
        match exec.rebuild(model) {
            Ok(()) => {
                report(UPDATE_SUCCESS, 0);
                Ok(())
            }
            Err(error) => {
                report(UPDATE_ERROR, 0);
                Err(CudaError::new(EXEC_UPDATE_FAILURE, error.message))
            }
        }
    })
}
