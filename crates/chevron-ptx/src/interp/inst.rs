//! The executable form of an instruction, decoded once at load time.
//!
//! Registers are numbered per function, symbols are resolved to addresses or frame offsets,
//! labels to instruction indices, immediates converted to the bit pattern of the instruction's
//! type, and modifiers digested into the fields each instruction family needs. Executing an
//! instruction therefore never looks at a string or a hash map.

/// Where a `wgmma`'s A comes from (registers or a shared-memory descriptor).
pub(crate) use super::exec::wgmma::Source as WgmmaSource;
pub use super::exec::{
    collective_offer, collective_result, evaluate_atomic, evaluate_compare, evaluate_float,
    evaluate_int, evaluate_int_unary, partners, shuffle_source,
};
use crate::interp::numeric::convert::CvtOptions;
use crate::ir::{Compare, Rounding, ScalarType};

/// Marks a destination that is the sink `_`.
pub const SINK: u32 = u32::MAX;

/// A source operand.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Src {
    /// A register of the current function.
    Reg(u32),
    /// A constant, already in the instruction type's bit pattern.
    Imm(u64),
    /// `!%p`.
    NotReg(u32),
    /// A special register.
    Special(Special),
    /// The local-space address of a variable in the lane's current frame: frame base + offset.
    Frame(u64),
}

/// Special registers whose value depends on the lane, warp, block or launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    Tid(u8),
    Ntid(u8),
    Ctaid(u8),
    Nctaid(u8),
    Laneid,
    Warpid,
    LanemaskEq,
    LanemaskLt,
    LanemaskLe,
    LanemaskGt,
    LanemaskGe,
    Clock,
    Clock64,
    Globaltimer,
    GlobaltimerLo,
    GlobaltimerHi,
    Gridid,
    /// `%envreg1`: high half of the grid-synchronisation workspace address.
    WorkspaceHi,
    /// `%envreg2`: low half of it.
    WorkspaceLo,
    DynamicSmem,
    TotalSmem,
    /// Linear thread index in the block (used internally).
    Smid,
    /// `%cluster_*`, `%clusterid`, `%nclusterid`, `%is_explicit_cluster`.
    Cluster(ClusterSpecial),
}

/// The special registers of thread-block clusters (component x, y, z where they have one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClusterSpecial {
    /// `%cluster_ctaid`: the block's position in its cluster.
    Ctaid(u8),
    /// `%cluster_nctaid`: the cluster's shape.
    Nctaid(u8),
    /// `%cluster_ctarank`: the block's linear rank in its cluster.
    Ctarank,
    /// `%cluster_nctarank`: blocks per cluster.
    Nctarank,
    /// `%clusterid`: the cluster's position in the grid.
    Id(u8),
    /// `%nclusterid`: clusters per grid dimension.
    Nid(u8),
    /// `%is_explicit_cluster`: whether the launch named a cluster.
    IsExplicit,
}

/// The base of an address operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddrBase {
    /// `[%rd+off]`.
    Reg(u32),
    /// An absolute address (a global/const/shared variable, or `[1024]`): the offset is it.
    Abs,
    /// A variable of the lane's frame (local-space address: frame base + offset).
    Frame,
    /// A kernel parameter: offset into the parameter buffer.
    KernelParam,
}

/// An address operand `[base+offset]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Addr {
    pub base: AddrBase,
    pub offset: i64,
}

/// The state space of a memory instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    Global,
    Const,
    Shared,
    Local,
    Param,
    Generic,
}

/// Two-operand integer operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntBin {
    Add,
    Sub,
    AddSat,
    SubSat,
    MulLo,
    MulHi,
    MulWide,
    Mul24Lo,
    Mul24Hi,
    Div,
    Rem,
    Min,
    Max,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    /// `add.cc`, `sub.cc`, `addc`, `subc` and `addc.cc`/`subc.cc`: carry in, carry out.
    Carry {
        sub: bool,
        carry_in: bool,
        carry_out: bool,
        cc: u32,
    },
    MinRelu,
    MaxRelu,
    Bmsk {
        wrap: bool,
    },
}

/// One-operand integer operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntUn {
    Neg,
    Not,
    Cnot,
    Abs,
    Popc,
    Clz,
    Brev,
    Bfind { shiftamt: bool },
}

/// Three-operand integer operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntTer {
    MadLo,
    MadHi,
    MadWide,
    MadHiSat,
    Mad24Lo,
    Mad24Hi,
    Madc {
        hi: bool,
        carry_in: bool,
        carry_out: bool,
        cc: u32,
    },
    Fns,
    Bfe,
    Sad,
    Dp4a {
        a_signed: bool,
        b_signed: bool,
    },
    Dp2a {
        hi: bool,
        a_signed: bool,
        b_signed: bool,
    },
    Szext {
        wrap: bool,
    },
    /// `cvt.pack.sat.{u16,s16,u8,s8}.s32.b32`: `a` and `b` saturated to the instruction type,
    /// `a`'s bits above `b`'s, and (8-bit parts) `c` shifted in above both.
    CvtPackSat,
}

