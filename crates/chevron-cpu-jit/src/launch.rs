//! Running a compiled kernel over a grid: blocks spread over workers as the interpreter does,
//! each block run phase by phase until all its threads have exited.
//!
//! Faults are reported by the interpreter, which stays the reference: when a compiled block
//! faults (bad address, misaligned access, `trap`), the launch stops taking blocks and the
//! faulting block is run again, from its start, in the interpreter, whose [`Fault`] is returned.
//! Between the two runs the block's earlier stores stay in memory; a kernel whose faulting
//! block re-reads what it wrote before the fault could take another path in the second run, in
//! which case the interpreter's outcome (possibly no fault) is what counts. A block that goes
//! round a loop without changing state (spinning on a flag no running block will set) hands
//! itself and every block not yet started to the interpreter, which then detects the deadlock
//! (or finishes, if the flag comes) exactly as an interpreted launch does; with several
//! workers, blocks other workers are running at that moment run again there. A stop request is
//! answered the same way: the block is stopped by the interpreter, naming where it is; since
//! the interpreter runs the block again from its start, the first stopped block of a launch gets
//! [`STOP_GRACE`] to bring its threads back where they were before it stops (a stop at once
//! would name the kernel's first line).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use chevron_ptx::interp::{Fault, LaunchConfig, LaunchHooks, LaunchReport};

use crate::context::{
    access_limit, BlockContext, Resolver, Verdict, Waiting, Watch, FAULTED, FUEL, PHASE_DONE,
    STOPPED, YIELDED,
};
use crate::launch_report::{Faults, Reported};
use crate::phase_release::{release, release_counted, Release};
use crate::vector::SCALAR;
use crate::{CompiledKernel, Entry};

/// How long the interpreter runs a stopped block again before it stops it (see the module doc).
const STOP_GRACE: std::time::Duration = std::time::Duration::from_millis(50);

/// Allocations a worker keeps alive for its site entries before it drops them all (and the
/// entries with them) at the end of a block.
const HELD_LIMIT: usize = 256;

/// Bytes past the end of the shared and local buffers: the widest access (a 32-byte vector).
const SLACK: usize = 32;

/// How many groups of four a worker runs before it adds them to the launch's [`VectorStats`],
/// unless more than half of them were handed over (then at once, so that the launch gives up
/// the vector function soon).
const TALLY_GROUPS: u64 = 4096;

/// The most blocks a worker claims at once (see [`claim_size`]).
const MOST_BLOCKS_CLAIMED: u64 = 128;

/// How many of the `left` blocks of a launch one of `workers` workers claims at once: a
/// quarter of its share of what is left (guided scheduling: large claims first, single blocks
/// at the end, so the workers finish together), at most [`MOST_BLOCKS_CLAIMED`]. Each claim is
/// a trip to the counter's cache line, which the other workers write: claiming one block at a
/// time, the block reduction's 32,768 blocks (0.75 µs each) ran 1.78× faster on two threads
/// than on one; at most 16 at a time, 1.84×; at most 128, 1.89-1.93× (time in the workers).
fn claim_size(left: u64, workers: usize) -> u64 {
    (left / (4 * workers as u64)).clamp(1, MOST_BLOCKS_CLAIMED)
}

/// The launch's next block, alone in its cache line: every worker takes it once per block,
/// and a flag or counter beside it would make every read of theirs a miss.
#[repr(align(128))]
struct NextBlock(AtomicU64);

/// What one block's compiled run came to.
enum BlockEnd {
    Done,
    /// The interpreter must run these blocks (linear indices) instead.
    Interpret(std::ops::Range<u64>),
}

