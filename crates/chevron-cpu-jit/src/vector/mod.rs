//! Groups of threads at a time: a second function per kernel that runs a block's threads in
//! groups of W = 4, 8, 16 or 32 consecutive threads of one row (`%tid.x` = Wk .. Wk+W-1;
//! [`VectorTranslation::vectors`] = W/4). A register the dataflow (`shapes.rs`) finds uniform
//! or affine at an instruction is one scalar there (thread 0's value); a varying one is an
//! `i32x4` per four threads, or an `i64` per thread for 64 bits. f32 arithmetic runs four
//! threads per instruction and vector, W consecutive elements load and store as W/4 vectors
//! after a check of the first and the last, and an element all W read is one scalar load. In
//! a group of a whole warp a `shfl` permutes the group's own vectors (`permute.rs`).
//!
//! A group leaves the vector code wherever its threads could part ([`plan::Plan::exits`]):
//! at a guard that differs between them, an access the checks refuse, an affine 32-bit value
//! that wraps when widened, a loop out of fuel. Its registers are saved there in the scalar
//! function's layout, with a resume point of the scalar function at that instruction; the function
//! returns [`SCALAR`] with the group in [`BlockContext::group`], the host runs those W
//! threads in the scalar function (which checks, faults and spins exactly as for any thread),
//! and calls the vector function again for the next group. Barriers and exits keep the scalar
//! function's resume states, so a block's threads move between the two functions from phase
//! to phase; a group saved by the vector function at a barrier or a shuffle is marked
//! [`VECTOR_SAVED`] and kept in its own layout (`save_group`), any other is checked against
//! its registers' shapes when it resumes here.

mod access;
mod affine_compare;
mod chain;
mod elements;
mod evaluated;
mod float;
mod hoist;
mod integer;
mod masked;
mod operands;
mod ops;
mod packing;
mod permute;
pub mod plan;
mod records;
mod saved;
mod scatter;
pub(crate) mod shapes;
mod shuffle;

use std::collections::{BTreeMap, BTreeSet};
use std::mem::offset_of;

use chevron_ptx::interp::program::FunctionCode;
use chevron_ptx::lowered::{Addr, AddrBase, Flow, Op, Space, Src};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, Block, ConstantData, FuncRef, InstBuilder, MemFlagsData, Type, Value,
};
use cranelift_frontend::{FunctionBuilder, Switch, Variable};

use crate::codegen::mem;
use crate::context::{BlockContext, EXITED, VECTOR_SAVED, WAITING, WARP_WAITING};
use plan::{Plan, Width};
use shapes::Shape;

/// What the vector function returns when group [`BlockContext::group`] must run in the
/// scalar function (its threads' resume states say where each goes on).
pub const SCALAR: u32 = 3;

/// How to build a kernel's vector function.
pub struct VectorTranslation<'a> {
    pub code: &'a FunctionCode,
    pub plan: &'a Plan,
    /// The scalar function's resume points (instruction → resume state).
    pub resume_ids: &'a BTreeMap<usize, u32>,
    /// The global access sites (instruction → cache entry), as the scalar function has them.
    pub sites: BTreeMap<usize, u32>,
    /// `resolve_global`'s register-keeping trampoline.
    pub resolve: FuncRef,
    /// `evaluate` and `evaluate_lanes` (`evaluated.rs`).
    pub evaluate: FuncRef,
    pub evaluate_lanes: FuncRef,
    /// Vectors of four threads per group (1, 2, 4 or 8): a group is `4 × vectors`
    /// consecutive threads of a row.
    pub vectors: u8,
}

/// Emits the vector function into `b` (signature `fn(*mut BlockContext) -> u32`).
pub fn translate(t: &VectorTranslation<'_>, b: &mut FunctionBuilder<'_>) {
    VectorEmitter::new(t, b).emit();
}

