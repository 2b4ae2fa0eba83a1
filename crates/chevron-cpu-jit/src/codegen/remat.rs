//! Registers computed again at each read instead of kept: those written once, at the top of
//! the kernel, with a kernel parameter, a constant or a launch-shape special register
//! (`%tid`, `%ctaid`, ...). Reading one costs a load from the block context or the parameter
//! buffer; keeping it would hold a machine register across every loop of the kernel (or a
//! stack slot, reloaded), and save and restore it at every barrier.

use std::collections::{BTreeMap, BTreeSet};

use chevron_ptx::interp::inst::{AddrBase, Inst, Op, Space, Special, Src};

use crate::liveness::registers_of;

/// Register → the instruction that writes it, for every register that qualifies.
pub(super) fn rematerializable(insts: &[Inst], registers: u32) -> BTreeMap<u32, usize> {
    let targets: BTreeSet<usize> = insts
        .iter()
        .filter_map(|inst| match inst.op {
            Op::Bra { target } => Some(target as usize),
            _ => None,
        })
        .collect();
    // The straight-line start of the kernel: an instruction there runs before anything after
    // it, on every path.
    let prefix = insts
        .iter()
        .enumerate()
        .position(|(pc, inst)| {
            targets.contains(&pc)
                || matches!(
                    inst.op,
                    Op::Bra { .. }
                        | Op::Bar { .. }
                        | Op::Warp { .. }
                        | Op::Exit
                        | Op::Ret
                        | Op::Trap
                )
        })
        .unwrap_or(insts.len());
    let mut writes = vec![0u32; registers as usize];
    let mut first_read = vec![usize::MAX; registers as usize];
    for (pc, inst) in insts.iter().enumerate() {
        let (used, defined) = registers_of(inst);
        for r in used.into_iter().filter(|&r| r < registers) {
            first_read[r as usize] = first_read[r as usize].min(pc);
        }
        // Guarded writes count too (they make the register's value depend on the guard).
        let guarded = if inst.guard.is_some() { 2 } else { 1 };
        for r in defined.into_iter().filter(|&r| r < registers) {
            writes[r as usize] += guarded;
        }
    }
    let mut found = BTreeMap::new();
    for (pc, inst) in insts.iter().enumerate().take(prefix) {
        let d = match &inst.op {
            Op::Ld {
                space: Space::Param,
                ds,
                addr,
                ..
            } if ds.len() == 1 && addr.base == AddrBase::KernelParam => ds[0],
            Op::Mov { d, a, .. } if cheap(a) => *d,
            _ => continue,
        };
        if d < registers
            && inst.guard.is_none()
            && writes[d as usize] == 1
            && first_read[d as usize] > pc
        {
            found.insert(d, pc);
        }
    }
    found
}

/// Whether reading `a` again is a constant or one load.
fn cheap(a: &Src) -> bool {
    match a {
        Src::Imm(_) => true,
        Src::Special(sp) => matches!(
            sp,
            Special::Tid(_)
                | Special::Ntid(_)
                | Special::Ctaid(_)
                | Special::Nctaid(_)
                | Special::Laneid
                | Special::Warpid
                | Special::DynamicSmem
                | Special::TotalSmem
        ),
        _ => false,
    }
}
