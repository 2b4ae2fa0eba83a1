//! The CPU device's compiler: PTX kernels (as the interpreter decodes them) compiled to native
//! code with Cranelift, run with the interpreter's semantics and fault reports.
//!
//! - [`CompiledKernel::compile`] translates one kernel (`codegen.rs`) or says why it will not:
//!   anything outside the compiled subset (calls and `printf`, atomics, warp collectives, local
//!   memory, ...) leaves the kernel to the interpreter; that is never an error.
//! - [`CompiledKernel::launch`] (`launch.rs`) runs a grid, blocks spread over workers, each
//!   block's threads as loops split at its barriers; faults are re-run in the interpreter for the
//!   report.
//! - [`ExecMode`] and [`checks_from_env`] read `CHEVRON_CPU_EXEC` and `CHEVRON_CPU_CHECKS`.
//!
//! All `unsafe` of the CPU device's compiled path is here: calling generated code, and the two
//! callbacks generated code makes (`context.rs`).

mod codegen;
mod context;
mod launch;
mod liveness;

use std::sync::Arc;
use std::time::{Duration, Instant};

use chevron_ptx::interp::{KernelHandle, Program};
use cranelift_codegen::ir::{types, AbiParam, UserFuncName};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, Linkage, Module};

use context::BlockContext;

/// How the CPU device runs kernels (`CHEVRON_CPU_EXEC`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecMode {
    /// Always the interpreter.
    Interp,
    /// Compile every kernel at its first launch (kernels outside the subset are interpreted).
    Compiled,
    /// Interpret a kernel's first launch; compile it in the background then, and run the
    /// compiled code once it is ready.
    Auto,
}

impl ExecMode {
    /// Reads `CHEVRON_CPU_EXEC` (`interp`, `compiled` or `auto`; unset: `auto`).
    pub fn from_env() -> Result<ExecMode, String> {
        match std::env::var("CHEVRON_CPU_EXEC") {
            Err(_) => Ok(ExecMode::Auto),
            Ok(text) => match text.trim() {
                "interp" => Ok(ExecMode::Interp),
                "compiled" => Ok(ExecMode::Compiled),
                "auto" | "" => Ok(ExecMode::Auto),
                other => Err(format!(
                    "CHEVRON_CPU_EXEC={other}: expected interp, compiled or auto"
                )),
            },
        }
    }
}

/// Reads `CHEVRON_CPU_CHECKS` (`on` or `off`; unset: `on`): whether compiled code checks the
/// alignment and bounds of shared-memory accesses (unchecked, a bad offset is clamped into the
/// block's shared memory: wrong data, no fault, never host memory). Global accesses are always
/// resolved against the allocation table, so they stay checked either way.
pub fn checks_from_env() -> Result<bool, String> {
    match std::env::var("CHEVRON_CPU_CHECKS") {
        Err(_) => Ok(true),
        Ok(text) => match text.trim() {
            "on" | "" => Ok(true),
            "off" => Ok(false),
            other => Err(format!("CHEVRON_CPU_CHECKS={other}: expected on or off")),
        },
    }
}

/// Signature of a compiled block function.
type Entry = unsafe extern "C" fn(*mut BlockContext) -> u32;

