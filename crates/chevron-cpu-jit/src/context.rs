//! What compiled code sees of a running block ([`BlockContext`], laid out for loads at fixed
//! offsets) and the Rust functions it calls back: address resolution for global memory and
//! the operations it leaves to the interpreter's own arithmetic.

use std::cell::{Cell, RefCell};
use std::collections::hash_map::DefaultHasher;
use std::collections::VecDeque;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use chevron_ptx::interp::memory::Allocation;
use chevron_ptx::interp::numeric::convert;
use chevron_ptx::interp::DeviceMemory;
use chevron_ptx::lowered::{
    collective_offer, collective_result, evaluate_atomic, evaluate_compare, evaluate_float,
    evaluate_int, evaluate_int_unary, partners, Collective, Op,
};

pub use crate::codegen::access_limit;

/// Set on a thread's resume state while it waits at a barrier for the rest of the block, in a
/// kernel with warp collectives (see [`BlockContext::barrier_waits`] for the others).
pub const WAITING: u32 = 1 << 31;
/// Set on a thread's resume state while it waits at a `shfl` for the rest of its warp.
pub const WARP_WAITING: u32 = 1 << 30;
/// A thread that has exited.
pub const EXITED: u32 = u32::MAX;
/// Set in the thread argument of [`collective`] for a collective whose member mask is known
/// only at run time: each lane offered its mask in the high 32 bits of its value.
pub const RUNTIME_MEMBERS: u64 = 1 << 32;
/// Marks the resume state of a running thread whose block [`fuel_out`] looks at: the rest is
/// the instruction the thread goes on at (never dispatched: the thread runs on, or the block
/// goes to the interpreter).
pub const AT_BRANCH: u32 = 1 << 29;

/// Set on the resume states of a group of four threads the vector function saved at a barrier:
/// its registers have the shapes the vector function expects, so it resumes them without
/// checking. The scalar function ignores it.
pub const VECTOR_SAVED: u32 = 1 << 28;

/// Backward branches a thread takes between two looks at the stop flag and its block's
/// progress ([`fuel_out`]).
pub const FUEL: u64 = 1 << 16;
/// The allocations [`resolve_global`] looks among before it looks in the device's table: the
/// ones the worker resolved last.
const RECENT_ALLOCATIONS: usize = 16;
/// Repeated states remembered to spot a block that spins.
const REMEMBERED: usize = 16;
/// Calls of [`fuel_out`] per block before it starts hashing the block's state (the
/// interpreter's spin watch waits likewise): a block whose threads loop a few hundred
/// thousand times in all, the common case, is never hashed (hashing every register of a block
/// of 256 threads at every call took a quarter of a grid-stride loop's time).
const QUIET_CALLS: u32 = 8;

/// What a compiled block function returns: every runnable thread ran to a barrier or its end.
pub const PHASE_DONE: u32 = 0;
/// A thread faulted (or trapped); `fault_thread` and `fault_pc` say which and where.
pub const FAULTED: u32 = 1;
/// [`fuel_out`] stopped the block: its [`Watch::verdict`] says why.
pub const STOPPED: u32 = 2;
/// A thread of a cooperative kernel went round a spin loop (`codegen/spin.rs`): it waits for
/// another block, so the worker runs its next block before it calls the function again;
/// `fault_thread` says which thread (the threads after it have not run their part of the
/// phase: `launch.rs`'s `run_phases` runs them once the yielded one is past its spin).
pub const YIELDED: u32 = 3;

