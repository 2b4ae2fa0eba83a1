//! PTX (the interpreter's decoded form) to Cranelift IR, one function per kernel.
//!
//! The function runs one *phase* of a block: every runnable thread, one after another, from
//! where it stands to its next barrier or its end (the CuPBoP/Polygeist form: the block's
//! threads as a loop, split at barriers). Registers live in Cranelift variables while a thread
//! runs and in the block's register array while it waits; a barrier saves them and records a
//! resume point. Backward branches burn fuel so a long or endless loop calls the host now and
//! then ([`fuel_out`](crate::context::fuel_out)), which may stop it. Every global, shared and
//! parameter access is checked; a failed check returns [`FAULTED`](crate::context::FAULTED).
//!
//! Anything outside the compiled subset makes [`translate`] fail with the reason, and the kernel
//! runs in the interpreter.

use std::collections::{BTreeMap, BTreeSet};
use std::mem::offset_of;

use chevron_ptx::interp::memory::{PARAM_WINDOW, WINDOW_SIZE};
use chevron_ptx::interp::program::FunctionCode;
use chevron_ptx::lowered::{AddrBase, Flow, Inst, Op, Space, Special, Src};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, Block, FuncRef, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::{FunctionBuilder, Switch, Variable};

use crate::context::{
    BlockContext, AT_BRANCH, EXITED, FAULTED, FUEL, PHASE_DONE, STOPPED, VECTOR_SAVED, YIELDED,
};
mod activemask;
pub(crate) use activemask::as_ballots;
mod arith;
mod block_red;
mod collective;
mod counted;
mod memory;
mod named_barrier;
mod operation;
pub use memory::access_limit;
pub(crate) use memory::{atomic_result, inline_atomic, locked_atomic};
pub use named_barrier::uses_table;
mod registers;
pub(crate) use registers::Kind;
mod remat;
mod service;
pub(crate) mod spin;
pub(crate) mod subset;
mod volatile_shared;
pub(crate) mod whole;

use crate::liveness::Liveness;
use arith::{mask_bits, typed_value, width};
use memory::Checked;
use registers::Registers;

/// How to build a kernel's function.
pub struct Translation<'a> {
    pub code: &'a FunctionCode,
    /// Check alignment and shared-memory bounds (global accesses are always resolved).
    pub checks: bool,
    /// `resolve_global` and `evaluate`, imported into the function.
    pub resolve: FuncRef,
    pub evaluate: FuncRef,
    /// `atomic`, imported into the function.
    pub atomic: FuncRef,
    /// `collective`, imported into the function.
    pub collective: FuncRef,
    /// `fuel_out`, imported into the function.
    pub fuel_out: FuncRef,
    /// `barrier` and `barrier_exit` (`barrier_table.rs`), imported into the function.
    pub barrier: FuncRef,
    pub barrier_exit: FuncRef,
    /// `device_services::service`, imported into the function.
    pub service: FuncRef,
    /// Per instruction: the thread's stack top (bytes of its local memory an access there may
    /// reach; the kernel's frame size but inside inlined calls, `inline.rs`).
    pub stack_tops: &'a [u64],
    /// Instructions where threads also resume (where the vector function hands a group of
    /// threads over, `vector.rs`); with any, the function keeps resume states even for a
    /// kernel of one phase.
    pub extra_resumes: &'a BTreeSet<usize>,
}

pub(crate) use arith::{bit_mask, int_cc};
pub(crate) use counted::{counter, ends_by_itself, raise};

/// The registers the scalar function computes again at each read (`remat.rs`), each with the
/// instruction that writes it: its barriers and exits never store them in a thread's slots.
pub(crate) fn rematerialized(insts: &[Inst], registers: u32) -> BTreeMap<u32, usize> {
    remat::rematerializable(insts, registers)
}

/// Each register's kind (`registers.rs`): [`Kind::Remat`] for one computed again at each read.
pub(crate) fn register_kinds(insts: &[Inst], registers: u32) -> Vec<Kind> {
    let (mut kinds, _) = registers::kinds(insts, registers);
    for &r in remat::rematerializable(insts, registers).keys() {
        if let Some(kind) = kinds.get_mut(r as usize) {
            *kind = Kind::Remat;
        }
    }
    kinds
}

