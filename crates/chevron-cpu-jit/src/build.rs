//! A kernel's functions in one Cranelift module: the scalar function every launch can use
//! and, when the kernel has a four-wide form ([`vector::plan`]), the vector function with the
//! scalar function it hands groups to (the same code with resume points where it does).

use std::collections::BTreeSet;

use chevron_ptx::interp::program::FunctionCode;
use chevron_ptx::lowered::Op;
use cranelift_codegen::ir::{types, AbiParam, FuncRef, UserFuncName};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::JITModule;
use cranelift_module::{FuncId, Linkage, Module};

use crate::code_cache::CodeCache;
use crate::{codegen, cold_call, vector};

/// The functions generated code calls.
struct Imports {
    resolve: FuncId,
    evaluate: FuncId,
    evaluate_lanes: FuncId,
    atomic: FuncId,
    collective: FuncId,
    fuel_out: FuncId,
    barrier: FuncId,
    barrier_exit: FuncId,
    service: FuncId,
}

/// What [`build`] defined.
pub struct Built {
    pub scalar: FuncId,
    /// Global access sites (each has a cache entry while a block runs).
    pub sites: u32,
    /// The vector function, the scalar function it hands groups to and the threads per
    /// group; `Err`: why there is none.
    pub vector: Result<(FuncId, FuncId, u64), String>,
}

fn failed(e: cranelift_module::ModuleError) -> String {
    format!("Cranelift: {e:?}")
}

/// Defines the kernel's functions in `module` and finalizes them. `vectors`: whether to try
/// the four-wide form.
pub fn build(
    module: &mut JITModule,
    code: &FunctionCode,
    stack_tops: &[u64],
    checks: bool,
    (vectors, group_threads): (bool, u32),
    cache: &mut CodeCache,
) -> Result<Built, String> {
    let per_group = vectors_per_group(code, group_threads);
    if module.target_config().pointer_type() != types::I64 {
        return Err("the compiler needs a 64-bit host".into());
    }
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
    let evaluate_lanes = import("chevron_evaluate_lanes", 3)?;
    let atomic = import("chevron_atomic", 4)?;
    let collective = import("chevron_collective", 3)?;
    let fuel_out = import("chevron_fuel_out", 1)?;
    let barrier = import("chevron_barrier", 6)?;
    let barrier_exit = import("chevron_barrier_exit", 1)?;
    let service = import("chevron_service", 5)?;
    // The calls of cold paths (a site's cache miss, a thread out of fuel) go through
    // trampolines that keep every register: values the hot path holds stay in registers
    // across them instead of in stack slots.
    let imports = Imports {
        resolve: cold_call::trampoline(module, cache, resolve, 4, "chevron_resolve_keeping")?,
        evaluate,
        evaluate_lanes,
        atomic,
        collective,
        fuel_out: cold_call::trampoline(module, cache, fuel_out, 1, "chevron_fuel_out_keeping")?,
        barrier,
        barrier_exit,
        service,
    };
    let none = BTreeSet::new();
    let (scalar, sites) = define_scalar(
        module,
        cache,
        &imports,
        (code, stack_tops),
        checks,
        &none,
        "",
    )?;
    let vector = if let Some(record) = &cache.replay {
        // Replayed from the kernel's record: what the compile that made it found.
        match record.vector.clone() {
            Ok(()) => define_vector(
                module,
                cache,
                &imports,
                (code, stack_tops),
                (checks, per_group),
            ),
            Err(why) => Err(why),
        }
    } else if codegen::uses_table(code) {
        // Its barriers are counted one thread at a time (`codegen/named_barrier.rs`).
        Err("its barriers are counted in the block's barrier table".into())
    } else if vectors {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            define_vector(
                module,
                cache,
                &imports,
                (code, stack_tops),
                (checks, per_group),
            )
        }))
        .unwrap_or_else(|panic| {
            let why = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("");
            Err(format!("the vector compiler failed on this kernel: {why}"))
        })
    } else {
        Err("four-wide code is off (CHEVRON_CPU_VECTOR=off)".into())
    };
    module.finalize_definitions().map_err(failed)?;
    cache.finish(sites, vector.as_ref().map(|_| ()).map_err(String::as_str));
    Ok(Built {
        scalar,
        sites,
        vector: vector.map(|(v, s)| (v, s, 4 * u64::from(per_group))),
    })
}