/// The state of one block that compiled code reads and writes, `repr(C)` so generated code
/// reaches its fields at [`std::mem::offset_of!`] offsets.
#[repr(C)]
pub struct BlockContext {
    /// `threads × registers` register values, thread-major.
    pub regs: *mut u64,
    /// Per thread: 0 (start), a resume point (`| WAITING` at a barrier), or [`EXITED`].
    pub resume: *mut u32,
    /// Threads in the block.
    pub threads: u64,
    /// Per thread `tid.x, tid.y, tid.z, 0`.
    pub tids: *const u32,
    /// `%ntid`, `%ctaid`, `%nctaid` (x, y, z, unused).
    pub ntid: [u32; 4],
    pub ctaid: [u32; 4],
    pub nctaid: [u32; 4],
    /// The kernel's parameter buffer, its size, and per access size `1 << k` its
    /// [`access_limit`] (for parameters read through their addresses).
    pub params: *const u8,
    pub params_size: u64,
    pub params_limits: [u64; 6],
    /// The block's shared memory and its size in bytes.
    pub shared: *mut u8,
    pub shared_size: u64,
    /// Per access size `1 << k` (k = 0..=5): [`access_limit`] of the shared memory, what
    /// checked shared accesses compare their offsets against.
    pub shared_limits: [u64; 6],
    /// Per global access site: the allocation it used last, as [`SITE_WORDS`] words (all 0:
    /// none yet).
    pub sites: *mut u64,
    /// Which thread faulted (or yielded), at which instruction.
    pub fault_thread: u64,
    pub fault_pc: u64,
    /// Backward branches a thread takes before [`fuel_out`] is called.
    pub fuel: u64,
    /// `%dynamic_smem_size` and `%total_smem_size`.
    pub dynamic_smem: u64,
    pub total_smem: u64,
    /// The resolver behind [`resolve_global`].
    pub resolver: *const Resolver,
    /// What [`fuel_out`] keeps, and the registers per thread.
    pub watch: *const Watch<'static>,
    pub num_regs: u64,
    /// Two values per thread, the ones it offered at its last two `shfl`s (by parity): a lane
    /// that has read its shuffle's result may offer its next value before the rest of its warp
    /// has read the last one.
    pub exchange: *mut u64,
    /// Per thread: how many `shfl`s it has offered values at.
    pub offered: *mut u32,
    /// The threads the scalar function runs: `first_thread..end_thread` (all of the block's
    /// but for a group the vector function handed over).
    pub first_thread: u64,
    pub end_thread: u64,
    /// The vector function's first group of four threads; on [`SCALAR`](crate::vector::SCALAR)
    /// the group it handed over.
    pub group: u64,
    /// The block's local memory: each thread's stack (its kernel's frame and those of the
    /// calls inlined into it), `frame_size` bytes apart in thread order, zeroed at the block's
    /// start as the interpreter zeroes a lane's stack. Accesses are checked against the stack
    /// top at their instruction, a constant of the generated code.
    pub local: *mut u8,
    pub frame_size: u64,
    /// The operation of the kernel's first instruction; instruction `pc`'s lies
    /// `pc × size_of::<Inst>()` bytes further (what `evaluate`, `atomic` and `collective`
    /// read).
    pub ops: *const Op,
    /// Set (non-zero) by each thread or group that waits at a barrier during a phase, in a
    /// kernel without warp collectives: such a kernel's waiting threads keep their plain
    /// resume state (no [`WAITING`]), since a phase visits each thread once, and the host
    /// needs no pass over the states after the phase: none set means every thread has
    /// exited, else all of them wait at the barrier and go on together.
    pub barrier_waits: u64,
    /// Groups the vector function ran again within one call after releasing their warp at a
    /// shuffle (`vector/shuffle.rs`): counted with the call's groups in the launch's tally of
    /// groups handed over to the scalar code.
    pub warp_reruns: u64,
    /// The grid-synchronisation workspace's device address (`%envreg1`:`%envreg2`) of a
    /// cooperative launch, else 0.
    pub workspace: u64,
    /// `bar.red` (`__syncthreads_count/and/or`, `codegen/block_red.rs`): what the threads
    /// arriving at the block's current barrier offer (true predicates in the low 32 bits,
    /// arrivals in the high 32), and what they offered at the previous one. The first thread
    /// of a phase to arrive at a barrier ([`barrier_waits`](Self::barrier_waits) still 0)
    /// moves the current tally to the previous one and starts a new one.
    pub red_current: u64,
    pub red_previous: u64,
    /// The block's barriers, for a kernel whose barriers the scalar function counts one
    /// thread at a time (`barrier_table.rs`, `codegen/named_barrier.rs`); else unused.
    pub barriers: *mut crate::barrier_table::BarrierTable,
}

/// Finds global allocations for compiled code and keeps every one it handed out alive (a free
/// on another stream cannot pull the memory away under a running kernel). A worker keeps them,
/// and its access sites' entries, from block to block of a launch: a site resolves its
/// allocation once per launch and worker, not once per block (`launch.rs` drops both when
/// more than a few hundred are held).
pub struct Resolver {
    pub memory: Arc<DeviceMemory>,
    pub held: std::cell::RefCell<Vec<Arc<Allocation>>>,
    /// The running block's `printf` output (`device_services.rs`), handed on when it ends.
    pub printf: std::cell::RefCell<String>,
}