/// Per register: whether its NaNs are made canonical where it is read rather than where it is
/// written (see `registers::kinds`).
pub(crate) fn lazy_nans(insts: &[Inst], registers: u32) -> Vec<bool> {
    registers::kinds(insts, registers).1
}

/// The resume points of a kernel's functions: after each barrier, then `extra` (instruction
/// → resume state, from 1).
pub(crate) fn resume_ids(insts: &[Inst], extra: &BTreeSet<usize>) -> BTreeMap<usize, u32> {
    let mut ids = BTreeMap::new();
    let barriers = insts
        .iter()
        .enumerate()
        .filter(|(_, inst)| matches!(inst.op, Op::Bar { .. }))
        .map(|(pc, _)| pc + 1);
    for pc in barriers.chain(extra.iter().copied()) {
        let next = ids.len() as u32 + 1;
        ids.entry(pc).or_insert(next);
    }
    ids
}

/// The resume points of a kernel's warp collectives (instruction → resume state), numbered
/// after `resume_ids`: a thread waiting at one resumes there once its warp has offered.
pub(crate) fn shuffle_ids(
    insts: &[Inst],
    resume_ids: &BTreeMap<usize, u32>,
) -> BTreeMap<usize, u32> {
    let mut ids = BTreeMap::new();
    for (pc, inst) in insts.iter().enumerate() {
        if matches!(inst.op, Op::Warp { .. }) {
            let id = (resume_ids.len() + ids.len()) as u32 + 1;
            ids.insert(pc, id);
        }
    }
    ids
}

/// The global access sites of a kernel (instruction → index of its cache entry in
/// [`BlockContext::sites`]).
pub(crate) fn global_sites(insts: &[Inst]) -> BTreeMap<usize, u32> {
    let mut sites = BTreeMap::new();
    for (pc, inst) in insts.iter().enumerate() {
        let global = match &inst.op {
            Op::Ld { space, addr, .. }
            | Op::St { space, addr, .. }
            | Op::Atom { space, addr, .. } => {
                addr.base != AddrBase::KernelParam
                    && matches!(space, Space::Global | Space::Const | Space::Generic)
            }
            _ => false,
        };
        if global {
            let next = sites.len() as u32;
            sites.insert(pc, next);
        }
    }
    sites
}

/// Whether any instruction of `insts` holds an address in the parameter window (`mov %rd,
/// param`, or a generic access to a parameter).
fn takes_param_addresses(insts: &[Inst]) -> bool {
    let window = PARAM_WINDOW..PARAM_WINDOW + WINDOW_SIZE;
    insts.iter().any(|inst| match &inst.op {
        Op::Mov { a: Src::Imm(v), .. } => window.contains(v),
        Op::IntBin { a, b, .. } => [a, b]
            .into_iter()
            .any(|s| matches!(s, Src::Imm(v) if window.contains(v))),
        Op::Ld { addr, .. } | Op::St { addr, .. } | Op::Atom { addr, .. } => {
            addr.base == AddrBase::Abs && window.contains(&(addr.offset as u64))
        }
        Op::Cvta { space, .. } => *space == Space::Param,
        _ => false,
    })
}

/// Whether a kernel runs in one phase: no barrier, shuffle or spin loop that yields
/// (`spin.rs`), so each call runs every thread from its start to its end. Its function then
/// keeps no resume states (it reads none and marks no thread exited) and returns
/// [`PHASE_DONE`] when the block is done.
pub fn single_phase(code: &FunctionCode) -> bool {
    !code
        .insts
        .iter()
        .any(|inst| inst.operands().meets.is_some())
        && spin::spin_heads(code).is_empty()
}

