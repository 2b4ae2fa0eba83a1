//! Launching a kernel: the grid's blocks spread over worker threads.
//!
//! Blocks are independent except through global memory (whose words are atomics, so their
//! atomics and stores interleave as on a GPU). With one worker the blocks run in order on the
//! calling thread, which makes a launch fully deterministic. The first fault stops the launch;
//! with several workers the fault of the lowest-numbered faulting block is reported.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use super::block::BlockRun;
use super::cluster::ClusterRun;
use super::device_runtime::ChildGrids;
use super::exec::Launch;
use super::fault::{Fault, FaultKind};
use super::program::{KernelHandle, Program};
use super::spin::{self, SpinWatch, SAMPLE_TURNS};

/// How to launch a kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in the grid, x, y, z (each at least 1).
    pub grid: [u32; 3],
    /// Threads in a block, x, y, z (each at least 1, at most 1024 in all).
    pub block: [u32; 3],
    /// Bytes of dynamic shared memory per block.
    pub dynamic_shared: u32,
    /// Host threads running blocks; 1 runs the blocks in order on the caller's thread
    /// (deterministic mode).
    pub threads: usize,
}

impl Default for LaunchConfig {
    fn default() -> Self {
        LaunchConfig {
            grid: [1, 1, 1],
            block: [1, 1, 1],
            dynamic_shared: 0,
            threads: 1,
        }
    }
}

/// What a finished launch reports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchReport {
    /// Instructions executed, counted once per lane that executed them.
    pub lane_instructions: u64,
    /// Everything the kernel printed with `printf`, block by block in block order.
    pub printf_output: String,
}

/// What a launch reports while it runs, and how it can be stopped.
#[derive(Default)]
pub struct LaunchHooks<'a> {
    /// Receives `printf` output as blocks produce it (whole `printf` calls, flushed every
    /// 64 KiB and at the end of each block), as a GPU's printf buffer drains. Without a sink
    /// the output is returned in [`LaunchReport::printf_output`], at most
    /// [`KEPT_PRINTF_BYTES`] of it.
    pub printf: Option<&'a (dyn Fn(&str) + Sync)>,
    /// Once set, running blocks stop at their next time slice with a
    /// [`FaultKind::Stopped`] fault that says where their threads are.
    pub stop: Option<&'a AtomicBool>,
    /// Persistent threads that help run the blocks; without them a launch with several
    /// threads starts (and joins) its own.
    pub workers: Option<&'a dyn BlockWorkers>,
    /// racecheck: conflicting accesses are counted here, and the blocks run one after another
    /// on the calling thread (so that the findings are the same on every run).
    pub races: Option<&'a super::RaceLog>,
    /// Runs child grids (device-side launches) of kernels that launch none themselves, e.g. as
    /// compiled code; without it, or where it declines, they run in the interpreter.
    pub child_grids: Option<&'a dyn super::device_runtime::ChildGridRunner>,
}

/// Threads kept between launches that run a launch's blocks beside the launching thread.
///
/// A launch calls [`BlockWorkers::run`] with the number of workers it wants; the launching
/// thread runs worker 0 itself, so a launch finishes even when no helper ever becomes free
/// (another stream's blocks may be spinning on every pool thread). Workers take blocks from a
/// shared counter, so any subset of them finishes the grid.
pub trait BlockWorkers: Sync {
    /// Runs `work(0)` on the calling thread and `work(1)`..`work(workers - 1)` on helper
    /// threads as they become free; returns once `work(0)` and every helper that started has
    /// returned. A helper that has not started by then is withdrawn and never runs.
    fn run(&self, workers: usize, work: &(dyn Fn(usize) + Sync));
}

impl std::fmt::Debug for LaunchHooks<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LaunchHooks")
            .field("printf", &self.printf.is_some())
            .field("stop", &self.stop)
            .field("workers", &self.workers.is_some())
            .field("races", &self.races.is_some())
            .field("child_grids", &self.child_grids.is_some())
            .finish()
    }
}

/// Most printf output a launch without a sink keeps; the rest is dropped, as a full GPU
/// printf buffer drops records.
pub const KEPT_PRINTF_BYTES: usize = 1 << 20;

