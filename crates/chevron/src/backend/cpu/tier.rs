//! Which executor runs a kernel's launch: the interpreter or its compiled code
//! (`chevron-cpu-jit`), and the launch itself.
//!
//! `CHEVRON_CPU_EXEC` picks the policy, read once per process:
//! - `interp`: always the interpreter;
//! - `compiled`: a kernel is compiled at its first launch and runs compiled from then on;
//! - `auto` (the default): tiering on work (`tier_cost.rs`). A launch whose interpreted work
//!   would cost more than compiling its kernel compiles it on a background thread while the
//!   interpreter starts on the grid; the blocks not yet started when the code is ready run
//!   compiled. Smaller launches are interpreted, with no compile delay, until a kernel's
//!   launches together would have paid for a compile, which then starts in the background.
//!   Once compiled, a kernel runs compiled.
//!
//! Under `CHEVRON_CPU_DETERMINISTIC=1` the choice is a function of the launch alone (never of
//! timing or of earlier launches): a launch that pays for the compile waits for it and runs
//! compiled, any other is interpreted, with the default compile cost in the weighing.
//!
//! Kernels outside the compiled subset (see `chevron_cpu_jit`) stay interpreted under every
//! policy. A grid-synchronising kernel's launch runs whole on one executor (its blocks all
//! at once): a launch that pays for the compile waits for it. `CHEVRON_CPU_COMPILE_LOG=1` says on stderr, once
//! per kernel and kind of decision, where its launches run and why, and each compile's time.
//! `CHEVRON_CPU_CHECKS=off` lets compiled code skip its alignment and shared-memory bounds
//! checks.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use chevron_cpu_jit::{Assessment, CompileOptions, CompiledKernel};
use chevron_ptx::interp::{Fault, KernelHandle, LaunchConfig, LaunchHooks, LaunchReport, Program};

use super::compile_settings::{self, ExecMode};
use super::tier_cost::{record_compile, Plan, Weighing};

/// The compiled code of a kernel: unset until compiled, `None` if the compiler refused it.
type Slot = Arc<OnceLock<Option<Arc<CompiledKernel>>>>;

/// The process's policy and compile options, or why the environment is invalid.
fn policy() -> &'static Result<(ExecMode, CompileOptions), String> {
    static POLICY: OnceLock<Result<(ExecMode, CompileOptions), String>> = OnceLock::new();
    POLICY.get_or_init(compile_settings::from_env)
}

/// The process's compile options for a launch of kernel `assessed` whose rows are `row`
/// threads: the group width [`chevron_cpu_jit::group_threads_for`] says, never wider than
/// the options' [`CompileOptions::group_threads`].
fn for_rows(
    options: &'static CompileOptions,
    row: u32,
    assessed: Option<&Assessment>,
) -> &'static CompileOptions {
    static BY_WIDTH: OnceLock<[CompileOptions; 4]> = OnceLock::new();
    let widths = BY_WIDTH.get_or_init(|| {
        [4, 8, 16, 32].map(|group_threads| CompileOptions {
            group_threads,
            ..options.clone()
        })
    });
    let width = assessed.map_or(4, |a| {
        chevron_cpu_jit::group_threads_for(options.group_threads, row, a)
    });
    &widths[width.trailing_zeros() as usize - 2]
}

fn logging() -> bool {
    static LOG: OnceLock<bool> = OnceLock::new();
    *LOG.get_or_init(|| std::env::var_os("CHEVRON_CPU_COMPILE_LOG").is_some())
}

/// Runs blocks of a launch in the interpreter, with a launch shape (its threads may differ).
type Interpreter<'a> =
    dyn Fn(&LaunchConfig, std::ops::Range<u64>) -> Result<LaunchReport, Fault> + 'a;

/// A kernel to launch: its program and the interpreter's handle.
pub(crate) struct Launchable<'a> {
    pub program: &'a Arc<Program>,
    pub handle: &'a KernelHandle,
}

/// Per kernel: its assessment, the work of its interpreted launches, its compiled code.
pub(crate) struct KernelTier {
    /// `CHEVRON_CPU_DETERMINISTIC=1` on the kernel's device.
    deterministic: bool,
    assessment: OnceLock<Assessment>,
    /// Lane-instructions (estimated) of the kernel's launches interpreted so far.
    interpreted_work: AtomicU64,
    compiling: AtomicBool,
    /// Whether the code cache was asked for the kernel's record ([`KernelTier::cached_code`]).
    probed: AtomicBool,
    compiled: Slot,
    /// Kinds of decision already said by `CHEVRON_CPU_COMPILE_LOG` (one bit each).
    logged: AtomicU32,
}