/// `code` with `insts` in place of its instructions, `num_regs` registers and the carry flag
/// in `carry_reg` (its instructions rewritten: registers coalesced, `activemask` as ballots).
pub(crate) fn with_instructions(
    code: &FunctionCode,
    insts: Vec<Inst>,
    num_regs: u32,
    carry_reg: u32,
) -> FunctionCode {
    FunctionCode {
        name: code.name.clone(),
        is_kernel: code.is_kernel,
        insts,
        source: code.source.clone(),
        num_regs,
        frame_size: code.frame_size,
        params: code.params.clone(),
        returns: code.returns.clone(),
        kernel_params: code.kernel_params.clone(),
        param_size: code.param_size,
        defined: code.defined,
        builtin: code.builtin,
        carry_reg,
        grid_sync: code.grid_sync,
        cluster_dims: code.cluster_dims,
        explicit_cluster: code.explicit_cluster,
    }
}

/// Why a kernel is not compiled: the first instruction outside the subset.
pub type Unsupported = String;

/// Emits the kernel into `b` (whose signature is `fn(*mut BlockContext) -> u32`); returns
/// the number of global access sites, each with a cache entry in [`BlockContext::sites`].
pub fn translate(t: &Translation<'_>, b: &mut FunctionBuilder<'_>) -> Result<u32, Unsupported> {
    if let Some(why) = subset::refusal(t.code) {
        return Err(why);
    }
    let mut e = Emitter::new(t, b);
    e.emit()?;
    Ok(e.site_of.len() as u32)
}

/// The test at the head of a phase's loop over threads or groups: once `index` has reached
/// `end` the function returns [`PHASE_DONE`]; else it goes on in the block returned.
pub(crate) fn phase_loop_test(b: &mut FunctionBuilder<'_>, index: Value, end: Value) -> Block {
    let done = b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, index, end);
    let finish = b.create_block();
    let go_on = b.create_block();
    b.ins().brif(done, finish, &[], go_on, &[]);
    b.switch_to_block(finish);
    let status = b.ins().iconst(types::I32, i64::from(PHASE_DONE));
    b.ins().return_(&[status]);
    go_on
}

/// Loads and stores through host addresses computed by the emitter.
pub(crate) fn mem() -> MemFlagsData {
    MemFlagsData::new()
}

struct Emitter<'a, 'b, 'c> {
    t: &'a Translation<'a>,
    b: &'b mut FunctionBuilder<'c>,
    ctx: Value,
    regs: Registers,
    thread: Variable,
    /// Backward branches left before yielding (from `BlockContext::fuel` at entry).
    fuel: Variable,
    /// The block of each instruction.
    blocks: Vec<Block>,
    /// Resume points: instruction index → resume id (1-based).
    resume_ids: BTreeMap<usize, u32>,
    /// Heads of spin loops, whose backward branches yield (`spin.rs`).
    spin_heads: BTreeSet<usize>,
    /// Whether this function runs a kernel of one phase without resume states.
    one_phase: bool,
    /// Whether its barriers are counted in the block's table (`named_barrier.rs`).
    counted: bool,
    /// Shuffles: instruction index → the resume id that completes them.
    shuffle_ids: BTreeMap<usize, u32>,
    /// Collectives whose member masks are known only at run time (`subset::runtime_members`).
    runtime_members: BTreeSet<usize>,
    next_thread: Block,
    /// Blocks still to fill: faults at an instruction, thread exits.
    pending_faults: Vec<(Block, usize)>,
    pending_exits: Vec<Block>,
    /// The site of each global access instruction (each site has a cache entry in
    /// `BlockContext::sites`).
    site_of: BTreeMap<usize, u32>,
    /// Registers live at each instruction: what a barrier or a yield must keep.
    live: Liveness,
    /// Registers computed again at each read, and the instruction that writes each.
    remat: BTreeMap<u32, usize>,
    /// Instructions branches go to.
    targets: BTreeSet<usize>,
    /// Whether the kernel takes the address of a parameter (generic accesses may then land in
    /// the parameter buffer).
    param_addresses: bool,
    /// Whether a volatile or ordered generic access that reaches shared memory faults, so
    /// that the interpreter runs the block (a kernel that is not cooperative: `subset.rs`).
    ordered_shared_interpreted: bool,
    /// Accesses checked earlier on every path to the current instruction, with the host
    /// address each gave (`memory.rs`): the same address again needs no second check.
    checked: Vec<Checked>,
}

