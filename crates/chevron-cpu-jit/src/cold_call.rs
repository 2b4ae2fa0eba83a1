//! Trampolines for calls out of cold paths. A System V call clobbers nine integer and every
//! float register, so the register allocator keeps values that live across one (the thread
//! loop's counter and bounds, parameters, float accumulators) in the five callee-saved
//! registers or in stack slots, even when the call sits on a path that almost never runs. A
//! trampoline with Cranelift's `preserve_all` convention saves what the System V callee may
//! clobber itself, so its call sites clobber nothing. `preserve_all` returns no values: the
//! trampoline stores its callee's result through a pointer, its last argument.

use cranelift_codegen::ir::{
    types, AbiParam, FuncRef, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind,
    UserFuncName, Value,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::JITModule;
use cranelift_module::{FuncId, Linkage, Module};

use crate::code_cache::CodeCache;

/// Defines `name` (through the code cache), a `preserve_all` function of `arguments` 64-bit integers and a result
/// pointer that calls `callee` (System V, `arguments` 64-bit integers in, one out) and
/// stores its result through the pointer.
pub fn trampoline(
    module: &mut JITModule,
    cache: &mut CodeCache,
    callee: FuncId,
    arguments: usize,
    name: &str,
) -> Result<FuncId, String> {
    let failed = |e: cranelift_module::ModuleError| format!("Cranelift: {e:?}");
    let id = module
        .declare_function(name, Linkage::Local, &signature(module, arguments))
        .map_err(failed)?;
    if cache.replay(module, id, name, false)?.is_some() {
        return Ok(id);
    }
    let mut context = module.make_context();
    context.func.signature = signature(module, arguments);
    context.func.name = UserFuncName::user(1, 0);
    let mut builder_context = FunctionBuilderContext::new();
    let frontend_config = module.target_config();
    {
        let mut b = FunctionBuilder::new(&mut context.func, &mut builder_context);
        let callee = module.declare_func_in_func(callee, b.func);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        b.seal_block(entry);
        let params = b.block_params(entry).to_vec();
        let (result_at, args) = params.split_last().expect("a result pointer");
        let call = b.ins().call(callee, args);
        let result = b.inst_results(call)[0];
        b.ins()
            .store(MemFlagsData::trusted(), result, *result_at, 0);
        b.ins().return_(&[]);
        b.finalize(frontend_config);
    }
    cache.define(module, id, (name, false), &mut context)?;
    module.clear_context(&mut context);
    Ok(id)
}

/// The signature of a trampoline: `arguments` 64-bit integers and the result pointer.
fn signature(module: &JITModule, arguments: usize) -> cranelift_codegen::ir::Signature {
    let mut signature = module.make_signature();
    signature.call_conv = CallConv::PreserveAll;
    signature.params.extend(std::iter::repeat_n(
        AbiParam::new(types::I64),
        arguments + 1,
    ));
    signature
}

/// Calls trampoline `tramp` with `args` from the function `b` builds, through an 8-byte stack
/// slot for the result, and returns the result.
pub fn call(b: &mut FunctionBuilder, tramp: FuncRef, args: &[Value]) -> Value {
    let slot = b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 8, 3));
    let at = b.ins().stack_addr(types::I64, slot, 0);
    let mut all = args.to_vec();
    all.push(at);
    b.ins().call(tramp, &all);
    b.ins().load(types::I64, MemFlagsData::trusted(), at, 0)
}