/// The words of an access site's cache entry in [`BlockContext::sites`]: device base,
/// [`access_limit`] for the site's access size, host address minus device base, and the limit
/// for four consecutive elements (the first's offset, in elements, below it: `access_limit`
/// minus 3, or 0), which the vector function checks a group's access against.
pub const SITE_WORDS: usize = 4;

/// Host address of `[addr, addr + len)` in a live global allocation, naturally aligned to `len`
/// (a power of two); 0 when the access would fault. Refreshes the access site's cache entry
/// `slot` ([`SITE_WORDS`] words) when the allocation's base is aligned to `len` (the generated check tests the offset
/// from the base, whose alignment is then the address's).
///
/// # Safety
/// `context` is the block context of the calling compiled function, with a valid `resolver`;
/// `slot` is one of its site entries.
pub unsafe extern "C" fn resolve_global(
    context: *mut BlockContext,
    slot: *mut u64,
    addr: u64,
    len: u64,
) -> u64 {
    // SAFETY: compiled code passes its own context, which outlives the call (see above).
    let context = unsafe { &*context };
    // SAFETY: the resolver outlives the block's run, which holds the context.
    let resolver = unsafe { &*context.resolver };
    // SAFETY: compiled code passes the entry of the access site, `SITE_WORDS` words inside
    // the context's `sites` array, which nothing else touches during the call.
    let slot = unsafe { std::slice::from_raw_parts_mut(slot, SITE_WORDS) };
    if len == 0 || !addr.is_multiple_of(len) {
        return 0;
    }
    // One of the allocations the worker resolved last (a site that goes from object to
    // object, as an inlined virtual function over a scene's objects does): no table lookup.
    let inside = |a: &Allocation| {
        addr >= a.base && addr - a.base < a.size && a.size - (addr - a.base) >= len
    };
    {
        let held = resolver.held.borrow();
        let recent = held.iter().rev().take(RECENT_ALLOCATIONS);
        if let Some(allocation) = recent.into_iter().find(|a| inside(a) && !a.is_freed()) {
            return settle(slot, allocation, addr, len);
        }
    }
    match resolver.memory.lookup(addr, len) {
        Ok(allocation) if !allocation.is_freed() => {
            let host = settle(slot, &allocation, addr, len);
            resolver.held.borrow_mut().push(allocation);
            host
        }
        _ => 0,
    }
}

/// The host address of `[addr, addr + len)` in `allocation`, which holds it; the site entry
/// `slot` set to the allocation when its base is aligned to `len`.
fn settle(slot: &mut [u64], allocation: &Allocation, addr: u64, len: u64) -> u64 {
    let host_base = allocation.host_address() as u64;
    if allocation.base.is_multiple_of(len) {
        slot[0] = allocation.base;
        slot[1] = access_limit(allocation.size, len.trailing_zeros());
        slot[2] = host_base.wrapping_sub(allocation.base);
        slot[3] = slot[1].saturating_sub(3);
    }
    host_base + (addr - allocation.base)
}

/// Evaluates a pure one-result instruction the way the interpreter does, for operations the
/// compiler leaves to its arithmetic (integer division, bit fields, byte permutes, funnel
/// shifts, conversions, non-default float modes, float comparisons). Unknown operations give
/// 0; the compiler never emits a call for them. `bfi` takes its position and length packed in
/// `c` (low and high 32 bits).
///
/// # Safety
/// `op` points to a decoded instruction of a program that outlives the compiled kernel.
pub unsafe extern "C" fn evaluate(op: *const Op, a: u64, b: u64, c: u64) -> u64 {
    // SAFETY: the compiled kernel holds the program whose instructions it points to.
    evaluate_op(unsafe { &*op }, a, b, c)
}

