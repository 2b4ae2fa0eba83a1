//! A block (CTA): its warps, shared memory and barriers, run on one host thread.
//!
//! Warps take turns: each runs until all its lanes wait (at a barrier or collective), exit, or
//! use up a time slice (so that warps spinning on shared memory still let the others progress).
//! A barrier counts arriving threads; it completes when the count given to `bar.sync` arrives,
//! or, without a count, when every thread of the block that has not exited has arrived. When no
//! warp can progress and threads still wait, the block is deadlocked and faults.

use super::cluster::ClusterLink;
use super::exec::{self, Launch};
use super::fault::{ExecFault, Fault, FaultKind};
use super::program::instruction_text;
use super::race::BlockRaces;
use super::warp::{Env, Warp};
use crate::ir::Op as IrOp;

/// Number of named barriers per block.
pub(crate) const BARRIERS: usize = 16;
/// Instructions a warp runs before the next warp gets a turn.
const TIME_SLICE: u32 = 4096;

/// One named barrier's state.
#[derive(Debug, Default, Clone)]
pub(crate) struct Barrier {
    pub arrived: u32,
    /// Thread count given by the first arrival (None: all live threads).
    pub expected: Option<u32>,
    /// (warp, lanes) waiting here.
    pub waiting: Vec<(u32, u32)>,
    /// `bar.red` operation and its running value.
    pub red: Option<(IrOp, u64)>,
    /// synccheck: where the first waiting arrival was, as (function, instruction).
    pub site: Option<(u32, u32)>,
}

/// Lanes released from a barrier, with the `bar.red` result to deliver.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Release {
    pub warp: u32,
    pub mask: u32,
    pub value: Option<u64>,
}

/// The state a block's warps share.
#[derive(Debug, Default)]
pub(crate) struct Block {
    pub ctaid: [u32; 3],
    pub shared: Vec<u8>,
    pub barriers: Vec<Barrier>,
    /// Threads that have not exited.
    pub live: u32,
    pub releases: Vec<Release>,
    pub printf: String,
    /// The fault of the block's first failed `assert`, raised once the block is done.
    pub failed_assert: Option<Box<Fault>>,
    /// CUDA's line for each failed `assert` (at most `KEPT_ASSERTIONS`).
    pub assertions: Vec<String>,
    /// Threads whose `assert` failed.
    pub failed_asserts: u64,
    /// racecheck's shared-memory shadow and ordering.
    pub races: BlockRaces,
    /// The rest of the cluster, while this block of a cluster of several has its turn.
    pub cluster: Option<ClusterLink>,
    /// Each thread's last device-runtime error (`cudaGetLastError`), by linear thread index;
    /// only threads with an error have an entry.
    pub last_errors: std::collections::HashMap<u32, u32>,
}

impl Block {
    /// Counts the arrival of `mask`'s lanes of warp `warp` at barrier `id`; `value` is their
    /// combined `bar.red` contribution. Completes the barrier when everyone expected is there.
    pub fn arrive(
        &mut self,
        id: usize,
        warp: u32,
        mask: u32,
        count: Option<u32>,
        wait: bool,
        red: Option<(IrOp, u64)>,
    ) {
        let live = self.live;
        let barrier = &mut self.barriers[id];
        barrier.arrived += mask.count_ones();
        if count.is_some() {
            barrier.expected = count;
        }
        if wait {
            barrier.waiting.push((warp, mask));
        }
        if let Some((op, value)) = red {
            barrier.red = Some(match barrier.red {
                None => (op, value),
                Some((_, acc)) => (op, combine(op, acc, value)),
            });
        }
        self.try_complete(id, live);
    }

    /// Completes barrier `id` if enough threads arrived.
    fn try_complete(&mut self, id: usize, live: u32) {
        let barrier = &mut self.barriers[id];
        let expected = barrier.expected.unwrap_or(live);
        if barrier.arrived == 0 || barrier.arrived < expected {
            return;
        }
        let value = barrier.red.map(|(_, v)| v);
        for (warp, mask) in barrier.waiting.drain(..) {
            self.releases.push(Release { warp, mask, value });
        }
        self.races.epoch += 1;
        *barrier = Barrier::default();
    }

