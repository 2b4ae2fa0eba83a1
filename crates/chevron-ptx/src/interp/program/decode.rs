//! Decoding one function: parameters, declarations and labels, then each instruction through
//! [`super::decode_ops`].

use std::collections::HashMap;

use super::decode_ops::Decoder;
use super::layout;
use super::limits;
use super::scope::{Binding, Scopes};
pub(crate) use super::shared::SharedLayout;
use super::{is_kernel, walk, FunctionCode, ParamSlot};
use crate::interp::fault::LoadError;
use crate::interp::inst::Builtin;
use crate::ir::{self, StateSpace, Statement, Variable};

fn builtin(name: &str) -> Option<Builtin> {
    Some(match name {
        "vprintf" => Builtin::Vprintf,
        "malloc" => Builtin::Malloc,
        "free" => Builtin::Free,
        "__assertfail" | "__assert_fail" => Builtin::AssertFail,
        _ => Builtin::Device(crate::interp::device_runtime::call_named(name)?),
    })
}

/// Register count and width of a `.reg` parameter or variable.
fn reg_width(ty: ir::ScalarType) -> u8 {
    (ty.size() * 8).min(64) as u8
}

/// Builds the function's frame and register numbering as it walks the body.
pub(crate) struct FrameBuilder {
    pub regs: u32,
    pub frame: u64,
}

impl FrameBuilder {
    // Sizes come from the module: the arithmetic saturates, and the caller checks the totals
    // against `limits` before decoding any instruction that uses them.
    fn frame_slot(&mut self, size: u64, align: u64) -> u64 {
        self.frame = self
            .frame
            .checked_next_multiple_of(align.max(1))
            .unwrap_or(u64::MAX);
        let offset = self.frame;
        self.frame = self.frame.saturating_add(size);
        offset
    }

    fn regs(&mut self, count: u32) -> u32 {
        let base = self.regs;
        self.regs = self.regs.saturating_add(count);
        base
    }

    /// Checks the registers and frame declared so far.
    fn check(&self, function: &str, kernel: bool, line: u32) -> Result<(), LoadError> {
        limits::check_registers(function, line, self.regs)?;
        limits::check_local(function, kernel, line, self.frame)
    }
}

