//! Thread-block clusters (sm_90): the blocks of a cluster run together on one worker, taking
//! turns, so that they can read each other's shared memory and wait for each other.
//!
//! - **Distributed shared memory.** A `.shared::cluster` address names a block of the cluster in
//!   bits 27-31 (rank + 1) above a shared-memory offset; an address without those bits is the
//!   running block's own (a `.shared::cta` address is a valid `.shared::cluster` address of its
//!   own block, as PTX defines). `mapa` sets the bits, `getctarank` reads them; generic
//!   addresses carry the same bits inside the shared window. While a block has its turn, the
//!   other blocks' shared memory is lent to it ([`ClusterLink::peers`]), so loads, stores,
//!   atomics and bulk copies reach any block of the cluster.
//! - **Cluster barriers.** `barrier.cluster.arrive` counts a thread's arrival in the current
//!   phase; `barrier.cluster.wait` waits until every thread of the cluster that has not exited
//!   arrived in the phase of the thread's last arrival. Waiting lanes are released through
//!   their block's releases, like `bar.sync`'s.
//! - A cluster whose blocks all wait without any of them running an instruction in a whole
//!   round is deadlocked.

use super::block::{fault_at, first_live_lane, BlockRun, Release};
use super::exec::Launch;
use super::fault::{Fault, FaultKind};
use super::memory::{SHARED_WINDOW, WINDOW_SIZE};

/// Where the rank bits of a `.shared::cluster` address start.
pub(crate) const RANK_SHIFT: u32 = 27;
/// The offset bits below them: the most shared memory a block of a cluster can address.
pub(crate) const OFFSET_MASK: u64 = (1 << RANK_SHIFT) - 1;
/// Most blocks in a cluster (the rank bits hold rank + 1 below 32).
pub const MAX_CLUSTER_BLOCKS: u32 = 16;

/// The address of `a` (a `.shared` offset, or a generic address in the shared window) in the
/// shared memory of block `rank` of the cluster: `mapa`.
pub(crate) fn map_address(a: u64, rank: u32) -> u64 {
    let tagged = |offset: u64| (offset & OFFSET_MASK) | (u64::from(rank) + 1) << RANK_SHIFT;
    if (SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&a) {
        SHARED_WINDOW + tagged((a - SHARED_WINDOW) & 0xffff_ffff)
    } else {
        tagged(a & 0xffff_ffff)
    }
}

/// The rank a shared-memory offset names, if it names one (`None`: the running block's own).
pub(crate) fn rank_of(offset: u64) -> Option<u32> {
    match (offset & 0xffff_ffff) >> RANK_SHIFT {
        0 => None,
        tag => Some(tag as u32 - 1),
    }
}

/// What a block of a cluster reaches during its turn: the other blocks' shared memory and the
/// cluster barrier. Moved into the running block's [`super::block::Block::cluster`].
#[derive(Debug, Default)]
pub(crate) struct ClusterLink {
    /// The running block's rank.
    pub rank: u32,
    /// Each rank's shared memory; the running block's slot is empty (its own is in the block).
    pub peers: Vec<Vec<u8>>,
    /// Threads per block.
    pub block_threads: u32,
    /// Threads of the cluster that have not exited.
    pub live: u32,
    /// Arrivals in the current phase.
    pub arrived: u32,
    /// Phases completed.
    pub phase: u32,
    /// The phase each thread (rank-major) last arrived in, plus one (0: never arrived).
    pub arrival: Vec<u32>,
    /// Lanes waiting for a phase: (rank, warp, lanes, phase they wait for).
    pub waiting: Vec<(u32, u32, u32, u32)>,
    /// Lanes whose phase completed, for the cluster to hand to their blocks: (rank, release).
    pub released: Vec<(u32, Release)>,
}

impl ClusterLink {
    /// The link of a block that is a cluster by itself (made at its first cluster barrier):
    /// the barrier waits for the block's `live` threads.
    pub fn solo(live: u32) -> ClusterLink {
        ClusterLink {
            peers: vec![Vec::new()],
            live,
            ..ClusterLink::default()
        }
    }

    /// Whether lanes of the running block wait for other blocks of a cluster of several (their
    /// turn is over until those blocks run).
    pub fn waits_for_others(&self) -> bool {
        self.peers.len() > 1 && self.waiting.iter().any(|w| w.0 == self.rank)
    }

    /// Hands the running block the releases addressed to it.
    pub fn release_own(&mut self, releases: &mut Vec<Release>) {
        let rank = self.rank;
        self.released.retain(|&(to, release)| {
            if to == rank {
                releases.push(release);
            }
            to != rank
        });
    }

    /// `barrier.cluster.arrive` by `mask`'s lanes of warp `warp` of the running block.
    pub fn arrive(&mut self, warp: u32, mask: u32) {
        let base = (self.rank * self.block_threads + warp * 32) as usize;
        let mut m = mask;
        while m != 0 {
            let lane = m.trailing_zeros() as usize;
            m &= m - 1;
            if self.arrival.len() <= base + lane {
                self.arrival.resize(base + lane + 1, 0);
            }
            self.arrival[base + lane] = self.phase + 1;
        }
        self.arrived += mask.count_ones();
        self.try_complete();
    }

    /// `barrier.cluster.wait`: the lanes of `mask` that must wait (the others' phase is done).
    pub fn wait(&mut self, warp: u32, mask: u32) -> u32 {
        let base = (self.rank * self.block_threads + warp * 32) as usize;
        let mut waiting = 0;
        let mut m = mask;
        while m != 0 {
            let lane = m.trailing_zeros();
            m &= m - 1;
            let needed = self.arrival.get(base + lane as usize).copied().unwrap_or(0);
            if needed > self.phase {
                waiting |= 1 << lane;
            }
        }
        if waiting != 0 {
            self.waiting
                .push((self.rank, warp, waiting, self.phase + 1));
        }
        waiting
    }

