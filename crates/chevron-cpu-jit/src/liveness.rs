//! Which registers are live at each instruction, so that a barrier or a yield saves and
//! restores only the registers the rest of the thread still reads.
//!
//! Classic backward dataflow over the decoded instructions of a kernel in the compiled subset.
//! A predicated instruction may not write its destination, so its definition kills nothing.

use chevron_ptx::interp::inst::{Addr, AddrBase, Collective, Inst, Op, Src, SINK};

/// Registers live on entry to instruction `pc`, as a bit set per instruction.
pub struct Liveness {
    words: usize,
    live_in: Vec<u64>,
}

impl Liveness {
    /// Computes liveness for `insts` over `registers` registers.
    pub fn of(insts: &[Inst], registers: u32) -> Liveness {
        let words = (registers as usize).div_ceil(64).max(1);
        let n = insts.len();
        let mut uses = vec![0u64; n * words];
        let mut defs = vec![0u64; n * words];
        for (pc, inst) in insts.iter().enumerate() {
            let (used, defined) = registers_of(inst);
            for r in used {
                uses[pc * words + r as usize / 64] |= 1 << (r % 64);
            }
            if inst.guard.is_none() {
                for r in defined {
                    defs[pc * words + r as usize / 64] |= 1 << (r % 64);
                }
            }
        }
        let mut live_in = vec![0u64; n * words];
        let mut changed = true;
        while changed {
            changed = false;
            for pc in (0..n).rev() {
                let mut out = vec![0u64; words];
                for next in successors(&insts[pc], pc, n) {
                    for w in 0..words {
                        out[w] |= live_in[next * words + w];
                    }
                }
                for w in 0..words {
                    let value = uses[pc * words + w] | (out[w] & !defs[pc * words + w]);
                    if value != live_in[pc * words + w] {
                        live_in[pc * words + w] = value;
                        changed = true;
                    }
                }
            }
        }
        Liveness { words, live_in }
    }

    /// Whether register `r` is live on entry to instruction `pc` (past the end: nothing is).
    pub fn is_live(&self, pc: usize, r: u32) -> bool {
        let index = pc * self.words + r as usize / 64;
        self.live_in
            .get(index)
            .is_some_and(|word| word & (1 << (r % 64)) != 0)
    }
}

/// Instructions control may reach after `pc`.
pub(crate) fn successors(inst: &Inst, pc: usize, n: usize) -> Vec<usize> {
    let next = (pc + 1 < n).then_some(pc + 1);
    match inst.op {
        Op::Bra { target } => {
            let mut out = vec![target as usize];
            if inst.guard.is_some() {
                out.extend(next);
            }
            out
        }
        Op::Exit | Op::Ret | Op::Trap if inst.guard.is_none() => Vec::new(),
        _ => next.into_iter().collect(),
    }
}

/// Registers `inst` reads and writes (for the compiled subset; other operations read and write
/// nothing here, and are never compiled).
pub(crate) fn registers_of(inst: &Inst) -> (Vec<u32>, Vec<u32>) {
    let mut used = Vec::new();
    let mut src = |s: &Src| {
        if let Src::Reg(r) | Src::NotReg(r) = s {
            used.push(*r);
        }
    };
    let mut defined = Vec::new();
    let mut def = |d: u32| {
        if d != SINK {
            defined.push(d);
        }
    };
    let addr_reg = |a: &Addr| match a.base {
        AddrBase::Reg(r) => Some(r),
        _ => None,
    };
    match &inst.op {
        Op::Mov { d, a, .. } => {
            src(a);
            def(*d);
        }
        Op::IntBin { d, a, b, .. } | Op::PredLogic { d, a, b, .. } => {
            src(a);
            src(b);
            def(*d);
        }
        Op::IntTer { d, a, b, c, .. }
        | Op::Prmt { d, a, b, c, .. }
        | Op::Shf { d, a, b, c, .. }
        | Op::Selp { d, a, b, c, .. }
        | Op::Float { d, a, b, c, .. } => {
            src(a);
            src(b);
            src(c);
            def(*d);
        }
        Op::Bfi { d, a, b, c, e, .. } | Op::Lop3 { d, a, b, c, lut: e } => {
            [a, b, c, e].into_iter().for_each(&mut src);
            def(*d);
        }
        Op::Pack { d, parts, .. } => {
            parts.iter().for_each(&mut src);
            def(*d);
        }
        Op::Unpack { ds, a, .. } => {
            src(a);
            ds.iter().for_each(|d| def(*d));
        }
        Op::Setp { p, q, a, b, c, .. } => {
            src(a);
            src(b);
            src(c);
            def(*p);
            def(*q);
        }
        Op::Cvt { d, a, .. } | Op::Cvta { d, a, .. } | Op::IntUn { d, a, .. } => {
            src(a);
            def(*d);
        }
        Op::Ld { ds, addr, .. } => {
            if let Some(r) = addr_reg(addr) {
                src(&Src::Reg(r));
            }
            ds.iter().for_each(|d| def(*d));
        }
        Op::St { addr, srcs, .. } => {
            if let Some(r) = addr_reg(addr) {
                src(&Src::Reg(r));
            }
            srcs.iter().for_each(&mut src);
        }
        Op::Warp { c: collective, .. } => match collective {
            Collective::Shfl { d, p, a, b, c, .. } => {
                src(a);
                src(b);
                src(c);
                def(*d);
                def(*p);
            }
            Collective::Vote { d, a, .. }
            | Collective::MatchAny { d, a, .. }
            | Collective::Redux { d, a, .. } => {
                src(a);
                def(*d);
            }
            Collective::MatchAll { d, p, a, .. } => {
                src(a);
                def(*d);
                def(*p);
            }
            Collective::Elect { d, p } => {
                def(*d);
                def(*p);
            }
            Collective::WarpSync => {}
        },
        Op::Atom { d, addr, b, c, .. } => {
            if let Some(r) = addr_reg(addr) {
                src(&Src::Reg(r));
            }
            src(b);
            src(c);
            def(*d);
        }
        _ => {}
    }
    if let Some((g, _)) = inst.guard {
        used.push(g);
    }
    (used, defined)
}
