//! Running one piece of a CPU stream's work: launches, copies, waits, graphs and host functions.
//!
//! The scheduler's workers (`scheduler.rs`) take streams with work and run their pieces in order
//! through [`run_one`]. A launch runs its blocks on up to `threads` host threads: the worker
//! itself (alone, with one thread, in a fixed block order) and helpers of the device's persistent
//! pool (`pool.rs`) as they are free. The worker alone can finish any launch, so a spinning
//! block never starves another stream's blocks. Once a piece of work faults, everything queued
//! after it on the stream is cancelled: it is marked completed without running, so waiters wake
//! up and see the fault. Host functions still run after a fault, and are told of it.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use chevron_ptx::interp::{self, DeviceMemory, MemoryError};

use crate::backend::{HostFunction, LaunchConfig};
use crate::error::FaultKind;

use super::child_grids::TieredChildren;
use super::fault_kind::{self, Failure};
use super::module::LoadedKernel;
use super::pool::WorkerPool;
use super::tier::Launchable;
use super::timeline::{FaultRecord, Timeline};

/// A copy or fill run on the device's memory; `Err` is the memory's refusal.
pub(crate) type MemoryOp = Box<dyn FnOnce(&DeviceMemory) -> Result<(), MemoryError> + Send>;

/// One launch of a graph, prepared by the graph (`graph.rs`: its checked steps and parameter
/// buffers): runs on the stream's worker and reports the first fault. Boxed, so the worker knows
/// nothing of graphs.
pub(crate) type Replay = Box<dyn FnOnce(&WorkerContext, u64) -> Option<FaultRecord> + Send>;

/// One piece of work on a stream.
pub(crate) enum Job {
    /// A kernel launch with its parameter buffer already filled.
    Launch {
        kernel: Arc<LoadedKernel>,
        config: LaunchConfig,
        /// Thread-block clusters of these dimensions (`None`: the kernel's own, if any).
        cluster: Option<[u32; 3]>,
        params: Vec<u8>,
    },
    /// A copy or fill; `what` names it in fault messages (e.g. `memcpy host-to-device`).
    Memory { what: &'static str, op: MemoryOp },
    /// Waits until another stream's timeline (possibly of another CPU device) reaches `seq`.
    Wait { timeline: Arc<Timeline>, seq: u64 },
    /// One launch of a graph: its steps in order (see `graph.rs`).
    Graph(Replay),
    /// A function of the host program, called with the stream's status.
    Host(HostFunction),
}

impl Job {
    /// What the job is, for the trace: the kernel's name, the copy or fill, or `wait`.
    fn name(&self) -> String {
        match self {
            Job::Launch { kernel, .. } => kernel.name.clone(),
            Job::Memory { what, .. } => what.to_string(),
            Job::Wait { .. } => "wait".to_string(),
            Job::Graph(_) => "graph".to_string(),
            Job::Host(_) => "host function".to_string(),
        }
    }
}

/// A job and its place on the stream's timeline.
pub(crate) struct Work {
    pub seq: u64,
    pub job: Job,
}

/// What every job of one stream shares.
pub(crate) struct WorkerContext {
    pub timeline: Arc<Timeline>,
    pub memory: Arc<DeviceMemory>,
    /// Interpreter threads per launch.
    pub threads: usize,
    /// The device's helper threads, which run blocks beside this stream's thread.
    pub pool: Option<Arc<WorkerPool>>,
    /// The device label, e.g. `cpu:0 (chevron CPU device)`.
    pub device: String,
    /// Set when a host-side timeout stops the stream's work.
    pub stop: Arc<AtomicBool>,
}

/// Runs one piece of a stream's work (or cancels it, after a fault) and marks it completed.
pub(crate) fn run_one(context: &WorkerContext, work: Work) {
    let started = crate::trace::clock();
    let name = started.map(|_| work.job.name());
    let fault = match (context.timeline.fault(), work.job) {
        // A host function runs after a fault too, and is told of it.
        (Some(earlier), Job::Host(function)) => {
            run_host_function(context, work.seq, function, Err(earlier.to_error()))
        }
        (Some(_), _) => None, // Cancelled: the stream faulted earlier.
        (None, job) => context.execute(work.seq, job),
    };
    let timeline = Arc::as_ptr(&context.timeline) as usize;
    crate::trace::device_work(started, &context.device, timeline, || {
        name.unwrap_or_default()
    });
    context.timeline.complete(work.seq, fault);
}

/// Calls a host function; a panic in it faults the stream rather than the worker.
fn run_host_function(
    context: &WorkerContext,
    seq: u64,
    function: HostFunction,
    status: crate::Result<()>,
) -> Option<FaultRecord> {
    guarded(|| function(status))
        .err()
        .map(|message| FaultRecord {
            seq,
            kernel: "host function".into(),
            device: context.device.clone(),
            kind: FaultKind::Other,
            message,
        })
}

impl WorkerContext {
    fn execute(&self, seq: u64, job: Job) -> Option<FaultRecord> {
        let fault = |kernel: &str, (kind, message): Failure| FaultRecord {
            seq,
            kernel: kernel.to_string(),
            device: self.device.clone(),
            kind,
            message,
        };
        match job {
            Job::Launch {
                kernel,
                config,
                cluster,
                params,
            } => {
                let name = kernel.name.as_str();
                match guarded(|| self.launch(&kernel, &config, cluster, &params)) {
                    Ok(Ok(())) => None,
                    Ok(Err(failure)) => Some(fault(name, failure)),
                    Err(message) => Some(fault(name, (FaultKind::Other, message))),
                }
            }
            Job::Memory { what, op } => {
                let failure = match guarded(|| op(&self.memory)) {
                    Ok(Ok(())) => return None,
                    Ok(Err(error)) => fault_kind::memory_failure(error),
                    Err(message) => (FaultKind::Other, message),
                };
                crate::check::record_memory_fault(what, &failure.1);
                Some(fault(what, failure))
            }
            Job::Wait {
                timeline,
                seq: until,
            } if !timeline.reached(until) && self.stop.load(Ordering::Relaxed) => Some(fault(
                "wait",
                (
                    FaultKind::Timeout,
                    "stopped by a host-side timeout while waiting for another stream".into(),
                ),
            )),
            Job::Wait {
                timeline,
                seq: until,
            } => match timeline.wait_for(until) {
                Ok(()) => None,
                Err(earlier) => Some(FaultRecord {
                    seq,
                    message: format!(
                        "{} (work this stream waited for through an event)",
                        earlier.message
                    ),
                    ..earlier
                }),
            },
            Job::Graph(replay) => replay(self, seq),
            Job::Host(function) => run_host_function(self, seq, function, Ok(())),
        }
    }

