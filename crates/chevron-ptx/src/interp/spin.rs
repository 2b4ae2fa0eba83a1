//! Spotting a block that waits on a block the scheduler has not started.
//!
//! With one worker thread (or fewer workers than blocks that wait on each other), blocks run one
//! after another: a block spinning on a flag that a later block sets never sees it, and the
//! launch would hang. A GPU with enough multiprocessors would run both. The launch samples the
//! running block's state (registers, program counters, shared memory) every few time slices;
//! when a sample repeats exactly, the block is going round in a loop that only another block
//! can end. Once every worker holds such a block while later blocks wait to start, none of them
//! can ever run, and the launch faults with a deadlock instead.

use std::collections::hash_map::DefaultHasher;
use std::collections::VecDeque;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::block::{fault_at, first_live_lane, place, positions, BlockRun};
use super::exec::Launch;
use super::fault::{Fault, FaultKind};

/// Time slices of a block between two samples.
pub(crate) const SAMPLE_TURNS: u32 = 16;
/// Samples taken before watching starts (blocks that finish sooner are never hashed).
const QUIET_SAMPLES: u32 = 64;
/// Samples remembered: loops whose state recurs within this many samples are caught.
const REMEMBERED: usize = 64;

/// The recent states of one running block, and whether it counts among the launch's looping
/// blocks (`spinning`, shared by the launch's workers).
#[derive(Debug)]
pub(crate) struct SpinWatch<'a> {
    spinning: &'a AtomicUsize,
    looping: bool,
    samples: u32,
    recent: VecDeque<u64>,
}

impl<'a> SpinWatch<'a> {
    /// Watches a block; `spinning` counts the launch's blocks whose state repeats.
    pub fn new(spinning: &'a AtomicUsize) -> SpinWatch<'a> {
        SpinWatch {
            spinning,
            looping: false,
            samples: 0,
            recent: VecDeque::new(),
        }
    }

    /// Records the block's state and returns how many of the launch's running blocks are
    /// looping (their state repeats), this one included if it is.
    pub fn sample(&mut self, run: &BlockRun) -> usize {
        self.samples += 1;
        if self.samples > QUIET_SAMPLES {
            let state = state_hash(run);
            let repeats = self.recent.contains(&state);
            if !repeats {
                if self.recent.len() == REMEMBERED {
                    self.recent.pop_front();
                }
                self.recent.push_back(state);
            }
            self.set_looping(repeats);
        }
        self.spinning.load(Ordering::Relaxed)
    }

    fn set_looping(&mut self, looping: bool) {
        if looping != self.looping {
            self.looping = looping;
            if looping {
                self.spinning.fetch_add(1, Ordering::Relaxed);
            } else {
                self.spinning.fetch_sub(1, Ordering::Relaxed);
            }
        }
    }
}

impl Drop for SpinWatch<'_> {
    /// The block ended: it no longer counts as looping.
    fn drop(&mut self) {
        self.set_looping(false);
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
    let (warp, lane) = first_live_lane(warps);
    let detail = format!(
        "the block loops without changing state while {waiting} later blocks wait to start \
         on {} worker thread(s); blocks run one at a time per worker, so one waiting on a \
         later block never sees it ({})",
        launch.config.threads.max(1),
        positions(launch, warps)
    );
    fault_at(
        launch,
        FaultKind::Deadlock,
        run.block.ctaid,
        warp,
        lane,
        place(warp, lane),
        detail,
    )
}