/// A register's variables, by its shape and width.
#[derive(Clone)]
enum Vars {
    /// Uniform or affine: thread 0's value (`i32` or `i64`).
    Scalar(Variable),
    /// Varying, 32 bits: an `i32x4` per four threads of the group.
    Vec32(Vec<Variable>),
    /// Varying, 64 bits: an `i64` per thread of the group.
    Lanes64(Vec<Variable>),
}

/// Which of a group's values an expression computes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Lane {
    /// Thread 0's (what a uniform or affine register holds).
    Zero,
    /// Thread `i`'s.
    One(u8),
    /// Four, as an `i32x4`: threads `4j .. 4j+3` of the group for `Vector(j)`.
    Vector(u8),
}

/// An access checked earlier on every path to the current instruction: the same address again
/// (same base register, not written since, same offset and space, elements no wider) needs no
/// second check (saxpy's store to the elements it loaded).
struct Checked {
    space: Space,
    addr: Addr,
    /// log2 of the bytes per thread checked.
    shift: u32,
    /// Bytes from one thread's element to the next (0: one element for the four).
    stride: i64,
    host: Value,
}

struct VectorEmitter<'a, 'b, 'c> {
    t: &'a VectorTranslation<'a>,
    b: &'b mut FunctionBuilder<'c>,
    ctx: Value,
    /// Vectors of four threads per group ([`VectorTranslation::vectors`]).
    p: u8,
    /// Per register: the variable of its uniform or affine form (thread 0's value)...
    scalars: Vec<Variable>,
    /// ... and of its varying form.
    vectors: Vec<Vars>,
    /// The instruction being emitted (shapes are per instruction).
    pc: usize,
    /// Per register: NaNs made canonical where it is read (an f32 accumulator).
    lazy: Vec<bool>,
    /// Set while f32 arithmetic reads its operands: no canonical NaNs then.
    raw: bool,
    /// Cold blocks still to fill: hand the group over, after saving it at an instruction.
    pending: Vec<(Block, Option<usize>)>,
    /// Blocks still to fill where a group parted at a branch over a region that stores
    /// (`masked.rs`): the branch, its predicate's vectors, and whether the threads whose bit
    /// is set run the region.
    masked: Vec<(Block, usize, Vec<Value>, bool)>,
    /// While a masked region is emitted: the branch every exit of the region leaves at.
    exit_at: Option<usize>,
    group: Variable,
    fuel: Variable,
    blocks: Vec<Block>,
    /// The group loop's head: the next group, or the phase is done.
    head: Block,
    next_group: Block,
    /// Instructions branches go to.
    targets: BTreeSet<usize>,
    /// Accesses checked earlier on every path to the current instruction.
    checked: Vec<Checked>,
    /// Per hoisted loop's head (`hoist.rs`): the block its own branch comes back to, past the
    /// entry check, and the loop's index in the plan.
    loop_bodies: BTreeMap<usize, (Block, usize)>,
    /// Whether the kernel runs in one phase ([`crate::codegen::single_phase`]): no group
    /// dispatch on resume states.
    single_phase: bool,
    /// The kernel's shuffles this function waits at (instruction → the resume state that
    /// completes them), numbered as the scalar function numbers them: none when a group is a
    /// whole warp (`permute.rs`).
    shuffle_ids: BTreeMap<usize, u32>,
    /// Whether the kernel has warp collectives: its waiting threads' states say so
    /// ([`WAITING`]), for the host's pass after a phase.
    collectives: bool,
    /// The trusted resumes (resume state → block) of barriers and shuffles (`chain.rs`).
    entries: BTreeMap<u32, Block>,
    /// The regions between wait points (`chain.rs`).
    regions: chain::Regions,
    /// Per entry (resume state), the registers that stay in the group's saved layout
    /// through its region (`chain::untouched`).
    untouched: BTreeMap<u32, BTreeSet<u32>>,
    /// Per entry, the registers its region does not write: in the group's saved layout at
    /// its waits already (`chain::untouched`, reads allowed).
    unwritten: BTreeMap<u32, BTreeSet<u32>>,
    /// Accesses of four-word records made with the first of them (`records.rs`).
    records: records::Records,
}