/// The vectors of four threads per group of the kernel's vector function for
/// [`CompileOptions::group_threads`](crate::CompileOptions::group_threads) `group_threads`: a
/// kernel with warp collectives has groups of four or of a whole warp (whose shuffles are
/// permutations of its own vectors, `vector/permute.rs`), not between.
fn vectors_per_group(code: &FunctionCode, group_threads: u32) -> u8 {
    let collectives = (code.insts.iter()).any(|inst| matches!(inst.op, Op::Warp { .. }));
    match group_threads {
        8 | 16 if !collectives => (group_threads / 4) as u8,
        32 => 8,
        _ => 1,
    }
}

/// The host's fused multiply-add, which the four-wide `fma` needs.
fn has_fma(module: &JITModule) -> bool {
    module
        .isa()
        .isa_flags()
        .iter()
        .any(|flag| flag.name == "has_fma" && flag.as_bool() == Some(true))
}

fn define_vector(
    module: &mut JITModule,
    cache: &mut CodeCache,
    imports: &Imports,
    (code, stack_tops): (&FunctionCode, &[u64]),
    (checks, per_group): (bool, u8),
) -> Result<(FuncId, FuncId), String> {
    let name = format!("{}.x{}", code.name, 4 * per_group);
    let id = declare(module, &name)?;
    let exits = if let Some(bytes) = cache.replay(module, id, &name, true)? {
        dump(cache, &name, checks, &bytes);
        // The resume points are the translation's only: the replayed code has them.
        BTreeSet::new()
    } else {
        // `__syncwarp()` is no code in groups of a whole warp, whose lanes run in step; in
        // narrower ones the warp's groups would have to meet there.
        if per_group != 8 && (code.insts.iter()).any(|inst| vector::plan::warp_sync(&inst.op)) {
            return Err("a `__syncwarp` in groups narrower than a warp".into());
        }
        // A cooperative kernel's spin loops are the scalar code's: it yields there.
        let scalar_only = codegen::spin::scalar_only(code);
        vector::plan::ordered_accesses_one_thread_at_a_time(code)?;
        let plan = vector::plan::plan(
            &code.insts,
            code.num_regs,
            has_fma(module),
            scalar_only.as_ref(),
        )?;
        let resume_ids = codegen::resume_ids(&code.insts, &plan.exits);
        let mut context = new_context(module);
        let mut builder_context = FunctionBuilderContext::new();
        let frontend_config = module.target_config();
        {
            let mut b = FunctionBuilder::new(&mut context.func, &mut builder_context);
            let translation = vector::VectorTranslation {
                code,
                plan: &plan,
                resume_ids: &resume_ids,
                sites: codegen::global_sites(&code.insts),
                resolve: far(module, imports.resolve, b.func),
                evaluate: far(module, imports.evaluate, b.func),
                evaluate_lanes: far(module, imports.evaluate_lanes, b.func),
                vectors: per_group,
            };
            vector::translate(&translation, &mut b);
            b.finalize(frontend_config);
        }
        define(module, cache, &mut context, (id, &name), checks)?;
        plan.exits
    };
    let (scalar, _) = define_scalar(
        module,
        cache,
        imports,
        (code, stack_tops),
        checks,
        &exits,
        ".resume",
    )?;
    Ok((id, scalar))
}

