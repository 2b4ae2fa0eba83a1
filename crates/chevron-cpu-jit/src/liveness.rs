//! Which registers are live at each instruction, so that a barrier or a yield saves and
//! restores only the registers the rest of the thread still reads.
//!
//! Classic backward dataflow over the decoded instructions of a kernel in the compiled subset,
//! each instruction's registers and successors as the lowered form describes them
//! ([`Inst::operands`], [`Inst::successors`]). A predicated instruction may not write its
//! destination, so its definition kills nothing.

use chevron_ptx::lowered::Inst;

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
            let operands = inst.operands();
            for r in operands.registers_read() {
                uses[pc * words + r as usize / 64] |= 1 << (r % 64);
            }
            if inst.guard.is_none() {
                for r in operands.writes {
                    defs[pc * words + r as usize / 64] |= 1 << (r % 64);
                }
            }
        }
        let mut live_in = vec![0u64; n * words];
        let mut out = vec![0u64; words];
        let mut changed = true;
        while changed {
            changed = false;
            for pc in (0..n).rev() {
                out.fill(0);
                for next in insts[pc].successors(pc, n) {
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

    /// The registers live on entry to instruction `pc`, in increasing order (past the end:
    /// none).
    pub fn live_at(&self, pc: usize) -> impl Iterator<Item = u32> + '_ {
        let words = self
            .live_in
            .get(pc * self.words..(pc + 1) * self.words)
            .unwrap_or(&[]);
        words.iter().enumerate().flat_map(|(w, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let bit = rest.trailing_zeros();
                    rest &= rest - 1;
                    w as u32 * 64 + bit
                })
            })
        })
    }

    /// Whether register `r` is live on entry to instruction `pc` (past the end: nothing is).
    pub fn is_live(&self, pc: usize, r: u32) -> bool {
        let index = pc * self.words + r as usize / 64;
        self.live_in
            .get(index)
            .is_some_and(|word| word & (1 << (r % 64)) != 0)
    }
}