    pub(super) fn launch(
        &self,
        kernel: &LoadedKernel,
        config: &LaunchConfig,
        cluster: Option<[u32; 3]>,
        params: &[u8],
    ) -> Result<(), Failure> {
        let config = interp::LaunchConfig {
            grid: config.grid,
            block: config.block,
            dynamic_shared: config.shared_bytes,
            threads: self.threads,
        };
        // printf output goes to stdout as it fills, so a kernel printing forever shows its
        // output and holds at most a buffer's worth per block.
        let checks = crate::check::current();
        let races = checks.racecheck.then(interp::RaceLog::new);
        // initcheck reads the written bytes on every load, synccheck looks at every barrier
        // arrival, racecheck at every shared and global access: the interpreter does them.
        let interpret_only = checks.initcheck || checks.synccheck || checks.racecheck;
        let children = TieredChildren {
            siblings: &kernel.siblings,
        };
        let hooks = interp::LaunchHooks {
            child_grids: (!interpret_only)
                .then_some(&children as &dyn interp::device_runtime::ChildGridRunner),
            races: races.as_ref(),
            printf: Some(&print_device_output),
            stop: Some(&self.stop),
            workers: self
                .pool
                .as_deref()
                .map(|pool| pool as &dyn interp::BlockWorkers),
        };
        let kernel_ref = Launchable {
            program: &kernel.program,
            handle: &kernel.handle,
        };
        // Clusters (asked for, or compiled into the kernel) run interpreted: their blocks take
        // turns on one worker, which compiled code does not do.
        let compiled_cluster = kernel.program.kernel_cluster(&kernel.handle);
        let result = if let Some(cluster) = cluster {
            kernel
                .program
                .launch_cluster(&kernel.handle, &config, cluster, params, &hooks)
        } else if interpret_only || compiled_cluster.is_some_and(|c| c != [1, 1, 1]) {
            kernel
                .program
                .launch_with(&kernel.handle, &config, params, &hooks)
        } else {
            kernel
                .tier
                .launch(kernel_ref, &config, params, &hooks)
                .map_err(|message| (FaultKind::Other, message))?
        };
        if let Some(races) = &races {
            crate::check::record_races(races.take(&kernel.program, &kernel.name, &config));
        }
        result.map_err(|fault| {
            print_assertions(&fault);
            crate::check::record_fault(&fault);
            (fault_kind::of_fault(&fault), fault.to_string())
        })?;
        Ok(())
    }
}

/// Prints CUDA's line for every thread whose `assert` failed on the host's stderr, as the CUDA
/// runtime does before the launch's error is reported.
fn print_assertions(fault: &interp::Fault) {
    use std::io::Write;
    if fault.assertions.is_empty() {
        return;
    }
    let mut stderr = std::io::stderr().lock();
    for line in &fault.assertions {
        let _ = writeln!(stderr, "{line}");
    }
    let unlisted = fault
        .failed_asserts
        .saturating_sub(fault.assertions.len() as u64);
    if unlisted > 0 {
        let _ = writeln!(stderr, "({unlisted} more threads failed their assertion)");
    }
}

/// Runs `f`, turning a panic (an interpreter bug) into a fault instead of killing the worker and
/// leaving waiters blocked forever.
pub(super) fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    panic::catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        let text = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        format!("internal error in the CPU device: {text}")
    })
}

/// Prints a kernel's `printf` output on the host's stdout, as the GPU does at sync points.
fn print_device_output(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    // Output errors (a closed pipe) must not fault the kernel; ignore them as printf does.
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}