impl<'a, 'b, 'c> Emitter<'a, 'b, 'c> {
    fn new(t: &'a Translation<'a>, b: &'b mut FunctionBuilder<'c>) -> Self {
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let ctx = b.block_params(entry)[0];
        let kinds = registers::kinds(&t.code.insts, t.code.num_regs);
        let remat = remat::rematerializable(&t.code.insts, t.code.num_regs);
        let regs = Registers::declare(b, kinds, remat.keys().copied());
        let thread = b.declare_var(types::I64);
        let fuel = b.declare_var(types::I64);
        let blocks = (0..t.code.insts.len()).map(|_| b.create_block()).collect();
        let next_thread = b.create_block();
        Emitter {
            t,
            b,
            ctx,
            regs,
            thread,
            fuel,
            blocks,
            resume_ids: BTreeMap::new(),
            spin_heads: spin::spin_heads(t.code),
            one_phase: single_phase(t.code) && t.extra_resumes.is_empty(),
            counted: named_barrier::counted(&t.code.insts),
            shuffle_ids: BTreeMap::new(),
            runtime_members: subset::runtime_members(&t.code.insts, t.code.num_regs),
            next_thread,
            pending_faults: Vec::new(),
            pending_exits: Vec::new(),
            site_of: BTreeMap::new(),
            live: Liveness::of(&t.code.insts, t.code.num_regs),
            remat,
            targets: t
                .code
                .insts
                .iter()
                .filter_map(|inst| match inst.op.flow() {
                    Flow::Jump(targets) => Some(targets),
                    _ => None,
                })
                .flatten()
                .map(|target| target as usize)
                .collect(),
            checked: Vec::new(),
            param_addresses: takes_param_addresses(&t.code.insts),
            ordered_shared_interpreted: !spin::cooperative(t.code),
        }
    }

    fn load_ctx(&mut self, ty: Type, offset: usize) -> Value {
        self.b
            .ins()
            .load(ty, MemFlagsData::trusted(), self.ctx, offset as i32)
    }

    /// A field of the context that stays the same during the call (pointers, sizes, launch
    /// shape): may be hoisted out of the thread loop.
    fn load_fixed(&mut self, ty: Type, offset: usize) -> Value {
        let flags = MemFlagsData::trusted().with_readonly().with_can_move();
        self.b.ins().load(ty, flags, self.ctx, offset as i32)
    }

    fn store_ctx(&mut self, v: Value, offset: usize) {
        self.b
            .ins()
            .store(MemFlagsData::trusted(), v, self.ctx, offset as i32);
    }