/// A kernel compiled to native code, with the program it came from.
pub struct CompiledKernel {
    /// Owns the generated code; freed on drop.
    module: Option<JITModule>,
    entry: Entry,
    program: Arc<Program>,
    kernel: KernelHandle,
    num_regs: u32,
    /// Global access sites (each has a cache entry while a block runs).
    sites: u32,
    /// Whether the kernel shuffles (its blocks must then be whole warps).
    shuffles: bool,
    /// Whether a block runs in one phase ([`codegen::single_phase`]): the first
    /// [`PHASE_DONE`](context::PHASE_DONE) ends it.
    single_phase: bool,
    param_size: u64,
    compile_time: Duration,
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

impl CompiledKernel {
    /// Compiles `kernel` of `program`; `Err` says why it stays interpreted. `checks` as
    /// [`checks_from_env`].
    pub fn compile(
        program: &Arc<Program>,
        kernel: &KernelHandle,
        checks: bool,
    ) -> Result<CompiledKernel, String> {
        let started = Instant::now();
        let (code, _) = program
            .decoded(kernel)
            .ok_or_else(|| format!("no kernel `{}` in the program", kernel.name))?;
        let mut flags = settings::builder();
        let set = |flags: &mut settings::Builder, name: &str, value: &str| {
            flags
                .set(name, value)
                .map_err(|e| format!("Cranelift setting {name}: {e}"))
        };
        set(&mut flags, "opt_level", "speed")?;
        set(&mut flags, "use_colocated_libcalls", "false")?;
        set(&mut flags, "is_pic", "false")?;
        let isa = cranelift_native::builder()
            .map_err(|e| format!("no native code generator for this host: {e}"))?
            .finish(settings::Flags::new(flags))
            .map_err(|e| format!("Cranelift: {e}"))?;
        let mut builder = JITBuilder::with_isa(isa, default_libcall_names());
        builder.symbol(
            "chevron_resolve_global",
            context::resolve_global as *const u8,
        );
        builder.symbol("chevron_evaluate", context::evaluate as *const u8);
        builder.symbol("chevron_shuffle", context::shuffle as *const u8);
        builder.symbol("chevron_offer", context::offer as *const u8);
        builder.symbol("chevron_fuel_out", context::fuel_out as *const u8);
        let mut module = JITModule::new(builder);
        // A panic in code generation is a compiler bug; the kernel is then interpreted.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            Self::define(&mut module, code, checks)
        }))
        .unwrap_or_else(|_| Err("the compiler failed on this kernel".into()));
        let (id, sites) = match result {
            Ok(done) => done,
            Err(why) => {
                // SAFETY: no code of this module was handed out.
                unsafe { module.free_memory() };
                return Err(why);
            }
        };
        let code_pointer = module.get_finalized_function(id);
        // SAFETY: the function was defined with exactly this signature (one pointer argument,
        // a 32-bit result, the host's default calling convention).
        let entry = unsafe { std::mem::transmute::<*const u8, Entry>(code_pointer) };
        Ok(CompiledKernel {
            module: Some(module),
            entry,
            program: Arc::clone(program),
            kernel: kernel.clone(),
            num_regs: code.num_regs,
            sites,
            single_phase: codegen::single_phase(code),
            shuffles: code
                .insts
                .iter()
                .any(|inst| matches!(inst.op, chevron_ptx::interp::inst::Op::Warp { .. })),
            param_size: code.param_size,
            compile_time: started.elapsed(),
        })
    }

    /// How long [`CompiledKernel::compile`] took.
    pub fn compile_time(&self) -> Duration {
        self.compile_time
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.kernel.name
    }

    fn define(
        module: &mut JITModule,
        code: &chevron_ptx::interp::program::FunctionCode,
        checks: bool,
    ) -> Result<(cranelift_module::FuncId, u32), String> {
        let pointer = module.target_config().pointer_type();
        if pointer != types::I64 {
            return Err("the compiler needs a 64-bit host".into());
        }
        let failed = |e: cranelift_module::ModuleError| format!("Cranelift: {e}");
        // The callbacks: `arguments` 64-bit integers in, one out.
        let mut import = |name: &str, arguments: usize| {
            let mut signature = module.make_signature();
            signature
                .params
                .extend(std::iter::repeat_n(AbiParam::new(types::I64), arguments));
            signature.returns.push(AbiParam::new(types::I64));
            module
                .declare_function(name, Linkage::Import, &signature)
                .map_err(failed)
        };
        let resolve = import("chevron_resolve_global", 4)?;
        let evaluate = import("chevron_evaluate", 4)?;
        let shuffle = import("chevron_shuffle", 5)?;
        let offer = import("chevron_offer", 3)?;
        let fuel_out = import("chevron_fuel_out", 1)?;
        let mut context = module.make_context();
        context
            .func
            .signature
            .params
            .push(AbiParam::new(types::I64));
        context
            .func
            .signature
            .returns
            .push(AbiParam::new(types::I32));
        context.func.name = UserFuncName::user(0, 0);
        let mut builder_context = FunctionBuilderContext::new();
        let sites;
        {
            let mut builder = FunctionBuilder::new(&mut context.func, &mut builder_context);
            let resolve = module.declare_func_in_func(resolve, builder.func);
            let evaluate = module.declare_func_in_func(evaluate, builder.func);
            let shuffle = module.declare_func_in_func(shuffle, builder.func);
            let offer = module.declare_func_in_func(offer, builder.func);
            let fuel_out = module.declare_func_in_func(fuel_out, builder.func);
            let translation = codegen::Translation {
                code,
                checks,
                resolve,
                evaluate,
                offer,
                shuffle,
                fuel_out,
            };
            sites = codegen::translate(&translation, &mut builder)?;
            builder.finalize();
        }
        let id = module
            .declare_function(&code.name, Linkage::Local, &context.func.signature)
            .map_err(failed)?;
        module
            .define_function(id, &mut context)
            .map_err(|e| format!("Cranelift: {e:?}"))?;
        let size = context
            .compiled_code()
            .map_or(0, |code| code.code_info().total_size as usize);
        module.clear_context(&mut context);
        module.finalize_definitions().map_err(failed)?;
        if let Ok(dir) = std::env::var("CHEVRON_CPU_CODE_DUMP") {
            dump_code(
                &dir,
                &code.name,
                checks,
                module.get_finalized_function(id),
                size,
            );
        }
        Ok((id, sites))
    }
}

/// Writes the `size` bytes of machine code at `code` to `DIR/KERNEL.checked.bin` (or
/// `.unchecked.bin`) and its address to stderr (`CHEVRON_CPU_CODE_DUMP=DIR`): with
/// `objdump -D -b binary -mi386:x86-64` and the address, `perf` samples map to instructions.
fn dump_code(dir: &str, kernel: &str, checks: bool, code: *const u8, size: usize) {
    // SAFETY: `code` is the start of a finalized function of `size` bytes, alive while the
    // module is (the caller holds it).
    let bytes = unsafe { std::slice::from_raw_parts(code, size) };
    let checked = if checks { "checked" } else { "unchecked" };
    let path = std::path::Path::new(dir).join(format!("{kernel}.{checked}.bin"));
    match std::fs::write(&path, bytes) {
        Ok(()) => eprintln!("{kernel} ({checked}): {size} bytes at {code:p}, in {path:?}"),
        Err(e) => eprintln!("CHEVRON_CPU_CODE_DUMP: {path:?}: {e}"),
    }
}
