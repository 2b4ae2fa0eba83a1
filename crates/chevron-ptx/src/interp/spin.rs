//! Spotting a block that waits on a block the scheduler has not started.
//!
//! With one worker thread (or fewer workers than blocks that wait on each other), blocks run one
//! after another: a block spinning on a flag that a later block sets never sees it, and the
//! launch would hang. A GPU with enough multiprocessors would run both. The launch samples the
//! running block's state (registers, program counters, shared memory) every few time slices;
//! when a sample repeats exactly while later blocks wait to start, the block is going round in
//! a loop that only another block can end, and the launch faults with a deadlock instead.

use std::collections::hash_map::DefaultHasher;
use std::collections::VecDeque;
use std::hash::{Hash, Hasher};

use super::block::{place, positions, BlockRun};
use super::exec::Launch;
use super::fault::{Fault, FaultKind};
use super::program::instruction_text;

/// Time slices of a block between two samples.
pub(crate) const SAMPLE_TURNS: u32 = 16;
/// Samples taken before watching starts (blocks that finish sooner are never hashed).
const QUIET_SAMPLES: u32 = 64;
/// Samples remembered: loops whose state recurs within this many samples are caught.
const REMEMBERED: usize = 64;

/// The recent states of one running block.
#[derive(Debug, Default)]
pub(crate) struct SpinWatch {
    samples: u32,
    recent: VecDeque<u64>,
}

impl SpinWatch {
    /// Records the block's state; true if it equals a recent one.
    pub fn repeats(&mut self, run: &BlockRun) -> bool {
        self.samples += 1;
        if self.samples <= QUIET_SAMPLES {
            return false;
        }
        let state = state_hash(run);
        if self.recent.contains(&state) {
            return true;
        }
        if self.recent.len() == REMEMBERED {
            self.recent.pop_front();
        }
        self.recent.push_back(state);
        false
    }
}

fn state_hash(run: &BlockRun) -> u64 {
    let mut hasher = DefaultHasher::new();
    run.block.shared.hash(&mut hasher);
    for warp in run.running_warps() {
        let places: Vec<(u32, usize)> = (0..32).map(|lane| place(warp, lane)).collect();
        (warp.exited, warp.bar_wait, places).hash(&mut hasher);
        let depth = warp.stacks.iter().map(Vec::len).max().unwrap_or(0);
        let live = ((depth + 1) * warp.region).min(warp.regs.len());
        warp.regs[..live].hash(&mut hasher);
    }
    hasher.finish()
}

/// The deadlock fault of a block whose state repeats while `waiting` blocks have not started.
pub(crate) fn deadlock(launch: &Launch<'_>, run: &BlockRun, waiting: u64) -> Fault {
    let warps = run.running_warps();
    let warp = warps
        .iter()
        .find(|w| w.valid & !w.exited != 0)
        .unwrap_or(&warps[0]);
    let lane = (warp.valid & !warp.exited).trailing_zeros().min(31) as usize;
    let (function, pc) = place(warp, lane);
    let function = &launch.program.functions[function as usize];
    Fault {
        kind: FaultKind::Deadlock,
        kernel: launch.kernel.name.clone(),
        function: function.name.clone(),
        block: run.block.ctaid,
        thread: warp.tid[lane],
        line: function.line(pc),
        instruction: function
            .source
            .get(pc)
            .map(instruction_text)
            .unwrap_or_default(),
        address: None,
        detail: format!(
            "the block loops without changing state while {waiting} later blocks wait to start \
             on {} worker thread(s); blocks run one at a time per worker, so one waiting on a \
             later block never sees it ({})",
            launch.config.threads.max(1),
            positions(launch, warps)
        ),
    }
}