impl KernelTier {
    /// The tier of a kernel of a device that is `deterministic` or not.
    pub fn new(deterministic: bool) -> Self {
        KernelTier {
            deterministic,
            assessment: OnceLock::new(),
            interpreted_work: AtomicU64::new(0),
            compiling: AtomicBool::new(false),
            probed: AtomicBool::new(false),
            compiled: Arc::default(),
            logged: AtomicU32::new(0),
        }
    }

    /// Runs one launch of `kernel` where the policy says: the launch's report or its fault.
    /// `Err`: why a setting of `compile_settings.rs` (`CHEVRON_CPU_EXEC`, ...) is invalid.
    #[allow(clippy::result_large_err)]
    pub fn launch(
        &self,
        kernel: Launchable<'_>,
        config: &LaunchConfig,
        params: &[u8],
        hooks: &LaunchHooks<'_>,
    ) -> Result<Result<LaunchReport, Fault>, String> {
        let (mode, options) = match policy() {
            Ok((mode, options)) => (*mode, options),
            Err(why) => return Err(why.clone()),
        };
        let assessed = (mode != ExecMode::Interp).then(|| {
            (self.assessment).get_or_init(|| chevron_cpu_jit::assess(kernel.program, kernel.handle))
        });
        let options = for_rows(options, config.block[0], assessed);
        // A fault is the rare end of a launch; its size does not matter.
        #[allow(clippy::result_large_err)]
        let interpret = |range: std::ops::Range<u64>| {
            kernel
                .program
                .launch_blocks(kernel.handle, config, params, hooks, range)
        };
        let compile_now = || self.compiled.get_or_init(|| self.compile(&kernel, options));
        let result = match mode {
            ExecMode::Interp => interpret(0..u64::MAX),
            ExecMode::Compiled => match compile_now() {
                Some(compiled) => compiled.launch(config, params, hooks),
                None => interpret(0..u64::MAX),
            },
            ExecMode::Auto => self.auto(&kernel, options, config, params, hooks),
        };
        Ok(result)
    }

