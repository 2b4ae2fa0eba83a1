//! Fewer registers for a cooperative kernel, or one with many registers that saves them at
//! barriers ([`MANY_REGISTERS`]): registers whose values are never live at once share one
//! number, so each thread's saved registers take fewer bytes.
//!
//! A cooperative grid keeps every block's registers at once (`cooperative.rs`): the
//! benchmark's grid reduction, 64 blocks of 256 threads, named 180 registers (nvcc declares
//! them in ranges and numbers every value apart), 23 MiB whose first touches in a launch cost
//! more than the kernel's loop. Its values live at once are far fewer. Registers no
//! instruction names get no number. A greedy colouring of the interference graph
//! gives each register the first number of its class that no register it interferes with
//! holds; the kernel is then compiled with the renamed instructions (the interpreter, which
//! runs faulting grids again, keeps the original ones: no state crosses between the two).
//!
//! Two registers interfere when one is written while the other is live after the
//! instruction, or read by it (an instruction's reads and writes never share a register),
//! and all registers live at the kernel's start (read before any write: zero) interfere.
//! Registers share a number only within a class: the same kind (`codegen/registers.rs`),
//! four-wide width (`vector/plan.rs`) and shape in a group (uniform, affine of one stride or
//! varying, `vector/shapes.rs`) from every write, so the compiled forms keep their types and
//! a merged register keeps one shape (a register whose shapes meet is varying everywhere,
//! and its regions' shape changes are stores at barriers). Registers computed again at each read (`codegen/remat.rs`), never written, or read
//! by warp collectives (whose mask must stay a register set once) keep numbers of their own.

use std::collections::BTreeMap;

use chevron_ptx::interp::program::FunctionCode;
use chevron_ptx::lowered::Op;

use crate::liveness::Liveness;
use crate::vector::shapes::{Shape, Shapes};

/// Kernels with more registers than this are left as they are (the graph is quadratic).
const MOST_REGISTERS: u32 = 4096;

/// Registers from which a kernel that is not cooperative but saves its registers at barriers
/// is coalesced too: a block of 256 threads then saves 64 KiB or more at each barrier, past
/// the host's L1 cache (the tile scan, 92 registers: its saved layout 736 bytes per thread,
/// 10.2 ms against 11.5 at best, one thread; the block reduction, 20 registers, got slower
/// coalesced, 30.0 ms against 26.0: its merged registers change shape between regions, and
/// each change is a store at a barrier).
pub(crate) const MANY_REGISTERS: u32 = 32;

/// Each register's new number, and how many numbers there are: what [`coalesced`] computes,
/// kept in a kernel's record (`kernel_cache.rs`) so that a compile served by the code cache
/// renames without computing it again (its shapes and interference were 0.4 ms of the tile
/// scan's 1.0 ms compile from the cache).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Renaming {
    /// Register `r`'s number (for every register the kernel declares).
    pub map: Vec<u32>,
    /// How many numbers there are (every one of `map` is below it).
    pub count: u32,
}

/// `code`'s registers renamed onto fewer numbers, or `None` when that saves none.
/// With `by_shape`, registers share a number only when their writes leave the same shape in a
/// group (a kernel that is not cooperative: its saved registers are stored at each barrier;
/// a cooperative grid's first concern is the bytes its resident blocks hold).
pub(crate) fn coalesced(code: &FunctionCode, by_shape: bool) -> Option<Renaming> {
    let n = code.num_regs;
    if n == 0
        || n > MOST_REGISTERS
        || code.insts.is_empty()
        || !crate::vector::shapes::computable(code.insts.len(), n)
    {
        return None;
    }
    let live = Liveness::of(&code.insts, code.num_regs);
    let classes = classes(code, by_shape, &live);
    let graph = interference(code, &live);
    // Registers no instruction names (declared, never used) need no number.
    let mut named = vec![false; n as usize];
    for inst in &code.insts {
        let operands = inst.operands();
        for r in operands
            .registers_read()
            .chain(operands.writes.iter().copied())
        {
            if let Some(used) = named.get_mut(r as usize) {
                *used = true;
            }
        }
    }
    let mut map = vec![0; n as usize];
    // Per colour: its class and the registers holding it.
    let mut colours: Vec<(Option<Class>, Vec<u32>)> = Vec::new();
    for r in (0..n).filter(|&r| named[r as usize]) {
        let class = classes[r as usize];
        let free = class.and_then(|class| {
            colours.iter().position(|(c, members)| {
                *c == Some(class) && members.iter().all(|&m| !graph.interferes(r, m))
            })
        });
        let colour = free.unwrap_or_else(|| {
            colours.push((class, Vec::new()));
            colours.len() - 1
        });
        colours[colour].1.push(r);
        map[r as usize] = colour as u32;
    }
    let count = (colours.len() as u32).max(1);
    (count < n).then_some(Renaming { map, count })
}

/// `code` with its registers renamed by `renaming`, or `None` when `renaming` does not fit it
/// (a map of another length, or a number past its count: a damaged record).
pub(crate) fn renamed(code: &FunctionCode, renaming: &Renaming) -> Option<FunctionCode> {
    let Renaming { map, count } = renaming;
    if map.len() != code.num_regs as usize || map.iter().any(|r| r >= count) {
        return None;
    }
    let mut insts = code.insts.clone();
    for inst in &mut insts {
        inst.op.rename_registers(map);
        if let Some((reg, negated)) = inst.guard {
            inst.guard = Some((map.get(reg as usize).copied().unwrap_or(reg), negated));
        }
    }
    let carry = map.get(code.carry_reg as usize).copied();
    Some(crate::codegen::with_instructions(
        code,
        insts,
        *count,
        carry.unwrap_or(code.carry_reg),
    ))
}