/// Float operation kinds (binary and unary share one enum).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatOp {
    Add,
    Sub,
    Mul,
    Div,
    DivApprox,
    DivFull,
    Min {
        nan: bool,
    },
    Max {
        nan: bool,
    },
    /// `min.xorsign.abs` / `max.xorsign.abs`.
    XorsignAbs {
        max: bool,
        nan: bool,
    },
    Copysign,
    Fma,
    Neg,
    Abs,
    Sqrt,
    SqrtApprox,
    Rsqrt,
    Rcp,
    RcpApprox,
    RcpApproxFtzF64,
    Sin,
    Cos,
    Lg2,
    Ex2,
    Tanh,
}

/// The modifiers of a float instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FloatMods {
    pub ty: ScalarType,
    pub rnd: Rounding,
    pub ftz: bool,
    pub sat: bool,
    pub relu: bool,
}

/// Warp-level collective operations.
#[derive(Debug, Clone, PartialEq)]
pub enum Collective {
    Shfl {
        mode: crate::ir::ShuffleMode,
        d: u32,
        p: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    Vote {
        mode: crate::ir::VoteMode,
        uni: bool,
        d: u32,
        a: Src,
    },
    MatchAny {
        d: u32,
        a: Src,
        bits: u8,
    },
    MatchAll {
        d: u32,
        p: u32,
        a: Src,
        bits: u8,
    },
    Redux {
        op: crate::ir::Op,
        signed: bool,
        ty: ScalarType,
        d: u32,
        a: Src,
    },
    Elect {
        d: u32,
        p: u32,
    },
    WarpSync,
}

/// Barrier flavours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarrierKind {
    Sync,
    Arrive,
    /// `bar.red.popc.u32`, `.and.pred`, `.or.pred`.
    Red(crate::ir::Op),
}

/// A call's target.
#[derive(Debug, Clone, PartialEq)]
pub enum CallTarget {
    Direct(u32),
    Indirect(Src),
}

/// Device-runtime functions the CPU device provides itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    /// `vprintf(format, args)`.
    Vprintf,
    /// `malloc(size)`.
    Malloc,
    /// `free(ptr)`.
    Free,
    /// `__assertfail(message, file, line, function, char_size)`.
    AssertFail,
    /// A function of CUDA's device runtime (`libcudadevrt`): device-side launches, streams
    /// and errors (`interp/device_runtime.rs`).
    Device(DeviceCall),
}

/// The device runtime's functions the CPU device provides, under their CUDA 12+ names
/// (`__cudaCDP2…`, with or without `_ptsz`) and their older ones (`cudaGetParameterBuffer`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceCall {
    /// `cudaGetParameterBuffer(alignment, size)`.
    GetParameterBuffer,
    /// `cudaGetParameterBufferV2(func, grid, block, shared)`.
    GetParameterBufferV2,
    /// `cudaLaunchDevice(func, buffer, grid, block, shared, stream)`.
    LaunchDevice,
    /// `cudaLaunchDeviceV2(buffer, stream)`.
    LaunchDeviceV2,
    /// `cudaGetLastError()`.
    GetLastError,
    /// `cudaPeekAtLastError()`.
    PeekAtLastError,
    /// `cudaStreamCreateWithFlags(&stream, flags)`.
    StreamCreateWithFlags,
    /// `cudaStreamDestroy(stream)`.
    StreamDestroy,
    /// `cudaGetDevice(&device)`.
    GetDevice,
}

/// Where a call argument or return value comes from or goes to, on the caller's side.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CallSlot {
    /// A `.param` variable of the caller's frame: offset.
    Frame(u64),
    /// A register or constant of the caller.
    Value(Src),
}

/// `call`: target, return destinations and arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub target: CallTarget,
    pub returns: Vec<CallSlot>,
    pub args: Vec<CallSlot>,
}

