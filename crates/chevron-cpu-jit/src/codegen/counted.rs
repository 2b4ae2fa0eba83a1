//! Loops that end by themselves: a backward branch taken while an unsigned counter, raised by
//! a constant on every pass, stays below a small constant bound. Such a branch needs no fuel
//! (it is taken at most `bound` times per entry to the loop; whatever repeats the entry burns
//! fuel itself), which keeps the counter of the loop's fuel out of the innermost loops.

use chevron_ptx::ir::Compare;
use chevron_ptx::lowered::{Inst, IntBin, Op, Src};

/// The largest bound (and step) accepted: at most this many passes without a fuel check.
const MAX_PASSES: u64 = 1 << 16;

/// Whether the backward branch at `pc` (to `target`) closes such a loop:
///
/// ```text
/// target: ...                       (r written nowhere else in target..=pc)
///         add.u32 r, r, STEP        (1 <= STEP)
///         ...                       (straight line: no branch, no branch target)
///         setp.lt.u32 p, r, BOUND   (BOUND <= 2^16)
/// pc:     @p bra target
/// ```
///
/// and no branch from outside `target..=pc` lands inside it past `target`, so every pass
/// raises the counter, which reaches the bound without wrapping.
pub(crate) fn ends_by_itself(insts: &[Inst], pc: usize, target: usize) -> bool {
    let Some(Inst {
        guard: Some((p, false)),
        op: Op::Bra { .. },
    }) = insts.get(pc)
    else {
        return false;
    };
    if target > pc || pc < 2 {
        return false;
    }
    let Some((r, compare_bits)) = bound_check(&insts[pc - 1], *p) else {
        return false;
    };
    // The counter's one write in the loop, in the straight line before the compare.
    let writes: Vec<usize> = (target..=pc)
        .filter(|&i| insts[i].operands().writes.contains(&r))
        .collect();
    let [add_pc] = writes[..] else {
        return false;
    };
    if add_pc >= pc - 1 || !raises(&insts[add_pc], r, compare_bits) {
        return false;
    }
    let straight = (add_pc..pc - 1).all(|i| {
        insts[i].guard.is_none() && !matches!(insts[i].op, Op::Bra { .. } | Op::Bar { .. })
    });
    if !straight {
        return false;
    }
    // Nothing enters the loop past its head, nor between the counter's write and the branch.
    insts.iter().enumerate().all(|(from, inst)| match inst.op {
        Op::Bra { target: t } => {
            let t = t as usize;
            let inside = (target..=pc).contains(&from);
            let lands_past_head = t > target && t <= pc;
            !(lands_past_head && (!inside || t > add_pc))
        }
        _ => true,
    })
}

/// The counter of a loop that [ends by itself](ends_by_itself) (closed by the branch at `pc`
/// to `target`): its register, its bound and its step. A pass entered with the counter below
/// the bound is one of at most `ceil(bound / step)` passes.
pub(crate) struct Counter {
    pub reg: u32,
    pub bound: u64,
    pub step: u64,
}

/// [`Counter`] of the loop closed by the branch at `pc`, when it ends by itself.
pub(crate) fn counter(insts: &[Inst], pc: usize, target: usize) -> Option<Counter> {
    if !ends_by_itself(insts, pc, target) {
        return None;
    }
    let Op::Setp {
        a: Src::Reg(reg),
        b: Src::Imm(bound),
        ..
    } = insts[pc - 1].op
    else {
        return None;
    };
    let (step, _) = insts[target..pc].iter().find_map(|inst| raise(inst, reg))?;
    Some(Counter { reg, bound, step })
}

/// `setp.lt.u32 p, r, BOUND` (unsigned, bound small): the counter and the compare's width.
fn bound_check(inst: &Inst, p: u32) -> Option<(u32, u32)> {
    let Op::Setp {
        cmp,
        ty,
        combine: None,
        p: written,
        a: Src::Reg(r),
        b: Src::Imm(bound),
        set_ty: None,
        ..
    } = &inst.op
    else {
        return None;
    };
    let unsigned = matches!(cmp, Compare::Lo) || (*cmp == Compare::Lt && !ty.is_signed());
    let integer = !ty.is_float() && ty.size() >= 4;
    (inst.guard.is_none() && *written == p && unsigned && integer && *bound <= MAX_PASSES)
        .then_some((*r, ty.size() * 8))
}

