//! The CPU device's compiler: PTX kernels (as the interpreter decodes them) compiled to native
//! code with Cranelift, run with the interpreter's semantics and fault reports.
//!
//! - [`CompiledKernel::compile`] translates one kernel (`build.rs`: `codegen/`, one thread at a
//!   time, and where the kernel allows it `vector/`, four threads at a time) or says why it
//!   will not: anything outside the compiled subset (calls and `printf`, float atomics, most
//!   warp collectives, local memory, ...) leaves the kernel to the interpreter; that is never
//!   an error.
//! - [`CompiledKernel::launch`] (`launch.rs`) runs a grid, blocks spread over workers, each
//!   block's threads as loops split at its barriers (in groups of four where it can); faults
//!   are re-run in the interpreter for the report.
//! - [`assess`] says, without compiling, whether the compiler takes a kernel and how much
//!   work a thread of it does: what the CPU device's tiering policy weighs a launch by.
//! - [`CompileOptions`]: what the caller decides (checks, four-wide code, the code cache and
//!   the machine-code dump); the compiler reads no environment variable.
//!
//! All `unsafe` of the CPU device's compiled path is here: calling generated code, and the
//! callbacks generated code makes (`context.rs`).

mod assess;
mod barrier_table;
mod build;
mod coalesce;
mod code_cache;
mod codegen;
mod cold_call;
mod context;
mod cooperative;
mod device_services;
mod inline;
mod kernel_cache;
mod launch;
mod launch_report;
mod liveness;
mod options;
mod phase_release;
#[cfg(test)]
mod test_kernels;
mod vector;

use std::sync::Arc;
use std::time::{Duration, Instant};

use chevron_ptx::interp::{KernelHandle, Program};
use chevron_ptx::lowered::Op;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::default_libcall_names;

pub use assess::{assess, Assessment, LOOP_TRIPS};
use context::BlockContext;
pub use options::{group_threads_for, CompileOptions};

/// Signature of a compiled block function.
pub(crate) type Entry = unsafe extern "C" fn(*mut BlockContext) -> u32;

/// A kernel compiled to native code, with the program it came from.
pub struct CompiledKernel {
    /// Owns the generated code; freed on drop.
    module: Option<JITModule>,
    entry: Entry,
    /// The vector function (four threads at a time) and the scalar function it hands groups
    /// to; `Err`: why the kernel has none.
    vector: Result<(Entry, Entry), String>,
    /// Threads per group of the vector function (4, 8, 16 or 32).
    group_threads: u64,
    program: Arc<Program>,
    /// The kernel with its calls inlined, when it makes any: generated code points into its
    /// instructions (as into the program's otherwise), so it lives as long as the code.
    _flat: Option<inline::Flat>,
    /// The kernel with its registers coalesced (`coalesce.rs`), when they were: generated code
    /// points into its instructions too.
    _coalesced: Option<chevron_ptx::interp::program::FunctionCode>,
    /// The kernel with its `activemask`s as ballots (`codegen/activemask.rs`), when it has
    /// any: generated code points into its instructions too.
    _ballots: Option<chevron_ptx::interp::program::FunctionCode>,
    kernel: KernelHandle,
    num_regs: u32,
    /// Global access sites (each has a cache entry while a block runs).
    sites: u32,
    /// Whether the kernel shuffles (its blocks must then be whole warps).
    shuffles: bool,
    /// Whether its barriers are counted in the block's barrier table (`barrier_table.rs`).
    counted_barriers: bool,
    /// Whether the kernel synchronises the grid (`codegen/spin.rs`): its blocks all run at
    /// once, taking turns at spin loops (`cooperative.rs`).
    cooperative: bool,
    /// Whether the kernel, not cooperative, makes volatile or memory-ordered accesses: its
    /// blocks may wait for each other ([`context::Waiting`]).
    waits_for_blocks: bool,
    /// Whether a block runs in one phase ([`codegen::single_phase`]): the first
    /// [`PHASE_DONE`](context::PHASE_DONE) ends it.
    single_phase: bool,
    param_size: u64,
    /// Bytes of the kernel's stack frame (its local variables), per thread.
    frame_size: u64,
    compile_time: Duration,
    /// The operation of the compiled code's first instruction ([`BlockContext::ops`]).
    ops: *const Op,
    /// Of the kernel's functions, how many came from the code cache, and how many there are.
    cached: (u32, u32),
    /// Groups of four threads its launches ran in the vector function, and of those how
    /// many it handed to the scalar code ([`CompiledKernel::groups`]).
    groups: launch::VectorStats,
    /// Blocks its launches ran compiled that went to the interpreter after all (a fault, a
    /// deadlock, threads parted where only the interpreter's scheduling decides).
    interpreted: std::sync::atomic::AtomicU64,
}

