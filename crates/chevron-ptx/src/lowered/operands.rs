//! What each lowered instruction reads, writes and does: [`Op::operands`] and
//! [`Op::relocate`], both from one exhaustive `match` (`describe!`), so that the registers an
//! analysis sees and the registers inlining renumbers can never disagree.

use crate::interp::inst::{
    Addr, AddrBase, CallSlot, CallTarget, Collective, Inst, IntBin, IntTer, Op, Space, Src, SINK,
};

/// A memory access of an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    /// The state space accessed.
    pub space: Space,
    /// Read, written, or both at once.
    pub kind: AccessKind,
}

/// What an access does to memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessKind {
    /// A read.
    Load,
    /// A write.
    Store,
    /// A read-modify-write (atomics, reductions, `mbarrier` words).
    Atomic,
}

/// Where control goes after an instruction (unguarded; a guarded one may also go on).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Flow {
    /// To the next instruction.
    #[default]
    Next,
    /// To one of these instructions (`bra`: one, `brx.idx`: a table).
    Jump(Vec<u32>),
    /// Into a function, then on to the next instruction. The callee's memory effects are its
    /// own instructions'; a call of a device-runtime function (`vprintf`, `malloc`, ...) may
    /// read and write any global memory.
    Call,
    /// Out of the function (out of the thread in a kernel).
    Return,
    /// Out of the thread.
    Exit,
    /// Stops the thread with a fault (`trap`, `brkpt`, an instruction the CPU device does not
    /// run).
    Trap,
}

/// Threads an instruction waits for: all lanes of its warp or block meet there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Meeting {
    /// A warp-wide operation (`shfl`, `vote`, `match`, `redux`, `elect`, `bar.warp.sync`,
    /// `mma`, `wmma`, `ldmatrix`, `stmatrix`).
    Warp,
    /// A block barrier (`bar`, `barrier`).
    Block,
    /// A cluster barrier (`barrier.cluster`).
    Cluster,
}

/// An instruction's operands and effects.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Operands {
    /// Source operands, in order: registers, immediates, special registers, frame addresses.
    /// Address bases, carry flags and the guard are here too, as [`Src::Reg`].
    pub reads: Vec<Src>,
    /// Registers written (never [`SINK`]); a guarded instruction may leave them unwritten.
    pub writes: Vec<u32>,
    /// Memory accessed.
    pub accesses: Vec<Access>,
    /// Where control goes.
    pub flow: Flow,
    /// Whether the instruction waits for the other lanes of its warp, block or cluster.
    pub meets: Option<Meeting>,
    /// `membar`/`fence`: orders the thread's memory accesses.
    pub fence: bool,
    /// `alloca`, `stacksave`, `stackrestore`: moves the thread's stack top.
    pub stack: bool,
    /// Whether the instruction has a guard (`@%p`).
    pub guarded: bool,
}

impl Operands {
    /// Registers read ([`Src::Reg`] and [`Src::NotReg`] of [`Operands::reads`]).
    pub fn registers_read(&self) -> impl Iterator<Item = u32> + '_ {
        self.reads.iter().filter_map(|s| match s {
            Src::Reg(r) | Src::NotReg(r) => Some(*r),
            _ => None,
        })
    }
}

/// `&mut $place` under `iter_mut`, `&$place` under `iter` (a boxed operation's fields, which
/// the default binding modes of `describe!`'s patterns do not reach).
macro_rules! mut_or_ref {
    (iter, $place:expr) => {
        &$place
    };
    (iter_mut, $place:expr) => {
        &mut $place
    };
}