    /// Notes that `count` threads of the running block exited.
    pub fn exited(&mut self, count: u32) {
        self.live = self.live.saturating_sub(count);
        self.try_complete();
    }

    /// Completes the phase once every live thread arrived.
    fn try_complete(&mut self) {
        if self.arrived == 0 || self.arrived < self.live {
            return;
        }
        self.arrived = 0;
        self.phase += 1;
        let phase = self.phase;
        let released = &mut self.released;
        self.waiting.retain(|&(rank, warp, mask, until)| {
            if until > phase {
                return true;
            }
            released.push((
                rank,
                Release {
                    warp,
                    mask,
                    value: None,
                },
            ));
            false
        });
    }
}

/// Told of each block's end: its rank in the cluster, the run and its result.
pub(crate) type BlockEnd<'a> = dyn FnMut(usize, &mut BlockRun, Result<bool, Fault>) + 'a;

/// The blocks of one cluster in flight, reused from cluster to cluster by a worker.
#[derive(Debug, Default)]
pub(crate) struct ClusterRun {
    pub runs: Vec<BlockRun>,
    done: Vec<bool>,
    link: ClusterLink,
}

impl ClusterRun {
    /// Sets up the blocks `ctaids` (in rank order) of one cluster.
    pub fn start(&mut self, launch: &Launch<'_>, ctaids: &[[u32; 3]]) {
        while self.runs.len() < ctaids.len() {
            self.runs.push(BlockRun::default());
        }
        self.runs.truncate(ctaids.len());
        for (run, &ctaid) in self.runs.iter_mut().zip(ctaids) {
            run.start(launch, ctaid);
        }
        let block_threads: u32 = launch.config.block.iter().product();
        let blocks = ctaids.len() as u32;
        self.done = vec![false; ctaids.len()];
        let mut peers = std::mem::take(&mut self.link.peers);
        peers.iter_mut().for_each(Vec::clear);
        peers.resize_with(ctaids.len(), Vec::new);
        self.link = ClusterLink {
            rank: 0,
            peers,
            block_threads,
            live: block_threads * blocks,
            arrival: vec![0; (block_threads * blocks) as usize],
            ..ClusterLink::default()
        };
    }

    /// Runs the cluster to its end. `finish` is told of each block's end (its linear index in
    /// the cluster, the run and its result); returns early once `abort` says so.
    #[allow(clippy::result_large_err)]
    pub fn run(
        &mut self,
        launch: &Launch<'_>,
        abort: &dyn Fn() -> bool,
        finish: &mut BlockEnd<'_>,
    ) {
        let count = |run: &BlockRun| -> u64 {
            run.running_warps()
                .iter()
                .map(|w| w.lane_instructions)
                .sum()
        };
        while self.done.iter().any(|done| !done) && !abort() {
            let mut progress = false;
            for rank in 0..self.runs.len() {
                if self.done[rank] {
                    continue;
                }
                let before = count(&self.runs[rank]);
                let result = self.turn(launch, rank);
                progress |= count(&self.runs[rank]) != before || !matches!(result, Ok(false));
                if !matches!(result, Ok(false)) {
                    self.done[rank] = true;
                    finish(rank, &mut self.runs[rank], result);
                    if abort() {
                        return;
                    }
                }
                for (to, release) in self.link.released.drain(..) {
                    if let Some(run) = self.runs.get_mut(to as usize) {
                        run.block.releases.push(release);
                    }
                }
            }
            if !progress && !self.link.released.is_empty() {
                progress = true;
            }
            if !progress {
                let rank = self.done.iter().position(|done| !done).unwrap_or(0);
                let fault = self.deadlock(launch, rank);
                self.done[rank] = true;
                finish(rank, &mut self.runs[rank], Err(fault));
                return;
            }
        }
    }

    /// One turn of block `rank`, with the other blocks' shared memory lent to it.
    #[allow(clippy::result_large_err)]
    fn turn(&mut self, launch: &Launch<'_>, rank: usize) -> Result<bool, Fault> {
        for (j, run) in self.runs.iter_mut().enumerate() {
            if j != rank {
                std::mem::swap(&mut self.link.peers[j], &mut run.block.shared);
            }
        }
        self.link.rank = rank as u32;
        let run = &mut self.runs[rank];
        run.block.cluster = Some(std::mem::take(&mut self.link));
        let result = run.resume(launch, Some(1));
        self.link = run.block.cluster.take().unwrap_or_default();
        for (j, run) in self.runs.iter_mut().enumerate() {
            if j != rank {
                std::mem::swap(&mut self.link.peers[j], &mut run.block.shared);
            }
        }
        result
    }

    fn deadlock(&self, launch: &Launch<'_>, rank: usize) -> Fault {
        let run = &self.runs[rank];
        let warps = run.running_warps();
        let (warp, lane) = first_live_lane(warps);
        let pc = warp.pc[lane].saturating_sub(1) as usize;
        let waiting = self
            .link
            .waiting
            .iter()
            .map(|w| w.2.count_ones())
            .sum::<u32>();
        fault_at(
            launch,
            FaultKind::Deadlock,
            run.block.ctaid,
            warp,
            lane,
            (warp.func[lane], pc),
            format!(
                "the cluster's blocks cannot progress: {waiting} of its {} live threads wait at \
                 `barrier.cluster.wait` for threads that never arrive",
                self.link.live
            ),
        )
    }
}
