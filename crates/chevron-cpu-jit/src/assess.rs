//! What the tiering policy knows of a kernel before it compiles it: whether the compiler takes
//! it, and about how much work one thread does, to weigh a launch against the compile time.
//! One pass over the decoded kernel, no code generated.

use chevron_ptx::interp::program::FunctionCode;
use chevron_ptx::interp::{KernelHandle, Program};
use chevron_ptx::lowered::{Collective, Op};

use crate::{codegen, inline};

/// How often an instruction inside a loop is assumed to run per thread, per loop level.
pub const LOOP_TRIPS: u64 = 16;

/// Loop levels that multiply an instruction's weight; deeper ones count as this many.
const COUNTED_LEVELS: u32 = 2;

/// A kernel as the tiering policy sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assessment {
    /// Why the kernel stays interpreted under every policy, if it does (the reason the compiler
    /// would give; the compiler may still refuse it later, for reasons this pass cannot see).
    pub refusal: Option<String>,
    /// Instructions of the kernel with its device-function calls inlined.
    pub instructions: u64,
    /// Instructions one thread is assumed to execute: each instruction once, times
    /// [`LOOP_TRIPS`] for each loop around it (up to two levels).
    pub thread_work: u64,
    /// Whether the kernel synchronises the whole grid: its blocks must run at once, on one
    /// executor (the compiled code runs them so, `cooperative.rs`), so a launch is never split
    /// between the interpreter and the compiled code.
    pub grid_sync: bool,
    /// Whether the kernel has warp shuffles (`shfl`) or `__syncwarp()`: its vector function's
    /// groups pay most as whole warps, whose shuffles are permutations of their own registers
    /// and whose `__syncwarp()` is no code (their lanes run in step).
    pub shuffles: bool,
}

/// Assesses `kernel` of `program`.
pub fn assess(program: &Program, kernel: &KernelHandle) -> Assessment {
    let Some((kernel_code, functions)) = program.decoded(kernel) else {
        return Assessment {
            refusal: Some(format!("no kernel `{}` in the program", kernel.name)),
            instructions: 0,
            thread_work: 0,
            grid_sync: false,
            shuffles: false,
        };
    };
    let grid_sync = synchronises_grid(kernel_code, functions);
    // A panic here is a compiler bug; the kernel is then interpreted (as `compile` does).
    let flat = std::panic::catch_unwind(|| inline::flatten(kernel_code, functions))
        .unwrap_or_else(|_| Err("the compiler failed to inline this kernel's calls".into()));
    let code = match &flat {
        Ok(Some(flat)) => &flat.code,
        _ => kernel_code,
    };
    // What `compile` translates: `activemask` after no loop as a ballot.
    let ballots = codegen::as_ballots(code);
    let code = ballots.as_ref().unwrap_or(code);
    let refusal = match &flat {
        Err(why) => Some(why.clone()),
        Ok(_) => codegen::subset::refusal(code),
    };
    Assessment {
        refusal,
        instructions: code.insts.len() as u64,
        thread_work: thread_work(code.insts.iter().map(|inst| &inst.op)),
        grid_sync,
        shuffles: (code.insts.iter()).any(|inst| {
            matches!(
                inst.op,
                Op::Warp {
                    c: Collective::Shfl { .. } | Collective::WarpSync,
                    ..
                }
            )
        }),
    }
}

/// Whether `kernel` or a function it calls (directly or not) synchronises the grid; other
/// functions of the program do not count.
fn synchronises_grid(kernel: &FunctionCode, functions: &[FunctionCode]) -> bool {
    let mut seen = vec![false; functions.len()];
    let mut stack: Vec<u32> = kernel.direct_callees().collect();
    let mut found = kernel.grid_sync;
    while let Some(index) = stack.pop() {
        let Some(function) = functions.get(index as usize) else {
            continue;
        };
        if std::mem::replace(&mut seen[index as usize], true) {
            continue;
        }
        found |= function.grid_sync;
        stack.extend(function.direct_callees());
    }
    found
}

/// Instructions one thread runs, by [`Assessment::thread_work`]'s rule: a backward branch
/// from `pc` to `target` makes `target..=pc` a loop.
fn thread_work<'a>(ops: impl Iterator<Item = &'a Op>) -> u64 {
    let ops: Vec<&Op> = ops.collect();
    let mut depth = vec![0u32; ops.len() + 1];
    for (pc, op) in ops.iter().enumerate() {
        if let Op::Bra { target } = op {
            let target = *target as usize;
            if target <= pc {
                // Difference array: +1 over target..=pc. Entries hold sums of +1s and -1s in
                // wrapping arithmetic: a loop starting where another ends meets its -1.
                depth[target] = depth[target].wrapping_add(1);
                depth[pc + 1] = depth[pc + 1].wrapping_sub(1);
            }
        }
    }
    let mut level = 0u32;
    let mut work = 0u64;
    for delta in &depth[..ops.len()] {
        level = level.wrapping_add(*delta);
        work += LOOP_TRIPS.pow(level.min(COUNTED_LEVELS));
    }
    work
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loops_weigh_their_bodies() {
        let nop = Op::Nop;
        let back = |target| Op::Bra { target };
        // Straight code: one each.
        assert_eq!(thread_work([&nop, &nop, &Op::Exit].into_iter()), 3);
        // 0 nop, 1 nop, 2 bra 1, 3 exit: instructions 1 and 2 loop.
        let ops = [nop.clone(), nop.clone(), back(1), Op::Exit];
        assert_eq!(thread_work(ops.iter()), 1 + 2 * LOOP_TRIPS + 1);
        // Nested: 0 nop, 1 nop, 2 bra 1, 3 bra 0: 1 and 2 twice inside.
        let ops = [nop.clone(), nop.clone(), back(1), back(0)];
        assert_eq!(
            thread_work(ops.iter()),
            2 * LOOP_TRIPS + 2 * LOOP_TRIPS * LOOP_TRIPS
        );
        // Back to back: 0 nop, 1 bra 0, 2 nop, 3 bra 2: the second loop starts where the
        // first one's -1 sits.
        let ops = [nop.clone(), back(0), nop.clone(), back(2)];
        assert_eq!(thread_work(ops.iter()), 4 * LOOP_TRIPS);
        // A forward branch is no loop.
        let ops = [Op::Bra { target: 2 }, nop.clone(), Op::Exit];
        assert_eq!(thread_work(ops.iter()), 3);
    }
}
