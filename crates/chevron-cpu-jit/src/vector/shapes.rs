//! How each register's four values relate at each instruction: the same in all four threads,
//! an arithmetic sequence (`%tid.x`, addresses of consecutive elements), or anything. A
//! forward dataflow over the kernel, flow-sensitive so that a register reused for another
//! value (`shl %r11, %r11, 2` after `mad %r11, ...`) keeps a shape at each point; a register
//! whose live shapes meet at a join is [`Shape::Varying`] everywhere.

use chevron_ptx::ir::ScalarType as T;
use chevron_ptx::lowered::{AddrBase, Inst, IntBin, IntTer, IntUn, Op, Special, Src};

use crate::liveness::Liveness;

/// How a register's four values relate, in its width's arithmetic. A group runs in step, so
/// this holds wherever the vector function runs; values restored from the threads' slots
/// (which the scalar code may have written) are checked against it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// The same in all four threads: one scalar.
    Uniform,
    /// Thread `i` holds `v + k * i` (k ≠ 0): one scalar, `v`.
    Affine(i64),
    /// Anything: a vector (32 bits) or four scalars (64 bits).
    Varying,
}

impl Shape {
    fn stride(self) -> Option<i64> {
        match self {
            Shape::Uniform => Some(0),
            Shape::Affine(k) => Some(k),
            Shape::Varying => None,
        }
    }

    fn of_stride(k: Option<i64>) -> Shape {
        match k {
            Some(0) => Shape::Uniform,
            Some(k) if k.unsigned_abs() < 1 << 24 => Shape::Affine(k),
            _ => Shape::Varying,
        }
    }

    /// Uniform when all are, else Varying.
    fn all_uniform(shapes: &[Shape]) -> Shape {
        if shapes.iter().all(|s| *s == Shape::Uniform) {
            Shape::Uniform
        } else {
            Shape::Varying
        }
    }
}

/// The shape of every register on entry to every instruction, and of what each writes.
pub struct Shapes {
    registers: usize,
    /// `insts × registers`, on entry (registers not live there: whatever came last).
    at: Vec<Shape>,
    /// Per instruction: the shape of what it writes.
    pub defs: Vec<Shape>,
}

/// The most instructions times registers whose shapes are computed: they are kept for every
/// register at every instruction, so a kernel past this is not planned four-wide (nor
/// coalesced, `coalesce.rs`). Thrust's merge sort of 9,443 instructions and 9,744 registers
/// (92 million) took 3.3-5 s to find it had no four-wide form; its sibling of 2,958
/// instructions and 3,205 registers (9.5 million) is coalesced to 114 registers and planned in
/// 5 ms; kernels of 100,000 to 340,000 took 1-6 ms.
pub const MOST_CELLS: u64 = 1 << 24;

/// Whether [`Shapes::compute`] takes `insts` instructions over `registers` registers.
pub fn computable(insts: usize, registers: u32) -> bool {
    (insts as u64).saturating_mul(u64::from(registers)) <= MOST_CELLS
}

impl Shapes {
    /// The shape of operand `s` on entry to instruction `pc`.
    pub fn of(&self, pc: usize, s: &Src) -> Shape {
        match s {
            Src::Reg(r) if (*r as usize) < self.registers => self
                .at
                .get(pc * self.registers + *r as usize)
                .copied()
                .unwrap_or(Shape::Uniform),
            _ => operand_shape(s, &|_| Shape::Uniform),
        }
    }

    /// Computes the shapes of `insts` over `registers` registers, whose liveness is `live`.
    pub fn compute(insts: &[Inst], registers: u32, live: &Liveness) -> Shapes {
        let n = registers as usize;
        let mut forced = vec![false; n];
        loop {
            let (at, defs, conflicts) = flow(insts, n, live, &forced);
            let fresh: Vec<usize> = conflicts.into_iter().filter(|&r| !forced[r]).collect();
            if fresh.is_empty() {
                let at = at
                    .into_iter()
                    .flat_map(|state| match state {
                        Some(state) => state
                            .into_iter()
                            .map(|s| s.unwrap_or(Shape::Varying))
                            .collect(),
                        None => vec![Shape::Varying; n],
                    })
                    .collect();
                return Shapes {
                    registers: n,
                    at,
                    defs,
                };
            }
            for r in fresh {
                forced[r] = true;
            }
        }
    }
}

/// Per instruction: each register's shape on entry (`None` in the outer option: not reached;
/// in the inner: not live, no constraint).
type States = Vec<Option<Vec<Option<Shape>>>>;