impl<'a, 'b, 'c> VectorEmitter<'a, 'b, 'c> {
    fn new(t: &'a VectorTranslation<'a>, b: &'b mut FunctionBuilder<'c>) -> Self {
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let ctx = b.block_params(entry)[0];
        // Each register has both forms; its shape at an instruction says which holds it there.
        let scalars = t
            .plan
            .widths
            .iter()
            .map(|w| match w {
                Width::W32 => b.declare_var(types::I32),
                Width::W64 => b.declare_var(types::I64),
            })
            .collect();
        let vectors = t
            .plan
            .widths
            .iter()
            .map(|w| match w {
                Width::W32 => Vars::Vec32(
                    (0..t.vectors)
                        .map(|_| b.declare_var(types::I32X4))
                        .collect(),
                ),
                Width::W64 => Vars::Lanes64(
                    (0..4 * t.vectors)
                        .map(|_| b.declare_var(types::I64))
                        .collect(),
                ),
            })
            .collect();
        let group = b.declare_var(types::I64);
        let fuel = b.declare_var(types::I64);
        let blocks = (0..t.code.insts.len()).map(|_| b.create_block()).collect();
        let head = b.create_block();
        let next_group = b.create_block();
        let targets = t
            .code
            .insts
            .iter()
            .filter_map(|inst| match inst.op {
                Op::Bra { target } => Some(target as usize),
                _ => None,
            })
            .collect();
        let loop_bodies = (t.plan.loops.iter().enumerate())
            .map(|(i, l)| (l.head, (b.create_block(), i)))
            .collect();
        let mut shuffle_ids = crate::codegen::shuffle_ids(&t.code.insts, t.resume_ids);
        let collectives = !shuffle_ids.is_empty();
        if 4 * t.vectors == permute::WARP_GROUP {
            shuffle_ids.clear();
        }
        let barriers = barrier_resumes(t);
        let regions = chain::regions(&t.code.insts, &barriers, &shuffle_ids);
        let at: BTreeMap<u32, usize> = (barriers.iter().chain(&shuffle_ids))
            .map(|(&pc, &id)| (id, pc))
            .collect();
        let untouched = chain::untouched(&t.code.insts, t.plan, &regions, &at, true);
        let unwritten = chain::untouched(&t.code.insts, t.plan, &regions, &at, false);
        VectorEmitter {
            t,
            b,
            ctx,
            p: t.vectors,
            scalars,
            vectors,
            pc: 0,
            lazy: crate::codegen::lazy_nans(&t.code.insts, t.code.num_regs),
            raw: false,
            pending: Vec::new(),
            masked: Vec::new(),
            exit_at: None,
            group,
            fuel,
            blocks,
            head,
            next_group,
            targets,
            checked: Vec::new(),
            single_phase: crate::codegen::single_phase(t.code),
            loop_bodies,
            shuffle_ids,
            collectives,
            entries: BTreeMap::new(),
            regions,
            untouched,
            unwritten,
            records: Default::default(),
        }
    }

    /// A field of the context that stays the same during the call.
    fn load_fixed(&mut self, ty: Type, offset: usize) -> Value {
        let flags = MemFlagsData::trusted().with_readonly().with_can_move();
        self.b.ins().load(ty, flags, self.ctx, offset as i32)
    }