/// [`evaluate`] for each of a group's `n` threads: `values` holds four regions of `n`
/// elements, the operands `a`, `b`, `c` and the results, thread `i`'s at index `i` of each.
/// Returns 0.
///
/// # Safety
/// `op` as for [`evaluate`]; `values` points to `4n` writable `u64`s, aligned.
pub unsafe extern "C" fn evaluate_lanes(op: *const Op, values: *mut u64, n: u64) -> u64 {
    let n = n as usize;
    // SAFETY: the compiled kernel holds the program whose instructions it points to, and its
    // stack slot of `4n` elements, which nothing else reads or writes during the call.
    let (op, values) = unsafe { (&*op, std::slice::from_raw_parts_mut(values, 4 * n)) };
    let (operands, results) = values.split_at_mut(3 * n);
    let (a, rest) = operands.split_at(n);
    let (b, c) = rest.split_at(n);
    // The kind of operation decided once for the group, not per thread.
    if let Op::Float { op, m, .. } = op {
        for (i, r) in results.iter_mut().enumerate() {
            *r = evaluate_float(*op, *m, a[i], b[i], c[i]);
        }
    } else {
        for (i, r) in results.iter_mut().enumerate() {
            *r = evaluate_op(op, a[i], b[i], c[i]);
        }
    }
    0
}

fn evaluate_op(op: &Op, a: u64, b: u64, c: u64) -> u64 {
    if let Some(v) = evaluate_int(op, a, b, c) {
        return v;
    }
    match op {
        Op::IntUn { k, t, .. } => evaluate_int_unary(*k, *t, a),
        Op::Float { op, m, .. } => evaluate_float(*op, *m, a, b, c),
        Op::Cvt {
            dst, src, options, ..
        } => convert::cvt_with(*dst, *src, a, options),
        Op::Setp { cmp, ty, ftz, .. } => u64::from(evaluate_compare(*cmp, *ty, *ftz, a, b).0),
        _ => 0,
    }
}

/// Performs an atomic the compiler does not emit inline (float adds, minima and maxima,
/// `inc`, `dec`, 16-bit forms): `op` (an `atom`) at host address `host`, with the
/// interpreter's arithmetic in a compare-and-swap loop. Returns the old value, zero-extended.
///
/// # Safety
/// `op` points to a decoded `atom` of a program that outlives the compiled kernel; `host` is
/// the host address of the access (checked, and aligned to its size, unless checks are off),
/// valid for its size, in memory the block holds for the whole call.
pub unsafe extern "C" fn atomic(op: *const Op, host: u64, b: u64, c: u64) -> u64 {
    // SAFETY: as above.
    let Op::Atom { op, ty, .. } = (unsafe { &*op }) else {
        return 0;
    };
    let new = |old: u64| evaluate_atomic(*op, *ty, old, b, c);
    let size = u64::from(ty.size());
    if !host.is_multiple_of(size) {
        // Only with checks off, where a clamped address may be misaligned: a plain
        // read-modify-write (wrong data is what unchecked code may give, never a fault).
        // SAFETY: `host` is valid for `size` bytes (see above); the accesses are unaligned.
        unsafe {
            let at = host as *mut u8;
            let mut bytes = [0u8; 8];
            std::ptr::copy_nonoverlapping(at, bytes.as_mut_ptr(), size as usize);
            let old = u64::from_le_bytes(bytes);
            if let Some(value) = new(old) {
                std::ptr::copy_nonoverlapping(value.to_le_bytes().as_ptr(), at, size as usize);
            }
            return old;
        }
    }
    macro_rules! cas_loop {
        ($atomic:ty, $int:ty) => {{
            // SAFETY: `host` is aligned to the access's size and valid for it (see above);
            // other threads reach these bytes only through atomics or the same memory model
            // as the interpreter's allocations.
            let cell = unsafe { &*(host as *const $atomic) };
            let mut old = cell.load(Ordering::SeqCst);
            loop {
                let Some(value) = new(old as u64) else {
                    return old as u64;
                };
                match cell.compare_exchange_weak(
                    old,
                    value as $int,
                    Ordering::SeqCst,
                    Ordering::SeqCst,
                ) {
                    Ok(_) => return old as u64,
                    Err(now) => old = now,
                }
            }
        }};
    }
    match ty.size() {
        2 => cas_loop!(AtomicU16, u16),
        4 => cas_loop!(AtomicU32, u32),
        _ => cas_loop!(AtomicU64, u64),
    }
}