/// The one description of every operation's operands: `$op` is `&Op` or `&mut Op`, `$iter`
/// `iter` or `iter_mut`, `$v` an [`Operands`] or a [`Relocation`]. No wildcard arm: a new
/// operation must be described here before the crate compiles.
macro_rules! describe {
    ($op:expr, $iter:ident, $v:ident) => {
        match $op {
            Op::Nop => {}
            Op::Mov { d, a, .. }
            | Op::IntUn { d, a, .. }
            | Op::Testp { d, a, .. }
            | Op::Cvt { d, a, .. }
            | Op::Cvta { d, a, .. }
            | Op::Isspacep { d, a, .. }
            | Op::Getctarank { d, a } => {
                $v.read(a);
                $v.write(d);
            }
            Op::Pack { d, parts, .. } => {
                parts.$iter().for_each(|s| $v.read(s));
                $v.write(d);
            }
            Op::Unpack { ds, a, .. } => {
                $v.read(a);
                ds.$iter().for_each(|d| $v.write(d));
            }
            Op::IntBin { k, d, a, b, .. } => {
                $v.read(a);
                $v.read(b);
                $v.write(d);
                if let IntBin::Carry {
                    carry_in,
                    carry_out,
                    cc,
                    ..
                } = k
                {
                    match (*carry_in, *carry_out) {
                        (true, true) => $v.read_write(cc),
                        (true, false) => $v.read_reg(cc),
                        (false, true) => $v.write(cc),
                        (false, false) => {}
                    }
                }
            }
            Op::IntTer { k, d, a, b, c, .. } => {
                $v.read(a);
                $v.read(b);
                $v.read(c);
                $v.write(d);
                if let IntTer::Madc {
                    carry_in,
                    carry_out,
                    cc,
                    ..
                } = k
                {
                    match (*carry_in, *carry_out) {
                        (true, true) => $v.read_write(cc),
                        (true, false) => $v.read_reg(cc),
                        (false, true) => $v.write(cc),
                        (false, false) => {}
                    }
                }
            }
            Op::PredLogic { d, a, b, .. }
            | Op::CvtPack { d, a, b, .. }
            | Op::Mapa { d, a, rank: b } => {
                $v.read(a);
                $v.read(b);
                $v.write(d);
            }
            Op::Prmt { d, a, b, c, .. }
            | Op::Shf { d, a, b, c, .. }
            | Op::Selp { d, a, b, c, .. }
            | Op::Slct { d, a, b, c, .. }
            | Op::Float { d, a, b, c, .. } => {
                $v.read(a);
                $v.read(b);
                $v.read(c);
                $v.write(d);
            }
            Op::Bfi { d, a, b, c, e, .. } | Op::Lop3 { d, a, b, c, lut: e } => {
                $v.read(a);
                $v.read(b);
                $v.read(c);
                $v.read(e);
                $v.write(d);
            }
            Op::Setp { p, q, a, b, c, .. } => {
                $v.read(a);
                $v.read(b);
                $v.read(c);
                $v.write(p);
                $v.write(q);
            }
            Op::Ld {
                space, ds, addr, ..
            } => {
                $v.address(addr);
                ds.$iter().for_each(|d| $v.write(d));
                $v.access(*space, AccessKind::Load);
            }
            Op::St {
                space, addr, srcs, ..
            } => {
                $v.address(addr);
                srcs.$iter().for_each(|s| $v.read(s));
                $v.access(*space, AccessKind::Store);
            }
            Op::CpAsync {
                dst, src, src_size, ..
            } => {
                $v.address(dst);
                $v.address(src);
                if let Some(size) = src_size {
                    $v.read(size);
                }
                $v.access(Space::Global, AccessKind::Load);
                $v.access(Space::Shared, AccessKind::Store);
            }
            Op::Atom {
                space,
                d,
                addr,
                b,
                c,
                ..
            } => {
                $v.address(addr);
                $v.read(b);
                $v.read(c);
                $v.write(d);
                $v.access(*space, AccessKind::Atomic);
            }
            Op::Bra { target } => $v.flow(Flow::Jump(vec![*target])),
            Op::Brx { index, targets } => {
                $v.read(index);
                $v.flow(Flow::Jump(targets.to_vec()));
            }
            Op::Call(call) => {
                if let CallTarget::Indirect(s) = mut_or_ref!($iter, call.target) {
                    $v.read(s);
                }
                for arg in call.args.$iter() {
                    match arg {
                        CallSlot::Value(s) => $v.read(s),
                        CallSlot::Frame(offset) => {
                            $v.frame_slot(offset);
                            $v.access(Space::Local, AccessKind::Load);
                        }
                    }
                }
                for ret in call.returns.$iter() {
                    match ret {
                        CallSlot::Value(Src::Reg(r)) => $v.write(r),
                        CallSlot::Value(s) => $v.read(s),
                        CallSlot::Frame(offset) => {
                            $v.frame_slot(offset);
                            $v.access(Space::Local, AccessKind::Store);
                        }
                    }
                }
                $v.flow(Flow::Call);
            }
            Op::Ret => $v.flow(Flow::Return),
            Op::Exit => $v.flow(Flow::Exit),
            Op::Trap | Op::Brkpt | Op::Unsupported(_) => $v.flow(Flow::Trap),
            Op::Bar {
                id, count, d, pred, ..
            } => {
                $v.read(id);
                if let Some(count) = count {
                    $v.read(count);
                }
                $v.read(pred);
                $v.write(d);
                $v.meets(Meeting::Block);
            }
            Op::Warp { c, mask } => {
                $v.read(mask);
                match c {
                    Collective::Shfl { d, p, a, b, c, .. } => {
                        $v.read(a);
                        $v.read(b);
                        $v.read(c);
                        $v.write(d);
                        $v.write(p);
                    }
                    Collective::Vote { d, a, .. }
                    | Collective::MatchAny { d, a, .. }
                    | Collective::Redux { d, a, .. } => {
                        $v.read(a);
                        $v.write(d);
                    }
                    Collective::MatchAll { d, p, a, .. } => {
                        $v.read(a);
                        $v.write(d);
                        $v.write(p);
                    }
                    Collective::Elect { d, p } => {
                        $v.write(d);
                        $v.write(p);
                    }
                    Collective::WarpSync => {}
                }
                $v.meets(Meeting::Warp);
            }
            Op::Activemask { d } => $v.write(d),
            Op::StackSave { d } => {
                $v.write(d);
                $v.stack();
            }
            Op::Fence => $v.fence(),
            Op::Alloca { d, size, .. } => {
                $v.read(size);
                $v.write(d);
                $v.stack();
            }
            Op::StackRestore { a } => {
                $v.read(a);
                $v.stack();
            }
            Op::MatrixMove(m) => {
                $v.address(mut_or_ref!($iter, m.addr));
                m.values.$iter().for_each(|s| $v.read(s));
                m.d.$iter().for_each(|d| $v.write(d));
                let kind = if m.d.is_empty() {
                    AccessKind::Store
                } else {
                    AccessKind::Load
                };
                $v.access(m.space, kind);
                $v.meets(Meeting::Warp);
            }
            Op::Mma(m) => {
                m.a.$iter().for_each(|s| $v.read(s));
                m.b.$iter().for_each(|s| $v.read(s));
                m.c.$iter().for_each(|s| $v.read(s));
                m.d.$iter().for_each(|d| $v.write(d));
                $v.meets(Meeting::Warp);
            }
            Op::WmmaMma(m) => {
                m.a.$iter().for_each(|s| $v.read(s));
                m.b.$iter().for_each(|s| $v.read(s));
                m.c.$iter().for_each(|s| $v.read(s));
                m.d.$iter().for_each(|d| $v.write(d));
                $v.meets(Meeting::Warp);
            }
            Op::WmmaMove(m) => {
                $v.address(mut_or_ref!($iter, m.addr));
                if let Some(stride) = mut_or_ref!($iter, m.stride) {
                    $v.read(stride);
                }
                m.values.$iter().for_each(|s| $v.read(s));
                m.regs.$iter().for_each(|d| $v.write(d));
                let kind = if m.store {
                    AccessKind::Store
                } else {
                    AccessKind::Load
                };
                $v.access(m.space, kind);
                $v.meets(Meeting::Warp);
            }
            Op::Wgmma(m) => {
                // D is the accumulator: read, then written. A comes from registers or from
                // shared memory through a descriptor; B always from shared memory.
                m.d.$iter().for_each(|d| $v.read_write(d));
                match mut_or_ref!($iter, m.a) {
                    crate::interp::inst::WgmmaSource::Registers(regs) => {
                        regs.$iter().for_each(|s| $v.read(s));
                    }
                    crate::interp::inst::WgmmaSource::Descriptor(desc) => $v.read(desc),
                }
                $v.read(mut_or_ref!($iter, m.b));
                $v.read(mut_or_ref!($iter, m.scale_d));
                $v.access(Space::Shared, AccessKind::Load);
                // The four warps of a warpgroup take part together.
                $v.meets(Meeting::Block);
            }
            Op::Mbarrier(m) => {
                $v.address(mut_or_ref!($iter, m.addr));
                if let Some(b) = mut_or_ref!($iter, m.b) {
                    $v.read(b);
                }
                $v.write(mut_or_ref!($iter, m.d));
                $v.access(m.space, AccessKind::Atomic);
            }
            Op::BulkCopy(m) => {
                $v.address(mut_or_ref!($iter, m.dst));
                $v.address(mut_or_ref!($iter, m.src));
                $v.read(mut_or_ref!($iter, m.size));
                $v.access(m.src_space, AccessKind::Load);
                $v.access(m.dst_space, AccessKind::Store);
                if let Some(bar) = mut_or_ref!($iter, m.mbarrier) {
                    $v.address(bar);
                    $v.access(Space::Shared, AccessKind::Atomic);
                }
            }
            Op::BulkTensor(m) => {
                $v.read(mut_or_ref!($iter, m.map));
                m.coords.$iter().for_each(|s| $v.read(s));
                if let Some(mask) = mut_or_ref!($iter, m.multicast) {
                    $v.read(mask);
                }
                $v.address(mut_or_ref!($iter, m.shared));
                // The tensor map is read from memory (a parameter or global memory).
                $v.access(Space::Generic, AccessKind::Load);
                let (from, to) = if m.load {
                    (Space::Global, Space::Shared)
                } else {
                    (Space::Shared, Space::Global)
                };
                $v.access(from, AccessKind::Load);
                $v.access(to, AccessKind::Store);
                if let Some(bar) = mut_or_ref!($iter, m.mbarrier) {
                    $v.address(bar);
                    $v.access(Space::Shared, AccessKind::Atomic);
                }
            }
            Op::Texture(t) => {
                $v.read(mut_or_ref!($iter, t.handle));
                t.coords.$iter().for_each(|s| $v.read(s));
                t.values.$iter().for_each(|s| $v.read(s));
                t.d.$iter().for_each(|d| $v.write(d));
                // Texels and surface elements live in global memory.
                let kind = if t.stores() {
                    AccessKind::Store
                } else {
                    AccessKind::Load
                };
                $v.access(Space::Global, kind);
            }
            Op::ClusterBarrier { .. } => $v.meets(Meeting::Cluster),
            Op::Nanosleep => {}
        }
    };
}

