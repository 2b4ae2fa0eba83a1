//! Operand resolution for decoding: registers, special registers, immediates, symbols and
//! addresses of one function, turned into [`Src`], destinations and [`Addr`].

use std::collections::HashMap;

use super::decode::SharedLayout;
use super::scope::{Binding, Scopes};
use crate::interp::fault::LoadError;
use crate::interp::inst::{Addr, AddrBase, ClusterSpecial, Inst, Op, Space, Special, Src, SINK};
use crate::interp::memory::{FUNCTION_WINDOW, PARAM_WINDOW, SHARED_WINDOW};
use crate::ir::{self, AddressBase, Operand, RegisterRef, ScalarType, StateSpace};

/// The phrase every "cannot run this" message contains.
pub(crate) const NOT_SUPPORTED: &str = "not supported on the CPU device";

/// Decodes the instructions of one function.
pub(crate) struct Decoder<'a> {
    pub function: &'a str,
    pub function_index: usize,
    pub scopes: Scopes<'a>,
    pub labels: &'a HashMap<String, u32>,
    /// `.branchtargets` lists by label.
    pub branch_targets: &'a HashMap<String, Vec<String>>,
    pub carry_reg: u32,
    pub shared: &'a SharedLayout,
    /// Set when the function reads the grid-synchronisation workspace (`%envreg1`/`%envreg2`).
    pub grid_sync: std::cell::Cell<bool>,
}

/// Maps `%tid` and friends (with their component) to a source.
fn special(name: &str, component: Option<u8>) -> Option<Src> {
    let c = component.unwrap_or(0);
    let s = |sp| Some(Src::Special(sp));
    match name {
        "%tid" => s(Special::Tid(c)),
        "%ntid" => s(Special::Ntid(c)),
        "%ctaid" => s(Special::Ctaid(c)),
        "%nctaid" => s(Special::Nctaid(c)),
        "%clusterid" => s(Special::Cluster(ClusterSpecial::Id(c))),
        "%nclusterid" => s(Special::Cluster(ClusterSpecial::Nid(c))),
        "%laneid" => s(Special::Laneid),
        "%warpid" => s(Special::Warpid),
        "%nwarpid" => Some(Src::Imm(64)),
        "%smid" => s(Special::Smid),
        "%nsmid" => Some(Src::Imm(1)),
        "%gridid" => s(Special::Gridid),
        "%lanemask_eq" => s(Special::LanemaskEq),
        "%lanemask_lt" => s(Special::LanemaskLt),
        "%lanemask_le" => s(Special::LanemaskLe),
        "%lanemask_gt" => s(Special::LanemaskGt),
        "%lanemask_ge" => s(Special::LanemaskGe),
        "%clock" | "%clock_hi" => s(Special::Clock),
        "%clock64" => s(Special::Clock64),
        "%globaltimer" => s(Special::Globaltimer),
        "%globaltimer_lo" => s(Special::GlobaltimerLo),
        "%globaltimer_hi" => s(Special::GlobaltimerHi),
        "%dynamic_smem_size" => s(Special::DynamicSmem),
        "%total_smem_size" | "%aggr_smem_size" => s(Special::TotalSmem),
        "%cluster_ctaid" => s(Special::Cluster(ClusterSpecial::Ctaid(c))),
        "%cluster_nctaid" => s(Special::Cluster(ClusterSpecial::Nctaid(c))),
        "%cluster_ctarank" => s(Special::Cluster(ClusterSpecial::Ctarank)),
        "%cluster_nctarank" => s(Special::Cluster(ClusterSpecial::Nctarank)),
        "%is_explicit_cluster" => s(Special::Cluster(ClusterSpecial::IsExplicit)),
        "%current_graph_exec" => Some(Src::Imm(0)),
        // The predefined constant of PTX.
        "WARP_SZ" => Some(Src::Imm(32)),
        "%envreg1" => s(Special::WorkspaceHi),
        "%envreg2" => s(Special::WorkspaceLo),
        _ if name.starts_with("%envreg")
            || name.starts_with("%pm")
            || name.starts_with("%reserved_smem_offset") =>
        {
            Some(Src::Imm(0))
        }
        _ => None,
    }
}