/// A decoded operation.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Nop,
    /// `mov`, and any copy of `bits` bits.
    Mov {
        d: u32,
        a: Src,
        bits: u8,
    },
    /// `mov.b64 %rd, {%r1, %r2}`: pack parts of `part` bits, lowest first.
    Pack {
        d: u32,
        parts: Box<[Src]>,
        part: u8,
    },
    /// `mov.b64 {%r1, %r2}, %rd`.
    Unpack {
        ds: Box<[u32]>,
        a: Src,
        part: u8,
    },
    IntBin {
        k: IntBin,
        t: ScalarType,
        d: u32,
        a: Src,
        b: Src,
    },
    IntUn {
        k: IntUn,
        t: ScalarType,
        d: u32,
        a: Src,
    },
    IntTer {
        k: IntTer,
        t: ScalarType,
        d: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    Bfi {
        bits: u8,
        d: u32,
        a: Src,
        b: Src,
        c: Src,
        e: Src,
    },
    Prmt {
        mode: crate::interp::numeric::bits::PrmtMode,
        d: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    Shf {
        left: bool,
        wrap: bool,
        d: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    Lop3 {
        d: u32,
        a: Src,
        b: Src,
        c: Src,
        lut: Src,
    },
    /// `selp`: `d = c ? a : b`.
    Selp {
        bits: u8,
        d: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    /// `slct`: `d = c >= 0 ? a : b`, c of type `cty`.
    Slct {
        bits: u8,
        cty: ScalarType,
        ftz: bool,
        d: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    /// `setp`/`set`: compare, optionally combine with a predicate.
    Setp {
        cmp: Compare,
        ty: ScalarType,
        ftz: bool,
        combine: Option<crate::ir::Op>,
        p: u32,
        q: u32,
        a: Src,
        b: Src,
        c: Src,
        /// `set`: destination type (None for setp).
        set_ty: Option<ScalarType>,
    },
    /// Boolean ops on predicates (`and.pred`, `or.pred`, `xor.pred`, `not.pred`).
    PredLogic {
        op: crate::ir::Op,
        d: u32,
        a: Src,
        b: Src,
    },
    Float {
        op: FloatOp,
        m: FloatMods,
        d: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    Testp {
        kind: &'static str,
        ty: ScalarType,
        d: u32,
        a: Src,
    },
    Cvt {
        dst: ScalarType,
        src: ScalarType,
        options: Box<CvtOptions>,
        d: u32,
        a: Src,
    },
    /// `cvt.*.f16x2.f32 d, a, b` and similar packing conversions.
    CvtPack {
        dst: ScalarType,
        options: Box<CvtOptions>,
        d: u32,
        a: Src,
        b: Src,
    },
    /// `cvta` (`to` = false: space to generic) for a state space.
    Cvta {
        to: bool,
        space: Space,
        d: u32,
        a: Src,
        bits: u8,
    },
    Isspacep {
        space: Space,
        d: u32,
        a: Src,
    },
    Ld {
        space: Space,
        bits: u8,
        signed: bool,
        ds: Box<[u32]>,
        addr: Addr,
    },
    St {
        space: Space,
        bits: u8,
        addr: Addr,
        srcs: Box<[Src]>,
    },
    /// `cp.async` (run synchronously): copy `size` bytes, zero-filling past `src_size`.
    CpAsync {
        dst: Addr,
        src: Addr,
        size: u32,
        src_size: Option<Src>,
    },
    Atom {
        space: Space,
        op: crate::ir::Op,
        ty: ScalarType,
        d: u32,
        addr: Addr,
        b: Src,
        c: Src,
    },
    Bra {
        target: u32,
    },
    /// `brx.idx`: jump to `targets[index]`.
    Brx {
        index: Src,
        targets: Box<[u32]>,
    },
    Call(Box<Call>),
    Ret,
    Exit,
    Trap,
    Brkpt,
    Bar {
        kind: BarrierKind,
        id: Src,
        count: Option<Src>,
        d: u32,
        pred: Src,
        aligned: bool,
    },
    Warp {
        c: Collective,
        mask: Src,
    },
    Activemask {
        d: u32,
    },
    Fence,
    Alloca {
        d: u32,
        size: Src,
        align: u32,
    },
    StackSave {
        d: u32,
    },
    StackRestore {
        a: Src,
    },
    /// `ldmatrix` / `stmatrix` (warp-wide).
    MatrixMove(Box<super::exec::matrix_move::MatrixMove>),
    /// `mma.sync` (warp-wide).
    Mma(Box<super::exec::mma::Mma>),
    /// `wmma.load` / `wmma.store` (warp-wide).
    WmmaMove(Box<super::exec::wmma::WmmaMove>),
    /// `wmma.mma` (warp-wide).
    WmmaMma(Box<super::exec::wmma::WmmaMma>),
    /// `wgmma.mma_async` (warpgroup-wide; `wgmma.fence`/`commit_group`/`wait_group` are `Nop`).
    Wgmma(Box<super::exec::wgmma::Wgmma>),
    /// `mbarrier` operations.
    Mbarrier(Box<super::exec::mbarrier::Mbarrier>),
    /// `cp.async.bulk` (run synchronously).
    BulkCopy(Box<super::exec::bulk_copy::BulkCopy>),
    /// `tex`, `tld4`, `txq`, `suld`, `sust`, `suq` on object handles.
    Texture(Box<super::exec::texture_ops::TextureOp>),
    /// An instruction the CPU device cannot execute, with the reason: launching a kernel that
    /// can reach it fails, naming it.
    Unsupported(String),
    /// `mapa`: the address of a variable in another block of the cluster.
    Mapa {
        d: u32,
        a: Src,
        rank: Src,
    },
    /// `getctarank`: the rank of the block whose shared memory a cluster address names.
    Getctarank {
        d: u32,
        a: Src,
    },
    /// `barrier.cluster.arrive` (`wait` false) or `barrier.cluster.wait` (`wait` true).
    ClusterBarrier {
        wait: bool,
    },
    /// `cp.async.bulk.tensor` (run synchronously).
    BulkTensor(Box<super::exec::bulk_tensor::BulkTensor>),
    /// `nanosleep`: yields the warp.
    Nanosleep,
}

/// One decoded instruction.
#[derive(Debug, Clone, PartialEq)]
pub struct Inst {
    /// `@%p` (register, negated).
    pub guard: Option<(u32, bool)>,
    pub op: Op,
}