// SAFETY: the module is only touched at construction and drop (it owns the code's memory);
// the generated code itself keeps no state between calls, all of it is in the block context
// each call gets. The program is `Send + Sync`.
unsafe impl Send for CompiledKernel {}
// SAFETY: as above; `launch` only reads the fields.
unsafe impl Sync for CompiledKernel {}

impl Drop for CompiledKernel {
    fn drop(&mut self) {
        if let Some(module) = self.module.take() {
            // SAFETY: `entry` dies with `self`; nothing runs the code any more (launches borrow
            // the kernel for their whole run).
            unsafe { module.free_memory() };
        }
    }
}

impl std::fmt::Debug for CompiledKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledKernel")
            .field("kernel", &self.kernel.name)
            .field("compile_time", &self.compile_time)
            .finish()
    }
}

/// The code generator for this host, made once per process: finding the host's features
/// (`cpuid`, which a virtual machine traps) took 0.1 ms of every compile.
fn host_isa() -> Result<cranelift_codegen::isa::OwnedTargetIsa, String> {
    static HOST: std::sync::OnceLock<Result<cranelift_codegen::isa::OwnedTargetIsa, String>> =
        std::sync::OnceLock::new();
    let made = HOST.get_or_init(|| {
        let mut flags = settings::builder();
        let set = |flags: &mut settings::Builder, name: &str, value: &str| {
            flags
                .set(name, value)
                .map_err(|e| format!("Cranelift setting {name}: {e}"))
        };
        set(&mut flags, "opt_level", "speed")?;
        set(&mut flags, "use_colocated_libcalls", "false")?;
        set(&mut flags, "is_pic", "false")?;
        cranelift_native::builder()
            .map_err(|e| format!("no native code generator for this host: {e}"))?
            .finish(settings::Flags::new(flags))
            .map_err(|e| format!("Cranelift: {e}"))
    });
    made.clone()
}

/// A module for one kernel's functions, generating code for this host, which resolves the
/// callbacks generated code makes.
fn new_module() -> Result<JITModule, String> {
    let mut builder = JITBuilder::with_isa(host_isa()?, default_libcall_names());
    builder.symbol(
        "chevron_resolve_global",
        context::resolve_global as *const u8,
    );
    builder.symbol("chevron_evaluate", context::evaluate as *const u8);
    builder.symbol(
        "chevron_evaluate_lanes",
        context::evaluate_lanes as *const u8,
    );
    builder.symbol("chevron_atomic", context::atomic as *const u8);
    builder.symbol("chevron_collective", context::collective as *const u8);
    builder.symbol("chevron_fuel_out", context::fuel_out as *const u8);
    builder.symbol("chevron_barrier", barrier_table::barrier as *const u8);
    builder.symbol(
        "chevron_barrier_exit",
        barrier_table::barrier_exit as *const u8,
    );
    builder.symbol("chevron_service", device_services::service as *const u8);
    Ok(JITModule::new(builder))
}