/// Counts launches, for `%gridid`.
static GRID_IDS: AtomicU64 = AtomicU64::new(1);

/// Most shared memory (static and dynamic) of a block.
const MAX_SHARED: u64 = 64 << 20;

/// Most threads in a block.
const MAX_BLOCK_THREADS: u64 = 1024;

/// Most bytes of registers (at the kernel's call level) the warps of one block may need.
const MAX_BLOCK_REGISTER_BYTES: u64 = 256 << 20;

impl Program {
    /// Runs `kernel` over the grid of `config` with the parameter buffer `params` (each parameter
    /// at the offset of [`KernelHandle::params`], as the CUDA driver lays them out). Returns when
    /// every block has finished, or with the first [`Fault`].
    // A fault is the rare end of a launch; its size does not matter.
    #[allow(clippy::result_large_err)]
    pub fn launch(
        &self,
        kernel: &KernelHandle,
        config: &LaunchConfig,
        params: &[u8],
    ) -> Result<LaunchReport, Fault> {
        self.launch_with(kernel, config, params, &LaunchHooks::default())
    }

    /// [`Program::launch`] with a printf sink and a stop flag (see [`LaunchHooks`]).
    // A fault is the rare end of a launch; its size does not matter.
    #[allow(clippy::result_large_err)]
    pub fn launch_with(
        &self,
        kernel: &KernelHandle,
        config: &LaunchConfig,
        params: &[u8],
        hooks: &LaunchHooks<'_>,
    ) -> Result<LaunchReport, Fault> {
        self.launch_blocks(kernel, config, params, hooks, 0..u64::MAX)
    }

    /// [`Program::launch_with`] in thread-block clusters of `cluster` blocks (x, y, z): the
    /// blocks of a cluster run together on one worker, reach each other's shared memory and
    /// wait for each other at cluster barriers (`interp/cluster.rs`). The grid must be a
    /// multiple of the cluster, a cluster at most [`super::MAX_CLUSTER_BLOCKS`] blocks, and a
    /// kernel compiled for a cluster (`.reqnctapercluster`) launched with that one.
    // A fault is the rare end of a launch; its size does not matter.
    #[allow(clippy::result_large_err)]
    pub fn launch_cluster(
        &self,
        kernel: &KernelHandle,
        config: &LaunchConfig,
        cluster: [u32; 3],
        params: &[u8],
        hooks: &LaunchHooks<'_>,
    ) -> Result<LaunchReport, Fault> {
        self.launch_rooted(kernel, config, Some(cluster), params, hooks, 0..u64::MAX)
    }

    /// The cluster `kernel` was compiled for (`.reqnctapercluster`, CUDA's
    /// `__cluster_dims__`), which its launches use when they name none.
    pub fn kernel_cluster(&self, kernel: &KernelHandle) -> Option<[u32; 3]> {
        self.functions
            .get(kernel.index as usize)
            .and_then(|code| code.cluster_dims)
    }