impl Inst {
    /// The instruction's operands and effects, its guard included.
    pub fn operands(&self) -> Operands {
        let mut out = self.op.operands();
        if let Some((g, _)) = self.guard {
            out.reads.push(Src::Reg(g));
            out.guarded = true;
        }
        out
    }

    /// Instructions control may reach after this one, at `pc` of `n` (a guarded branch or
    /// end may also go on).
    pub fn successors(&self, pc: usize, n: usize) -> Vec<usize> {
        let next = (pc + 1 < n).then_some(pc + 1);
        let on = |out: &mut Vec<usize>| {
            if self.guard.is_some() {
                out.extend(next);
            }
        };
        match self.op.flow() {
            Flow::Jump(targets) => {
                let mut out: Vec<usize> = targets.into_iter().map(|t| t as usize).collect();
                on(&mut out);
                out
            }
            Flow::Return | Flow::Exit | Flow::Trap => {
                let mut out = Vec::new();
                on(&mut out);
                out
            }
            Flow::Next | Flow::Call => next.into_iter().collect(),
        }
    }
}

impl Op {
    /// The operation's operands and effects (see [`Operands`]).
    pub fn operands(&self) -> Operands {
        let mut out = Operands::default();
        describe!(self, iter, out);
        out
    }

    /// Where control goes after the operation.
    pub fn flow(&self) -> Flow {
        match self {
            Op::Bra { target } => Flow::Jump(vec![*target]),
            Op::Brx { targets, .. } => Flow::Jump(targets.to_vec()),
            _ => self.operands().flow,
        }
    }