impl CompiledKernel {
    /// Compiles `kernel` of `program` as `options` say; `Err` says why it stays interpreted.
    pub fn compile(
        program: &Arc<Program>,
        kernel: &KernelHandle,
        options: &CompileOptions,
    ) -> Result<CompiledKernel, String> {
        Self::compile_or_replay(program, kernel, options, false)
            .and_then(|compiled| compiled.ok_or_else(|| "not compiled".to_string()))
    }

    /// The kernel as [`CompiledKernel::compile`] makes it, when the code cache holds its
    /// whole record (`kernel_cache.rs`): defined without translating, in well under a
    /// millisecond. `Ok(None)`: the cache does not have it (nothing was compiled).
    pub fn from_cache(
        program: &Arc<Program>,
        kernel: &KernelHandle,
        options: &CompileOptions,
    ) -> Result<Option<CompiledKernel>, String> {
        if options.code_cache.is_none() {
            return Ok(None);
        }
        Self::compile_or_replay(program, kernel, options, true)
    }

    /// [`CompiledKernel::compile`], or with `replay_only` [`CompiledKernel::from_cache`].
    fn compile_or_replay(
        program: &Arc<Program>,
        kernel: &KernelHandle,
        options: &CompileOptions,
        replay_only: bool,
    ) -> Result<Option<CompiledKernel>, String> {
        let started = Instant::now();
        let (kernel_code, functions) = program
            .decoded(kernel)
            .ok_or_else(|| format!("no kernel `{}` in the program", kernel.name))?;
        // Calls inlined, and the stack top at each instruction. A panic here is a compiler bug;
        // the kernel is then interpreted.
        let flat = std::panic::catch_unwind(|| inline::flatten(kernel_code, functions))
            .unwrap_or_else(|_| Err("the compiler failed to inline this kernel's calls".into()))?;
        let kernel_tops;
        let (code, stack_tops): (&chevron_ptx::interp::program::FunctionCode, &[u64]) = match &flat
        {
            Some(flat) => (&flat.code, &flat.stack_tops),
            None => {
                kernel_tops = vec![kernel_code.frame_size; kernel_code.insts.len()];
                (kernel_code, &kernel_tops)
            }
        };
        // `activemask` after no loop as a ballot of the whole warp (`codegen/activemask.rs`).
        let ballots = codegen::as_ballots(code);
        let code = ballots.as_ref().unwrap_or(code);
        let mut module = new_module()?;
        let mut cache = code_cache::CodeCache {
            folder: options.code_cache.clone(),
            dump: options.code_dump.clone(),
            ..Default::default()
        };
        if cache.folder.is_some() {
            let key = kernel_cache::kernel_key(
                &module,
                (code, stack_tops),
                options.checks,
                (options.vectors, options.group_threads),
            );
            cache.open_kernel(key);
        }
        if replay_only && cache.replay.is_none() {
            return Ok(None);
        }
        // A cooperative grid holds every block's registers at once, and a kernel of many
        // registers that saves them at barriers saves more than the host's L1 cache holds:
        // fewer of them (`coalesce.rs`), as the kernel's record says when it has one.
        let cooperative = codegen::spin::cooperative(code);
        let computed = || {
            (cooperative
                || (!codegen::single_phase(code) && code.num_regs >= coalesce::MANY_REGISTERS))
                .then(|| coalesce::coalesced(code, !cooperative))
                .flatten()
        };
        let recorded = cache.replay.as_ref().map(|record| record.renaming.clone());
        let mut renaming = recorded.unwrap_or_else(computed);
        let mut coalesced = renaming.as_ref().and_then(|r| coalesce::renamed(code, r));
        if renaming.is_some() && coalesced.is_none() {
            // A record whose renaming does not fit the kernel (damaged past its checksums).
            cache.without_replay();
            renaming = computed();
            coalesced = renaming.as_ref().and_then(|r| coalesce::renamed(code, r));
        }
        cache.renaming = renaming.filter(|_| coalesced.is_some());
        let code = coalesced.as_ref().unwrap_or(code);
        // A panic in code generation is a compiler bug; the kernel is then interpreted.
        let build = |module: &mut JITModule, cache: &mut code_cache::CodeCache| {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                build::build(
                    module,
                    code,
                    stack_tops,
                    options.checks,
                    (options.vectors, options.group_threads),
                    cache,
                )
            }))
            .unwrap_or_else(|_| Err("the compiler failed on this kernel".into()));
            if result.is_err() {
                // SAFETY: no code of this module was handed out.
                unsafe { std::mem::replace(module, new_module()?).free_memory() };
            }
            result
        };
        let mut result = build(&mut module, &mut cache);
        if result.is_err() && cache.replay.is_some() {
            // A kernel record that does not replay (damaged past its checksums): translated.
            cache.without_replay();
            result = build(&mut module, &mut cache);
        }
        let built = result?;
        let entry_of = |id| {
            let code_pointer = module.get_finalized_function(id);
            // SAFETY: every function of the module was defined with exactly this signature
            // (one pointer argument, a 32-bit result, the host's default calling convention).
            unsafe { std::mem::transmute::<*const u8, Entry>(code_pointer) }
        };
        let entry = entry_of(built.scalar);
        let group_threads = built.vector.as_ref().map_or(4, |v| v.2);
        let vector = built
            .vector
            .map(|(vector, scalar, _)| (entry_of(vector), entry_of(scalar)));
        let sites = built.sites;
        // Into the instructions' heap buffer, which moving `flat` does not move.
        let ops: *const Op = code.insts.first().map_or(std::ptr::null(), |inst| &inst.op);
        let (num_regs, single_phase, param_size, frame_size) = (
            code.num_regs,
            codegen::single_phase(code),
            code.param_size,
            code.frame_size,
        );
        let waits_for_blocks = !cooperative && codegen::spin::any_ordered(code);
        let counted_barriers = codegen::uses_table(code);
        let shuffles = code
            .insts
            .iter()
            .any(|inst| matches!(inst.op, chevron_ptx::lowered::Op::Warp { .. }));
        Ok(Some(CompiledKernel {
            module: Some(module),
            entry,
            vector,
            group_threads,
            program: Arc::clone(program),
            _flat: flat,
            _coalesced: coalesced,
            _ballots: ballots,
            kernel: kernel.clone(),
            num_regs,
            sites,
            single_phase,
            shuffles,
            counted_barriers,
            cooperative,
            waits_for_blocks,
            param_size,
            frame_size,
            compile_time: started.elapsed(),
            ops,
            cached: (cache.hits, cache.hits + cache.misses),
            groups: launch::VectorStats::default(),
            interpreted: Default::default(),
        }))
    }

    /// How long [`CompiledKernel::compile`] took.
    pub fn compile_time(&self) -> Duration {
        self.compile_time
    }

    /// Of the kernel's functions, how many came from the code cache (`code_cache.rs`,
    /// `CHEVRON_CPU_CODE_CACHE`), and how many there are.
    pub fn functions_from_cache(&self) -> (u32, u32) {
        self.cached
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.kernel.name
    }

    /// Whether the kernel runs four threads at a time where it can, or why not.
    pub fn vector(&self) -> Result<(), &str> {
        self.vector.as_ref().map(|_| ()).map_err(String::as_str)
    }

    /// Of the groups of threads (of one block's phase) the finished launches of this
    /// kernel ran in its vector function, how many there were and how many of them went on
    /// in the scalar code (a group that parted, or reached a spin loop).
    pub fn groups(&self) -> (u64, u64) {
        self.groups.totals()
    }

    /// How many blocks this kernel's launches began compiled and left to the interpreter.
    pub fn blocks_interpreted(&self) -> u64 {
        self.interpreted.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Threads per group of the vector function
    /// ([`CompileOptions::group_threads`]).
    pub fn group_threads(&self) -> u64 {
        self.group_threads
    }
}