    /// One launch under `auto`.
    #[allow(clippy::result_large_err)]
    fn auto(
        &self,
        kernel: &Launchable<'_>,
        options: &'static CompileOptions,
        config: &LaunchConfig,
        params: &[u8],
        hooks: &LaunchHooks<'_>,
    ) -> Result<LaunchReport, Fault> {
        let name = kernel.handle.name.as_str();
        #[allow(clippy::result_large_err)]
        let interpret = |range: std::ops::Range<u64>| {
            kernel
                .program
                .launch_blocks(kernel.handle, config, params, hooks, range)
        };
        let assessed = self
            .assessment
            .get_or_init(|| chevron_cpu_jit::assess(kernel.program, kernel.handle));
        if let Some(why) = &assessed.refusal {
            self.say(Said::Refused, || {
                format!("`{name}` stays interpreted: {why}")
            });
            return interpret(0..u64::MAX);
        }
        let blocks: u64 = config.grid.iter().map(|&d| u64::from(d)).product();
        let threads: u64 = config.block.iter().map(|&d| u64::from(d)).product();
        let weighing = Weighing::new(assessed, blocks, threads, self.deterministic);
        let ready = self.compiled.get();
        if !self.deterministic {
            match ready {
                Some(Some(compiled)) => {
                    self.say(Said::Compiled, || format!("`{name}` runs compiled"));
                    return compiled.launch(config, params, hooks);
                }
                Some(None) => return interpret(0..u64::MAX),
                None => {}
            }
        }
        let earlier = if self.deterministic {
            0
        } else {
            self.interpreted_work.load(Ordering::Relaxed)
        };
        let mut plan = weighing.plan(earlier, blocks, self.deterministic);
        if plan == Plan::Tiered && assessed.grid_sync {
            // A grid synchronising itself runs whole on one executor: its blocks all at once.
            plan = Plan::CompileAndWait;
        }
        if plan != Plan::Interpret && !self.deterministic {
            if let Some(compiled) = self.cached_code(kernel, options) {
                return compiled.launch(config, params, hooks);
            }
        }
        let (work, cost) = (weighing.launch_work, weighing.compile_ns as f64 / 1e6);
        match plan {
            Plan::Interpret | Plan::InterpretAndCompile => {
                if !self.deterministic {
                    self.interpreted_work
                        .fetch_add(weighing.launch_work, Ordering::Relaxed);
                }
                if plan == Plan::InterpretAndCompile {
                    self.say(Said::Background, || {
                        format!(
                            "`{name}` compiles in the background: its launches so far \
                             (~{} lane-instructions) pay for a ~{cost:.1} ms compile",
                            earlier + work
                        )
                    });
                    self.compile_in_background(kernel, options);
                } else {
                    self.say(Said::Small, || {
                        format!(
                            "`{name}` interpreted: a launch of ~{work} lane-instructions does \
                             not pay for a ~{cost:.1} ms compile"
                        )
                    });
                }
                interpret(0..u64::MAX)
            }
            Plan::CompileAndWait => {
                self.say(Said::Waited, || {
                    format!(
                        "`{name}` compiled before its launch of ~{work} lane-instructions \
                         (~{cost:.1} ms compile){}",
                        if self.deterministic {
                            ": deterministic, launches this big always run compiled"
                        } else {
                            ""
                        }
                    )
                });
                match self.compiled.get_or_init(|| self.compile(kernel, options)) {
                    Some(compiled) => compiled.launch(config, params, hooks),
                    None => interpret(0..u64::MAX),
                }
            }
            Plan::Tiered => {
                self.say(Said::Tiered, || {
                    format!(
                        "`{name}`: a launch of ~{work} lane-instructions pays for a \
                         ~{cost:.1} ms compile: interpreted until the code is ready, its \
                         blocks not yet started then run compiled"
                    )
                });
                self.compile_in_background(kernel, options);
                #[allow(clippy::result_large_err)]
                let interpret_on = |config: &LaunchConfig, range: std::ops::Range<u64>| {
                    kernel
                        .program
                        .launch_blocks(kernel.handle, config, params, hooks, range)
                };
                self.tiered(config, params, hooks, &weighing, &interpret_on)
            }
        }
    }

    /// Runs the grid in chunks in the interpreter (`interpret` with a launch shape) until the
    /// compiled code is ready, then the rest compiled. The compile runs on a thread of its own,
    /// so on a host with no more cores than the launch has threads, the interpreter meanwhile
    /// takes one thread fewer (at least one): the compile does not share a core with it and is
    /// ready sooner; the compiled code then takes all of them. Blocks
    /// are independent (the kernel synchronises no grid: `auto` never tiers those), so where a
    /// block runs changes nothing but its speed.
    #[allow(clippy::result_large_err)]
    fn tiered(
        &self,
        config: &LaunchConfig,
        params: &[u8],
        hooks: &LaunchHooks<'_>,
        weighing: &Weighing,
        interpret: &Interpreter<'_>,
    ) -> Result<LaunchReport, Fault> {
        let blocks: u64 = config.grid.iter().map(|&d| u64::from(d)).product();
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let meanwhile = LaunchConfig {
            threads: if config.threads >= cores {
                config.threads.saturating_sub(1).max(1)
            } else {
                config.threads
            },
            ..config.clone()
        };
        let chunk = weighing.chunk_blocks(blocks, meanwhile.threads);
        let mut report = LaunchReport::default();
        let mut add = |part: LaunchReport| {
            report.lane_instructions += part.lane_instructions;
            report.printf_output.push_str(&part.printf_output);
        };
        let mut start = 0;
        while start < blocks {
            let part = match self.compiled.get() {
                Some(Some(compiled)) => {
                    let range = start..blocks;
                    start = blocks;
                    compiled.launch_blocks(config, params, hooks, range)?
                }
                Some(None) => {
                    let range = start..blocks;
                    start = blocks;
                    interpret(config, range)?
                }
                None => {
                    let end = start.saturating_add(chunk).min(blocks);
                    let range = start..end;
                    start = end;
                    interpret(&meanwhile, range)?
                }
            };
            add(part);
        }
        Ok(report)
    }