/// `add r, r, STEP` (1 <= STEP <= 2^16), unguarded, at least as wide as the compare.
fn raises(inst: &Inst, r: u32, compare_bits: u32) -> bool {
    raise(inst, r).is_some_and(|(_, bits)| bits >= compare_bits)
}

/// `add r, r, STEP` (1 <= STEP <= 2^16), unguarded: STEP and the add's width in bits.
pub(crate) fn raise(inst: &Inst, r: u32) -> Option<(u64, u32)> {
    let Op::IntBin {
        k: IntBin::Add,
        t,
        d,
        a,
        b,
    } = &inst.op
    else {
        return None;
    };
    let step = match (a, b) {
        (Src::Reg(x), Src::Imm(step)) | (Src::Imm(step), Src::Reg(x)) if *x == r => *step,
        _ => return None,
    };
    (inst.guard.is_none() && *d == r && (1..=MAX_PASSES).contains(&step))
        .then_some((step, t.size() * 8))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use chevron_ptx::interp::{DeviceMemory, Program};

    use super::ends_by_itself;

    /// Whether the last backward branch of a kernel with `body` (between `TOP:` and the
    /// branch) closes a loop that ends by itself.
    fn last_loop_ends(body: &str) -> bool {
        let ptx = format!(
            ".version 7.0\n.target sm_70\n.address_size 64\n\
             .visible .entry k(.param .u32 n)\n{{\n\
             .reg .pred %p<3>; .reg .b32 %r<8>;\n\
             ld.param.u32 %r1, [n]; mov.u32 %r2, 0; mov.u32 %r3, 0;\n{body}\nret;\n}}\n"
        );
        let module = chevron_ptx::parse(&ptx).expect("parses");
        let memory = Arc::new(DeviceMemory::new(0));
        let program = Program::load(&module, &memory).expect("loads");
        let kernel = program.kernel("k").expect("kernel");
        let (code, _) = program.decoded(&kernel).expect("decoded");
        let (pc, target) = code
            .insts
            .iter()
            .enumerate()
            .rev()
            .find_map(|(pc, inst)| match inst.op {
                chevron_ptx::lowered::Op::Bra { target } if target as usize <= pc => {
                    Some((pc, target as usize))
                }
                _ => None,
            })
            .expect("a backward branch");
        ends_by_itself(&code.insts, pc, target)
    }

    #[test]
    fn a_counter_below_a_constant_ends_by_itself() {
        assert!(last_loop_ends(
            "TOP: add.s32 %r3, %r3, %r2; add.s32 %r2, %r2, 1; \
             setp.lt.u32 %p1, %r2, 16; @%p1 bra TOP;"
        ));
    }

    #[test]
    fn other_loops_keep_their_fuel() {
        for body in [
            // A bound in a register (the counter may wrap below it).
            "TOP: add.s32 %r2, %r2, 1; setp.lt.u32 %p1, %r2, %r1; @%p1 bra TOP;",
            // A signed compare (a negative start runs for 2^31 passes).
            "TOP: add.s32 %r2, %r2, 1; setp.lt.s32 %p1, %r2, 16; @%p1 bra TOP;",
            // A counter not raised on every pass.
            "TOP: setp.eq.u32 %p2, %r1, 0; @%p2 add.s32 %r2, %r2, 1; \
             setp.lt.u32 %p1, %r2, 16; @%p1 bra TOP;",
            // A counter lowered again in the loop.
            "TOP: sub.s32 %r2, %r2, 1; add.s32 %r2, %r2, 2; \
             setp.lt.u32 %p1, %r2, 16; @%p1 bra TOP;",
            // A branch into the loop past the counter's raise.
            "setp.eq.u32 %p2, %r1, 0; @%p2 bra IN; \
             TOP: add.s32 %r2, %r2, 1; IN: setp.lt.u32 %p1, %r2, 16; @%p1 bra TOP;",
            // A narrower raise than the compare (wraps at 2^16).
            "TOP: add.u16 %r2, %r2, 1; setp.lt.u32 %p1, %r2, 65536; @%p1 bra TOP;",
        ] {
            assert!(!last_loop_ends(body), "{body}");
        }
    }
}