/// Completes the collective `op` (`vote`, `match`, `redux`, `elect`, `bar.warp.sync`; `shfl`
/// is inline) for thread `thread` once its whole warp has offered values: the result (low 32
/// bits) and the predicate result (bit 32), which the interpreter's `collective_result`
/// computes from the 32 offered values.
///
/// # Safety
/// `context` is the block context of the calling compiled function, whose `exchange` holds a
/// value for every thread of the block; `op` points to a decoded collective of a live program.
pub unsafe extern "C" fn collective(
    context: *const BlockContext,
    op: *const Op,
    thread: u64,
) -> u64 {
    // SAFETY: as above.
    let (context, op) = unsafe { (&*context, &*op) };
    let Op::Warp {
        c: collective,
        mask,
    } = op
    else {
        return 0;
    };
    let runtime = thread & RUNTIME_MEMBERS != 0;
    let thread = thread & (RUNTIME_MEMBERS - 1);
    let lane = (thread % 32) as usize;
    let first = thread - lane as u64;
    if first + 32 > context.threads {
        return 0; // Never: collectives compile only for blocks of whole warps.
    }
    // SAFETY: `offered` has a count per thread and `exchange` two values per thread; `index`
    // is a thread of the block. The warp's lanes offered at the same collective, so the parity
    // of this thread's last offer is every lane's.
    let value_of = |index: u64| unsafe {
        let parity = u64::from((*context.offered.add(thread as usize)).wrapping_sub(1) & 1);
        *context
            .exchange
            .add((parity * context.threads + index) as usize)
    };
    if runtime {
        // Each lane's mask above its value: the lanes each meets are the interpreter's
        // partners of a warp whose 32 lanes run the collective together (a `shfl` gets its
        // lane's partners, and keeps its source lane's value only if that is one of them).
        let raw: [u64; 32] = std::array::from_fn(|l| value_of(first + l as u64));
        let members = raw.map(|r| (r >> 32) as u32);
        let partners = partners(u32::MAX, &members)[lane];
        if let Collective::Shfl { .. } = collective {
            return u64::from(partners);
        }
        let offered = raw.map(|r| collective_offer(collective, r & 0xffff_ffff));
        let (value, predicate) =
            collective_result(collective, members[lane], &offered, partners, lane);
        return (value & 0xffff_ffff) | (predicate << 32);
    }
    let offered: [u64; 32] =
        std::array::from_fn(|l| collective_offer(collective, value_of(first + l as u64)));
    // Otherwise the member mask is the whole warp's (immediate, or a register known to hold
    // one where the collective reads it: codegen/subset.rs).
    let member = match mask {
        chevron_ptx::lowered::Src::Imm(m) => *m as u32,
        _ => u32::MAX,
    };
    let (value, predicate) = collective_result(collective, member, &offered, u32::MAX, lane);
    (value & 0xffff_ffff) | (predicate << 32)
}

/// Why [`fuel_out`] stopped a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Not stopped.
    Running,
    /// The launch's stop flag is set (a host timeout).
    Stop,
    /// The block's state (registers, resume points, shared memory) repeats: it spins.
    Spinning,
}

/// What [`fuel_out`] keeps over a block's run: the stop flag and the block's recent states.
pub struct Watch<'a> {
    pub stop: Option<&'a AtomicBool>,
    pub recent: RefCell<VecDeque<u64>>,
    pub verdict: Cell<Verdict>,
    /// Calls of [`fuel_out`] so far.
    pub calls: Cell<u32>,
    /// The launch's count of waiting workers, for a kernel whose blocks wait for each other
    /// through global flags ([`Waiting`]).
    pub waits: Option<&'a Waiting>,
    /// Whether this worker counts in `waits` as waiting now.
    waiting: Cell<bool>,
}

/// The workers of a launch whose blocks may wait for each other (a decoupled look-back, a
/// hand-written grid barrier), and how many of them wait: a block whose state repeats is
/// judged to spin only when every worker's does. While another runs on, it may be the block
/// this one waits for (a look-back waits for earlier blocks, which started first).
/// A worker of the launch that has not started yet ([`Waiting::STARTING`] after the launch
/// began) counts as one that will run on: it may be the one to run the block waited for.
#[derive(Debug)]
pub struct Waiting {
    /// Workers the launch asked for.
    intended: usize,
    /// When the launch began.
    began: std::time::Instant,
    /// Workers taking blocks of the launch now.
    pub workers: AtomicUsize,
    /// Of those, the ones whose block's state repeats.
    waiting: AtomicUsize,
}

impl Waiting {
    /// How long a worker of the launch may take to start (a pool thread busy with another
    /// stream's launch may never start: its blocks go to the others).
    const STARTING: std::time::Duration = std::time::Duration::from_millis(500);

    /// The count of a launch of `intended` workers.
    pub fn new(intended: usize) -> Waiting {
        Waiting {
            intended,
            began: std::time::Instant::now(),
            workers: AtomicUsize::new(0),
            waiting: AtomicUsize::new(0),
        }
    }