impl Decoder<'_> {
    /// A load error at `inst`.
    pub fn error(&self, inst: &ir::Instruction, message: impl Into<String>) -> LoadError {
        LoadError::new(Some(self.function), inst.span.line, message)
    }

    /// Resolves a register reference.
    pub fn register(&self, inst: &ir::Instruction, r: &RegisterRef) -> Result<Src, LoadError> {
        match self.scopes.resolve(&r.name) {
            Some(Binding::Reg(index)) => Ok(Src::Reg(index + u32::from(r.component.unwrap_or(0)))),
            Some(_) => Err(self.error(inst, format!("`{}` is not a register", r.name))),
            None => {
                if r.name == "%envreg1" || r.name == "%envreg2" {
                    self.grid_sync.set(true);
                }
                special(&r.name, r.component)
                    .ok_or_else(|| self.error(inst, format!("unknown register `{}`", r.name)))
            }
        }
    }

    /// The value a symbol stands for as an operand (`mov.u64 %rd, sym`).
    fn symbol_value(
        &self,
        inst: &ir::Instruction,
        name: &str,
        offset: i64,
    ) -> Result<Src, LoadError> {
        let off = offset as u64;
        Ok(match self.scopes.resolve(name) {
            Some(Binding::Global(addr)) | Some(Binding::Shared(addr)) => {
                Src::Imm(addr.wrapping_add(off))
            }
            Some(Binding::Frame(frame)) => Src::Frame(frame.wrapping_add(off)),
            Some(Binding::KernelParam(p)) => Src::Imm(PARAM_WINDOW + p.wrapping_add(off)),
            Some(Binding::Function(index)) => {
                Src::Imm(FUNCTION_WINDOW + 16 * u64::from(index) + off)
            }
            Some(Binding::Reg(_)) | Some(Binding::RegRange { .. }) => {
                return self.register(
                    inst,
                    &RegisterRef {
                        name: name.to_string(),
                        component: None,
                    },
                )
            }
            Some(Binding::Prototype) | None => match special(name, None) {
                Some(src) => src,
                None => return Err(self.error(inst, format!("unknown symbol `{name}`"))),
            },
        })
    }

    /// A source operand of type `ty`.
    pub fn src(
        &self,
        inst: &ir::Instruction,
        op: &Operand,
        ty: ScalarType,
    ) -> Result<Src, LoadError> {
        match op {
            Operand::Register(r) => self.register(inst, r),
            Operand::Not(r) => match self.register(inst, r)? {
                Src::Reg(index) => Ok(Src::NotReg(index)),
                _ => Err(self.error(inst, format!("cannot negate `{}`", r.name))),
            },
            Operand::Immediate(imm) => Ok(Src::Imm(super::immediate_bits(*imm, ty))),
            Operand::Symbol(name) => self.symbol_value(inst, name, 0),
            Operand::SymbolOffset(name, offset) => self.symbol_value(inst, name, *offset),
            Operand::Sink => Ok(Src::Imm(0)),
            _ => Err(self.error(inst, "unexpected operand form")),
        }
    }

    /// Operand `i` as a source (missing operands are an error).
    pub fn src_at(
        &self,
        inst: &ir::Instruction,
        i: usize,
        ty: ScalarType,
    ) -> Result<Src, LoadError> {
        let op = inst
            .operands
            .get(i)
            .ok_or_else(|| self.error(inst, format!("expected at least {} operands", i + 1)))?;
        self.src(inst, op, ty)
    }

    /// A destination register (`_` gives [`SINK`]).
    pub fn dst(&self, inst: &ir::Instruction, op: &Operand) -> Result<u32, LoadError> {
        match op {
            Operand::Sink => Ok(SINK),
            Operand::Register(r) => match self.register(inst, r)? {
                Src::Reg(index) => Ok(index),
                _ => Err(self.error(inst, format!("cannot write `{}`", r.name))),
            },
            _ => Err(self.error(inst, "destination must be a register")),
        }
    }

    /// Operand `i` as a destination.
    pub fn dst_at(&self, inst: &ir::Instruction, i: usize) -> Result<u32, LoadError> {
        let op = inst
            .operands
            .get(i)
            .ok_or_else(|| self.error(inst, format!("expected at least {} operands", i + 1)))?;
        self.dst(inst, op)
    }

    /// Destination list of a vector operand `{a, b, …}` or a single register.
    pub fn dsts(&self, inst: &ir::Instruction, op: &Operand) -> Result<Box<[u32]>, LoadError> {
        match op {
            Operand::Vector(items) => items.iter().map(|o| self.dst(inst, o)).collect(),
            other => Ok(vec![self.dst(inst, other)?].into_boxed_slice()),
        }
    }

    /// Source list of a vector operand or a single source.
    pub fn srcs(
        &self,
        inst: &ir::Instruction,
        op: &Operand,
        ty: ScalarType,
    ) -> Result<Box<[Src]>, LoadError> {
        match op {
            Operand::Vector(items) => items.iter().map(|o| self.src(inst, o, ty)).collect(),
            other => Ok(vec![self.src(inst, other, ty)?].into_boxed_slice()),
        }
    }

    /// An address operand for an access in `space`.
    pub fn addr(
        &self,
        inst: &ir::Instruction,
        op: &Operand,
        space: Space,
    ) -> Result<Addr, LoadError> {
        let (base, offset) = match op {
            Operand::Address(a) => (&a.base, a.offset),
            // `ld.param.u32 %r, sym;` without brackets is not PTX, but be lenient.
            Operand::Symbol(name) => return self.symbol_addr(inst, name, 0, space),
            _ => return Err(self.error(inst, "expected an address `[…]`")),
        };
        match base {
            AddressBase::Register(r) => match self.register(inst, r)? {
                Src::Reg(index) => Ok(Addr {
                    base: AddrBase::Reg(index),
                    offset,
                }),
                _ => Err(self.error(inst, format!("`{}` cannot be an address base", r.name))),
            },
            AddressBase::Absolute => Ok(Addr {
                base: AddrBase::Abs,
                offset,
            }),
            AddressBase::Symbol(name) => self.symbol_addr(inst, name, offset, space),
        }
    }

    fn symbol_addr(
        &self,
        inst: &ir::Instruction,
        name: &str,
        offset: i64,
        space: Space,
    ) -> Result<Addr, LoadError> {
        let abs = |a: u64| {
            Ok(Addr {
                base: AddrBase::Abs,
                offset: a.wrapping_add(offset as u64) as i64,
            })
        };
        match self.scopes.resolve(name) {
            Some(Binding::Global(addr)) => abs(addr),
            Some(Binding::Shared(off)) => abs(if space == Space::Generic {
                SHARED_WINDOW + off
            } else {
                off
            }),
            Some(Binding::Frame(frame)) => {
                if space == Space::Generic {
                    return Err(self.error(
                        inst,
                        format!("generic access to frame variable `{name}` by name"),
                    ));
                }
                Ok(Addr {
                    base: AddrBase::Frame,
                    offset: frame as i64 + offset,
                })
            }
            Some(Binding::KernelParam(p)) => match space {
                Space::Generic => abs(PARAM_WINDOW + p),
                _ => Ok(Addr {
                    base: AddrBase::KernelParam,
                    offset: p as i64 + offset,
                }),
            },
            Some(Binding::Reg(index)) => Ok(Addr {
                base: AddrBase::Reg(index),
                offset,
            }),
            _ => Err(self.error(inst, format!("unknown symbol `{name}` in address"))),
        }
    }

    /// Label operand `i` as an instruction index.
    pub fn label_at(&self, inst: &ir::Instruction, i: usize) -> Result<u32, LoadError> {
        match inst.operands.get(i) {
            Some(Operand::Symbol(name)) => self
                .labels
                .get(name)
                .copied()
                .filter(|&t| t != u32::MAX)
                .ok_or_else(|| self.error(inst, format!("unknown label `{name}`"))),
            _ => Err(self.error(inst, "expected a label")),
        }
    }

    /// Resolves the guard predicate.
    pub fn guard(&self, inst: &ir::Instruction) -> Result<Option<(u32, bool)>, LoadError> {
        let Some(guard) = &inst.guard else {
            return Ok(None);
        };
        let reg = RegisterRef {
            name: guard.register.clone(),
            component: None,
        };
        match self.register(inst, &reg)? {
            Src::Reg(index) => Ok(Some((index, guard.negated))),
            _ => Err(self.error(inst, "guard must be a predicate register")),
        }
    }

    /// Decodes one instruction.
    pub fn decode(&mut self, inst: &ir::Instruction) -> Result<Inst, LoadError> {
        if let Some(what) = super::unsupported_opcode(inst) {
            return Err(self.error(inst, format!("`{what}` is not supported on the CPU device")));
        }
        let guard = self.guard(inst)?;
        let op = match crate::interp::exec::decode(self, inst) {
            Ok(op) => op,
            // Other kernels of the module stay usable: launching one that reaches this
            // instruction fails with this message.
            Err(e) if e.message.contains(NOT_SUPPORTED) => Op::Unsupported(e.message),
            Err(e) => return Err(e),
        };
        Ok(Inst { guard, op })
    }
}

/// The state space of a memory instruction (no space modifier: generic).
pub(crate) fn space_of(inst: &ir::Instruction) -> Space {
    match inst.space() {
        Some(StateSpace::Global) => Space::Global,
        Some(StateSpace::Const) => Space::Const,
        Some(StateSpace::Shared | StateSpace::SharedCta | StateSpace::SharedCluster) => {
            Space::Shared
        }
        Some(StateSpace::Local) => Space::Local,
        Some(StateSpace::Param | StateSpace::ParamEntry | StateSpace::ParamFunc) => Space::Param,
        _ => Space::Generic,
    }
}