fn define_scalar(
    module: &mut JITModule,
    cache: &mut CodeCache,
    imports: &Imports,
    (code, stack_tops): (&FunctionCode, &[u64]),
    checks: bool,
    extra_resumes: &BTreeSet<usize>,
    suffix: &str,
) -> Result<(FuncId, u32), String> {
    let name = format!("{}{suffix}", code.name);
    let id = declare(module, &name)?;
    if let Some(bytes) = cache.replay(module, id, &name, true)? {
        dump(cache, &name, checks, &bytes);
        let sites = cache.replay.as_ref().map_or(0, |record| record.sites);
        return Ok((id, sites));
    }
    let mut context = new_context(module);
    let mut builder_context = FunctionBuilderContext::new();
    let frontend_config = module.target_config();
    let sites;
    {
        let mut builder = FunctionBuilder::new(&mut context.func, &mut builder_context);
        let mut import = |id: FuncId| far(module, id, builder.func);
        let translation = codegen::Translation {
            code,
            stack_tops,
            checks,
            resolve: import(imports.resolve),
            evaluate: import(imports.evaluate),
            atomic: import(imports.atomic),
            collective: import(imports.collective),
            fuel_out: import(imports.fuel_out),
            barrier: import(imports.barrier),
            barrier_exit: import(imports.barrier_exit),
            service: import(imports.service),
            extra_resumes,
        };
        sites = codegen::translate(&translation, &mut builder)?;
        builder.finalize(frontend_config);
    }
    define(module, cache, &mut context, (id, &name), checks)?;
    Ok((id, sites))
}

/// `id` declared in `func`, called through its absolute address: the JIT may place a
/// kernel's functions further apart than a relative call reaches.
fn far(module: &mut JITModule, id: FuncId, func: &mut cranelift_codegen::ir::Function) -> FuncRef {
    let callee = module.declare_func_in_func(id, func);
    func.dfg.ext_funcs[callee].colocated = false;
    callee
}

/// A context for a function `fn(*mut BlockContext) -> u32`.
fn new_context(module: &JITModule) -> cranelift_codegen::Context {
    let mut context = module.make_context();
    let signature = &mut context.func.signature;
    signature.params.push(AbiParam::new(types::I64));
    signature.returns.push(AbiParam::new(types::I32));
    context.func.name = UserFuncName::user(0, 0);
    context
}

/// Declares the kernel function `name` (`fn(*mut BlockContext) -> u32`).
fn declare(module: &mut JITModule, name: &str) -> Result<FuncId, String> {
    let signature = new_context(module).func.signature.clone();
    module
        .declare_function(name, Linkage::Local, &signature)
        .map_err(failed)
}

/// Defines function `id`, named `name`, from the function `context` holds (through the code
/// cache); its machine code goes to the cache's dump folder when it has one.
fn define(
    module: &mut JITModule,
    cache: &mut CodeCache,
    context: &mut cranelift_codegen::Context,
    (id, name): (FuncId, &str),
    checks: bool,
) -> Result<(), String> {
    let code = cache.define(module, id, (name, true), context)?;
    dump(cache, name, checks, &code);
    module.clear_context(context);
    Ok(())
}

/// `code` written to the cache's dump folder, when it has one.
fn dump(cache: &CodeCache, name: &str, checks: bool, code: &[u8]) {
    if let Some(dir) = &cache.dump {
        dump_code(dir, name, checks, code);
    }
}

/// Writes a function's machine code to `DIR/NAME.checked.bin` (or `.unchecked.bin`)
/// ([`crate::CompileOptions::code_dump`]), for `objdump -D -b binary -mi386:x86-64`. Calls and
/// constants are not relocated in the dump.
fn dump_code(dir: &std::path::Path, name: &str, checks: bool, bytes: &[u8]) {
    let checked = if checks { "checked" } else { "unchecked" };
    let path = dir.join(format!("{name}.{checked}.bin"));
    match std::fs::write(&path, bytes) {
        Ok(()) => eprintln!("{name} ({checked}): {} bytes in {path:?}", bytes.len()),
        Err(e) => eprintln!("CHEVRON_CPU_CODE_DUMP: {path:?}: {e}"),
    }
}
