//! The tiering policy's arithmetic: what a launch would cost interpreted, what compiling its
//! kernel costs, and so where the launch runs (`tier.rs` carries the decision out).
//!
//! A launch's *work* is its threads times the instructions one thread of the kernel is assumed
//! to execute ([`chevron_cpu_jit::Assessment::thread_work`]: loop bodies counted
//! [`chevron_cpu_jit::LOOP_TRIPS`] times per level), in lane-instructions. The interpreter
//! spends about [`INTERP_NS_PER_LANE_INSTRUCTION`] on one; compiling a kernel costs
//! [`COMPILE_FIXED_NS`] plus a per-instruction cost, measured on the compiles this process has
//! made (the default, [`COMPILE_NS_PER_INSTRUCTION`], under `CHEVRON_CPU_DETERMINISTIC=1`, so
//! that the choice is a function of the program alone).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use chevron_cpu_jit::Assessment;

/// Nanoseconds the interpreter spends on one lane-instruction (release build, one thread; the
/// issue's saxpy over 2^24 elements: about 200 million lane-instructions in 1.4 s).
pub(crate) const INTERP_NS_PER_LANE_INSTRUCTION: u64 = 7;

/// Nanoseconds of a compile that do not depend on the kernel's size (Cranelift's setup, the
/// module's finalisation).
pub(crate) const COMPILE_FIXED_NS: u64 = 1_000_000;

/// Nanoseconds per instruction of a compile, before any compile has been measured (saxpy's 3
/// ms and tiled matmul's 11 ms, each with its vector function, in `docs/cpu-compiled.md`).
pub(crate) const COMPILE_NS_PER_INSTRUCTION: u64 = 60_000;

/// The per-instruction compile cost measured so far in this process (a running average).
static MEASURED_NS_PER_INSTRUCTION: AtomicU64 = AtomicU64::new(COMPILE_NS_PER_INSTRUCTION);

/// Interpreted work run between two looks at whether the compiled code is ready, per worker.
const CHUNK_NS: u64 = 2_000_000;

/// Where a launch of a kernel the compiler takes runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Plan {
    /// In the interpreter: the work is too small to pay for a compile (yet).
    Interpret,
    /// In the interpreter, while the kernel compiles on a background thread for later
    /// launches: this launch is small, but the kernel's launches together pay for a compile.
    InterpretAndCompile,
    /// The interpreter starts while the kernel compiles on a background thread; blocks not
    /// yet started run compiled as soon as the code is ready.
    Tiered,
    /// Compile first (the launch waits), then run compiled.
    CompileAndWait,
}

/// The estimated cost of one launch against the cost of compiling its kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Weighing {
    /// Lane-instructions of this launch.
    pub launch_work: u64,
    /// Nanoseconds this launch would take in the interpreter (one thread).
    pub launch_ns: u64,
    /// Nanoseconds compiling the kernel is estimated to take.
    pub compile_ns: u64,
}

impl Weighing {
    /// Weighs a launch of `blocks` blocks of `threads` threads of the kernel `assessed`;
    /// `deterministic`: with the default compile cost, never the measured one.
    pub fn new(assessed: &Assessment, blocks: u64, threads: u64, deterministic: bool) -> Self {
        let per_instruction = if deterministic {
            COMPILE_NS_PER_INSTRUCTION
        } else {
            MEASURED_NS_PER_INSTRUCTION.load(Ordering::Relaxed)
        };
        let launch_work = blocks
            .saturating_mul(threads)
            .saturating_mul(assessed.thread_work);
        Weighing {
            launch_work,
            launch_ns: launch_work.saturating_mul(INTERP_NS_PER_LANE_INSTRUCTION),
            compile_ns: COMPILE_FIXED_NS
                .saturating_add(per_instruction.saturating_mul(assessed.instructions)),
        }
    }

    /// Where the launch runs. `earlier_work`: lane-instructions of the kernel's earlier
    /// interpreted launches (0 when deterministic: the choice depends on this launch alone);
    /// `blocks`: the launch's blocks (one block cannot change executor halfway, so a launch
    /// whose blocks each take the interpreter longer than the compile waits for the code).
    pub fn plan(&self, earlier_work: u64, blocks: u64, deterministic: bool) -> Plan {
        let pays = self.launch_ns >= self.compile_ns;
        if deterministic {
            return if pays {
                Plan::CompileAndWait
            } else {
                Plan::Interpret
            };
        }
        if pays {
            // A block that takes the interpreter longer than the compile: the code would be
            // ready while the interpreter is still on its first blocks, which cannot change
            // executor halfway (and, one thread fewer meanwhile, would leave a core idle).
            let block_ns = self.launch_ns / blocks.max(1);
            return if blocks >= 2 && block_ns < self.compile_ns {
                Plan::Tiered
            } else {
                Plan::CompileAndWait
            };
        }
        let together = earlier_work
            .saturating_add(self.launch_work)
            .saturating_mul(INTERP_NS_PER_LANE_INSTRUCTION);
        if together >= self.compile_ns {
            Plan::InterpretAndCompile
        } else {
            Plan::Interpret
        }
    }