    fn compile_in_background(&self, kernel: &Launchable<'_>, options: &'static CompileOptions) {
        if self.compiled.get().is_some() || self.compiling.swap(true, Ordering::Relaxed) {
            return;
        }
        let slot = Arc::clone(&self.compiled);
        let (program, handle) = (Arc::clone(kernel.program), kernel.handle.clone());
        let instructions = self.assessment.get().map_or(0, |a| a.instructions);
        let started = std::thread::Builder::new()
            .name("chevron-cpu-compile".into())
            .spawn(move || {
                slot.get_or_init(|| compile(&program, &handle, options, instructions));
            });
        if started.is_err() {
            // No thread for the compiler: the kernel stays interpreted.
            let _ = self.compiled.set(None);
        }
    }

    /// At the first launch that pays for a compile: the kernel from the code cache's record
    /// of it, defined at once (well under a millisecond, against 1–5 ms compiling from the
    /// cache's function entries and more from nothing), so that the launch runs compiled from
    /// its first block instead of interpreting while it compiles. Asked once per kernel; not
    /// under `CHEVRON_CPU_DETERMINISTIC` (whether the cache has it depends on earlier runs).
    fn cached_code(
        &self,
        kernel: &Launchable<'_>,
        options: &CompileOptions,
    ) -> Option<Arc<CompiledKernel>> {
        if self.compiled.get().is_some()
            || self.compiling.load(Ordering::Relaxed)
            || self.probed.swap(true, Ordering::Relaxed)
        {
            return None;
        }
        let found = CompiledKernel::from_cache(kernel.program, kernel.handle, options);
        let Ok(Some(compiled)) = found else {
            return None;
        };
        let compiled = Ok(compiled);
        say_compiled(&kernel.handle.name, &compiled);
        let _ = self.compiled.set(compiled.ok().map(Arc::new));
        self.compiled.get().cloned().flatten()
    }

    fn compile(
        &self,
        kernel: &Launchable<'_>,
        options: &CompileOptions,
    ) -> Option<Arc<CompiledKernel>> {
        let instructions = self.assessment.get().map_or(0, |a| a.instructions);
        compile(kernel.program, kernel.handle, options, instructions)
    }

    /// Prints `message` (`CHEVRON_CPU_COMPILE_LOG`) unless this kind was said for the kernel.
    fn say(&self, kind: Said, message: impl FnOnce() -> String) {
        let bit = 1 << kind as u32;
        if logging() && self.logged.fetch_or(bit, Ordering::Relaxed) & bit == 0 {
            eprintln!("chevron: {}", message());
        }
    }
}

/// The kinds of decision `CHEVRON_CPU_COMPILE_LOG` says once per kernel.
#[derive(Clone, Copy)]
enum Said {
    Refused,
    Compiled,
    Small,
    Background,
    Waited,
    Tiered,
}

/// Compiles `handle`, saying so under `CHEVRON_CPU_COMPILE_LOG`; `instructions`: its size, for
/// the measured compile cost.
fn compile(
    program: &Arc<Program>,
    handle: &KernelHandle,
    options: &CompileOptions,
    instructions: u64,
) -> Option<Arc<CompiledKernel>> {
    let result = CompiledKernel::compile(program, handle, options);
    if let Ok(compiled) = &result {
        // A compile served by the code cache says nothing of what compiling costs.
        if instructions > 0 && compiled.functions_from_cache().0 == 0 {
            record_compile(compiled.compile_time(), instructions);
        }
    }
    say_compiled(&handle.name, &result);
    result.ok().map(Arc::new)
}

/// Says how the compile of kernel `name` went (`CHEVRON_CPU_COMPILE_LOG`).
fn say_compiled(name: &str, result: &Result<CompiledKernel, String>) {
    if logging() {
        match result {
            Ok(compiled) => eprintln!(
                "chevron: compiled `{name}` in {:.1} ms{}, {}",
                compiled.compile_time().as_secs_f64() * 1e3,
                match compiled.functions_from_cache() {
                    (0, _) => String::new(),
                    (hits, all) => format!(" ({hits} of {all} functions from the code cache)"),
                },
                match compiled.vector() {
                    Ok(()) => format!("{} threads at a time", compiled.group_threads()),
                    Err(why) => format!("one thread at a time: {why}"),
                }
            ),
            Err(why) => eprintln!("chevron: `{name}` stays interpreted: {why}"),
        }
    }
}