impl CompiledKernel {
    /// Runs the kernel over `config`'s grid. Same contract as the interpreter's
    /// `Program::launch_with`; `lane_instructions` counts those of blocks the interpreter
    /// ran (0 when every block ran compiled).
    // A fault is the rare end of a launch; its size does not matter.
    #[allow(clippy::result_large_err)]
    pub fn launch(
        &self,
        config: &LaunchConfig,
        params: &[u8],
        hooks: &LaunchHooks<'_>,
    ) -> Result<LaunchReport, Fault> {
        self.launch_blocks(config, params, hooks, 0..u64::MAX)
    }

    /// [`CompiledKernel::launch`] running only the blocks (linear indices, x fastest) in
    /// `range`, clamped to the grid, as the interpreter's `Program::launch_blocks`: a launch
    /// the interpreter began goes on here once the kernel is compiled.
    // A fault is the rare end of a launch; its size does not matter.
    #[allow(clippy::result_large_err)]
    pub fn launch_blocks(
        &self,
        config: &LaunchConfig,
        params: &[u8],
        hooks: &LaunchHooks<'_>,
        range: std::ops::Range<u64>,
    ) -> Result<LaunchReport, Fault> {
        let threads: u64 = config.block.iter().map(|&d| u64::from(d)).product();
        let blocks: u64 = config.grid.iter().map(|&d| u64::from(d)).product();
        let shared = self
            .program
            .kernel_static_shared(&self.kernel)
            .saturating_add(u64::from(config.dynamic_shared));
        // Anything unusual (including every invalid launch) is the interpreter's to report.
        if threads == 0
            || threads > 1024
            || blocks == 0
            || shared > 64 << 20
            || (params.len() as u64) < self.param_size
            || (self.shuffles && !threads.is_multiple_of(32))
            || self.frame_size.saturating_mul(threads) > 64 << 20
            || u64::from(self.num_regs).saturating_mul(threads) > 8 << 20
        {
            return self.interpret(config, params, hooks, range);
        }
        let first = range.start.min(blocks);
        let blocks = range.end.min(blocks);
        if first == blocks {
            return Ok(LaunchReport::default());
        }
        let tids: Vec<u32> = (0..threads)
            .flat_map(|t| {
                let [bx, by, _] = config.block.map(u64::from);
                [
                    (t % bx) as u32,
                    ((t / bx) % by) as u32,
                    (t / (bx * by)) as u32,
                    0,
                ]
            })
            .collect();
        let shape = Shape {
            config,
            params,
            tids: &tids,
            shared,
            workspace: 0,
        };
        if self.cooperative {
            // Every block of a cooperative grid runs at once: the whole grid or none of it.
            return if first == 0 && range.end >= blocks {
                self.launch_cooperative(&shape, hooks, blocks)
            } else {
                self.interpret(config, params, hooks, range)
            };
        }
        let workers = config.threads.max(1).min((blocks - first) as usize);
        // A kernel whose blocks talk through volatile or ordered global accesses (a decoupled
        // look-back's flags) may wait for each other: a block spins only when all do.
        let waiting = Waiting::new(workers);
        let next = NextBlock(AtomicU64::new(first));
        let next = &next.0;
        let abort = AtomicBool::new(false);
        let faults = Faults::default();
        let handed_over: Mutex<Vec<std::ops::Range<u64>>> = Mutex::new(Vec::new());
        let vectors = VectorStats::default();
        let graced = AtomicBool::new(false);
        // `printf` output of blocks (compiled or run again in the interpreter) without a sink.
        let reported = Reported::new(hooks);
        let work = |_worker: usize| {
            let mut buffers = self.block_buffers(threads, shared);
            let mut sites = vec![0u64; crate::context::SITE_WORDS * self.sites as usize];
            let mut tally = (0, 0);
            let resolver = Resolver {
                memory: std::sync::Arc::clone(self.program.memory()),
                held: std::cell::RefCell::new(Vec::new()),
                printf: Default::default(),
            };
            let watch = if self.waits_for_blocks {
                waiting.workers.fetch_add(1, Ordering::SeqCst);
                Watch::waiting_on(hooks.stop, &waiting)
            } else {
                Watch::new(hooks.stop)
            };
            // The worker's block context, made at its first block and started again for each
            // later one; it points into `buffers`, `sites`, `resolver` and `watch`.
            let mut context = None;
            // Blocks this worker claimed and has not run yet, and the first block of its last
            // claim (what was left then sizes the next: reading the counter again would be a
            // second trip to a cache line the other workers write).
            let mut claimed = 0..0;
            let mut last_claim = first;
            while !abort.load(Ordering::Relaxed) {
                let index = if let Some(index) = claimed.next() {
                    index
                } else if workers == 1 {
                    // No other worker takes blocks: no locked add (a third of the host's
                    // time per block of saxpy's 65,536).
                    let index = next.load(Ordering::Relaxed);
                    next.store(index + 1, Ordering::Relaxed);
                    index
                } else {
                    let share = if self.waits_for_blocks {
                        1
                    } else {
                        claim_size(blocks.saturating_sub(last_claim), workers)
                    };
                    let index = next.fetch_add(share, Ordering::Relaxed);
                    last_claim = index;
                    claimed = index.saturating_add(1)..index.saturating_add(share).min(blocks);
                    index
                };
                if index >= blocks {
                    break;
                }
                let end = self.run_block(
                    &shape,
                    index,
                    &mut buffers,
                    &mut sites,
                    (&resolver, &watch),
                    (next, blocks),
                    (&vectors, &mut tally),
                    &mut context,
                );
                // The groups run, and those handed over, added to the launch's: at once when
                // most were handed over, else every few thousand groups (two shared counters
                // raised per block were 5% of saxpy's launch, 64 groups per block, and, raised
                // by both workers at each block where a few groups part, 3.6% of the block
                // reduction's on two threads).
                if 2 * tally.1 > tally.0 || tally.0 >= TALLY_GROUPS {
                    vectors.add(std::mem::take(&mut tally));
                }
                // Entries point to allocations `held` keeps alive; a site that keeps switching
                // allocations grows it, so now and then both start afresh.
                if resolver.held.borrow().len() > HELD_LIMIT {
                    resolver.held.borrow_mut().clear();
                    sites.fill(0);
                }
                // A block the interpreter runs again prints there.
                let text = std::mem::take(&mut *resolver.printf.borrow_mut());
                let BlockEnd::Interpret(range) = end else {
                    reported.add(index, text);
                    continue;
                };
                let single = range.end - range.start == 1;
                self.interpreted
                    .fetch_add(range.end - range.start, Ordering::Relaxed);
                if single {
                    // A fault: the interpreter reports it (or, in its run, finishes the block).
                    let stopped = hooks.stop.is_some_and(|s| s.load(Ordering::Relaxed));
                    let interpreted = if stopped && !graced.swap(true, Ordering::Relaxed) {
                        self.interpret_stopped(config, params, hooks, range.clone())
                    } else {
                        self.interpret(config, params, hooks, range.clone())
                    };
                    if let Ok(report) = &interpreted {
                        reported.add_interpreted(range.start, report);
                    }
                    if let Err(fault) = interpreted {
                        if !faults.note(range.start, fault) {
                            abort.store(true, Ordering::Relaxed);
                        }
                    }
                } else {
                    handed_over
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(range);
                    break;
                }
            }
            vectors.add(tally);
            if self.waits_for_blocks {
                waiting.workers.fetch_sub(1, Ordering::SeqCst);
            }
        };
        match (workers, hooks.workers) {
            (1, _) => work(0),
            (_, Some(pool)) => pool.run(workers, &work),
            _ => std::thread::scope(|scope| {
                for worker in 0..workers {
                    let work = &work;
                    scope.spawn(move || work(worker));
                }
            }),
        }
        vectors.add_to(&self.groups);
        if !abort.load(Ordering::Relaxed) {
            for range in handed_over.into_inner().unwrap_or_else(|e| e.into_inner()) {
                let start = range.start;
                match self.interpret(config, params, hooks, range) {
                    Ok(report) => reported.add_interpreted(start, &report),
                    Err(fault) => {
                        if !faults.note(start, fault) {
                            break;
                        }
                    }
                }
            }
        }
        match faults.first() {
            Some(fault) => Err(fault),
            None => Ok(reported.report()),
        }
    }