    /// Whether some worker runs on (or may still start).
    fn others_run_on(&self) -> bool {
        let workers = self.workers.load(Ordering::SeqCst);
        self.waiting.load(Ordering::SeqCst) < workers
            || (workers < self.intended && self.began.elapsed() < Self::STARTING)
    }
}

impl<'a> Watch<'a> {
    pub fn new(stop: Option<&'a AtomicBool>) -> Watch<'a> {
        Watch {
            stop,
            recent: RefCell::new(VecDeque::new()),
            verdict: Cell::new(Verdict::Running),
            calls: Cell::new(0),
            waits: None,
            waiting: Cell::new(false),
        }
    }

    /// A watch whose block may wait for the other blocks of `waits`' launch.
    pub fn waiting_on(stop: Option<&'a AtomicBool>, waits: &'a Waiting) -> Watch<'a> {
        let mut watch = Watch::new(stop);
        watch.waits = Some(waits);
        watch
    }

    /// The watch as [`Watch::new`] makes it, for the next block of a worker.
    pub fn reset(&self) {
        self.recent.borrow_mut().clear();
        self.verdict.set(Verdict::Running);
        self.calls.set(0);
        self.set_waiting(false);
    }

    fn set_waiting(&self, now: bool) {
        if let Some(waits) = self.waits {
            if self.waiting.replace(now) != now {
                if now {
                    waits.waiting.fetch_add(1, Ordering::SeqCst);
                } else {
                    waits.waiting.fetch_sub(1, Ordering::SeqCst);
                }
            }
        }
    }

    /// Whether the block, whose state repeats, may be waiting for another block that runs on.
    fn others_run_on(&self) -> bool {
        self.set_waiting(true);
        self.waits.is_some_and(Waiting::others_run_on)
    }
}

impl Drop for Watch<'_> {
    fn drop(&mut self) {
        self.set_waiting(false);
    }
}

/// Called by a thread that has used up its fuel, with its live registers and its resume state
/// ([`AT_BRANCH`]) saved: lets other host threads run, then 0 to go on, or 1 when the block
/// must stop ([`Watch::verdict`]: the stop flag is set, or the block's whole state repeats one
/// seen at an earlier call, so it spins; states are hashed from the block's
/// [`QUIET_CALLS`]th call on). Also refills [`BlockContext::fuel`].
///
/// # Safety
/// `context` is the block context of the calling compiled function, with a valid `watch` and
/// `regs`, `resume` and `shared` of the sizes it states.
pub unsafe extern "C" fn fuel_out(context: *mut BlockContext) -> u64 {
    // SAFETY: compiled code passes its own context, which outlives the call; the watch
    // outlives the block's run.
    let (context, watch) = unsafe {
        let context = &mut *context;
        let watch = &*context.watch;
        (context, watch)
    };
    context.fuel = FUEL;
    // Let a kernel on another stream that this block may wait for run.
    std::thread::yield_now();
    if watch.stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
        watch.verdict.set(Verdict::Stop);
        return 1;
    }
    let calls = watch.calls.get() + 1;
    watch.calls.set(calls);
    if calls < QUIET_CALLS {
        return 0;
    }
    // SAFETY: the buffers the context points to outlive the block's run and have the sizes it
    // states; the generated code waits for this call and does not touch them meanwhile.
    let state = unsafe {
        let threads = context.threads as usize;
        let regs = std::slice::from_raw_parts(context.regs, threads * context.num_regs as usize);
        let resume = std::slice::from_raw_parts(context.resume, threads);
        let shared = std::slice::from_raw_parts(context.shared, context.shared_size as usize);
        let mut hasher = DefaultHasher::new();
        (regs, resume, shared).hash(&mut hasher);
        hasher.finish()
    };
    let mut recent = watch.recent.borrow_mut();
    if recent.contains(&state) {
        if watch.others_run_on() {
            // Waiting: leave the core to the block waited for (on a host with fewer cores
            // than workers, it may need this one).
            std::thread::sleep(std::time::Duration::from_micros(50));
            return 0;
        }
        watch.verdict.set(Verdict::Spinning);
        return 1;
    }
    watch.set_waiting(false);
    if recent.len() == REMEMBERED {
        recent.pop_front();
    }
    recent.push_back(state);
    0
}
