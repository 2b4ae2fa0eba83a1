//! Graphs on the CPU device: a plan of checked steps, replayed by the stream's worker as one
//! queue entry.
//!
//! Instantiation checks every step as the stream would (kernel of this device, configuration,
//! argument count, ranges of copies and fills) and packs each launch's parameter buffer once. A
//! launch of the graph snapshots the current parameter buffers (so later argument updates do
//! not affect it) and queues one job; the worker runs the steps in order and stops at the first
//! fault, which names the step's kernel (or copy) and its place in the graph, exactly as the
//! eager launch of that kernel would have. Work queued after the graph is cancelled as usual.

use std::any::Any;
use std::ffi::c_void;
use std::sync::{Arc, Mutex};

use crate::backend::graph::not_a_launch;
use crate::backend::{DevicePtr, ExecGraph, GraphStep, LaunchConfig};
use crate::error::{Error, FaultKind, Result};

use super::device_core::DeviceCore;
use super::fault_kind::memory_failure;
use super::launch_check::{pack_params, prepare_launch};
use super::module::LoadedKernel;
use super::timeline::FaultRecord;
use super::worker::{guarded, Replay, WorkerContext};

/// One checked step of a plan.
pub(crate) enum PlanStep {
    /// A launch; its parameter buffer lives in [`CpuGraph::params`] (it can change).
    Launch {
        kernel: Arc<LoadedKernel>,
        config: LaunchConfig,
    },
    /// A host-to-device copy of bytes captured at instantiation.
    CopyToDevice { dst: DevicePtr, data: Vec<u8> },
    /// A device-to-device copy.
    CopyOnDevice {
        dst: DevicePtr,
        src: DevicePtr,
        bytes: u64,
    },
    /// A fill with a 1-, 2- or 4-byte pattern.
    Memset {
        dst: DevicePtr,
        pattern: Vec<u8>,
        count: u64,
    },
}

/// An instantiated graph of a CPU device.
pub struct CpuGraph {
    device: Arc<DeviceCore>,
    steps: Arc<[PlanStep]>,
    /// The parameter buffer of each launch step (`None` for other steps).
    params: Mutex<Vec<Option<Arc<[u8]>>>>,
}

/// What one launch of a graph runs: the plan and the parameter buffers at launch time.
struct Plan {
    steps: Arc<[PlanStep]>,
    params: Vec<Option<Arc<[u8]>>>,
}

impl CpuGraph {
    /// Checks and packs `steps`.
    ///
    /// # Safety
    /// As [`crate::backend::Device::instantiate_graph`].
    pub(crate) unsafe fn instantiate(
        device: &Arc<DeviceCore>,
        steps: &[GraphStep<'_>],
    ) -> Result<CpuGraph> {
        let memory = device.memory();
        let mut plan = Vec::with_capacity(steps.len());
        let mut params = Vec::with_capacity(steps.len());
        for step in steps {
            let (planned, packed) = match *step {
                GraphStep::Launch {
                    function,
                    config,
                    args,
                    ..
                } => {
                    // SAFETY: forwarded from the caller.
                    let (kernel, packed) =
                        unsafe { prepare_launch(device, function, &config, args) }?;
                    (PlanStep::Launch { kernel, config }, Some(Arc::from(packed)))
                }
                GraphStep::CopyToDevice { dst, data } => {
                    memory.check_range("Graph::copy_to_device", dst, data.len() as u64)?;
                    let data = data.to_vec();
                    (PlanStep::CopyToDevice { dst, data }, None)
                }
                GraphStep::CopyOnDevice { dst, src, bytes } => {
                    memory.check_range("Graph::copy_buffer", src, bytes)?;
                    memory.check_range("Graph::copy_buffer", dst, bytes)?;
                    (PlanStep::CopyOnDevice { dst, src, bytes }, None)
                }
                GraphStep::Memset {
                    dst,
                    value,
                    element_bytes,
                    count,
                } => {
                    if !matches!(element_bytes, 1 | 2 | 4) {
                        return Err(Error::InvalidValue {
                            call: "Graph::fill",
                            message: format!("element size {element_bytes} (must be 1, 2 or 4)"),
                        });
                    }
                    if !dst.is_multiple_of(u64::from(element_bytes)) {
                        return Err(Error::InvalidValue {
                            call: "Graph::fill",
                            message: format!(
                                "destination {dst:#x} is not aligned to its {element_bytes}-byte \
                                 elements"
                            ),
                        });
                    }
                    memory.check_range("Graph::fill", dst, count * u64::from(element_bytes))?;
                    let pattern = value.to_le_bytes()[..element_bytes as usize].to_vec();
                    (
                        PlanStep::Memset {
                            dst,
                            pattern,
                            count,
                        },
                        None,
                    )
                }
            };
            plan.push(planned);
            params.push(packed);
        }
        Ok(CpuGraph {
            device: Arc::clone(device),
            steps: plan.into(),
            params: Mutex::new(params),
        })
    }

    /// Whether the graph was instantiated on `device`.
    pub(crate) fn belongs_to(&self, device: &DeviceCore) -> bool {
        std::ptr::eq(&*self.device, device)
    }

    /// One launch of the plan with the current parameter buffers, for a stream's worker.
    pub(crate) fn replay(&self) -> Replay {
        let plan = Plan {
            steps: Arc::clone(&self.steps),
            params: self
                .params
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
        };
        Box::new(move |worker, seq| plan.run(worker, seq))
    }
}

impl ExecGraph for CpuGraph {
    unsafe fn set_kernel_args(&self, step: usize, args: &[*mut c_void]) -> Result<()> {
        let Some(PlanStep::Launch { kernel, .. }) = self.steps.get(step) else {
            return Err(not_a_launch(step));
        };
        // SAFETY: forwarded from the caller.
        let packed = unsafe { pack_params(kernel, args) }?;
        self.params.lock().unwrap_or_else(|e| e.into_inner())[step] = Some(Arc::from(packed));
        Ok(())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Plan {
    /// Runs the steps of one graph launch in order on `worker`; the first fault ends it and
    /// names its step.
    fn run(&self, worker: &WorkerContext, seq: u64) -> Option<FaultRecord> {
        let total = self.steps.len();
        for (index, step) in self.steps.iter().enumerate() {
            let (name, outcome) = match step {
                PlanStep::Launch { kernel, config } => {
                    let params = self.params[index].as_deref().unwrap_or_default();
                    let outcome = guarded(|| worker.launch(kernel, config, None, params));
                    (kernel.name.as_str(), outcome)
                }
                PlanStep::CopyToDevice { dst, data } => (
                    "memcpy host-to-device",
                    guarded(|| worker.memory.write(*dst, data).map_err(memory_failure)),
                ),
                PlanStep::CopyOnDevice { dst, src, bytes } => (
                    "memcpy device-to-device",
                    guarded(|| {
                        worker
                            .memory
                            .copy(*dst, *src, *bytes)
                            .map_err(memory_failure)
                    }),
                ),
                PlanStep::Memset {
                    dst,
                    pattern,
                    count,
                } => (
                    "memset",
                    guarded(|| {
                        worker
                            .memory
                            .fill(*dst, pattern, *count)
                            .map_err(memory_failure)
                    }),
                ),
            };
            let (kind, message) = match outcome {
                Ok(Ok(())) => continue,
                Ok(Err(failure)) => failure,
                Err(message) => (FaultKind::Other, message),
            };
            return Some(FaultRecord {
                seq,
                kernel: name.to_string(),
                device: worker.device.clone(),
                kind,
                message: format!("{message} (graph node {index} of {total})"),
            });
        }
        None
    }
}