    fn emit(&mut self) {
        let first = self.load_fixed(types::I64, offset_of!(BlockContext, group));
        self.b.def_var(self.group, first);
        let fuel = self.load_fixed(types::I64, offset_of!(BlockContext, fuel));
        self.b.def_var(self.fuel, fuel);
        let head = self.head;
        self.b.ins().jump(head, &[]);

        // Group loop head: the next group, or the phase is done.
        self.b.switch_to_block(head);
        let g = self.b.use_var(self.group);
        let threads = self.load_fixed(types::I64, offset_of!(BlockContext, threads));
        let shift = self.log_width();
        let groups = self.b.ins().ushr_imm_u(threads, shift);
        let dispatch = crate::codegen::phase_loop_test(self.b, g, groups);

        self.b.switch_to_block(dispatch);
        if self.single_phase {
            // No barrier: every group not yet run stands at the start (a group handed over
            // has its resume states set where it leaves, and the scalar code finishes it), and
            // the block ends with the phase, so no state is read or written here.
            self.clear();
            self.jump_to_pc(0);
            self.next_group_and_body(head);
            return;
        }
        // The group's threads must stand at the same point: the start, or a barrier's resume
        // point. Waiting or exited ones are skipped; anything else is the scalar code's.
        let slot = self.resume_slot();
        let states = self.b.ins().load(types::I32X4, mem(), slot, 0);
        let s0 = self.b.ins().extractlane(states, 0);
        let first = self.b.ins().splat(types::I32X4, s0);
        let same = self.all_equal(slot, states, first);
        let mixed = self.scalar_block();
        let agreed = self.b.create_block();
        self.b.ins().brif(same, agreed, &[], mixed, &[]);
        self.b.switch_to_block(agreed);
        // Exited, or waiting at a barrier or a shuffle of a kernel with collectives.
        let parked = self
            .b
            .ins()
            .band_imm_u(s0, i64::from(WAITING | WARP_WAITING));
        let runnable = self.b.create_block();
        self.b
            .ins()
            .brif(parked, self.next_group, &[], runnable, &[]);
        self.b.switch_to_block(runnable);
        let barrier_resumes = barrier_resumes(self.t);
        // Saved by this function at a barrier: the registers have their shapes. Else (the
        // start, or saved by the scalar code) they are checked as they are loaded.
        let saved = self.b.ins().band_imm_u(s0, i64::from(VECTOR_SAVED));
        let trusted = self.b.create_block();
        let checked = self.b.create_block();
        self.b.ins().brif(saved, trusted, &[], checked, &[]);
        let mut resume_blocks = Vec::new();
        let mut shuffle_blocks = Vec::new();
        for trust in [true, false] {
            self.b
                .switch_to_block(if trust { trusted } else { checked });
            let mut switch = Switch::new();
            if !trust {
                let start = self.b.create_block();
                switch.set_entry(0, start);
                resume_blocks.push((start, 0, trust, 0));
            }
            for (&pc, &id) in &barrier_resumes {
                let block = self.b.create_block();
                switch.set_entry(u128::from(id), block);
                resume_blocks.push((block, pc, trust, id));
                if trust {
                    self.entries.insert(id, block);
                }
            }
            if trust {
                // A shuffle this function waited at, its warp released: the result.
                let shuffles: Vec<(usize, u32)> =
                    self.shuffle_ids.iter().map(|(&p, &i)| (p, i)).collect();
                for (pc, id) in shuffles {
                    let block = self.b.create_block();
                    switch.set_entry(u128::from(id), block);
                    shuffle_blocks.push((block, pc));
                    self.entries.insert(id, block);
                }
            }
            // Trusted, never taken: this function saves groups at barriers' and shuffles'
            // resume points only (in a layout the scalar code does not read).
            let other = self.scalar_block();
            let state = self.b.ins().band_imm_u(s0, i64::from(!VECTOR_SAVED));
            switch.emit(self.b, state, other);
        }
        for (block, pc, trust, id) in resume_blocks {
            self.b.switch_to_block(block);
            self.clear();
            if pc > 0 {
                self.restore(pc, trust.then_some(id));
            }
            if !trust {
                // From the scalar code's layout: the registers the region does not write go
                // to the group's, where its exits and waits take them.
                let untouched = self.unwritten.get(&id).cloned().unwrap_or_default();
                let live: Vec<u32> = (self.live_at(pc).into_iter())
                    .filter(|r| untouched.contains(r))
                    .collect();
                self.pc = pc;
                self.store_group(&live);
            }
            self.jump_to_pc(pc);
        }
        for (block, pc) in shuffle_blocks {
            self.b.switch_to_block(block);
            self.clear();
            let id = self.shuffle_ids[&pc];
            self.restore_group(pc, id);
            self.finish_shuffle(pc);
        }
        self.next_group_and_body(head);
    }