    /// Runs `blocks` of the launch in the interpreter.
    #[allow(clippy::result_large_err)]
    pub(crate) fn interpret(
        &self,
        config: &LaunchConfig,
        params: &[u8],
        hooks: &LaunchHooks<'_>,
        blocks: std::ops::Range<u64>,
    ) -> Result<LaunchReport, Fault> {
        self.program
            .launch_blocks(&self.kernel, config, params, hooks, blocks)
    }

    /// Runs `blocks`, stopped in compiled code, in the interpreter with [`STOP_GRACE`] before
    /// it stops them, so that its report names where their threads had got to.
    #[allow(clippy::result_large_err)]
    pub(crate) fn interpret_stopped(
        &self,
        config: &LaunchConfig,
        params: &[u8],
        hooks: &LaunchHooks<'_>,
        blocks: std::ops::Range<u64>,
    ) -> Result<LaunchReport, Fault> {
        let grace = AtomicBool::new(false);
        let (finished, wait) = std::sync::mpsc::channel::<()>();
        std::thread::scope(|scope| {
            let grace = &grace;
            scope.spawn(move || {
                // Ends early when the block finishes (the sender is dropped).
                let _ = wait.recv_timeout(STOP_GRACE);
                grace.store(true, Ordering::Relaxed);
            });
            let graced = LaunchHooks {
                printf: hooks.printf,
                stop: Some(grace),
                workers: None,
                races: hooks.races,
                child_grids: None,
            };
            let result = self.interpret(config, params, &graced, blocks);
            drop(finished);
            result
        })
    }