    /// The operation of a function whose registers are placed from `registers` on and whose
    /// frame from local address `frame` on (inlining): every register it names (sources,
    /// destinations, address bases, carry flags) moves up by `registers`, every frame offset
    /// by `frame`. Branch targets are left to the caller.
    pub fn relocate(&mut self, registers: u32, frame: u64) {
        let mut out = Relocation {
            registers,
            frame,
            map: None,
        };
        describe!(self, iter_mut, out);
    }

    /// The operation with every register it names (as [`Op::relocate`] finds them) renamed:
    /// register `r` becomes `map[r]`.
    pub fn rename_registers(&mut self, map: &[u32]) {
        let mut out = Relocation {
            registers: 0,
            frame: 0,
            map: Some(map),
        };
        describe!(self, iter_mut, out);
    }
}

impl Src {
    /// The operand of a function placed as [`Op::relocate`] says: a register moves up by
    /// `registers`, a frame address by `frame`.
    pub fn relocate(&mut self, registers: u32, frame: u64) {
        match self {
            Src::Reg(r) | Src::NotReg(r) => *r += registers,
            Src::Frame(offset) => *offset += frame,
            Src::Imm(_) | Src::Special(_) => {}
        }
    }
}

/// Where `describe!` puts what it finds: [`Operands`] (shared references) or a
/// [`Relocation`] (mutable ones).
impl Operands {
    fn read(&mut self, s: &Src) {
        self.reads.push(*s);
    }