    /// The step to the next group, and the instructions.
    fn next_group_and_body(&mut self, head: Block) {
        self.b.switch_to_block(self.next_group);
        let g = self.b.use_var(self.group);
        let g1 = self.b.ins().iadd_imm_u(g, 1);
        self.b.def_var(self.group, g1);
        if self.shuffle_ids.is_empty() {
            self.b.ins().jump(head, &[]);
        } else {
            self.release_warp(g1, head);
        }

        for pc in 0..self.t.code.insts.len() {
            self.b.switch_to_block(self.blocks[pc]);
            self.instruction(pc);
        }
        for (block, pc, preds, run_when) in std::mem::take(&mut self.masked) {
            self.b.switch_to_block(block);
            let Op::Bra { target } = self.t.code.insts[pc].op else {
                unreachable!("a branch");
            };
            self.masked_region(pc, &preds, run_when, target as usize);
        }
        self.fill_pending();
        self.b.seal_all_blocks();
    }

    /// A cold block that hands the current group to the scalar code as it stands (filled in
    /// at the end).
    fn scalar_block(&mut self) -> Block {
        let block = self.b.create_block();
        self.b.set_cold_block(block);
        self.pending.push((block, None));
        block
    }

    /// Threads per group.
    pub(super) fn group_width(&self) -> u8 {
        4 * self.p
    }

    /// log2 of the threads per group.
    pub(super) fn log_width(&self) -> i64 {
        i64::from(self.group_width().trailing_zeros())
    }

    /// Whether the group's resume states at `slot` (the first four loaded: `first`) all
    /// equal `state` (an `i32x4` splat).
    pub(super) fn all_equal(&mut self, slot: Value, first: Value, state: Value) -> Value {
        let mut all = self.b.ins().icmp(IntCC::Equal, first, state);
        for j in 1..self.p {
            let states = (self.b.ins()).load(types::I32X4, mem(), slot, 16 * i32::from(j));
            let same = self.b.ins().icmp(IntCC::Equal, states, state);
            all = self.b.ins().band(all, same);
        }
        self.b.ins().vall_true(all)
    }

    /// Returns [`SCALAR`] for the current group.
    fn hand_over(&mut self) {
        let g = self.b.use_var(self.group);
        self.b.ins().store(
            MemFlagsData::trusted(),
            g,
            self.ctx,
            offset_of!(BlockContext, group) as i32,
        );
        let status = self.b.ins().iconst(types::I32, i64::from(SCALAR));
        self.b.ins().return_(&[status]);
    }

    /// A cold block where the group leaves the vector code at `pc`: its registers are saved
    /// and its threads resume at `pc` in the scalar function (filled in at the end; one per
    /// instruction).
    fn exit_block(&mut self, pc: usize) -> Block {
        let pc = self.exit_at.unwrap_or(pc);
        if let Some(&(block, _)) = self.pending.iter().find(|(_, at)| *at == Some(pc)) {
            return block;
        }
        let block = self.b.create_block();
        self.b.set_cold_block(block);
        self.pending.push((block, Some(pc)));
        block
    }

    /// Fills the blocks [`scalar_block`](Self::scalar_block) and
    /// [`exit_block`](Self::exit_block) made.
    fn fill_pending(&mut self) {
        for (block, pc) in std::mem::take(&mut self.pending) {
            self.b.switch_to_block(block);
            if let Some(pc) = pc {
                self.reload_untouched(pc);
                self.save(pc);
                let id = self.t.resume_ids[&pc];
                self.set_states(id);
            }
            self.hand_over();
        }
    }