/// What registers sharing a number must agree on: their kind, four-wide width and the shape
/// of what their writes leave in a group (`vector/shapes.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Class {
    kind: crate::codegen::Kind,
    width: Option<crate::vector::plan::Width>,
    shape: Shape,
}

/// Each register's class, `None` for one that keeps a number of its own.
fn classes(code: &FunctionCode, by_shape: bool, live: &Liveness) -> Vec<Option<Class>> {
    let n = code.num_regs as usize;
    let kinds = crate::codegen::register_kinds(&code.insts, code.num_regs);
    let shapes = Shapes::compute(&code.insts, code.num_regs, live);
    // Per register: the shape its writes leave, Varying where they differ.
    let mut written: Vec<Option<Shape>> = vec![None; n];
    // Per register: the four-wide width of its writes (`None` inside: no four-wide form).
    let mut widths: Vec<Option<Option<crate::vector::plan::Width>>> = vec![None; n];
    let mut own = vec![false; n];
    for (pc, inst) in code.insts.iter().enumerate() {
        let operands = inst.operands();
        let width = crate::vector::plan::written_width(&inst.op).flatten();
        for &d in &operands.writes {
            if let Some(shape) = written.get_mut(d as usize) {
                let def = shapes.defs[pc];
                *shape = Some(match *shape {
                    Some(s) if s != def => Shape::Varying,
                    _ => def,
                });
            }
            let Some(slot) = widths.get_mut(d as usize) else {
                continue;
            };
            match slot {
                None => *slot = Some(width),
                Some(w) if *w != width => own[d as usize] = true,
                Some(_) => {}
            }
        }
        if matches!(inst.op, Op::Warp { .. }) {
            for r in operands.registers_read() {
                if let Some(o) = own.get_mut(r as usize) {
                    *o = true;
                }
            }
        }
    }
    (0..n)
        .map(|r| match (widths[r], own[r], kinds[r]) {
            (Some(width), false, kind) if kind != crate::codegen::Kind::Remat => Some(Class {
                kind,
                width,
                shape: match written[r] {
                    Some(shape) if by_shape => shape,
                    _ => Shape::Varying,
                },
            }),
            _ => None,
        })
        .collect()
}

/// Which registers interfere (see the module doc), as a bit matrix.
struct Graph {
    n: usize,
    bits: Vec<u64>,
}

impl Graph {
    fn add(&mut self, a: u32, b: u32) {
        let (a, b) = (a as usize, b as usize);
        if a == b || a >= self.n || b >= self.n {
            return;
        }
        for (x, y) in [(a, b), (b, a)] {
            let i = x * self.n + y;
            self.bits[i / 64] |= 1 << (i % 64);
        }
    }

    fn interferes(&self, a: u32, b: u32) -> bool {
        let i = a as usize * self.n + b as usize;
        self.bits
            .get(i / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
}

fn interference(code: &FunctionCode, live: &Liveness) -> Graph {
    let n = code.num_regs as usize;
    let insts = &code.insts;
    let mut graph = Graph {
        n,
        bits: vec![0; (n * n).div_ceil(64)],
    };
    let live_at = |pc: usize| -> Vec<u32> { live.live_at(pc).filter(|&r| r < n as u32).collect() };
    let entry = live_at(0);
    for (i, &a) in entry.iter().enumerate() {
        for &b in &entry[i + 1..] {
            graph.add(a, b);
        }
    }
    let mut live_in: BTreeMap<usize, Vec<u32>> = BTreeMap::new();
    for (pc, inst) in insts.iter().enumerate() {
        let operands = inst.operands();
        if operands.writes.is_empty() {
            continue;
        }
        let mut after: Vec<u32> = Vec::new();
        for next in inst.successors(pc, insts.len()) {
            let regs = live_in.entry(next).or_insert_with(|| live_at(next));
            after.extend(regs.iter().copied());
        }
        let read: Vec<u32> = operands.registers_read().collect();
        for &d in &operands.writes {
            for &r in after.iter().chain(&read).chain(&operands.writes) {
                graph.add(d, r);
            }
        }
    }
    graph
}

#[cfg(test)]
mod tests {
    /// The benchmark's grid reduction (`grid_sum` of the tests' `grid_sync.cu`): nvcc's 160
    /// registers (most declared and never used) come down to the 35 its values need at once,
    /// and the renamed kernel still has its four-wide plan.
    #[test]
    fn the_grid_reductions_registers_coalesce() {
        let program = crate::test_kernels::grid_sync();
        let kernel = program.kernel("grid_sum").unwrap();
        let (code, _) = program.decoded(&kernel).unwrap();
        let renaming = super::coalesced(code, false).expect("fewer registers");
        let renamed = super::renamed(code, &renaming).expect("a renaming of this kernel");
        println!("{} registers -> {}", code.num_regs, renamed.num_regs);
        assert!(4 * renamed.num_regs < code.num_regs, "{}", renamed.num_regs);
        let only = crate::codegen::spin::scalar_only(&renamed).expect("cooperative");
        crate::vector::plan::plan(&renamed.insts, renamed.num_regs, true, Some(&only))
            .expect("four-wide");
    }
}