    fn emit(&mut self) -> Result<(), Unsupported> {
        let insts = &self.t.code.insts;
        // Resume points: after each barrier, where the vector function hands groups over, and
        // at the heads of spin loops. (A thread out of fuel at another backward branch runs
        // on after `fuel_out`, so other loop heads are no resume points: they are entered only
        // from the code before the loop and the loop's own branches.)
        let extra: BTreeSet<usize> = self
            .t
            .extra_resumes
            .union(&self.spin_heads)
            .copied()
            .collect();
        self.resume_ids = resume_ids(insts, &extra);
        // A thread resuming after a `bar.red` reads its result there (`block_red.rs`).
        if extra
            .iter()
            .any(|&pc| pc > 0 && block_red::reduction(insts, pc - 1).is_some())
        {
            return Err("a resume point right after a `bar.red`".into());
        }
        self.shuffle_ids = shuffle_ids(insts, &self.resume_ids);
        if (self.resume_ids.len() + self.shuffle_ids.len()) as u32 >= AT_BRANCH - 1
            || insts.len() as u32 >= AT_BRANCH
        {
            return Err("too many resume points".into());
        }
        // Global access sites: each has a cache entry in `BlockContext::sites`.
        self.site_of = global_sites(insts);
        let first = self.load_fixed(types::I64, offset_of!(BlockContext, first_thread));
        self.b.def_var(self.thread, first);
        let fuel = self.load_ctx(types::I64, offset_of!(BlockContext, fuel));
        self.b.def_var(self.fuel, fuel);
        let head = self.b.create_block();
        self.b.ins().jump(head, &[]);

        // Thread loop head: next runnable thread, or the phase is done.
        self.b.switch_to_block(head);
        let t = self.b.use_var(self.thread);
        let count = self.load_fixed(types::I64, offset_of!(BlockContext, end_thread));
        let dispatch = phase_loop_test(self.b, t, count);
        self.b.switch_to_block(dispatch);
        if self.one_phase() {
            // Every thread starts here and runs to its end.
            self.regs.clear(self.b);
            self.jump_to_pc(0);
            return self.emit_body(head);
        }
        let resume_slot = self.resume_slot();
        let state = self.b.ins().load(types::I32, mem(), resume_slot, 0);
        // A group the vector function saved at a barrier is marked so; here it resumes alike.
        let state = self.b.ins().band_imm_u(state, i64::from(!VECTOR_SAVED));
        let start = self.b.create_block();
        let mut switch = Switch::new();
        switch.set_entry(0, start);
        let resumes: Vec<(usize, u32)> = self.resume_ids.iter().map(|(&p, &i)| (p, i)).collect();
        let mut resume_blocks = Vec::new();
        for &(pc, id) in &resumes {
            let block = self.b.create_block();
            switch.set_entry(u128::from(id), block);
            resume_blocks.push((block, pc, false));
        }
        let shuffles: Vec<(usize, u32)> = self.shuffle_ids.iter().map(|(&p, &i)| (p, i)).collect();
        for &(pc, id) in &shuffles {
            let block = self.b.create_block();
            switch.set_entry(u128::from(id), block);
            resume_blocks.push((block, pc, true));
        }
        switch.emit(self.b, state, self.next_thread);

        self.b.switch_to_block(start);
        self.regs.clear(self.b);
        self.jump_to_pc(0);
        for (block, pc, shuffle) in resume_blocks {
            self.b.switch_to_block(block);
            let base = self.thread_regs();
            // Registers not live here are never read again; they keep the zero of `clear`.
            self.regs.clear(self.b);
            for r in 0..self.regs.len() as u32 {
                if self.live.is_live(pc, r) {
                    self.regs.load(self.b, r, base);
                }
            }
            if shuffle {
                self.finish_shuffle(pc);
            } else if pc > 0
                && !self.counted
                && block_red::reduction(&self.t.code.insts, pc - 1).is_some()
            {
                self.finish_block_red(pc - 1);
            } else {
                self.jump_to_pc(pc);
            }
        }

        self.emit_body(head)
    }

    /// The thread loop's step to the next thread, and the instructions.
    fn emit_body(&mut self, head: Block) -> Result<(), Unsupported> {
        let insts = &self.t.code.insts;
        self.b.switch_to_block(self.next_thread);
        let t = self.b.use_var(self.thread);
        let t1 = self.b.ins().iadd_imm_u(t, 1);
        self.b.def_var(self.thread, t1);
        self.b.ins().jump(head, &[]);

        for pc in 0..insts.len() {
            self.b.switch_to_block(self.blocks[pc]);
            self.instruction(pc)?;
        }
        for (block, pc) in std::mem::take(&mut self.pending_faults) {
            self.b.switch_to_block(block);
            self.fault(pc);
        }
        for block in std::mem::take(&mut self.pending_exits) {
            self.b.switch_to_block(block);
            self.exit_thread();
        }
        self.b.seal_all_blocks();
        Ok(())
    }

    /// Jumps to instruction `pc` (past the end: the thread exits).
    fn jump_to_pc(&mut self, pc: usize) {
        if pc < self.blocks.len() {
            self.b.ins().jump(self.blocks[pc], &[]);
        } else {
            self.exit_thread();
        }
    }

    /// Address of the current thread's resume state.
    fn resume_slot(&mut self) -> Value {
        let t = self.b.use_var(self.thread);
        let base = self.load_fixed(types::I64, offset_of!(BlockContext, resume));
        let off = self.b.ins().ishl_imm_u(t, 2);
        self.b.ins().iadd(base, off)
    }