    /// Notes that `count` threads exited; barriers waiting for all live threads may complete.
    pub fn exited(&mut self, count: u32) {
        self.live -= count;
        if let Some(cluster) = &mut self.cluster {
            cluster.exited(count);
        }
        for id in 0..self.barriers.len() {
            self.try_complete(id, self.live);
        }
    }

    /// Applies pending releases addressed to `warp`.
    pub fn apply_releases(&mut self, warp: &mut Warp) {
        if self.releases.is_empty() {
            return;
        }
        self.releases.retain(|r| {
            if r.warp != warp.index {
                return true;
            }
            warp.bar_wait &= !r.mask;
            if let Some(value) = r.value {
                let mut m = r.mask;
                while m != 0 {
                    let l = m.trailing_zeros() as usize;
                    m &= m - 1;
                    let index = warp.bar_dst[l];
                    if index != usize::MAX {
                        warp.regs[index] = value;
                    }
                }
            }
            false
        });
    }
}

fn combine(op: IrOp, a: u64, b: u64) -> u64 {
    match op {
        IrOp::And => a & b,
        IrOp::Or => a | b,
        _ => a + b,
    }
}

/// A block in flight: its shared state and warps. Reused from block to block by a worker.
#[derive(Debug, Default)]
pub(crate) struct BlockRun {
    pub block: Block,
    pub warps: Vec<Warp>,
    warp_count: usize,
}

impl BlockRun {
    /// The warps of the block in flight.
    pub fn running_warps(&self) -> &[Warp] {
        &self.warps[..self.warp_count]
    }

    /// Sets up block `ctaid` of the launch, ready to run from its first instruction.
    pub fn start(&mut self, launch: &Launch<'_>, ctaid: [u32; 3]) {
        let [bx, by, bz] = launch.config.block;
        let threads = bx * by * bz;
        let warp_count = threads.div_ceil(32) as usize;
        while self.warps.len() < warp_count {
            self.warps.push(Warp::new(launch.program.max_regs));
        }
        self.warp_count = warp_count;
        let block = &mut self.block;
        block.ctaid = ctaid;
        block.shared.clear();
        block.shared.resize(
            (launch.program.block_static_shared[launch.kernel_index as usize]
                + u64::from(launch.config.dynamic_shared)) as usize,
            0,
        );
        block.barriers.clear();
        block.barriers.resize(BARRIERS, Barrier::default());
        block.live = threads;
        block.releases.clear();
        block.printf.clear();
        block.failed_assert = None;
        block.assertions.clear();
        block.failed_asserts = 0;
        block.cluster = None;
        block.last_errors.clear();
        if launch.hooks.races.is_some() {
            block.races.reset(block.shared.len());
        }
        let env = Env {
            ntid: launch.config.block,
            ctaid,
            nctaid: launch.config.grid,
            gridid: launch.gridid,
            smid: 0,
            dynamic_smem: launch.config.dynamic_shared,
            total_smem: block.shared.len() as u32,
            workspace: launch.workspace,
            cluster: launch.cluster,
            explicit_cluster: launch.explicit_cluster,
        };
        for (w, warp) in self.warps.iter_mut().take(warp_count).enumerate() {
            let first = w as u32 * 32;
            let lanes = (threads - first).min(32);
            let valid = if lanes == 32 {
                u32::MAX
            } else {
                (1u32 << lanes) - 1
            };
            let mut tid = [[0u32; 3]; 32];
            for (l, t) in tid.iter_mut().enumerate().take(lanes as usize) {
                let linear = first + l as u32;
                *t = [linear % bx, (linear / bx) % by, linear / (bx * by)];
            }
            warp.start(
                w as u32,
                valid,
                tid,
                (launch.kernel_index, launch.kernel.num_regs),
                launch.kernel.frame_size,
            );
            warp.env = env;
            warp.cache.clear();
        }
    }