    fn read_reg(&mut self, r: &u32) {
        self.reads.push(Src::Reg(*r));
    }

    fn read_write(&mut self, r: &u32) {
        self.read_reg(r);
        self.write(r);
    }

    fn write(&mut self, d: &u32) {
        if *d != SINK {
            self.writes.push(*d);
        }
    }

    fn address(&mut self, a: &Addr) {
        if let AddrBase::Reg(r) = a.base {
            self.reads.push(Src::Reg(r));
        }
    }

    fn frame_slot(&mut self, _offset: &u64) {}

    fn access(&mut self, space: Space, kind: AccessKind) {
        self.accesses.push(Access { space, kind });
    }

    fn flow(&mut self, flow: Flow) {
        self.flow = flow;
    }

    fn meets(&mut self, meeting: Meeting) {
        self.meets = Some(meeting);
    }
}

/// [`Op::relocate`]'s visitor.
struct Relocation<'a> {
    registers: u32,
    frame: u64,
    /// Registers renamed by this table instead of moved by `registers`.
    map: Option<&'a [u32]>,
}

impl Relocation<'_> {
    fn register(&self, r: u32) -> u32 {
        match self.map {
            Some(map) => map.get(r as usize).copied().unwrap_or(r),
            None => r + self.registers,
        }
    }

    fn read(&mut self, s: &mut Src) {
        match s {
            Src::Reg(r) | Src::NotReg(r) => *r = self.register(*r),
            _ => s.relocate(0, self.frame),
        }
    }

    fn read_reg(&mut self, r: &mut u32) {
        *r = self.register(*r);
    }

    /// A register both read and written is one place, moved once.
    fn read_write(&mut self, r: &mut u32) {
        *r = self.register(*r);
    }

    fn write(&mut self, d: &mut u32) {
        if *d != SINK {
            *d = self.register(*d);
        }
    }

    fn address(&mut self, a: &mut Addr) {
        match &mut a.base {
            AddrBase::Reg(r) => *r = self.register(*r),
            AddrBase::Frame => a.offset += self.frame as i64,
            AddrBase::Abs | AddrBase::KernelParam => {}
        }
    }

    fn frame_slot(&mut self, offset: &mut u64) {
        *offset += self.frame;
    }

    fn access(&mut self, _space: Space, _kind: AccessKind) {}

    fn flow(&mut self, _flow: Flow) {}

    fn meets(&mut self, _meeting: Meeting) {}

    fn fence(&mut self) {}

    fn stack(&mut self) {}
}

impl Operands {
    fn fence(&mut self) {
        self.fence = true;
    }

    fn stack(&mut self) {
        self.stack = true;
    }
}