/// Decodes one function (a declaration gives an empty, undefined function).
pub(crate) fn decode_function(
    function: &ir::Function,
    index: usize,
    names: &HashMap<String, Binding>,
    shared: &SharedLayout,
) -> Result<FunctionCode, LoadError> {
    let kernel = is_kernel(function);
    let mut code = FunctionCode {
        name: function.name.clone(),
        is_kernel: kernel,
        insts: Vec::new(),
        source: Vec::new(),
        num_regs: 0,
        frame_size: 0,
        params: Vec::new(),
        returns: Vec::new(),
        kernel_params: Vec::new(),
        param_size: 0,
        defined: function.body.is_some(),
        builtin: if function.body.is_none() {
            builtin(&function.name)
        } else {
            None
        },
        carry_reg: 0,
        grid_sync: false,
        cluster_dims: None,
        explicit_cluster: false,
    };
    for directive in &function.directives {
        if let ir::FunctionDirective::Performance { name, values } = directive {
            match name.as_str() {
                "reqnctapercluster" => {
                    let mut dims = [1u32; 3];
                    for (dim, value) in dims.iter_mut().zip(values) {
                        *dim = (*value).max(1);
                    }
                    code.cluster_dims = Some(dims);
                    code.explicit_cluster = true;
                }
                "explicitcluster" => code.explicit_cluster = true,
                _ => {}
            }
        }
    }
    let mut scopes = Scopes::new(names);
    let mut frame = FrameBuilder { regs: 0, frame: 0 };
    if kernel {
        let (slots, size) = layout::layout_params(&function.params);
        limits::check_param_space(&function.name, function.span.line, size)?;
        for (param, (offset, _)) in function.params.iter().zip(&slots) {
            scopes.declare(&param.name, Binding::KernelParam(*offset));
        }
        code.kernel_params = slots;
        code.param_size = size;
        // Dynamic shared memory starts after this kernel's own static part.
        for name in &shared.module_unsized {
            scopes.declare(name, Binding::Shared(shared.dynamic_start(Some(index))));
        }
    } else {
        for (list, out) in [
            (&function.returns, &mut code.returns),
            (&function.params, &mut code.params),
        ] {
            for param in list.iter() {
                let slot = if param.space == StateSpace::Reg {
                    let reg = frame.regs(u32::from(param.vector.unwrap_or(1)));
                    scopes.declare(&param.name, Binding::Reg(reg));
                    ParamSlot::Reg {
                        reg,
                        bits: reg_width(param.ty),
                    }
                } else {
                    let size = layout::param_size(param);
                    let offset = frame.frame_slot(size, layout::param_align(param));
                    scopes.declare(&param.name, Binding::Frame(offset));
                    ParamSlot::Frame { offset, size }
                };
                out.push(slot);
            }
        }
        frame.check(&function.name, kernel, function.span.line)?;
    }
    let Some(body) = &function.body else {
        return Ok(code);
    };
    let mut labels = HashMap::new();
    let mut count = 0u32;
    walk(body, &mut |statement| match statement {
        Statement::Label(name) => {
            labels.insert(name.clone(), count);
        }
        Statement::Instruction(_) => count += 1,
        _ => {}
    });
    // Prototype labels name no instruction, but calls refer to them.
    walk(body, &mut |statement| {
        if let Statement::CallPrototype { label, .. } = statement {
            labels.entry(label.clone()).or_insert(u32::MAX);
        }
    });
    let mut branch_targets = HashMap::new();
    walk(body, &mut |statement| {
        if let Statement::BranchTargets { label, targets } = statement {
            branch_targets.insert(label.clone(), targets.clone());
        }
    });
    let carry_reg = frame.regs(1);
    code.carry_reg = carry_reg;
    let mut decoder = Decoder {
        function: &function.name,
        function_index: index,
        scopes,
        labels: &labels,
        branch_targets: &branch_targets,
        carry_reg,
        shared,
        grid_sync: std::cell::Cell::new(false),
    };
    decode_body(body, &mut decoder, &mut frame, &mut code)?;
    code.grid_sync = decoder.grid_sync.get();
    code.num_regs = frame.regs;
    code.frame_size = frame.frame.next_multiple_of(16);
    Ok(code)
}

fn declare_variable(
    var: &Variable,
    decoder: &mut Decoder<'_>,
    frame: &mut FrameBuilder,
    kernel: bool,
) -> Result<(), LoadError> {
    match var.space {
        StateSpace::Reg => {
            let width = u32::from(var.vector.unwrap_or(1));
            match var.range {
                Some(count) => {
                    let base = frame.regs(count.saturating_mul(width));
                    decoder
                        .scopes
                        .declare(&var.name, Binding::RegRange { base, count });
                }
                None => {
                    let reg = frame.regs(width);
                    decoder.scopes.declare(&var.name, Binding::Reg(reg));
                }
            }
        }
        StateSpace::Local | StateSpace::Param | StateSpace::ParamFunc => {
            let size = layout::variable_size(var).max(1);
            let offset = frame.frame_slot(size, layout::variable_align(var));
            decoder.scopes.declare(&var.name, Binding::Frame(offset));
        }
        StateSpace::Shared | StateSpace::SharedCta | StateSpace::SharedCluster => {
            let offset = decoder.shared.offset_of(Some(decoder.function_index), var);
            decoder.scopes.declare(&var.name, Binding::Shared(offset));
        }
        _ => {}
    }
    frame.check(decoder.function, kernel, var.span.line)
}

fn decode_body(
    body: &[Statement],
    decoder: &mut Decoder<'_>,
    frame: &mut FrameBuilder,
    code: &mut FunctionCode,
) -> Result<(), LoadError> {
    for statement in body {
        match statement {
            Statement::Variable(var) => declare_variable(var, decoder, frame, code.is_kernel)?,
            Statement::Instruction(inst) => {
                let decoded = decoder.decode(inst)?;
                code.insts.push(decoded);
                code.source.push(inst.clone());
            }
            Statement::Block(inner) => {
                decoder.scopes.push();
                decode_body(inner, decoder, frame, code)?;
                decoder.scopes.pop();
            }
            Statement::CallPrototype { label, .. } => {
                decoder.scopes.declare(label, Binding::Prototype)
            }
            _ => {}
        }
    }
    Ok(())
}