    /// Buffers for one running block of `threads` threads and `shared` bytes of shared memory.
    pub(crate) fn block_buffers(&self, threads: u64, shared: u64) -> BlockBuffers {
        self.block_buffers_with(threads, shared, vec![0u64; self.register_words(threads)])
    }

    /// The words of a block's saved registers: `num_regs` per thread.
    pub(crate) fn register_words(&self, threads: u64) -> usize {
        threads as usize * self.num_regs.max(1) as usize
    }

    /// [`block_buffers`](Self::block_buffers) with `regs` for its saved registers (empty
    /// when the caller points the block's context at registers of its own).
    pub(crate) fn block_buffers_with(
        &self,
        threads: u64,
        shared: u64,
        regs: Vec<u64>,
    ) -> BlockBuffers {
        BlockBuffers {
            regs,
            resume: vec![0u32; threads as usize],
            // Room for the widest access past the end: an unchecked access is clamped to
            // start inside its region (`codegen/memory.rs`).
            shared: vec![0u8; shared as usize + SLACK],
            local: vec![0u8; (self.frame_size * threads) as usize + SLACK],
            exchange: vec![0u64; 2 * threads as usize],
            offered: vec![0u32; threads as usize],
            barriers: Box::default(),
        }
    }

    /// Starts block `index` in `buffers` (zeroed, every thread at its start) and returns the
    /// context its calls get, which points into `buffers`, `sites`, `resolver` and `watch`:
    /// they must outlive every call made with it and stay where they are.
    pub(crate) fn start_block(
        &self,
        shape: &Shape<'_>,
        index: u64,
        buffers: &mut BlockBuffers,
        sites: &mut [u64],
        resolver: &Resolver,
        watch: &Watch<'_>,
    ) -> BlockContext {
        let (config, params) = (shape.config, shape.params);
        self.clear_buffers(buffers);
        let [gx, gy, gz] = config.grid;
        let ctaid = ctaid(config, index);
        let shared = &mut buffers.shared[..shape.shared as usize];
        BlockContext {
            regs: buffers.regs.as_mut_ptr(),
            resume: buffers.resume.as_mut_ptr(),
            threads: buffers.resume.len() as u64,
            tids: shape.tids.as_ptr(),
            ntid: [config.block[0], config.block[1], config.block[2], 0],
            ctaid,
            nctaid: [gx, gy, gz, 0],
            params: params.as_ptr(),
            params_size: params.len() as u64,
            params_limits: std::array::from_fn(|k| access_limit(params.len() as u64, k as u32)),
            shared: shared.as_mut_ptr(),
            shared_size: shared.len() as u64,
            shared_limits: std::array::from_fn(|k| access_limit(shared.len() as u64, k as u32)),
            sites: sites.as_mut_ptr(),
            fault_thread: 0,
            fault_pc: 0,
            fuel: FUEL,
            dynamic_smem: u64::from(config.dynamic_shared),
            total_smem: shared.len() as u64,
            resolver,
            // The caller keeps the watch alive while the context is used.
            watch: (watch as *const Watch<'_>).cast::<Watch<'static>>(),
            num_regs: u64::from(self.num_regs),
            exchange: buffers.exchange.as_mut_ptr(),
            offered: buffers.offered.as_mut_ptr(),
            first_thread: 0,
            end_thread: buffers.resume.len() as u64,
            group: 0,
            local: buffers.local.as_mut_ptr(),
            frame_size: self.frame_size,
            ops: self.ops,
            barrier_waits: 0,
            warp_reruns: 0,
            workspace: shape.workspace,
            red_current: 0,
            red_previous: 0,
            barriers: &mut *buffers.barriers,
        }
    }

    /// Starts block `index` in `context`, which [`start_block`](Self::start_block) made for
    /// an earlier block of the same worker (the same launch, buffers, site entries, resolver
    /// and watch): what a block changes is set as `start_block` sets it, and the buffers'
    /// addresses are taken again after they are zeroed. A fifth of `start_block`'s work per
    /// block (saxpy has 65,536 blocks).
    pub(crate) fn restart_block(
        &self,
        shape: &Shape<'_>,
        index: u64,
        (buffers, sites): (&mut BlockBuffers, &mut [u64]),
        context: &mut BlockContext,
    ) {
        self.clear_buffers(buffers);
        context.sites = sites.as_mut_ptr();
        context.regs = buffers.regs.as_mut_ptr();
        context.resume = buffers.resume.as_mut_ptr();
        context.shared = buffers.shared.as_mut_ptr();
        context.local = buffers.local.as_mut_ptr();
        context.exchange = buffers.exchange.as_mut_ptr();
        context.offered = buffers.offered.as_mut_ptr();
        context.barriers = &mut *buffers.barriers;
        context.ctaid = ctaid(shape.config, index);
        context.fault_thread = 0;
        context.fault_pc = 0;
        context.fuel = FUEL;
        context.first_thread = 0;
        context.end_thread = context.threads;
        context.group = 0;
        context.barrier_waits = 0;
    }

    /// Zeroes what a block starts with zeroed: its threads' resume states, shared and local
    /// memory and shuffle offers. The site entries stay from block to block of the worker:
    /// the allocations they point to are held until the launch ends.
    fn clear_buffers(&self, buffers: &mut BlockBuffers) {
        // A kernel of one phase reads no resume state before its code writes it (the scalar
        // function reads none; the vector function hands a group over with its states set).
        if !self.single_phase {
            buffers.resume.fill(0);
        }
        buffers.shared.fill(0);
        buffers.local.fill(0);
        if self.shuffles {
            buffers.offered.fill(0);
        }
        if self.counted_barriers {
            buffers.barriers.reset(buffers.resume.len() as u32);
        }
    }

    /// Runs block `index` to its end, phase by phase, in `context` when it holds the worker's
    /// previous block (else in a context made for it there).
    #[allow(clippy::too_many_arguments)]
    fn run_block(
        &self,
        shape: &Shape<'_>,
        index: u64,
        buffers: &mut BlockBuffers,
        sites: &mut [u64],
        (resolver, watch): (&Resolver, &Watch<'_>),
        (next, blocks): (&AtomicU64, u64),
        (vectors, tally): (&VectorStats, &mut (u64, u64)),
        context: &mut Option<BlockContext>,
    ) -> BlockEnd {
        watch.reset();
        let context = match context {
            Some(context) => {
                self.restart_block(shape, index, (buffers, sites), context);
                context
            }
            None => context.insert(self.start_block(shape, index, buffers, sites, resolver, watch)),
        };
        // Groups of threads where the kernel has that form, the block's rows are whole
        // groups, and the launch's groups have not mostly gone on one by one (but for groups
        // of a whole warp in a kernel with shuffles: those spare the scalar code's exchange,
        // whatever part of the kernel the warp runs one thread at a time after them).
        let width = self.group_threads;
        let whole_warps = self.shuffles && width == 32;
        let vector = match self.vector {
            Ok(entries)
                if u64::from(shape.config.block[0]).is_multiple_of(width)
                    && (whole_warps || !vectors.given_up()) =>
            {
                Some(entries)
            }
            _ => None,
        };
        let mut rest = None;
        loop {
            match self.run_phases(context, &mut buffers.resume, vector, tally, &mut rest) {
                PhaseEnd::Done => return BlockEnd::Done,
                // Only the spin loops of cooperative kernels yield, and those run elsewhere
                // (`cooperative.rs`); a yield would only call again.
                PhaseEnd::Yielded => std::thread::yield_now(),
                PhaseEnd::Stopped if watch.verdict.get() == Verdict::Spinning => {
                    // Spinning: the rest of the grid goes to the interpreter.
                    next.store(blocks, Ordering::Relaxed);
                    return BlockEnd::Interpret(index..blocks);
                }
                PhaseEnd::Faulted | PhaseEnd::Stopped | PhaseEnd::Diverged => {
                    return BlockEnd::Interpret(index..index + 1)
                }
            }
        }
    }

    /// Runs the phases of the block `context` holds (`resume`: its resume states) until it
    /// ends, a thread yields, faults or is stopped, or its threads part.
    ///
    /// A thread that yields (`codegen/spin.rs`) ends the call at once, before the threads
    /// after it have run their part of the phase; `rest` then says which those are: the
    /// others of its group of four when the vector function handed the group over (the
    /// vector function goes on with the next group after them), else all the block's. The
    /// next call runs the yielded thread alone until it gets past its spin loop to the
    /// barrier (or its end), then those threads, so that every thread runs its part of a phase
    /// once and none passes the barrier before the others reach it, whatever marks the
    /// resume states of threads at a barrier carry.
    pub(crate) fn run_phases(
        &self,
        context: &mut BlockContext,
        resume: &mut [u32],
        vector: Option<(Entry, Entry)>,
        tally: &mut (u64, u64),
        rest: &mut Option<Rest>,
    ) -> PhaseEnd {
        // The group the vector function starts at (after a yielded group's threads: the next).
        let mut start = 0;
        loop {
            // SAFETY: `context` points to buffers sized for this launch (registers for every
            // thread, a resume state per thread, the block's shared memory, the parameter
            // buffer the kernel's parameters fit in) that outlive the call; the resolver keeps
            // every allocation it hands out alive while the site entries point to it.
            let status = match (vector, rest.is_some()) {
                // SAFETY: as above; the vector function and the scalar one it hands groups to
                // take the same context.
                (Some((vector, scalar)), false) => unsafe {
                    vector_phase(
                        context,
                        (vector, scalar, self.group_threads),
                        tally,
                        std::mem::take(&mut start),
                    )
                },
                // SAFETY: as above; the threads of a group the vector function handed over
                // go on in the scalar function it hands groups to.
                (Some((_, scalar)), true) => unsafe { scalar(context) },
                // SAFETY: as above.
                (None, _) => unsafe { (self.entry)(context) },
            };
            match status {
                FAULTED => return PhaseEnd::Faulted,
                STOPPED => return PhaseEnd::Stopped,
                YIELDED => {
                    // `fault_thread`: the thread that yielded; it goes on alone next time,
                    // then the threads after it up to the end of its group (vector function)
                    // or of the block.
                    let thread = context.fault_thread;
                    let end = match (*rest, vector) {
                        (Some(rest), _) => rest.end,
                        (None, Some(_)) => self.group_threads * (context.group + 1),
                        (None, None) => context.threads,
                    };
                    context.first_thread = thread;
                    context.end_thread = thread + 1;
                    *rest = Some(Rest {
                        end,
                        vector: vector.is_some(),
                    });
                    return PhaseEnd::Yielded;
                }
                // The yielded thread got past its spin: the threads after it run their part.
                _ if rest.is_some_and(|r| context.end_thread < r.end) => {
                    context.first_thread = context.end_thread;
                    context.end_thread = rest.map_or(context.threads, |r| r.end);
                    continue;
                }
                // ... and they did: the vector function goes on with the next group.
                _ if rest.is_some_and(|r| r.vector) => {
                    start = rest.take().map_or(0, |r| r.end / self.group_threads);
                    context.first_thread = 0;
                    context.end_thread = context.threads;
                    continue;
                }
                // One phase (no barrier, no shuffle): every thread, and every group of the
                // vector function, ran to its end, so no resume state needs a pass.
                _ if self.single_phase => return PhaseEnd::Done,
                _ => {
                    *rest = None;
                    // The next phase runs every thread (after a yield, the last call ran some).
                    context.first_thread = 0;
                    context.end_thread = context.threads;
                    // No collectives: the threads that did not exit wait at the barrier, with
                    // their plain resume states; no pass over them. `barrier_waits` gathers the
                    // marks of every call of the phase (after a yield, several).
                    if self.counted_barriers {
                        match release_counted(resume, self.shuffles) {
                            Release::Done => return PhaseEnd::Done,
                            Release::Released => continue,
                            // Every live thread waits, and none can go on: a deadlock (or
                            // warps parted), which the interpreter reports.
                            Release::Diverged => return PhaseEnd::Diverged,
                        }
                    }
                    if !self.shuffles {
                        if std::mem::take(&mut context.barrier_waits) == 0 {
                            return PhaseEnd::Done;
                        }
                        continue;
                    }
                    match release(resume, self.shuffles) {
                        Release::Done => return PhaseEnd::Done,
                        Release::Released => {}
                        // Lanes of a warp at different shuffles, or a warp at a shuffle while
                        // the rest waits at a barrier: the interpreter's warp scheduling decides.
                        Release::Diverged => return PhaseEnd::Diverged,
                    }
                }
            }
        }
    }
}

/// Where a block's phase stands after one of its threads yielded at a spin loop
/// ([`CompiledKernel::run_phases`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rest {
    /// Once the yielded thread is past its spin, the threads after it up to this one run
    /// their part of the phase in the scalar function.
    end: u64,
    /// Then the vector function goes on, from the group at `end`.
    vector: bool,
}

/// `%ctaid` of block `index` (linear, x fastest) of `config`'s grid.
fn ctaid(config: &LaunchConfig, index: u64) -> [u32; 4] {
    let [gx, gy, _] = config.grid.map(u64::from);
    [
        (index % gx) as u32,
        ((index / gx) % gy) as u32,
        (index / (gx * gy)) as u32,
        0,
    ]
}

/// What the blocks of a launch share.
pub(crate) struct Shape<'a> {
    pub config: &'a LaunchConfig,
    pub params: &'a [u8],
    /// Per thread `tid.x, tid.y, tid.z, 0`.
    pub tids: &'a [u32],
    /// Bytes of shared memory per block.
    pub shared: u64,
    /// The grid-synchronisation workspace of a cooperative launch, else 0.
    pub workspace: u64,
}