    /// Address of the current thread's saved registers.
    fn thread_regs(&mut self) -> Value {
        let t = self.b.use_var(self.thread);
        let base = self.load_fixed(types::I64, offset_of!(BlockContext, regs));
        let off = self
            .b
            .ins()
            .imul_imm_u(t, i64::from(self.t.code.num_regs) * 8);
        self.b.ins().iadd(base, off)
    }

    /// Saves the registers live at `pc`, where the thread resumes with state `resume`.
    fn save_state(&mut self, resume: u32, pc: usize) {
        let base = self.thread_regs();
        for r in 0..self.regs.len() as u32 {
            if self.live.is_live(pc, r) {
                self.regs.store(self.b, r, base);
            }
        }
        let slot = self.resume_slot();
        let r = self.b.ins().iconst(types::I32, i64::from(resume as i32));
        self.b.ins().store(mem(), r, slot, 0);
    }

    /// Marks the phase as one some thread ends at a barrier (`BlockContext::barrier_waits`).
    fn note_barrier_wait(&mut self) {
        let one = self.b.ins().iconst(types::I64, 1);
        self.store_ctx(one, offset_of!(BlockContext, barrier_waits));
    }

    /// Whether this function runs a kernel of one phase without resume states.
    fn one_phase(&self) -> bool {
        self.one_phase
    }

    /// The backward branch of a spin loop: the thread saves its registers, resumes at the
    /// loop's head, and the function returns [`YIELDED`] (the thread in `fault_thread`) so
    /// that another block runs.
    fn yield_at(&mut self, head: usize) {
        let id = self.resume_ids[&head];
        self.save_state(id, head);
        let t = self.b.use_var(self.thread);
        self.store_ctx(t, offset_of!(BlockContext, fault_thread));
        let status = self.b.ins().iconst(types::I32, i64::from(YIELDED));
        self.b.ins().return_(&[status]);
    }

    fn exit_thread(&mut self) {
        if self.counted {
            self.counted_exit();
        }
        if !self.one_phase() {
            let slot = self.resume_slot();
            let r = self.b.ins().iconst(types::I32, i64::from(EXITED as i32));
            self.b.ins().store(mem(), r, slot, 0);
        }
        self.b.ins().jump(self.next_thread, &[]);
    }

    /// Records the fault of the current thread at `pc` and returns [`FAULTED`].
    fn fault(&mut self, pc: usize) {
        let t = self.b.use_var(self.thread);
        self.store_ctx(t, offset_of!(BlockContext, fault_thread));
        let p = self.b.ins().iconst(types::I64, pc as i64);
        self.store_ctx(p, offset_of!(BlockContext, fault_pc));
        let status = self.b.ins().iconst(types::I32, i64::from(FAULTED));
        self.b.ins().return_(&[status]);
    }

    /// A block that faults at `pc` (filled in at the end).
    fn fault_block(&mut self, pc: usize) -> Block {
        let block = self.b.create_block();
        self.b.set_cold_block(block);
        self.pending_faults.push((block, pc));
        block
    }

    fn src(&mut self, s: Src) -> Value {
        match s {
            Src::Reg(r) => self.reg(r),
            Src::Imm(v) => self.b.ins().iconst(types::I64, v as i64),
            Src::NotReg(r) => {
                let v = self.reg(r);
                let z = self.b.ins().icmp_imm_u(IntCC::Equal, v, 0);
                self.b.ins().uextend(types::I64, z)
            }
            Src::Special(sp) => self.special(sp),
            // A kernel's own frame starts at local address 0 (the compiled subset has no
            // calls, hence no deeper frames).
            Src::Frame(offset) => self.b.ins().iconst(types::I64, offset as i64),
        }
    }

    /// The low 32 bits of an operand as an `f32`.
    fn src_f32(&mut self, s: Src) -> Value {
        match s {
            Src::Reg(r) => self.reg_f32(r),
            Src::Imm(v) => self.b.ins().f32const(f32::from_bits(v as u32)),
            other => {
                let v = self.src(other);
                registers::f32_of(self.b, v)
            }
        }
    }