    /// All registers zero (a thread's registers at its start).
    fn clear(&mut self) {
        let zero32 = self.b.ins().iconst(types::I32, 0);
        let zero_v = self.b.ins().splat(types::I32X4, zero32);
        let zero64 = self.b.ins().iconst(types::I64, 0);
        for vars in &self.vectors {
            match vars {
                Vars::Scalar(v) => self.b.def_var(*v, zero_v),
                Vars::Vec32(vs) => vs.iter().for_each(|v| self.b.def_var(*v, zero_v)),
                Vars::Lanes64(vs) => vs.iter().for_each(|v| self.b.def_var(*v, zero64)),
            }
        }
        for (r, v) in self.scalars.iter().enumerate() {
            let zero = match self.t.plan.widths[r] {
                Width::W32 => zero32,
                Width::W64 => zero64,
            };
            self.b.def_var(*v, zero);
        }
    }

    /// Address of the group's resume states.
    fn resume_slot(&mut self) -> Value {
        let g = self.b.use_var(self.group);
        let base = self.load_fixed(types::I64, offset_of!(BlockContext, resume));
        let shift = self.log_width() + 2;
        let off = self.b.ins().ishl_imm_u(g, shift);
        self.b.ins().iadd(base, off)
    }

    fn set_states(&mut self, state: u32) {
        let slot = self.resume_slot();
        let s = self.b.ins().iconst(types::I32, i64::from(state as i32));
        let v = self.b.ins().splat(types::I32X4, s);
        for j in 0..self.p {
            self.b.ins().store(mem(), v, slot, 16 * i32::from(j));
        }
    }

    /// An `i32x4` of four `i32` values.
    fn gather(&mut self, lanes: &[Value]) -> Value {
        let mut v = self.b.ins().scalar_to_vector(types::I32X4, lanes[0]);
        for (i, &x) in lanes.iter().enumerate().skip(1) {
            v = self.b.ins().insertlane(v, x, i as u8);
        }
        v
    }

    /// The constant vector `lanes`.
    fn vconst(&mut self, lanes: [i32; 4]) -> Value {
        let bytes: Vec<u8> = lanes.iter().flat_map(|x| x.to_le_bytes()).collect();
        let c = self.b.func.dfg.constants.insert(ConstantData::from(bytes));
        self.b.ins().vconst(types::I32X4, c)
    }

    fn jump_to_pc(&mut self, pc: usize) {
        if pc < self.blocks.len() {
            self.b.ins().jump(self.blocks[pc], &[]);
        } else {
            self.exit_group();
        }
    }

    /// The four threads have exited.
    fn exit_group(&mut self) {
        if !self.single_phase {
            self.set_states(EXITED);
        }
        self.b.ins().jump(self.next_group, &[]);
    }

    /// A barrier: the group waits at `pc` (the instruction after it). In a kernel without
    /// warp collectives its waiting states carry no [`WAITING`]: the phase is marked in
    /// [`BlockContext::barrier_waits`] instead.
    fn barrier(&mut self, pc: usize) {
        // Marked [`VECTOR_SAVED`]: the group's four states stay equal, so it resumes here,
        // trusted, in its own layout (the scalar code takes a group only when its states
        // differ or name no barrier of this function).
        let id = self.t.resume_ids[&pc];
        self.save_group(pc, id);
        if self.collectives {
            // With collectives, the host releases warps and barriers from the states.
            self.set_states(id | WAITING | VECTOR_SAVED);
            self.chain(id);
            return;
        }
        self.set_states(id | VECTOR_SAVED);
        let one = self.b.ins().iconst(types::I64, 1);
        self.b.ins().store(
            MemFlagsData::trusted(),
            one,
            self.ctx,
            offset_of!(BlockContext, barrier_waits) as i32,
        );
        self.chain(id);
    }