/// The buffers of one running block.
pub(crate) struct BlockBuffers {
    regs: Vec<u64>,
    pub resume: Vec<u32>,
    /// The block's shared memory, then [`SLACK`] bytes.
    shared: Vec<u8>,
    local: Vec<u8>,
    exchange: Vec<u64>,
    offered: Vec<u32>,
    /// The block's barriers, for a kernel that counts them (`barrier_table.rs`); boxed, so
    /// the context's pointer to it stays where it is.
    barriers: Box<crate::barrier_table::BarrierTable>,
}

/// How a run of a block's phases ([`CompiledKernel::run_phases`]) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PhaseEnd {
    /// Every thread has exited.
    Done,
    /// A thread waits at a spin loop for another block.
    Yielded,
    /// A thread faulted.
    Faulted,
    /// `fuel_out` stopped the block (its watch's verdict says why).
    Stopped,
    /// Threads wait at points that cannot all be passed.
    Diverged,
}

/// How a launch's groups of four threads fare: when most of them go on one thread at a time
/// (their threads part at branches, or read scattered addresses), the vector function only
/// adds work, and the launch's later blocks run in the scalar function alone.
#[derive(Default)]
pub(crate) struct VectorStats {
    groups: AtomicU64,
    handed_over: AtomicU64,
}