/// One round of the dataflow with the `forced` registers varying: the states, the shape each
/// instruction writes, and the live registers whose shapes met at a join.
fn flow(
    insts: &[Inst],
    n: usize,
    live: &Liveness,
    forced: &[bool],
) -> (States, Vec<Shape>, Vec<usize>) {
    let count = insts.len();
    let mut states: States = vec![None; count];
    let mut defs = vec![Shape::Varying; count];
    let mut conflicts = Vec::new();
    if count == 0 {
        return (states, defs, conflicts);
    }
    states[0] = Some(
        (0..n)
            .map(|r| {
                Some(if forced[r] {
                    Shape::Varying
                } else {
                    Shape::Uniform
                })
            })
            .collect(),
    );
    let mut changed = true;
    while changed {
        changed = false;
        for pc in 0..count {
            let Some(mut out) = states[pc].clone() else {
                continue;
            };
            let inst = &insts[pc];
            let read = |r: u32| {
                out.get(r as usize)
                    .copied()
                    .flatten()
                    .unwrap_or(Shape::Uniform)
            };
            let mut written = transfer(&inst.op, &read);
            let targets = inst.operands().writes;
            if targets
                .iter()
                .any(|&d| forced.get(d as usize) == Some(&true))
            {
                written = Shape::Varying;
            }
            defs[pc] = written;
            for d in targets {
                if let Some(slot) = out.get_mut(d as usize) {
                    *slot = match (inst.guard.is_some(), *slot) {
                        (true, Some(old)) if old != written => {
                            conflicts.push(d as usize);
                            Some(Shape::Varying)
                        }
                        _ => Some(written),
                    };
                }
            }
            for next in inst.successors(pc, count) {
                let target = states[next].get_or_insert_with(|| vec![None; n]);
                for r in live.live_at(next).map(|r| r as usize).filter(|&r| r < n) {
                    let merged = match (target[r], out[r]) {
                        (None, x) => x,
                        (x, None) => x,
                        (Some(a), Some(b)) if a == b => Some(a),
                        (Some(_), Some(_)) => {
                            conflicts.push(r);
                            Some(Shape::Varying)
                        }
                    };
                    if target[r] != merged {
                        target[r] = merged;
                        changed = true;
                    }
                }
            }
        }
    }
    (states, defs, conflicts)
}

/// The shape of an operand whose register reads as `read` gives.
fn operand_shape(s: &Src, read: &dyn Fn(u32) -> Shape) -> Shape {
    match s {
        Src::Reg(r) => read(*r),
        // A group is consecutive threads of the block, a divisor of a warp's 32 and starting
        // at a multiple of its size: its lanes are consecutive too.
        Src::Special(Special::Tid(0) | Special::Laneid) => Shape::Affine(1),
        _ => Shape::Uniform,
    }
}

/// The shape of what `op` writes, its registers reading as `read` gives.
fn transfer(op: &Op, read: &dyn Fn(u32) -> Shape) -> Shape {
    let sh = |s: &Src| operand_shape(s, read);
    let imm = |s: &Src| match s {
        Src::Imm(v) => Some(*v as i64),
        _ => None,
    };
    let add = |x: Shape, y: Shape, sub: bool| {
        let k = x
            .stride()
            .zip(y.stride())
            .map(|(a, b)| if sub { a - b } else { a + b });
        Shape::of_stride(k)
    };
    // `wide`: the type of a widening multiply, whose 32-bit constant is sign- or
    // zero-extended as the type says (a wrapping one's stride is the same either way).
    let mul = |a: &Src, b: &Src, wide: Option<T>| {
        let constant = |s: &Src| {
            imm(s).map(|c| match wide {
                Some(t) if t.is_signed() => i64::from(c as i32),
                Some(_) => i64::from(c as u32),
                None => c,
            })
        };
        match (sh(a), sh(b)) {
            (Shape::Uniform, Shape::Uniform) => Shape::Uniform,
            (Shape::Affine(k), _) if constant(b).is_some() => {
                Shape::of_stride(constant(b).and_then(|c| k.checked_mul(c)))
            }
            (_, Shape::Affine(k)) if constant(a).is_some() => {
                Shape::of_stride(constant(a).and_then(|c| k.checked_mul(c)))
            }
            _ => Shape::Varying,
        }
    };
    match op {
        Op::Cvt { dst, src, a, .. } if dst.is_float() || src.is_float() => {
            Shape::all_uniform(&[sh(a)])
        }
        Op::Mov { a, .. } | Op::Cvta { a, .. } | Op::Cvt { a, .. } => sh(a),
        Op::PredLogic { a, b, .. } => Shape::all_uniform(&[sh(a), sh(b)]),
        Op::IntBin { k, t, a, b, .. } => match k {
            IntBin::Add => add(sh(a), sh(b), false),
            IntBin::Sub => add(sh(a), sh(b), true),
            IntBin::MulLo => mul(a, b, None),
            IntBin::MulWide => mul(a, b, Some(*t)),
            IntBin::Shl => match (sh(a), imm(b)) {
                (Shape::Affine(k), Some(c)) if c < 24 => Shape::of_stride(Some(k << c)),
                (x, _) => Shape::all_uniform(&[x, sh(b)]),
            },
            _ => Shape::all_uniform(&[sh(a), sh(b)]),
        },
        Op::IntTer { k, t, a, b, c, .. } => {
            let wide = (*k == IntTer::MadWide).then_some(*t);
            add(mul(a, b, wide), sh(c), false)
        }
        Op::Setp { a, b, .. } => Shape::all_uniform(&[sh(a), sh(b)]),
        Op::Selp { a, b, c, .. } | Op::Float { a, b, c, .. } => {
            Shape::all_uniform(&[sh(a), sh(b), sh(c)])
        }
        Op::Bfi { a, b, c, e, .. } => Shape::all_uniform(&[sh(a), sh(b), sh(c), sh(e)]),
        Op::Pack { parts, .. } => Shape::all_uniform(&parts.iter().map(sh).collect::<Vec<_>>()),
        Op::Unpack { a, .. } => Shape::all_uniform(&[sh(a)]),
        Op::IntUn {
            k: IntUn::Neg, a, ..
        } => Shape::of_stride(sh(a).stride().map(|k| -k)),
        Op::Ld { addr, .. } => match addr.base {
            AddrBase::Reg(r) => Shape::all_uniform(&[read(r)]),
            _ => Shape::Uniform,
        },
        _ => Shape::Varying,
    }
}