    /// Blocks the interpreter runs between two looks at whether the compiled code is ready
    /// ([`Plan::Tiered`]): about [`CHUNK_NS`] of work per worker, at least one block each.
    pub fn chunk_blocks(&self, blocks: u64, workers: usize) -> u64 {
        let workers = workers.max(1) as u64;
        let block_ns = (self.launch_ns / blocks.max(1)).max(1);
        (CHUNK_NS / block_ns).max(1).saturating_mul(workers)
    }
}

/// Adds a measured compile to the running per-instruction cost.
pub(crate) fn record_compile(time: Duration, instructions: u64) {
    let spent = u64::try_from(time.as_nanos()).unwrap_or(u64::MAX);
    let per_instruction = spent.saturating_sub(COMPILE_FIXED_NS) / instructions.max(1);
    let _ = MEASURED_NS_PER_INSTRUCTION.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |old| {
        Some(old / 2 + per_instruction / 2)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(instructions: u64, thread_work: u64) -> Assessment {
        Assessment {
            refusal: None,
            instructions,
            thread_work,
            grid_sync: false,
            shuffles: false,
        }
    }

    #[test]
    fn big_launches_compile_at_once() {
        // saxpy over 2^24 elements: 65536 blocks of 256 threads, 12 instructions each.
        let saxpy = kernel(12, 12);
        let weighing = Weighing::new(&saxpy, 65536, 256, true);
        assert!(
            weighing.launch_ns > 100 * weighing.compile_ns,
            "{weighing:?}"
        );
        assert_eq!(weighing.plan(0, 65536, false), Plan::Tiered);
        assert_eq!(weighing.plan(0, 65536, true), Plan::CompileAndWait);
        // One huge block cannot change executor halfway: it waits for the code.
        assert_eq!(weighing.plan(0, 1, false), Plan::CompileAndWait);
        // Nor do blocks that each take the interpreter longer than the compile (tiled
        // matmul 512³: 1024 blocks of 256 threads, each about 2,600 lane-instructions).
        let matmul = kernel(51, 2600);
        let weighing = Weighing::new(&matmul, 1024, 256, true);
        assert!(
            weighing.launch_ns / 1024 > weighing.compile_ns,
            "{weighing:?}"
        );
        assert_eq!(weighing.plan(0, 1024, false), Plan::CompileAndWait);
    }

    #[test]
    fn small_launches_of_cold_kernels_stay_interpreted() {
        let weighing = Weighing::new(&kernel(40, 40), 1, 32, true);
        assert_eq!(weighing.plan(0, 1, false), Plan::Interpret);
        assert_eq!(weighing.plan(0, 1, true), Plan::Interpret);
        // Repeated, the launches pay for a compile together: compiled in the background,
        // except when deterministic, where only the launch itself counts.
        let earlier = weighing.compile_ns / INTERP_NS_PER_LANE_INSTRUCTION;
        assert_eq!(weighing.plan(earlier, 1, false), Plan::InterpretAndCompile);
        assert_eq!(weighing.plan(earlier, 1, true), Plan::Interpret);
    }

    #[test]
    fn deterministic_weighing_ignores_measured_compiles() {
        let before = Weighing::new(&kernel(100, 100), 64, 256, true);
        record_compile(Duration::from_secs(3), 100);
        let after = Weighing::new(&kernel(100, 100), 64, 256, true);
        assert_eq!(before, after);
    }

    #[test]
    fn chunks_hold_a_few_milliseconds_per_worker() {
        let weighing = Weighing::new(&kernel(12, 12), 65536, 256, true);
        let chunk = weighing.chunk_blocks(65536, 2);
        let chunk_ns = chunk * weighing.launch_ns / 65536;
        assert!(
            (CHUNK_NS..=4 * CHUNK_NS).contains(&chunk_ns),
            "{chunk} blocks"
        );
        // Blocks longer than a chunk: one block per worker.
        let weighing = Weighing::new(&kernel(12, 1 << 30), 8, 1024, true);
        assert_eq!(weighing.chunk_blocks(8, 2), 2);
    }
}
