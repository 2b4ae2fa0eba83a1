//! One PTX instruction to Cranelift IR: [`Emitter::operation`] translates the instruction at a
//! pc (branches, barriers and shuffles end the thread's straight-line code), and
//! [`Emitter::finish_shuffle`] completes a shuffle once the warp has offered its values.

use chevron_ptx::interp::memory::{LOCAL_WINDOW, SHARED_WINDOW};
use chevron_ptx::ir::{Op as IrOp, Rounding, ScalarType as T};
use chevron_ptx::lowered::{
    AddrBase, BarrierKind, CallTarget, Collective, FloatOp, IntTer, Op, Space, Src, SINK,
};
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Type, Value};

use super::registers::{self, Kind};
use super::{block_red, mask_bits, mem, subset, typed_value, width, Emitter, Unsupported};
use crate::context::{RUNTIME_MEMBERS, WAITING, WARP_WAITING};

impl Emitter<'_, '_, '_> {
    pub(super) fn operation(&mut self, pc: usize) -> Result<(), Unsupported> {
        let op = &self.t.code.insts[pc].op;
        if self.remat.values().any(|&def| def == pc) {
            // Its register is computed where it is read.
            self.jump_to_pc(pc + 1);
            return Ok(());
        }
        match op {
            // A sleep is a hint (PTX: "approximately" its time, which may be none); a spin
            // loop around it yields as its fuel runs out, as any loop.
            Op::Nop | Op::Fence | Op::Nanosleep => {}
            Op::Bra { target } => {
                self.branch(pc, *target as usize);
                return Ok(());
            }
            Op::Ret | Op::Exit => {
                self.exit_thread();
                return Ok(());
            }
            Op::Trap => {
                self.fault(pc);
                return Ok(());
            }
            // An address none of the functions inlined there has (`inline.rs`): the
            // interpreter runs the block again and makes the call (or reports the address).
            Op::Call(call) if matches!(call.target, CallTarget::Indirect(_)) => {
                self.fault(pc);
                return Ok(());
            }
            Op::Call(call) => return self.service_call(pc, call),
            Op::Warp { c, mask } => {
                // Offer the value, then wait for the warp; `finish_shuffle` reads the result.
                let mut x = match c {
                    Collective::Shfl { a, .. }
                    | Collective::Vote { a, .. }
                    | Collective::MatchAny { a, .. }
                    | Collective::MatchAll { a, .. }
                    | Collective::Redux { a, .. } => self.src(*a),
                    Collective::Elect { .. } | Collective::WarpSync => {
                        self.b.ins().iconst(types::I64, 0)
                    }
                };
                if self.runtime_members.contains(&pc) {
                    let m = self.src(*mask);
                    x = self.with_members(x, m);
                }
                self.offer(x);
                let id = self.shuffle_ids[&pc];
                self.save_state(id | WARP_WAITING, pc);
                self.b.ins().jump(self.next_thread, &[]);
                return Ok(());
            }
            Op::Bar { .. } if self.counted => {
                self.counted_barrier(pc);
                return Ok(());
            }
            Op::Bar { kind, pred, .. } => {
                let id = self.resume_ids[&(pc + 1)];
                if self.shuffle_ids.is_empty() {
                    // `bar.red`'s tallies (`block_red.rs`) before the phase is marked.
                    if block_red::any(&self.t.code.insts) {
                        let red = matches!(kind, BarrierKind::Red(_)).then_some(*pred);
                        self.tally_arrival(red);
                    }
                    // No collectives: the thread's plain resume point, and the phase noted as
                    // one that ends at a barrier (`BlockContext::barrier_waits`).
                    self.save_state(id, pc + 1);
                    self.note_barrier_wait();
                } else {
                    self.save_state(id | WAITING, pc + 1);
                }
                self.b.ins().jump(self.next_thread, &[]);
                return Ok(());
            }
            Op::Mov {
                d,
                a: Src::Reg(r),
                bits,
            } if *bits == 32 && self.regs.kind(*r) == Kind::F32 => {
                // An f32 register's upper bits are zero already.
                let v = self.regs.read_f32_observed(self.b, *r);
                self.regs.write_f32(self.b, *d, v);
            }
            Op::Mov { d, a, bits } => {
                let v = self.src(*a);
                let v = mask_bits(self.b, v, u32::from(*bits));
                self.set(*d, v);
            }
            Op::IntBin { k, t, d, a, b } => {
                let (x, y) = (self.src(*a), self.src(*b));
                let v = self.int_bin(pc, *k, *t, x, y);
                self.set(*d, v);
            }
            Op::IntTer { k, t, d, a, b, c } => {
                let (x, y, z) = (self.src(*a), self.src(*b), self.src(*c));
                let v = match k {
                    IntTer::MadLo => {
                        let p = self.b.ins().imul(x, y);
                        let s = self.b.ins().iadd(p, z);
                        mask_bits(self.b, s, width(*t))
                    }
                    IntTer::MadWide => {
                        let (xv, yv) = (typed_value(self.b, *t, x), typed_value(self.b, *t, y));
                        let p = self.b.ins().imul(xv, yv);
                        let s = self.b.ins().iadd(p, z);
                        mask_bits(self.b, s, 2 * width(*t))
                    }
                    _ => self.call_evaluate(pc, x, y, z),
                };
                self.set(*d, v);
            }
            Op::Prmt { d, a, b, c, .. }
            | Op::Shf { d, a, b, c, .. }
            | Op::Lop3 { d, a, b, c, .. } => {
                let (x, y, z) = (self.src(*a), self.src(*b), self.src(*c));
                let v = self.call_evaluate(pc, x, y, z);
                self.set(*d, v);
            }
            Op::Bfi { d, a, b, c, e, .. } => {
                // Position and length packed into one operand.
                let (x, y) = (self.src(*a), self.src(*b));
                let (at, len) = (self.src(*c), self.src(*e));
                let at = mask_bits(self.b, at, 32);
                let len = self.b.ins().ishl_imm_u(len, 32);
                let z = self.b.ins().bor(at, len);
                let v = self.call_evaluate(pc, x, y, z);
                self.set(*d, v);
            }
            Op::Pack { d, parts, part } => {
                let mut v = self.b.ins().iconst(types::I64, 0);
                for (i, p) in parts.iter().enumerate() {
                    let shift = i as u32 * u32::from(*part);
                    if shift >= 64 {
                        break;
                    }
                    let x = self.src(*p);
                    let x = mask_bits(self.b, x, u32::from(*part));
                    let x = self.b.ins().ishl_imm_u(x, i64::from(shift));
                    v = self.b.ins().bor(v, x);
                }
                self.set(*d, v);
            }
            Op::Unpack { ds, a, part } => {
                let x = self.src(*a);
                for (i, &d) in ds.iter().enumerate() {
                    let shift = i as u32 * u32::from(*part);
                    let v = if shift >= 64 {
                        self.b.ins().iconst(types::I64, 0)
                    } else {
                        let v = self.b.ins().ushr_imm_u(x, i64::from(shift));
                        mask_bits(self.b, v, u32::from(*part))
                    };
                    self.set(d, v);
                }
            }
            Op::IntUn { d, a, .. } => {
                let x = self.src(*a);
                let zero = self.b.ins().iconst(types::I64, 0);
                let v = self.call_evaluate(pc, x, zero, zero);
                self.set(*d, v);
            }
            Op::Selp { bits, d, a, b, c } => {
                let (x, y, z) = (self.src(*a), self.src(*b), self.src(*c));
                let bit = self.b.ins().band_imm_u(z, 1);
                let v = self.b.ins().select(bit, x, y);
                let v = mask_bits(self.b, v, u32::from(*bits));
                self.set(*d, v);
            }
            Op::PredLogic { op, d, a, b } => {
                let (x, y) = (self.src(*a), self.src(*b));
                let v = match op {
                    IrOp::And => self.b.ins().band(x, y),
                    IrOp::Or => self.b.ins().bor(x, y),
                    _ => self.b.ins().bxor(x, y),
                };
                let v = self.b.ins().band_imm_u(v, 1);
                self.set(*d, v);
            }
            Op::Setp {
                cmp,
                ty,
                combine,
                p,
                q,
                a,
                b,
                c,
                ..
            } => {
                let (x, y) = (self.src(*a), self.src(*b));
                let r = if ty.is_float() {
                    let zero = self.b.ins().iconst(types::I64, 0);
                    self.call_evaluate(pc, x, y, zero)
                } else {
                    self.int_compare(*cmp, *ty, x, y)
                };
                let not_r = self.b.ins().bxor_imm_u(r, 1);
                let (pv, qv) = match combine {
                    None => (r, not_r),
                    Some(op) => {
                        let cv = self.src(*c);
                        let cv = self.b.ins().band_imm_u(cv, 1);
                        let f = |e: &mut Self, v: Value| match op {
                            IrOp::And => e.b.ins().band(v, cv),
                            IrOp::Or => e.b.ins().bor(v, cv),
                            _ => e.b.ins().bxor(v, cv),
                        };
                        (f(self, r), f(self, not_r))
                    }
                };
                self.set(*p, pv);
                self.set(*q, qv);
            }
            Op::Float {
                op: fop,
                m,
                d,
                a,
                b,
                c,
            } => {
                let plain = m.rnd == Rounding::Rn && !m.ftz && !m.sat && !m.relu;
                match (m.ty, fop) {
                    // f64 NaN operands propagate (see the interpreter's `directed`): f64 goes
                    // through `evaluate`.
                    (T::F32, FloatOp::Add | FloatOp::Sub | FloatOp::Mul | FloatOp::Fma)
                        if plain =>
                    {
                        let (x, y) = (self.src_f32(*a), self.src_f32(*b));
                        let z = match fop {
                            FloatOp::Fma => self.src_f32(*c),
                            _ => x,
                        };
                        let v = self.float_plain(*fop, x, y, z);
                        let v = if self.regs.is_lazy(*d) {
                            v
                        } else {
                            registers::canonical_nan(self.b, v)
                        };
                        self.regs.write_f32(self.b, *d, v);
                    }
                    _ => {
                        let (x, y, z) = (self.src(*a), self.src(*b), self.src(*c));
                        let v = self.call_evaluate(pc, x, y, z);
                        self.set(*d, v);
                    }
                }
            }
            Op::Cvt {
                dst,
                src,
                options,
                d,
                a,
            } => {
                let x = self.src(*a);
                // 8- and 16-bit results keep the interpreter's register conventions (an `.s8`
                // result is sign-extended to 16 bits): those go through `evaluate`.
                let int = |t: &T| !t.is_float() && *t != T::Pred && t.size() >= 4;
                let v = if int(dst) && int(src) && !options.sat && options.rnd.is_none() {
                    let v = typed_value(self.b, *src, x);
                    mask_bits(self.b, v, width(*dst))
                } else {
                    let zero = self.b.ins().iconst(types::I64, 0);
                    self.call_evaluate(pc, x, zero, zero)
                };
                self.set(*d, v);
            }
            Op::Cvta {
                to,
                space,
                d,
                a,
                bits,
            } => {
                let x = self.src(*a);
                let v = match (space, to) {
                    (Space::Shared, true) => self.b.ins().iadd_imm_u(x, -(SHARED_WINDOW as i64)),
                    (Space::Shared, false) => self.b.ins().iadd_imm_u(x, SHARED_WINDOW as i64),
                    (Space::Local, true) => self.b.ins().iadd_imm_u(x, -(LOCAL_WINDOW as i64)),
                    (Space::Local, false) => self.b.ins().iadd_imm_u(x, LOCAL_WINDOW as i64),
                    _ => x,
                };
                let v = mask_bits(self.b, v, u32::from(*bits));
                self.set(*d, v);
            }
            Op::Ld {
                space,
                bits,
                signed,
                ds,
                addr,
            } => {
                let len = u64::from(*bits / 8);
                let total = len * ds.len() as u64;
                let host = self.address(pc, *space, addr, total)?;
                let ty = Type::int(u16::from(*bits)).unwrap_or(types::I64);
                // The parameter buffer does not change during a launch.
                let flags = if addr.base == AddrBase::KernelParam {
                    MemFlagsData::trusted().with_readonly().with_can_move()
                } else {
                    mem()
                };
                if ds.len() > 1 && matches!(total, 8 | 16) && addr.base != AddrBase::KernelParam {
                    // One host access for the whole vector, as the interpreter (and the
                    // hardware) makes it: a look-back's (status, value) pair published with
                    // one store is never read half written.
                    let parts = super::whole::load_parts(self.b, flags, host, *bits, ds.len());
                    for (&d, v) in ds.iter().zip(parts) {
                        let v = match (*bits, *signed) {
                            (64, _) => v,
                            (_, true) => self.b.ins().sextend(types::I64, v),
                            (_, false) => self.b.ins().uextend(types::I64, v),
                        };
                        self.set(d, v);
                    }
                    self.jump_to_pc(pc + 1);
                    return Ok(());
                }
                for (i, &d) in ds.iter().enumerate() {
                    let offset = (i as u64 * len) as i32;
                    if *bits == 32 && !*signed && d != SINK && self.regs.kind(d) == Kind::F32 {
                        let v = self.b.ins().load(types::F32, flags, host, offset);
                        self.regs.write_f32(self.b, d, v);
                        continue;
                    }
                    let v = self.b.ins().load(ty, flags, host, offset);
                    let v = match (*bits, *signed) {
                        (64, _) => v,
                        (_, true) => self.b.ins().sextend(types::I64, v),
                        (_, false) => self.b.ins().uextend(types::I64, v),
                    };
                    self.set(d, v);
                }
            }
            Op::St {
                space,
                bits,
                addr,
                srcs,
            } => {
                let len = u64::from(*bits / 8);
                let total = len * srcs.len() as u64;
                // The address first: values read after it are not live across its slow path.
                let host = self.address(pc, *space, addr, total)?;
                let values: Vec<Value> = srcs
                    .iter()
                    .map(|s| match s {
                        Src::Reg(r) if *bits == 32 && self.regs.kind(*r) == Kind::F32 => {
                            self.regs.read_f32_observed(self.b, *r)
                        }
                        _ => self.src(*s),
                    })
                    .collect();
                if values.len() > 1 && matches!(total, 8 | 16) {
                    let whole = super::whole::packed(self.b, &values, *bits);
                    self.b.ins().store(mem(), whole, host, 0);
                    self.jump_to_pc(pc + 1);
                    return Ok(());
                }
                for (i, v) in values.into_iter().enumerate() {
                    let v = if *bits < 64 && self.b.func.dfg.value_type(v) == types::I64 {
                        let ty = Type::int(u16::from(*bits)).unwrap_or(types::I64);
                        self.b.ins().ireduce(ty, v)
                    } else {
                        v
                    };
                    self.b.ins().store(mem(), v, host, (i as u64 * len) as i32);
                }
            }
            Op::Atom {
                space,
                op,
                ty,
                d,
                addr,
                b,
                c,
            } => {
                let bytes = u64::from(ty.size());
                let host = self.address(pc, *space, addr, bytes)?;
                let (x, y) = (self.src(*b), self.src(*c));
                let inline = super::memory::inline_atomic(*op, *ty);
                let v = if inline && *space == Space::Shared {
                    self.shared_atomic(*op, *ty, host, x, y)
                } else if inline {
                    self.atomic(*op, *ty, host, x, y)
                } else {
                    // The interpreter's arithmetic in a compare-and-swap loop.
                    let op = self.op_address(pc);
                    let call = self.b.ins().call(self.t.atomic, &[op, host, x, y]);
                    self.b.inst_results(call)[0]
                };
                self.set(*d, v);
            }
            _ => return Err(format!("`{}` is not compiled", subset::op_name(op))),
        }
        self.jump_to_pc(pc + 1);
        Ok(())
    }

    /// Completes the collective at `pc` (`shfl`, `vote`, `match`, `redux`, `elect`,
    /// `bar.warp.sync`) once the warp has offered its values, and goes on.
    pub(super) fn finish_shuffle(&mut self, pc: usize) {
        let Op::Warp { c: collective, .. } = &self.t.code.insts[pc].op else {
            return;
        };
        let (d, p) = match collective {
            Collective::Shfl { d, p, .. }
            | Collective::MatchAll { d, p, .. }
            | Collective::Elect { d, p } => (*d, *p),
            Collective::Vote { d, .. }
            | Collective::MatchAny { d, .. }
            | Collective::Redux { d, .. } => (*d, SINK),
            Collective::WarpSync => (SINK, SINK),
        };
        let runtime = self.runtime_members.contains(&pc);
        let (value, predicate) = if let Collective::Shfl { mode, b, c, .. } = collective {
            let (y, z) = (self.src(*b), self.src(*c));
            let (value, predicate, source) = self.shuffle_inline(*mode, y, z);
            if runtime {
                // A source lane in the lane's own mask (or the lane itself) is a partner
                // whatever the other lanes' masks; else the warp's masks decide.
                let Op::Warp { mask, .. } = &self.t.code.insts[pc].op else {
                    unreachable!("a collective")
                };
                let own = self.src(*mask);
                let t = self.b.use_var(self.thread);
                let bit = Self::lane_bit(self.b, t);
                let own = self.b.ins().bor(own, bit);
                let in_own = self.b.ins().ushr(own, source);
                let in_own = self.b.ins().band_imm_u(in_own, 1);
                let (others, join) = (self.b.create_block(), self.b.create_block());
                self.b.append_block_param(join, types::I64);
                self.b
                    .ins()
                    .brif(in_own, join, &[value.into()], others, &[]);
                self.b.switch_to_block(others);
                let partners = self.call_collective(pc, true);
                let kept = self.partner_value(value, source, partners);
                self.b.ins().jump(join, &[kept.into()]);
                self.b.switch_to_block(join);
                (self.b.block_params(join)[0], predicate)
            } else {
                (value, predicate)
            }
        } else {
            let r = self.call_collective(pc, runtime);
            (
                self.b.ins().band_imm_u(r, 0xffff_ffff),
                self.b.ins().ushr_imm_u(r, 32),
            )
        };
        self.set(d, value);
        self.set(p, predicate);
        self.jump_to_pc(pc + 1);
    }

    /// [`collective`](crate::context::collective)'s answer for the current thread at the
    /// collective at `pc` (whose lanes offered their member masks when `runtime`).
    fn call_collective(&mut self, pc: usize, runtime: bool) -> Value {
        let op = self.op_address(pc);
        let mut t = self.b.use_var(self.thread);
        if runtime {
            t = self.b.ins().bor_imm_u(t, RUNTIME_MEMBERS as i64);
        }
        let call = self.b.ins().call(self.t.collective, &[self.ctx, op, t]);
        self.b.inst_results(call)[0]
    }
}
