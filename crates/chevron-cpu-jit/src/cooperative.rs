//! Running a cooperative kernel's grid compiled: every block resident at once, as the
//! interpreter runs it (`chevron_ptx::interp::grid`).
//!
//! The blocks are dealt to the workers in advance (block `i` to worker `i mod workers`, the
//! interpreter's deal); each worker holds all of its blocks, started, and runs them in turn:
//! a block runs its phases until it ends or one of its threads reaches the backward branch of
//! a spin loop (`codegen/spin.rs`) and yields, and the worker goes on with its next block.
//! So a block waiting at the grid barrier lets the blocks that have not arrived run, on this
//! worker or another. A launch gets its own grid-synchronisation workspace, as an interpreted
//! one does.
//!
//! Whatever a compiled block cannot finish itself (a fault, a stop request, a spin outside a
//! spin loop, threads that part at a shuffle) sends the whole grid to the interpreter, from
//! its start and with a fresh workspace: one block alone cannot pass a grid barrier, so it
//! cannot be run again alone. The stores of the compiled run stay in memory (the caveat of
//! `launch.rs`'s faults, for the whole grid).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use chevron_ptx::interp::{Fault, LaunchHooks, LaunchReport};

use crate::context::{BlockContext, Resolver, Verdict, Watch};
use crate::launch::{BlockBuffers, PhaseEnd, Rest, Shape, VectorStats};
use crate::CompiledKernel;

/// Most bytes of block buffers a cooperative launch holds at once; a bigger grid runs in the
/// interpreter.
const RESIDENT_LIMIT: u64 = 1 << 30;

/// Rounds in a row in which no block ends that a worker runs before it yields its core. A
/// round is short (each block checks its spin once), and a grid barrier's waits are rounds
/// without an end: yielding after every one handed the core to other processes 48,716 times
/// in a 512² Jacobi solve (15–29 s of wall time for 2 s of work on a loaded host). A lone
/// worker never yields: it holds every block, so its next round goes on.
const IDLE_ROUNDS_PER_YIELD: u32 = 8;

/// A started block of a cooperative grid.
struct Resident<'w> {
    buffers: BlockBuffers,
    /// Boxed: the context points to it.
    _watch: Box<Watch<'w>>,
    context: BlockContext,
    /// The threads after a yielded one, in the phase under way (see `run_phases`).
    rest: Option<Rest>,
    done: bool,
}

/// Why the compiled run gave the grid to the interpreter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Handover {
    /// To run it again (it reports a fault, a deadlock, or finishes).
    Interpret,
    /// The launch's stop flag was set: the interpreter stops the grid where it gets to.
    Stop,
}