    /// Runs the block: to completion (`passes` None), or for that many turns of its warps.
    /// Returns whether the block has finished.
    // A fault is the rare end of a launch; its size does not matter.
    #[allow(clippy::result_large_err)]
    pub fn resume(&mut self, launch: &Launch<'_>, passes: Option<u32>) -> Result<bool, Fault> {
        let block = &mut self.block;
        let warps = &mut self.warps[..self.warp_count];
        let mut turns = 0u32;
        loop {
            if block.live == 0 {
                return finished(block);
            }
            if passes.is_some_and(|limit| turns >= limit) {
                return Ok(false);
            }
            if launch
                .hooks
                .stop
                .is_some_and(|stop| stop.load(std::sync::atomic::Ordering::Relaxed))
            {
                return Err(stopped(launch, block, warps));
            }
            turns += 1;
            let mut progress = false;
            for warp in warps.iter_mut() {
                block.apply_releases(warp);
                if warp.ready() == 0 {
                    continue;
                }
                progress = true;
                exec::run_warp(warp, block, launch, TIME_SLICE)
                    .map_err(|e| fault(launch, block, warp, e))?;
            }
            if block.live == 0 {
                return finished(block);
            }
            if !progress && block.releases.is_empty() {
                if let Some(warp) = warps.iter_mut().find(|w| w.coll_wait != 0) {
                    warp.force_collective = true;
                    warp.coll_wait = 0;
                    continue;
                }
                // Threads waiting for other blocks of their cluster: their turn is over.
                if block
                    .cluster
                    .as_ref()
                    .is_some_and(ClusterLink::waits_for_others)
                {
                    return Ok(false);
                }
                // Threads waiting for one whose `assert` failed: the assertion is the error.
                if block.failed_assert.is_some() {
                    return finished(block);
                }
                return Err(deadlock(launch, block, warps));
            }
        }
    }
}

/// The end of a block whose threads are all done: its first failed `assert`, if any, with
/// every failed assertion's line.
#[allow(clippy::result_large_err)]
fn finished(block: &mut Block) -> Result<bool, Fault> {
    match block.failed_assert.take() {
        Some(fault) => {
            let mut fault = *fault;
            fault.assertions = std::mem::take(&mut block.assertions);
            fault.failed_asserts = block.failed_asserts;
            Err(fault)
        }
        None => Ok(true),
    }
}

/// Builds the fault of a lane of `warp`, at its group's current instruction.
pub(crate) fn fault(launch: &Launch<'_>, block: &Block, warp: &Warp, e: ExecFault) -> Fault {
    let lane = e.lane as usize % 32;
    let function = &launch.program.functions[warp.gfunc as usize];
    let pc = warp.gpc as usize;
    Fault {
        kind: e.kind,
        kernel: launch.kernel.name.clone(),
        function: function.name.clone(),
        block: block.ctaid,
        thread: warp.tid[lane],
        line: function.line(pc),
        instruction: function
            .source
            .get(pc)
            .map(instruction_text)
            .unwrap_or_default(),
        address: e.address,
        detail: e.detail,
        source: launch.program.source_frames(warp.gfunc, pc).to_vec(),
        assertions: Vec::new(),
        failed_asserts: 0,
    }
}

/// Where lane `lane` of `warp` is, as (function, instruction index): lanes of the running group
/// are at the group's instruction, the others at their own.
pub(crate) fn place(warp: &Warp, lane: usize) -> (u32, usize) {
    if warp.group & (1 << lane) != 0 {
        (warp.gfunc, warp.gpc as usize)
    } else {
        (warp.func[lane], warp.pc[lane] as usize)
    }
}