impl VectorStats {
    pub(crate) fn add(&self, (groups, handed_over): (u64, u64)) {
        if groups > 0 {
            self.groups.fetch_add(groups, Ordering::Relaxed);
            self.handed_over.fetch_add(handed_over, Ordering::Relaxed);
        }
    }

    pub(crate) fn add_to(&self, totals: &VectorStats) {
        totals.add(self.totals());
    }

    pub(crate) fn totals(&self) -> (u64, u64) {
        (
            self.groups.load(Ordering::Relaxed),
            self.handed_over.load(Ordering::Relaxed),
        )
    }

    fn given_up(&self) -> bool {
        let groups = self.groups.load(Ordering::Relaxed);
        groups >= 256 && 2 * self.handed_over.load(Ordering::Relaxed) > groups
    }
}

/// Runs one phase of a block through the vector function, from group `start` on, handing
/// each group it returns ([`SCALAR`]) to the scalar function `scalar`, then going on with the
/// next group. A status other than [`PHASE_DONE`] from `scalar` (a thread that yielded,
/// faulted or was stopped) ends the call, with the group in [`BlockContext::group`].
///
/// # Safety
/// As for a call of the kernel's scalar function with `context`.
unsafe fn vector_phase(
    context: &mut BlockContext,
    (vector, scalar, width): (Entry, Entry, u64),
    tally: &mut (u64, u64),
    start: u64,
) -> u32 {
    context.group = start;
    let mut handed_over = 0;
    let status = loop {
        // SAFETY: the caller's contract.
        let status = unsafe { vector(context) };
        if status != SCALAR {
            break status;
        }
        handed_over += 1;
        let group = context.group;
        context.first_thread = width * group;
        context.end_thread = width * group + width;
        // SAFETY: the caller's contract.
        let status = unsafe { scalar(context) };
        context.first_thread = 0;
        context.end_thread = context.threads;
        if status != PHASE_DONE {
            break status;
        }
        context.group = group + 1;
    };
    tally.0 +=
        (context.threads / width).saturating_sub(start) + std::mem::take(&mut context.warp_reruns);
    tally.1 += handed_over;
    status
}