impl CompiledKernel {
    /// Runs the whole grid of `shape` (of `blocks` blocks), every block resident.
    // A fault is the rare end of a launch; its size does not matter.
    #[allow(clippy::result_large_err)]
    pub(crate) fn launch_cooperative(
        &self,
        shape: &Shape<'_>,
        hooks: &LaunchHooks<'_>,
        blocks: u64,
    ) -> Result<LaunchReport, Fault> {
        let (config, params) = (shape.config, shape.params);
        let whole = 0..u64::MAX;
        let threads = shape.tids.len() as u64 / 4;
        let per_block = threads
            .saturating_mul(u64::from(self.num_regs) * 8 + self.frame_size + 32)
            .saturating_add(shape.shared);
        if per_block.saturating_mul(blocks) > RESIDENT_LIMIT {
            return self.interpret(config, params, hooks, whole);
        }
        let memory = self.program.memory();
        let Ok(workspace) = memory.alloc(64, 256) else {
            return self.interpret(config, params, hooks, whole);
        };
        let _ = memory.mark_defined(workspace, 64);
        let shape = Shape {
            workspace,
            ..*shape
        };
        let workers = config.threads.max(1).min(blocks as usize);
        // Groups of threads where the kernel has that form and the block's rows are whole
        // groups; a group reaching a spin loop goes on in the scalar code.
        let vector = match self.vector {
            Ok(entries) if u64::from(config.block[0]).is_multiple_of(self.group_threads) => {
                Some(entries)
            }
            _ => None,
        };
        let vectors = VectorStats::default();
        let abort = AtomicBool::new(false);
        let handover: Mutex<Option<Handover>> = Mutex::new(None);
        let give_up = |why: Handover| {
            abort.store(true, Ordering::Relaxed);
            let mut slot = handover.lock().unwrap_or_else(|e| e.into_inner());
            // A stop request wins: the interpreter must not run the grid on without one.
            if *slot != Some(Handover::Stop) {
                *slot = Some(why);
            }
        };
        let work = |worker: usize| {
            let resolver = Resolver {
                memory: std::sync::Arc::clone(memory),
                held: std::cell::RefCell::new(Vec::new()),
                printf: Default::default(),
            };
            let mut sites = vec![0u64; crate::context::SITE_WORDS * self.sites as usize];
            // The saved registers of all the worker's blocks in one allocation (a cooperative
            // kernel's registers are coalesced, `coalesce.rs`: every block holds them at once).
            let words = self.register_words(threads);
            let mine = (worker as u64..blocks).step_by(workers).count();
            let mut registers = vec![0u64; words * mine];
            let mut residents: Vec<Resident<'_>> = (worker as u64..blocks)
                .step_by(workers)
                .zip(registers.chunks_exact_mut(words))
                .map(|(index, regs)| {
                    let mut buffers = self.block_buffers_with(threads, shape.shared, Vec::new());
                    let watch = Box::new(Watch::new(hooks.stop));
                    let mut context = self.start_block(
                        &shape,
                        index,
                        &mut buffers,
                        &mut sites,
                        &resolver,
                        &watch,
                    );
                    context.regs = regs.as_mut_ptr();
                    Resident {
                        buffers,
                        _watch: watch,
                        context,
                        rest: None,
                        done: false,
                    }
                })
                .collect();
            let mut tally = (0, 0);
            let mut idle_rounds = 0u32;
            let mut live = residents.len();
            while live > 0 && !abort.load(Ordering::Relaxed) {
                if hooks.stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
                    give_up(Handover::Stop);
                    break;
                }
                let mut progressed = false;
                for resident in residents.iter_mut().filter(|r| !r.done) {
                    let end = self.run_phases(
                        &mut resident.context,
                        &mut resident.buffers.resume,
                        vector,
                        &mut tally,
                        &mut resident.rest,
                    );
                    match end {
                        PhaseEnd::Yielded => {}
                        PhaseEnd::Done => {
                            resident.done = true;
                            live -= 1;
                            progressed = true;
                        }
                        PhaseEnd::Stopped if resident._watch.verdict.get() == Verdict::Stop => {
                            give_up(Handover::Stop);
                            break;
                        }
                        PhaseEnd::Faulted | PhaseEnd::Stopped | PhaseEnd::Diverged => {
                            give_up(Handover::Interpret);
                            break;
                        }
                    }
                    if abort.load(Ordering::Relaxed) {
                        break;
                    }
                }
                idle_rounds = if progressed { 0 } else { idle_rounds + 1 };
                if workers > 1 && idle_rounds % IDLE_ROUNDS_PER_YIELD == IDLE_ROUNDS_PER_YIELD - 1 {
                    // Every block waits for another worker's: let it run.
                    std::thread::yield_now();
                }
            }
            vectors.add(tally);
        };
        if workers <= 1 {
            work(0);
        } else {
            // Blocks are dealt in advance, so every worker must run: threads of their own,
            // never a pool's helpers, which may start late or not at all.
            std::thread::scope(|scope| {
                for worker in 0..workers {
                    let work = &work;
                    scope.spawn(move || work(worker));
                }
            });
        }
        vectors.add_to(&self.groups);
        // Allocated above; failing to free it only leaks 64 bytes.
        let _ = memory.free(workspace);
        match handover.into_inner().unwrap_or_else(|e| e.into_inner()) {
            None => Ok(LaunchReport::default()),
            Some(Handover::Interpret) => self.interpret(config, params, hooks, whole),
            Some(Handover::Stop) => self.interpret_stopped(config, params, hooks, whole),
        }
    }
}