/// The 32-bit operands `op` widens to 64 bits.
pub fn widens(op: &Op) -> Vec<&Src> {
    match op {
        Op::IntBin {
            k: IntBin::MulWide,
            a,
            b,
            ..
        }
        | Op::IntTer {
            k: IntTer::MadWide,
            a,
            b,
            ..
        } => vec![a, b],
        Op::Cvt { dst, src, a, .. } if dst.size() == 8 && src.size() == 4 => vec![a],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use chevron_ptx::interp::{DeviceMemory, Program};
    use chevron_ptx::lowered::Src;

    use super::{Shape, Shapes};

    /// The shapes of `body` (a kernel with registers `%r<16>`, `%rd<8>`, `%p<4>`) and its code.
    fn shapes_of(body: &str) -> (Shapes, Vec<chevron_ptx::lowered::Inst>) {
        let text = format!(
            ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k(.param .u64 p)\n\
             {{ .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<8>;\n{body}\nret; }}"
        );
        let module = chevron_ptx::parse(&text).expect("parses");
        let memory = Arc::new(DeviceMemory::new(0));
        let program = Program::load(&module, &memory).expect("loads");
        let kernel = program.kernel("k").unwrap();
        let (code, _) = program.decoded(&kernel).unwrap();
        (
            Shapes::compute(
                &code.insts,
                code.num_regs,
                &crate::liveness::Liveness::of(&code.insts, code.num_regs),
            ),
            code.insts.clone(),
        )
    }

    /// The shape of the `n`-th operand register of the instruction at `pc`.
    fn operand(
        shapes: &Shapes,
        insts: &[chevron_ptx::lowered::Inst],
        pc: usize,
        n: usize,
    ) -> Shape {
        let used: Vec<u32> = insts[pc].operands().registers_read().collect();
        shapes.of(pc, &Src::Reg(used[n]))
    }

    #[test]
    fn a_register_reused_for_another_stride_has_each_where_it_holds() {
        let (shapes, insts) = shapes_of(
            "mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y;\n\
             mad.lo.s32 %r3, %r2, 16, %r1;\n\
             shl.b32 %r3, %r3, 2;\n\
             add.s32 %r4, %r3, 8;",
        );
        assert_eq!(operand(&shapes, &insts, 3, 0), Shape::Affine(1));
        assert_eq!(operand(&shapes, &insts, 4, 0), Shape::Affine(4));
        assert_eq!(shapes.defs[4], Shape::Affine(4));
    }

    #[test]
    fn a_stride_that_grows_round_a_loop_is_varying_and_a_counter_uniform() {
        let (shapes, insts) = shapes_of(
            "mov.u32 %r1, %tid.x; mov.u32 %r2, 0;\n\
             L: shl.b32 %r1, %r1, 1; add.s32 %r2, %r2, 1;\n\
             setp.lt.u32 %p1, %r2, 4; @%p1 bra L;\n\
             add.s32 %r3, %r1, %r2;",
        );
        // The loop head merges stride 1 (from before) and 2, 4, ... (from the back edge).
        assert_eq!(operand(&shapes, &insts, 6, 0), Shape::Varying);
        assert_eq!(operand(&shapes, &insts, 6, 1), Shape::Uniform);
        assert_eq!(shapes.defs[4], Shape::Uniform, "the loop's compare");
    }

    #[test]
    fn loads_from_one_address_are_uniform_and_from_consecutive_ones_varying() {
        let (shapes, _) = shapes_of(
            "ld.param.u64 %rd1, [p]; ld.global.u32 %r1, [%rd1];\n\
             mov.u32 %r2, %tid.x; mul.wide.u32 %rd2, %r2, 4; add.s64 %rd3, %rd1, %rd2;\n\
             ld.global.u32 %r3, [%rd3];",
        );
        assert_eq!(shapes.defs[1], Shape::Uniform);
        assert_eq!(shapes.defs[3], Shape::Affine(4));
        assert_eq!(shapes.defs[4], Shape::Affine(4));
        assert_eq!(shapes.defs[5], Shape::Varying);
    }
}