    /// Whether all lanes of a predicate (0 or 1 each, an `i32x4` per four threads) are set,
    /// none is, or they differ: branches to `all`, `none` or `parted`.
    fn split(&mut self, preds: &[Value], all: Block, none: Block, parted: Block) {
        let one = self.vconst([1; 4]);
        let (mut each, mut any) = (preds[0], preds[0]);
        for &v in &preds[1..] {
            each = self.b.ins().band(each, v);
            any = self.b.ins().bor(any, v);
        }
        let bits = self.b.ins().band(each, one);
        let every = self.b.ins().vall_true(bits);
        let bits = self.b.ins().band(any, one);
        let some = self.b.ins().vany_true(bits);
        let not_all = self.b.create_block();
        self.b.ins().brif(every, all, &[], not_all, &[]);
        self.b.switch_to_block(not_all);
        self.b.ins().brif(some, parted, &[], none, &[]);
    }

    fn instruction(&mut self, pc: usize) {
        self.pc = pc;
        let insts = &self.t.code.insts;
        // Earlier checks hold here only when the previous instruction is this block's one way
        // in: it falls through unconditionally and nothing else jumps here (a group's exits
        // leave the function, so only a barrier's resume point is entered from elsewhere).
        let falls_through = pc > 0 && {
            let before = insts[pc - 1].operands();
            !before.guarded && before.flow == Flow::Next && before.meets.is_none()
        };
        if !falls_through || self.targets.contains(&pc) {
            self.checked.clear();
        }
        let written = insts[pc].operands().writes;
        if let Some(&(body, index)) = self.loop_bodies.get(&pc) {
            self.loop_entry_check(index, body);
        }
        self.guarded_instruction(pc);
        // A register an entry's address reads has a new value: the entry no longer applies.
        self.checked
            .retain(|c| !matches!(c.addr.base, AddrBase::Reg(r) if written.contains(&r)));
    }

    fn guarded_instruction(&mut self, pc: usize) {
        if self.t.plan.handed.contains(&pc) {
            // The scalar code's alone (a spin loop, an ordered access): every group leaves.
            let out = self.exit_block(pc);
            self.b.ins().jump(out, &[]);
            return;
        }
        let inst = &self.t.code.insts[pc];
        let next = if pc + 1 < self.blocks.len() {
            self.blocks[pc + 1]
        } else {
            let block = self.b.create_block();
            let here = self.b.current_block().expect("a current block");
            self.b.switch_to_block(block);
            self.exit_group();
            self.b.switch_to_block(here);
            block
        };
        if let Some((reg, negated)) = inst.guard {
            let run = self.b.create_block();
            let (on, off) = if negated { (next, run) } else { (run, next) };
            if self.shape(Src::Reg(reg)) == Shape::Uniform {
                let p = self.lane0_32(Src::Reg(reg));
                let bit = self.b.ins().band_imm_u(p, 1);
                self.b.ins().brif(bit, on, &[], off, &[]);
            } else {
                self.decide_guard(pc, reg, on, off);
                let preds: Vec<Value> = (0..self.p).map(|j| self.vec32(Src::Reg(reg), j)).collect();
                let parted = match inst.op {
                    // A branch over a region its threads can run apart (`masked.rs`).
                    Op::Bra { target } if self.runs_masked(pc, target as usize) => {
                        let block = self.b.create_block();
                        self.b.set_cold_block(block);
                        self.masked.push((block, pc, preds.clone(), negated));
                        block
                    }
                    _ => self.exit_block(pc),
                };
                self.split(&preds, on, off, parted);
            }
            self.b.switch_to_block(run);
        }
        self.operation(pc, next);
    }
}

/// The resume points of the kernel's barriers (the instruction after each `bar`) and their
/// resume states.
fn barrier_resumes(t: &VectorTranslation<'_>) -> BTreeMap<usize, u32> {
    (t.resume_ids.iter())
        .filter(|(&pc, _)| pc > 0 && matches!(t.code.insts[pc - 1].op, Op::Bar { .. }))
        .map(|(&pc, &id)| (pc, id))
        .collect()
}
