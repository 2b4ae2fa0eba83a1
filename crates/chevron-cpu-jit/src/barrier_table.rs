//! A block's sixteen barriers as the interpreter keeps them (`chevron-ptx`'s `interp/block.rs`),
//! for compiled kernels whose barriers need more than "every live thread at one barrier":
//! named barriers (`bar.sync id, count`, `barrier.sync`, `bar.arrive`), and `bar.red` in a
//! kernel with warp collectives (`codegen/named_barrier.rs` says which kernels).
//!
//! Each barrier counts the threads arriving at it and the count it expects (the last count
//! an arrival gave, else every thread of the block that has not exited), and keeps the
//! threads waiting there with the register a `bar.red` result goes to. A thread arrives
//! through [`barrier`] with its state already saved and marked [`WAITING`]; when its arrival
//! (or an exit, [`barrier_exit`]) completes a barrier, every thread waiting there loses the
//! mark and gets the reduction's result in its saved registers, and runs again in this call
//! of the function (if it comes after the arriving thread) or the next. Threads arrive one at
//! a time where the interpreter counts a warp's lanes at once: the same counts wherever a
//! barrier's count is a multiple of the warp size and warps arrive whole, as PTX requires.
//! A block whose live threads all wait at barriers that cannot complete is deadlocked
//! (`phase_release.rs`): the interpreter runs it again and reports the deadlock.

use chevron_ptx::ir::Op as IrOp;
use chevron_ptx::lowered::{BarrierKind, Op, SINK};

use crate::context::{BlockContext, WAITING};

/// Barriers per block, as the interpreter's.
pub const BARRIERS: usize = 16;

/// One barrier's state: the interpreter's `Barrier`, with threads in place of warps' lanes.
#[derive(Debug, Default, Clone)]
struct Slot {
    arrived: u32,
    /// The thread count the last arrival gave (None: every live thread).
    expected: Option<u32>,
    /// (thread, register of its `bar.red` result or [`SINK`]) waiting here.
    waiting: Vec<(u32, u32)>,
    /// The `bar.red` operation and its running value.
    red: Option<(IrOp, u64)>,
}

/// The barriers of the block a compiled function runs, and its threads that have not exited.
#[derive(Debug, Default)]
pub struct BarrierTable {
    slots: [Slot; BARRIERS],
    live: u32,
}

impl BarrierTable {
    /// The table at the start of a block of `threads` threads.
    pub fn reset(&mut self, threads: u32) {
        for slot in &mut self.slots {
            slot.arrived = 0;
            slot.expected = None;
            slot.waiting.clear();
            slot.red = None;
        }
        self.live = threads;
    }

    /// Completes barrier `id` if enough threads arrived: its waiting threads go on (their
    /// `resume` states without [`WAITING`]) with the `bar.red` result in `regs` (`num_regs`
    /// per thread).
    #[inline]
    fn try_complete(&mut self, id: usize, resume: &mut [u32], regs: &mut [u64], num_regs: usize) {
        let slot = &mut self.slots[id];
        let expected = slot.expected.unwrap_or(self.live);
        if slot.arrived == 0 || slot.arrived < expected {
            return;
        }
        let value = slot.red.map(|(_, v)| v);
        for &(thread, d) in &slot.waiting {
            resume[thread as usize] &= !WAITING;
            if let (Some(value), true) = (value, d != SINK) {
                regs[thread as usize * num_regs + d as usize] = value;
            }
        }
        slot.arrived = 0;
        slot.expected = None;
        slot.waiting.clear();
        slot.red = None;
    }
}

/// What [`barrier`] returns to a thread that may go on.
pub const ARRIVED: u64 = 0;
/// What [`barrier`] returns for a barrier id of 16 or more: the interpreter's fault.
pub const BAD_BARRIER: u64 = 1;

/// Thread `thread` arrives at the barrier `op` (a `bar`), barrier `id`, with thread count
/// `count` (`u64::MAX`: none) and, for `bar.red`, predicate `pred`. A waiting thread has saved
/// its registers and its resume state, marked [`WAITING`], before the call. Returns
/// [`ARRIVED`], or [`BAD_BARRIER`] (nothing counted).
///
/// # Safety
/// `context` is the block context of the calling compiled function, whose `barriers` points to
/// the block's table and whose `resume` and `regs` hold every thread's state; `op` points to a
/// decoded `bar` of a live program.
pub unsafe extern "C" fn barrier(
    context: *mut BlockContext,
    op: *const Op,
    thread: u64,
    id: u64,
    count: u64,
    pred: u64,
) -> u64 {
    // SAFETY: as above.
    let (context, op) = unsafe { (&mut *context, &*op) };
    let Op::Bar { kind, d, .. } = op else {
        return BAD_BARRIER;
    };
    if id >= BARRIERS as u64 {
        return BAD_BARRIER;
    }
    // SAFETY: the context's buffers, the table among them, outlive the call and nothing else
    // touches them during it (the generated code waits for it).
    let (table, resume, regs) = unsafe { buffers(context) };
    let slot = &mut table.slots[id as usize];
    slot.arrived += 1;
    if count != u64::MAX {
        slot.expected = Some(count as u32);
    }
    if let BarrierKind::Red(red) = kind {
        // The interpreter's per-warp values, one thread at a time: the same combined value.
        let value = u64::from(pred & 1 != 0);
        slot.red = Some(match slot.red {
            None => (*red, value),
            Some((_, acc)) => (*red, combine(*red, acc, value)),
        });
    }
    if *kind != BarrierKind::Arrive {
        let d = if matches!(kind, BarrierKind::Red(_)) {
            *d
        } else {
            SINK
        };
        slot.waiting.push((thread as u32, d));
    }
    table.try_complete(id as usize, resume, regs, context.num_regs as usize);
    ARRIVED
}

/// A thread of the block has exited: barriers waiting for every live thread may complete.
///
/// # Safety
/// As [`barrier`]'s `context`.
pub unsafe extern "C" fn barrier_exit(context: *mut BlockContext) -> u64 {
    // SAFETY: as above.
    let context = unsafe { &mut *context };
    // SAFETY: as in `barrier`.
    let (table, resume, regs) = unsafe { buffers(context) };
    table.live = table.live.saturating_sub(1);
    // Only a barrier some thread waits at without a count waits for the live threads.
    for id in 0..BARRIERS {
        let slot = &table.slots[id];
        if slot.arrived != 0 && slot.expected.is_none() {
            table.try_complete(id, resume, regs, context.num_regs as usize);
        }
    }
    0
}

/// The table, resume states and registers `context` points to.
///
/// # Safety
/// `context.barriers`, `resume` and `regs` point to live buffers of `threads` threads that
/// nothing else touches while the results are used.
unsafe fn buffers<'a>(
    context: &BlockContext,
) -> (&'a mut BarrierTable, &'a mut [u32], &'a mut [u64]) {
    let threads = context.threads as usize;
    // SAFETY: as above.
    unsafe {
        (
            &mut *context.barriers,
            std::slice::from_raw_parts_mut(context.resume, threads),
            std::slice::from_raw_parts_mut(context.regs, threads * context.num_regs as usize),
        )
    }
}

/// Two `bar.red` values combined, as the interpreter's `combine`.
fn combine(op: IrOp, a: u64, b: u64) -> u64 {
    match op {
        IrOp::And => a & b,
        IrOp::Or => a | b,
        _ => a + b,
    }
}