    /// Runs one grid: the blocks of `kernel` in `blocks` (clamped to the grid), with `children`
    /// collecting the grids its threads launch (`launch_tree.rs` runs them); in clusters of
    /// `cluster` blocks when given (or when the kernel was compiled for a cluster), where every
    /// block runs.
    // A fault is the rare end of a launch; its size does not matter.
    #[allow(clippy::result_large_err)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run_grid(
        &self,
        kernel: &KernelHandle,
        config: &LaunchConfig,
        cluster: Option<[u32; 3]>,
        params: &[u8],
        hooks: &LaunchHooks<'_>,
        blocks: std::ops::Range<u64>,
        children: &ChildGrids<'_>,
    ) -> Result<LaunchReport, Fault> {
        let range = blocks;
        let code = &self.functions[kernel.index as usize];
        let invalid = |detail: String| Fault {
            kind: FaultKind::InvalidLaunch,
            kernel: code.name.clone(),
            function: code.name.clone(),
            block: [0; 3],
            thread: [0; 3],
            line: 0,
            instruction: String::new(),
            address: None,
            detail,
            source: Vec::new(),
            assertions: Vec::new(),
            failed_asserts: 0,
        };
        let threads: u64 = config.block.iter().map(|&d| u64::from(d)).product();
        let blocks: u64 = config.grid.iter().map(|&d| u64::from(d)).product();
        if threads == 0 || blocks == 0 {
            return Err(invalid(format!(
                "empty grid {:?} or block {:?}",
                config.grid, config.block
            )));
        }
        if threads > MAX_BLOCK_THREADS {
            return Err(invalid(format!(
                "{threads} threads per block exceed {MAX_BLOCK_THREADS}"
            )));
        }
        let warps = threads.div_ceil(32);
        let register_bytes = u64::from(self.max_regs) * 32 * 8 * warps;
        if register_bytes > MAX_BLOCK_REGISTER_BYTES {
            return Err(invalid(format!(
                "too many resources requested for launch: {warps} warps of {} registers per \
                 thread need {register_bytes} bytes, more than the CPU device's \
                 {MAX_BLOCK_REGISTER_BYTES} per block",
                self.max_regs
            )));
        }
        let shared = self
            .kernel_static_shared(kernel)
            .saturating_add(u64::from(config.dynamic_shared));
        if shared > MAX_SHARED {
            return Err(invalid(format!(
                "{shared} bytes of shared memory per block exceed the CPU device's {MAX_SHARED}"
            )));
        }
        if (params.len() as u64) < code.param_size {
            return Err(invalid(format!(
                "parameter buffer of {} bytes, the kernel's parameters need {}",
                params.len(),
                code.param_size
            )));
        }
        if let Some((function_index, pc, why)) = self.unsupported_in(kernel.index) {
            let function = &self.functions[function_index as usize];
            return Err(Fault {
                kind: FaultKind::Unsupported,
                kernel: code.name.clone(),
                function: function.name.clone(),
                block: [0; 3],
                thread: [0; 3],
                line: function.line(pc),
                instruction: function
                    .source
                    .get(pc)
                    .map(super::program::instruction_text)
                    .unwrap_or_default(),
                address: None,
                detail: why,
                source: self.source_frames(function_index, pc).to_vec(),
                assertions: Vec::new(),
                failed_asserts: 0,
            });
        }
        // Kernels that synchronise the grid get a workspace and run with all blocks resident.
        let cooperative = self.needs_grid_sync(kernel.index);
        let cluster_shape = match (cluster, code.cluster_dims) {
            (Some(asked), Some(compiled)) if asked != compiled && asked != [1, 1, 1] => {
                return Err(invalid(format!(
                    "the kernel was compiled for clusters of {compiled:?} blocks \
                     (`__cluster_dims__`), the launch asks for {asked:?}"
                )));
            }
            (_, Some(compiled)) => compiled,
            (Some(asked), None) => asked,
            (None, None) => [1, 1, 1],
        };
        let explicit_cluster = cluster.is_some() || code.explicit_cluster;
        let cluster_blocks: u64 = cluster_shape.iter().map(|&d| u64::from(d)).product();
        if cluster_blocks == 0 || cluster_blocks > u64::from(super::MAX_CLUSTER_BLOCKS) {
            return Err(invalid(format!(
                "a cluster of {cluster_shape:?} blocks: clusters hold 1 to {} blocks",
                super::MAX_CLUSTER_BLOCKS
            )));
        }
        if let Some(axis) = (0..3).find(|&a| !config.grid[a].is_multiple_of(cluster_shape[a])) {
            return Err(invalid(format!(
                "the grid {:?} is not a multiple of the cluster {cluster_shape:?} (dimension {axis})",
                config.grid
            )));
        }
        if cluster_blocks > 1 && cooperative {
            return Err(invalid(
                "a kernel synchronising the grid cannot run in clusters of several blocks".into(),
            ));
        }
        let workspace = if cooperative {
            let workspace = self.memory.alloc(64, 256).unwrap_or(0);
            let _ = self.memory.mark_defined(workspace, 64);
            workspace
        } else {
            0
        };
        let launch = Launch {
            program: self,
            kernel: code,
            kernel_index: kernel.index,
            memory: &self.memory,
            params,
            config,
            gridid: GRID_IDS.fetch_add(1, Ordering::Relaxed),
            workspace,
            cluster: cluster_shape,
            explicit_cluster,
            hooks,
            children,
        };
        let ctaid = |index: u64| {
            let [gx, gy, _] = config.grid.map(u64::from);
            [
                (index % gx) as u32,
                ((index / gx) % gy) as u32,
                (index / (gx * gy)) as u32,
            ]
        };
        let clustered = cluster_blocks > 1;
        let (first, blocks) = if clustered {
            (0, blocks)
        } else {
            (range.start.min(blocks), range.end.min(blocks))
        };
        // The units workers take: blocks, or clusters of blocks.
        let units = if clustered {
            blocks / cluster_blocks
        } else {
            blocks.saturating_sub(first)
        };
        let cluster_ctaids = |unit: u64| -> Vec<[u32; 3]> {
            let [cx, cy, cz] = cluster_shape;
            let [nx, ny, _] = [0, 1, 2].map(|a| config.grid[a] / cluster_shape[a]);
            let (nx, ny) = (u64::from(nx), u64::from(ny));
            let origin = [
                (unit % nx) as u32 * cx,
                ((unit / nx) % ny) as u32 * cy,
                (unit / (nx * ny)) as u32 * cz,
            ];
            (0..cx * cy * cz)
                .map(|r| {
                    [
                        origin[0] + r % cx,
                        origin[1] + (r / cx) % cy,
                        origin[2] + r / (cx * cy),
                    ]
                })
                .collect()
        };
        let linear = |[x, y, z]: [u32; 3]| {
            let [gx, gy, _] = config.grid.map(u64::from);
            u64::from(x) + gx * (u64::from(y) + gy * u64::from(z))
        };
        if let Some(races) = hooks.races {
            races.begin_launch();
        }
        let workers = if hooks.races.is_some() {
            1
        } else {
            config.threads
        }
        .max(1)
        .min(units.max(1) as usize);
        let next = AtomicU64::new(first);
        let spinning = AtomicUsize::new(0);
        let abort = AtomicBool::new(false);
        let first_fault: Mutex<Option<(u64, Fault)>> = Mutex::new(None);
        let asserted: Mutex<Vec<(u64, Vec<String>, u64)>> = Mutex::new(Vec::new());
        let outputs: Mutex<Vec<(u64, String)>> = Mutex::new(Vec::new());
        let kept_printf = AtomicUsize::new(0);
        let instructions = AtomicU64::new(0);
        let finish = |index: u64, run: &mut BlockRun, result: Result<bool, Fault>| {
            if hooks.printf.is_some() {
                launch.flush_printf(&mut run.block.printf);
            } else if !run.block.printf.is_empty() {
                let mut text = std::mem::take(&mut run.block.printf);
                let kept = kept_printf.fetch_add(text.len(), Ordering::Relaxed);
                let room = KEPT_PRINTF_BYTES.saturating_sub(kept);
                if text.len() > room {
                    let mut end = room;
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    text.truncate(end);
                }
                outputs
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((index, text));
            }
            if let Err(mut fault) = result {
                // A failed `assert` stops its threads only: the other blocks run on, so that
                // every failing thread is reported, as on a GPU.
                if fault.kind == FaultKind::AssertFailed {
                    let lines = std::mem::take(&mut fault.assertions);
                    asserted.lock().unwrap_or_else(|e| e.into_inner()).push((
                        index,
                        lines,
                        fault.failed_asserts,
                    ));
                } else {
                    abort.store(true, Ordering::Relaxed);
                }
                let mut slot = first_fault.lock().unwrap_or_else(|e| e.into_inner());
                if slot.as_ref().is_none_or(|(i, _)| index < *i) {
                    *slot = Some((index, fault));
                }
            }
        };
        let count = |run: &BlockRun| run.warps.iter().map(|w| w.lane_instructions).sum::<u64>();
        // Workers that have started: helpers of a shared pool may start late or never.
        let started = AtomicUsize::new(0);
        let work = |worker: usize| {
            started.fetch_add(1, Ordering::Relaxed);
            if clustered {
                let mut cluster = ClusterRun::default();
                let mut instructions_run = 0;
                while !abort.load(Ordering::Relaxed) {
                    let unit = next.fetch_add(1, Ordering::Relaxed);
                    if unit >= units {
                        break;
                    }
                    let ctaids = cluster_ctaids(unit);
                    cluster.start(&launch, &ctaids);
                    cluster.run(
                        &launch,
                        &|| abort.load(Ordering::Relaxed),
                        &mut |rank, run, result| {
                            finish(linear(ctaids[rank]), run, result);
                        },
                    );
                    instructions_run += cluster.runs.iter().map(&count).sum::<u64>();
                    for run in &mut cluster.runs {
                        run.warps.iter_mut().for_each(|w| w.lane_instructions = 0);
                    }
                }
                instructions.fetch_add(instructions_run, Ordering::Relaxed);
                return;
            }
            if cooperative {
                // Every block of this worker is in flight; they take turns.
                let mut runs: Vec<(u64, BlockRun, bool)> = (first + worker as u64..blocks)
                    .step_by(workers)
                    .map(|index| {
                        let mut run = BlockRun::default();
                        run.start(&launch, ctaid(index));
                        (index, run, false)
                    })
                    .collect();
                while !abort.load(Ordering::Relaxed) && runs.iter().any(|(_, _, done)| !done) {
                    for (index, run, done) in runs.iter_mut().filter(|(_, _, done)| !done) {
                        let result = run.resume(&launch, Some(1));
                        *done = !matches!(result, Ok(false));
                        finish(*index, run, result);
                    }
                }
                instructions.fetch_add(
                    runs.iter().map(|(_, run, _)| count(run)).sum(),
                    Ordering::Relaxed,
                );
                return;
            }
            let mut run = BlockRun::default();
            while !abort.load(Ordering::Relaxed) {
                let index = next.fetch_add(1, Ordering::Relaxed);
                if index >= blocks {
                    break;
                }
                run.start(&launch, ctaid(index));
                let mut watch = SpinWatch::new(&spinning);
                let result = loop {
                    match run.resume(&launch, Some(SAMPLE_TURNS)) {
                        // Another block faulted: the launch is over, this block's end is moot.
                        Ok(false) if abort.load(Ordering::Relaxed) => break Ok(false),
                        Ok(false) => {
                            let waiting = blocks.saturating_sub(next.load(Ordering::Relaxed));
                            // A deadlock once every worker holds a looping block and blocks
                            // wait to start: none of them can ever run.
                            let running = started.load(Ordering::Relaxed);
                            if waiting > 0 && watch.sample(&run) >= running {
                                break Err(spin::deadlock(&launch, &run, waiting));
                            }
                        }
                        done => break done,
                    }
                };
                drop(watch);
                finish(index, &mut run, result);
            }
            instructions.fetch_add(count(&run), Ordering::Relaxed);
        };
        if workers <= 1 {
            work(0);
        } else if let (Some(pool), false) = (hooks.workers, cooperative) {
            // Cooperative blocks are dealt to workers in advance, so every worker must run.
            pool.run(workers, &work);
        } else {
            std::thread::scope(|scope| {
                for worker in 0..workers {
                    scope.spawn(move || work(worker));
                }
            });
        }
        if workspace != 0 {
            // The workspace was allocated above; failing to free it only leaks 64 bytes.
            let _ = self.memory.free(workspace);
        }
        if let Some((_, mut fault)) = first_fault.into_inner().unwrap_or_else(|e| e.into_inner()) {
            let mut asserted = asserted.into_inner().unwrap_or_else(|e| e.into_inner());
            asserted.sort_by_key(|(index, ..)| *index);
            fault.failed_asserts = 0;
            for (_, lines, count) in asserted {
                fault.failed_asserts += count;
                let room =
                    crate::interp::exec::KEPT_ASSERTIONS.saturating_sub(fault.assertions.len());
                fault.assertions.extend(lines.into_iter().take(room));
            }
            return Err(fault);
        }
        let mut outputs = outputs.into_inner().unwrap_or_else(|e| e.into_inner());
        outputs.sort_by_key(|(index, _)| *index);
        Ok(LaunchReport {
            lane_instructions: instructions.into_inner(),
            printf_output: outputs.into_iter().map(|(_, text)| text).collect(),
        })
    }
}