/// Where the live threads of a block are: `32 threads at PTX line 7, 2 at line 9 (in `f`)`.
pub(crate) fn positions(launch: &Launch<'_>, warps: &[Warp]) -> String {
    let mut places: Vec<((u32, u32), usize, u32)> = Vec::new();
    for warp in warps {
        let mut live = warp.valid & !warp.exited;
        while live != 0 {
            let lane = live.trailing_zeros() as usize;
            live &= live - 1;
            let (function, pc) = place(warp, lane);
            let line = launch.program.functions[function as usize].line(pc);
            match places
                .iter_mut()
                .find(|(place, ..)| *place == (function, line))
            {
                Some((_, _, count)) => *count += 1,
                None => places.push(((function, line), pc, 1)),
            }
        }
    }
    places.sort_by_key(|&(.., count)| std::cmp::Reverse(count));
    let shown: Vec<String> = places
        .iter()
        .take(4)
        .map(|&((function, line), pc, count)| {
            let name = &launch.program.functions[function as usize].name;
            let within = if *name == launch.kernel.name {
                String::new()
            } else {
                format!(" (in `{name}`)")
            };
            match launch.program.source_frames(function, pc).first() {
                Some(frame) => format!("{count} at {} (PTX line {line}){within}", frame.position),
                None => format!("{count} at PTX line {line}{within}"),
            }
        })
        .collect();
    let more = places.len().saturating_sub(shown.len());
    let mut text = format!("threads {}", shown.join(", "));
    if more > 0 {
        text.push_str(&format!(" and {more} more places"));
    }
    text
}

fn stopped(launch: &Launch<'_>, block: &Block, warps: &[Warp]) -> Fault {
    let (warp, lane) = first_live_lane(warps);
    let (function, pc) = place(warp, lane);
    let detail = format!("{} live threads: {}", block.live, positions(launch, warps));
    fault_at(
        launch,
        FaultKind::Stopped,
        block.ctaid,
        warp,
        lane,
        (function, pc),
        detail,
    )
}

/// The first warp with a live lane (or the first warp), and that lane.
pub(crate) fn first_live_lane(warps: &[Warp]) -> (&Warp, usize) {
    let warp = warps
        .iter()
        .find(|w| w.valid & !w.exited != 0)
        .unwrap_or(&warps[0]);
    let lane = (warp.valid & !warp.exited).trailing_zeros().min(31) as usize;
    (warp, lane)
}

/// A fault of `kind` located at `lane` of `warp`, at instruction `pc` of function `function`.
pub(crate) fn fault_at(
    launch: &Launch<'_>,
    kind: FaultKind,
    block: [u32; 3],
    warp: &Warp,
    lane: usize,
    (function, pc): (u32, usize),
    detail: String,
) -> Fault {
    let source = launch.program.source_frames(function, pc).to_vec();
    let function = &launch.program.functions[function as usize];
    Fault {
        kind,
        kernel: launch.kernel.name.clone(),
        function: function.name.clone(),
        block,
        thread: warp.tid[lane],
        line: function.line(pc),
        instruction: function
            .source
            .get(pc)
            .map(instruction_text)
            .unwrap_or_default(),
        address: None,
        detail,
        source,
        assertions: Vec::new(),
        failed_asserts: 0,
    }
}

fn deadlock(launch: &Launch<'_>, block: &Block, warps: &[Warp]) -> Fault {
    let waiting: u32 = warps.iter().map(|w| w.bar_wait.count_ones()).sum();
    let warp = warps.iter().find(|w| w.bar_wait != 0).unwrap_or(&warps[0]);
    let lane = warp.bar_wait.trailing_zeros().min(31) as usize;
    let pc = warp.pc[lane].saturating_sub(1) as usize;
    let detail = format!(
        "{waiting} of the block's {} live threads wait at barriers that can never complete",
        block.live
    );
    fault_at(
        launch,
        FaultKind::Deadlock,
        block.ctaid,
        warp,
        lane,
        (warp.func[lane], pc),
        detail,
    )
}