    fn special(&mut self, sp: Special) -> Value {
        let u32_at = |e: &mut Self, offset: usize| {
            let v = e.load_fixed(types::I32, offset);
            e.b.ins().uextend(types::I64, v)
        };
        match sp {
            Special::Tid(d) => {
                let t = self.b.use_var(self.thread);
                let base = self.load_fixed(types::I64, offset_of!(BlockContext, tids));
                let off = self.b.ins().ishl_imm_u(t, 4);
                let addr = self.b.ins().iadd(base, off);
                let v = self.b.ins().load(types::I32, mem(), addr, i32::from(d) * 4);
                self.b.ins().uextend(types::I64, v)
            }
            Special::Ntid(d) => u32_at(self, offset_of!(BlockContext, ntid) + 4 * d as usize),
            Special::Ctaid(d) => u32_at(self, offset_of!(BlockContext, ctaid) + 4 * d as usize),
            Special::Nctaid(d) => u32_at(self, offset_of!(BlockContext, nctaid) + 4 * d as usize),
            Special::Laneid => {
                let t = self.b.use_var(self.thread);
                self.b.ins().band_imm_u(t, 31)
            }
            // `%lanemask_*` from the lane, as the interpreter's (32-bit masks).
            Special::LanemaskEq
            | Special::LanemaskLt
            | Special::LanemaskLe
            | Special::LanemaskGt
            | Special::LanemaskGe => {
                let t = self.b.use_var(self.thread);
                let lane = self.b.ins().band_imm_u(t, 31);
                let one = self.b.ins().iconst(types::I64, 1);
                let eq = self.b.ins().ishl(one, lane);
                let lt = self.b.ins().iadd_imm_u(eq, -1);
                let le = self.b.ins().bor(lt, eq);
                match sp {
                    Special::LanemaskEq => eq,
                    Special::LanemaskLt => lt,
                    Special::LanemaskLe => le,
                    Special::LanemaskGt => self.b.ins().bxor_imm_u(le, 0xffff_ffff),
                    _ => self.b.ins().bxor_imm_u(lt, 0xffff_ffff),
                }
            }
            Special::Warpid => {
                let t = self.b.use_var(self.thread);
                self.b.ins().ushr_imm_u(t, 5)
            }
            Special::DynamicSmem => {
                self.load_fixed(types::I64, offset_of!(BlockContext, dynamic_smem))
            }
            Special::TotalSmem => self.load_fixed(types::I64, offset_of!(BlockContext, total_smem)),
            Special::WorkspaceHi => {
                let v = self.load_fixed(types::I64, offset_of!(BlockContext, workspace));
                self.b.ins().ushr_imm_u(v, 32)
            }
            Special::WorkspaceLo => {
                let v = self.load_fixed(types::I64, offset_of!(BlockContext, workspace));
                mask_bits(self.b, v, 32)
            }
            // Refused by `unsupported`.
            _ => self.b.ins().iconst(types::I64, 0),
        }
    }

    fn set(&mut self, d: u32, v: Value) {
        self.regs.write(self.b, d, v);
    }

    /// [`op_address`] of instruction `pc`.
    fn op_address(&mut self, pc: usize) -> Value {
        op_address(self.b, self.ctx, pc)
    }

    fn call_evaluate(&mut self, pc: usize, a: Value, b: Value, c: Value) -> Value {
        let op = self.op_address(pc);
        let call = self.b.ins().call(self.t.evaluate, &[op, a, b, c]);
        self.b.inst_results(call)[0]
    }

    fn instruction(&mut self, pc: usize) -> Result<(), Unsupported> {
        let insts = &self.t.code.insts;
        // Earlier checks hold here only when the previous instruction is this block's one way
        // in: it falls through unconditionally and nothing else jumps here.
        let falls_through = pc > 0 && {
            let before = insts[pc - 1].operands();
            !before.guarded && before.flow == Flow::Next && before.meets.is_none()
        };
        if !falls_through || self.targets.contains(&pc) || self.resume_ids.contains_key(&pc) {
            self.checked.clear();
        }
        let written = insts[pc].operands().writes;
        let result = self.guarded_instruction(pc);
        // A register an entry's address reads has a new value: the entry no longer applies.
        self.checked
            .retain(|c| !matches!(c.addr.base, AddrBase::Reg(r) if written.contains(&r)));
        result
    }

