//! Volatile shared-memory accesses that pass values only across block barriers, which the
//! compiled code runs as plain shared accesses.
//!
//! A volatile or memory-ordered access to shared memory keeps a kernel interpreted
//! (`subset.rs`): it may be warp-synchronous code, whose lanes exchange values through shared
//! memory between barriers and rely on a warp's lanes running in step, which a group handed to
//! the scalar code, one thread at a time, does not. But CUB declares some of its shared
//! storage `volatile` where nothing of the kind happens: its block loads and stores of a
//! partial tile have one thread store the tile's valid items (`st.volatile.shared`), every
//! thread pass a `bar.sync` and then load them (`ld.volatile.shared`), and that kept Thrust's
//! and CUB's merge sorts (`thrust::sort` with a comparator, `thrust::stable_sort` of records)
//! wholly interpreted. Such a store and load are ordered by the barrier, which the compiled
//! code keeps as the hardware does: every thread of the block reaches it before any goes on.
//!
//! So a kernel's `.volatile` loads and stores of shared memory count as plain ones when no
//! path free of full block barriers (`bar.sync`/`barrier.sync`/`bar.red` of the whole block:
//! no thread count, not `bar.arrive`) leads from one of them to another where either is a
//! store, nor from one back to itself (a loop that could spin on it or store in it again
//! without a barrier). Otherwise all of them stay what they are. Other orderings
//! (`.relaxed`, `.acquire`, `.release`, ...) always do: they announce a flag between threads.

use std::collections::BTreeSet;

use chevron_ptx::interp::program::FunctionCode;
use chevron_ptx::ir::{Modifier, Semantics};
use chevron_ptx::lowered::{AccessKind, BarrierKind, Op, Space};

/// The kernel's `.volatile` shared loads and stores when they all pass values only across
/// block barriers (see the module doc), else none.
pub(crate) fn passed_across_barriers(code: &FunctionCode) -> BTreeSet<usize> {
    let volatile: Vec<(usize, bool)> = (0..code.insts.len())
        .filter_map(|pc| volatile_shared(code, pc).map(|store| (pc, store)))
        .collect();
    if volatile.is_empty() {
        return BTreeSet::new();
    }
    let is_store = |pc: usize| volatile.iter().find(|&&(v, _)| v == pc).map(|&(_, s)| s);
    for &(from, from_store) in &volatile {
        for reached in barrier_free_reach(code, from) {
            let Some(store) = is_store(reached) else {
                continue;
            };
            if reached == from || from_store || store {
                return BTreeSet::new();
            }
        }
    }
    volatile.into_iter().map(|(pc, _)| pc).collect()
}

/// For a `.volatile` load or store of shared memory (and nothing else) at `pc`: whether it
/// stores.
fn volatile_shared(code: &FunctionCode, pc: usize) -> Option<bool> {
    let volatile = code.source.get(pc).is_some_and(|source| {
        let semantics = source.modifiers.iter().filter_map(|m| match m {
            Modifier::Semantics(s) => Some(*s),
            _ => None,
        });
        let mut semantics = semantics.filter(|s| *s != Semantics::Weak);
        semantics.next() == Some(Semantics::Volatile) && semantics.next().is_none()
    });
    if !volatile {
        return None;
    }
    match code.insts[pc].operands().accesses.as_slice() {
        [access] if access.space == Space::Shared => match access.kind {
            AccessKind::Load => Some(false),
            AccessKind::Store => Some(true),
            AccessKind::Atomic => None,
        },
        _ => None,
    }
}

/// Whether `op` is a barrier every thread of the block reaches before any goes on.
fn full_barrier(op: &Op) -> bool {
    matches!(
        op,
        Op::Bar {
            kind: BarrierKind::Sync | BarrierKind::Red(_),
            count: None,
            ..
        }
    )
}

/// The instructions reached from `from`'s successors on paths that pass no full block
/// barrier (the barriers themselves included, not what follows them).
fn barrier_free_reach(code: &FunctionCode, from: usize) -> BTreeSet<usize> {
    let n = code.insts.len();
    let mut seen = BTreeSet::new();
    let mut todo = code.insts[from].successors(from, n);
    while let Some(pc) = todo.pop() {
        if !seen.insert(pc) {
            continue;
        }
        if !full_barrier(&code.insts[pc].op) {
            todo.extend(code.insts[pc].successors(pc, n));
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::passed_across_barriers;

    /// The kernel of `body` (PTX lines of a kernel with shared `s[32]`, `%r<8>`, `%p<4>`),
    /// decoded.
    fn decoded(body: &str) -> chevron_ptx::interp::Program {
        let text = format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n\
             .visible .entry k(.param .u64 out)\n{{\n.shared .align 4 .b32 s[32];\n\
             .reg .b32 %r<8>;\n.reg .pred %p<4>;\n.reg .b64 %rd<4>;\n{body}\nret;\n}}\n"
        );
        let module = chevron_ptx::parse(&text).expect("parses");
        let memory = std::sync::Arc::new(chevron_ptx::interp::DeviceMemory::new(0));
        chevron_ptx::interp::Program::load(&module, &memory).expect("loads")
    }

    fn passed(body: &str) -> usize {
        let program = decoded(body);
        let kernel = program.kernel("k").unwrap();
        let (code, _) = program.decoded(&kernel).unwrap();
        passed_across_barriers(code).len()
    }

    const BROADCAST: &str = "mov.u32 %r1, %tid.x;\nsetp.ne.u32 %p1, %r1, 0;\n@%p1 bra SKIP;\n\
        st.volatile.shared.u32 [s], 7;\nSKIP:\nbar.sync 0;\nld.volatile.shared.u32 %r2, [s];";

    #[test]
    fn a_value_stored_before_a_barrier_and_loaded_after_passes() {
        assert_eq!(passed(BROADCAST), 2);
    }

    #[test]
    fn a_load_after_a_store_without_a_barrier_does_not() {
        let warp_synchronous = "mov.u32 %r1, %tid.x;\nshl.b32 %r2, %r1, 2;\nmov.u32 %r3, s;\n\
            add.u32 %r3, %r3, %r2;\nst.volatile.shared.u32 [%r3], %r1;\n\
            ld.volatile.shared.u32 %r4, [%r3+4];";
        assert_eq!(passed(warp_synchronous), 0);
        // A `bar.arrive` does not wait: it separates nothing.
        assert_eq!(
            passed(&BROADCAST.replace("bar.sync 0", "bar.arrive 0, 64")),
            0
        );
    }

    #[test]
    fn a_load_in_a_loop_without_a_barrier_does_not() {
        let spin = "SPIN:\nld.volatile.shared.u32 %r1, [s];\nsetp.eq.u32 %p1, %r1, 0;\n\
            @%p1 bra SPIN;";
        assert_eq!(passed(spin), 0);
        // The same loop with a barrier in it passes.
        let with_barrier = "mov.u32 %r2, 0;\nLOOP:\nld.volatile.shared.u32 %r1, [s];\n\
            bar.sync 0;\nadd.u32 %r2, %r2, 1;\nsetp.lt.u32 %p1, %r2, 4;\n@%p1 bra LOOP;";
        assert_eq!(passed(with_barrier), 1);
    }
}
