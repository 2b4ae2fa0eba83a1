//! Cooperative kernels (those that read the grid-synchronisation workspace, `%envreg1`/
//! `%envreg2`, as CUDA's `grid.sync()` does) and their spin loops.
//!
//! A cooperative grid's blocks are all resident: a worker holds every block dealt to it and
//! they take turns (`cooperative.rs`). A block waits for the others at a *spin loop*: a loop
//! of a cooperative kernel that reads memory with a volatile or memory-ordered access (the
//! `ld.acquire` of the grid barrier's spin). Its head is a resume point, and its backward
//! branch *yields*: the thread saves its registers, resumes at the head, and the function
//! returns [`YIELDED`](crate::context::YIELDED) so the worker's next block runs. So the
//! grid barrier nvcc and CCCL write (a `barrier.sync`, one thread's `atom.add.release.gpu`
//! on the workspace and its `ld.acquire.gpu` spin until the count's top bit flips, a
//! `barrier.sync`) runs compiled without knowing its shape.

use std::collections::BTreeSet;

use chevron_ptx::interp::program::FunctionCode;
use chevron_ptx::ir::{Modifier, Semantics};
use chevron_ptx::lowered::{AccessKind, Op, Special, Src};

/// Whether `code` reads the grid-synchronisation workspace: its blocks must run at once.
pub(crate) fn cooperative(code: &FunctionCode) -> bool {
    code.insts.iter().any(|inst| {
        inst.operands()
            .reads
            .iter()
            .any(|s| matches!(s, Src::Special(Special::WorkspaceHi | Special::WorkspaceLo)))
    })
}

/// Whether instruction `pc` is a volatile or memory-ordered access (`.volatile`, `.relaxed`,
/// `.acquire`, `.release`, ...).
pub(crate) fn ordered(code: &FunctionCode, pc: usize) -> bool {
    code.source.get(pc).is_some_and(|source| {
        source
            .modifiers
            .iter()
            .any(|m| matches!(m, Modifier::Semantics(s) if *s != Semantics::Weak))
    })
}

/// The heads of `code`'s spin loops (see the module doc); none unless it is cooperative.
pub(crate) fn spin_heads(code: &FunctionCode) -> BTreeSet<usize> {
    let mut heads = BTreeSet::new();
    if !cooperative(code) {
        return heads;
    }
    let synchronizing = synchronizing(code);
    let reads_ordered = |pc: usize| {
        synchronizing.contains(&pc)
            && code.insts[pc]
                .operands()
                .accesses
                .iter()
                .any(|access| matches!(access.kind, AccessKind::Load | AccessKind::Atomic))
    };
    for (pc, inst) in code.insts.iter().enumerate() {
        if let Op::Bra { target } = inst.op {
            let target = target as usize;
            if target <= pc && (target..=pc).any(reads_ordered) {
                heads.insert(target);
            }
        }
    }
    heads
}

/// The volatile and memory-ordered accesses of `code` that order anything between its threads:
/// all of them but the `.volatile` shared ones that pass values only across block barriers
/// (`volatile_shared.rs`), which the compiled code runs as plain accesses.
pub(crate) fn synchronizing(code: &FunctionCode) -> BTreeSet<usize> {
    let mut ordered: BTreeSet<usize> = (0..code.insts.len())
        .filter(|&pc| ordered(code, pc))
        .collect();
    // The barrier-free paths are walked only for a kernel that has such accesses.
    if !ordered.is_empty() {
        let plain = super::volatile_shared::passed_across_barriers(code);
        ordered.retain(|pc| !plain.contains(pc));
    }
    ordered
}

/// Whether `code` makes a volatile or memory-ordered access that orders anything between its
/// threads ([`synchronizing`]; it then runs its blocks one at a time unless it is cooperative:
/// `launch.rs`).
pub(crate) fn any_ordered(code: &FunctionCode) -> bool {
    !synchronizing(code).is_empty()
}

/// For a cooperative kernel, or one with volatile or memory-ordered accesses, the instructions
/// its vector function leaves to the scalar code (`vector/plan.rs`): a cooperative kernel's
/// spin loops whole (head to backward branch), where the scalar code yields, and the volatile
/// and memory-ordered accesses; `None` for any other kernel.
pub(crate) fn scalar_only(code: &FunctionCode) -> Option<BTreeSet<usize>> {
    if !cooperative(code) && !any_ordered(code) {
        return None;
    }
    let heads = spin_heads(code);
    let mut only = synchronizing(code);
    for (pc, inst) in code.insts.iter().enumerate() {
        if let Op::Bra { target } = inst.op {
            if target as usize <= pc && heads.contains(&(target as usize)) {
                only.extend(target as usize..=pc);
            }
        }
    }
    Some(only)
}