    fn guarded_instruction(&mut self, pc: usize) -> Result<(), Unsupported> {
        let inst = &self.t.code.insts[pc];
        if let Some((reg, negated)) = inst.guard {
            if let Op::Bra { target } = inst.op {
                let v = self.reg(reg);
                let bit = self.b.ins().band_imm_u(v, 1);
                let taken = self.b.create_block();
                let next = self.next_block(pc);
                if negated {
                    self.b.ins().brif(bit, next, &[], taken, &[]);
                } else {
                    self.b.ins().brif(bit, taken, &[], next, &[]);
                }
                self.b.switch_to_block(taken);
                self.branch(pc, target as usize);
                return Ok(());
            }
            let v = self.reg(reg);
            let bit = self.b.ins().band_imm_u(v, 1);
            let run = self.b.create_block();
            let next = self.next_block(pc);
            if negated {
                self.b.ins().brif(bit, next, &[], run, &[]);
            } else {
                self.b.ins().brif(bit, run, &[], next, &[]);
            }
            self.b.switch_to_block(run);
        }
        self.operation(pc)
    }

    /// The block after `pc`, or one that ends the thread past the last instruction.
    fn next_block(&mut self, pc: usize) -> Block {
        if pc + 1 < self.blocks.len() {
            return self.blocks[pc + 1];
        }
        let block = self.b.create_block();
        self.pending_exits.push(block);
        block
    }

    /// A branch to `target`; backward branches burn fuel, and when it runs out the thread saves
    /// its state and calls `fuel_out`, which may stop the block.
    fn branch(&mut self, pc: usize, target: usize) {
        if target <= pc && self.spin_heads.contains(&target) {
            self.yield_at(target);
            return;
        }
        if target > pc || counted::ends_by_itself(&self.t.code.insts, pc, target) {
            self.jump_to_pc(target);
            return;
        }
        let fuel = self.b.use_var(self.fuel);
        let left = self.b.ins().iadd_imm_u(fuel, -1);
        self.b.def_var(self.fuel, left);
        let go = self.b.create_block();
        let out = self.b.create_block();
        self.b.ins().brif(left, go, &[], out, &[]);
        self.b.switch_to_block(go);
        self.jump_to_pc(target);
        self.b.set_cold_block(out);
        self.b.switch_to_block(out);
        self.save_state(AT_BRANCH | target as u32, target);
        let stop = crate::cold_call::call(self.b, self.t.fuel_out, &[self.ctx]);
        let stopped = self.b.create_block();
        let refuelled = self.b.create_block();
        self.b.set_cold_block(stopped);
        self.b.set_cold_block(refuelled);
        self.b.ins().brif(stop, stopped, &[], refuelled, &[]);
        self.b.switch_to_block(stopped);
        let status = self.b.ins().iconst(types::I32, i64::from(STOPPED));
        self.b.ins().return_(&[status]);
        self.b.switch_to_block(refuelled);
        let full = self.b.ins().iconst(types::I64, FUEL as i64);
        self.b.def_var(self.fuel, full);
        // The trampoline kept every register: the thread goes on with the values it has.
        self.jump_to_pc(target);
    }
}

/// The address of instruction `pc`'s operation, for the calls that read it (the scalar and
/// the vector code's): an offset from the context's [`BlockContext::ops`], so the generated
/// code holds no address of this process (the code cache keeps it from run to run).
pub(crate) fn op_address(b: &mut FunctionBuilder<'_>, ctx: Value, pc: usize) -> Value {
    let flags = MemFlagsData::trusted().with_readonly().with_can_move();
    let ops = b
        .ins()
        .load(types::I64, flags, ctx, offset_of!(BlockContext, ops) as i32);
    b.ins()
        .iadd_imm_u(ops, (pc * std::mem::size_of::<Inst>()) as i64)
}
