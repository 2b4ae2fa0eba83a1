//! Loads and stores in every state space (`ld`, `ldu`, `st`, scalar and `.v2`/`.v4`/`.v8`), and
//! the address resolution every memory instruction shares: state-space and generic addresses
//! mapped to global memory (checked against the allocation table), the block's shared memory,
//! the lane's local memory, or the kernel's parameters. Cache and ordering modifiers (`.nc`,
//! `.ca`, `.volatile`, `.relaxed`, …) change nothing on the CPU device; a 16-byte global
//! access is made whole (`wide_access.rs`).

use super::{for_lanes, Flow, Launch};
use crate::interp::block::Block;
use crate::interp::cluster;
use crate::interp::fault::{ExecFault, FaultKind, LoadError, MemoryError};
use crate::interp::inst::{Addr, AddrBase, Op, Space};
use crate::interp::memory::{Allocation, Window};
use crate::interp::program::{space_of, Decoder};
use crate::interp::warp::Warp;
use crate::interp::wide_access;
use crate::ir::{self, KnownOpcode as K, ScalarType as T};

/// Where an access lands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Loc {
    Global(u64),
    Shared(u64),
    Local(u64),
    Param(u64),
}

impl Loc {
    /// The same space, `off` bytes further (vector elements after the first).
    fn offset(self, off: u64) -> Loc {
        match self {
            Loc::Global(x) => Loc::Global(x.wrapping_add(off)),
            Loc::Shared(x) => Loc::Shared(x.wrapping_add(off)),
            Loc::Local(x) => Loc::Local(x.wrapping_add(off)),
            Loc::Param(x) => Loc::Param(x.wrapping_add(off)),
        }
    }
}

pub(super) fn decode(d: &Decoder<'_>, inst: &ir::Instruction, op: K) -> Result<Op, LoadError> {
    if matches!(op, K::Prefetch | K::Prefetchu | K::Discard) {
        return Ok(Op::Nop);
    }
    if op == K::Createpolicy {
        return Ok(Op::Mov {
            d: d.dst_at(inst, 0)?,
            a: crate::interp::inst::Src::Imm(0),
            bits: 64,
        });
    }
    let ty = inst.ty().ok_or_else(|| d.error(inst, "missing type"))?;
    if ty == T::B128 {
        return Err(d.error(inst, "128-bit accesses are not supported on the CPU device"));
    }
    let space = if op == K::Ldu && inst.space().is_none() {
        Space::Global
    } else {
        space_of(inst)
    };
    let bits = (ty.size() * 8) as u8;
    if op == K::St {
        let addr = d.addr(
            inst,
            inst.operands
                .first()
                .ok_or_else(|| d.error(inst, "missing address"))?,
            space,
        )?;
        let value = inst
            .operands
            .get(1)
            .ok_or_else(|| d.error(inst, "missing value"))?;
        return Ok(Op::St {
            space,
            bits,
            addr,
            srcs: d.srcs(inst, value, ty)?,
        });
    }
    let dst = inst
        .operands
        .first()
        .ok_or_else(|| d.error(inst, "missing destination"))?;
    let addr = d.addr(
        inst,
        inst.operands
            .get(1)
            .ok_or_else(|| d.error(inst, "missing address"))?,
        space,
    )?;
    Ok(Op::Ld {
        space,
        bits,
        signed: ty.is_signed(),
        ds: d.dsts(inst, dst)?,
        addr,
    })
}

/// Decodes `cp.async` (copies run at once; `commit_group` and `wait_group` do nothing).
pub(super) fn decode_cp_async(d: &Decoder<'_>, inst: &ir::Instruction) -> Result<Op, LoadError> {
    if inst.operands.len() < 3 {
        return Ok(Op::Nop);
    }
    let size = match inst.operands.get(2) {
        Some(ir::Operand::Immediate(ir::Immediate::Int(n))) if matches!(*n, 4 | 8 | 16) => {
            *n as u32
        }
        _ => return Err(d.error(inst, "cp.async needs a copy size of 4, 8 or 16")),
    };
    let src_size = match inst.operands.get(3) {
        Some(op @ (ir::Operand::Immediate(_) | ir::Operand::Register(_))) => {
            Some(d.src(inst, op, T::U32)?)
        }
        _ => None,
    };
    Ok(Op::CpAsync {
        dst: d.addr(inst, &inst.operands[0], Space::Shared)?,
        src: d.addr(inst, &inst.operands[1], Space::Global)?,
        size,
        src_size,
    })
}

/// The address of `addr` for `lane` in its own space's numbering.
#[inline(always)]
pub(crate) fn address(w: &Warp, addr: &Addr, lane: usize) -> u64 {
    let base = match addr.base {
        AddrBase::Reg(r) => w.get(crate::interp::inst::Src::Reg(r), lane),
        AddrBase::Abs | AddrBase::KernelParam => 0,
        AddrBase::Frame => w.frame_base[lane],
    };
    base.wrapping_add(addr.offset as u64)
}

/// Maps a generic address to where it lands.
#[inline(always)]
pub(crate) fn resolve_generic(a: u64) -> Loc {
    match Window::of(a) {
        Window::Global => Loc::Global(a),
        Window::Shared(o) => Loc::Shared(o),
        Window::Local(o) => Loc::Local(o),
        Window::Param(o) => Loc::Param(o),
    }
}

/// An address of the shared or local state space: 32 bits, as hardware forms it. nvcc adds an
/// offset to a 32-bit register and relies on the sum wrapping (`[%r1+-4]` with `%r1` holding
/// 0, or an index below the base held as a large unsigned value).
#[inline(always)]
pub(crate) fn window_offset(a: u64) -> u64 {
    a & 0xffff_ffff
}

/// Where an access of `space` at address `a` (computed from `addr`) lands.
#[inline(always)]
pub(crate) fn locate(space: Space, addr: &Addr, a: u64) -> Loc {
    match space {
        Space::Global | Space::Const => Loc::Global(a),
        Space::Shared => Loc::Shared(window_offset(a)),
        Space::Local => Loc::Local(window_offset(a)),
        Space::Param => match addr.base {
            AddrBase::KernelParam => Loc::Param(a),
            AddrBase::Frame => Loc::Local(a),
            _ => match Window::of(a) {
                Window::Param(o) => Loc::Param(o),
                _ => Loc::Local(a),
            },
        },
        Space::Generic => resolve_generic(a),
    }
}

fn memory_fault(e: MemoryError, lane: usize, addr: u64) -> ExecFault {
    let kind = match e {
        MemoryError::UseAfterFree { .. } => FaultKind::UseAfterFree,
        _ => FaultKind::OutOfBounds,
    };
    ExecFault::at(kind, lane as u32, addr, e.to_string())
}

/// The allocation holding `[addr, addr + len)`, through the warp's cache.
#[inline]
pub(crate) fn allocation<'w>(
    w: &'w mut Warp,
    l: &Launch<'_>,
    addr: u64,
    len: u64,
    lane: usize,
) -> Result<&'w Allocation, ExecFault> {
    if w.cache.find(addr, len).is_none() {
        let found = l
            .memory
            .lookup(addr, len)
            .map_err(|e| memory_fault(e, lane, addr))?;
        w.cache.insert(found);
    }
    w.cache.find(addr, len).ok_or_else(|| {
        ExecFault::at(
            FaultKind::UseAfterFree,
            lane as u32,
            addr,
            "allocation freed during the access",
        )
    })
}

/// Loads `len` bytes of global memory, through the warp's cache.
#[inline(always)]
fn global_load(
    w: &mut Warp,
    l: &Launch<'_>,
    a: u64,
    len: u64,
    lane: usize,
) -> Result<u64, ExecFault> {
    if let Some(alloc) = w.cache.find(a, len) {
        return checked_load(alloc, a, len, lane);
    }
    let alloc = allocation(w, l, a, len, lane)?;
    checked_load(alloc, a, len, lane)
}

/// Loads from `alloc`, refusing bytes never written when it tracks them (initcheck).
#[inline(always)]
fn checked_load(alloc: &Allocation, a: u64, len: u64, lane: usize) -> Result<u64, ExecFault> {
    if let Some(at) = alloc.first_undefined(a - alloc.base, len) {
        return Err(uninitialized(alloc, a, len, at, lane));
    }
    Ok(alloc.load(a - alloc.base, len as u32))
}

/// initcheck's fault: a load of bytes nothing wrote.
#[cold]
fn uninitialized(alloc: &Allocation, a: u64, len: u64, at: u64, lane: usize) -> ExecFault {
    ExecFault::at(
        FaultKind::UninitializedRead,
        lane as u32,
        a,
        format!(
            "{len}-byte load of memory never written (first unwritten byte {:#x}, in the \
             {}-byte allocation at {:#x})",
            alloc.base + at,
            alloc.size,
            alloc.base
        ),
    )
}

/// Reads `len` (1, 2, 4, 8) little-endian bytes at `at`.
#[inline(always)]
fn read_fixed(bytes: &[u8], at: usize, len: u64) -> u64 {
    match len {
        1 => u64::from(bytes[at]),
        2 => {
            let mut b = [0u8; 2];
            b.copy_from_slice(&bytes[at..at + 2]);
            u64::from(u16::from_le_bytes(b))
        }
        4 => {
            let mut b = [0u8; 4];
            b.copy_from_slice(&bytes[at..at + 4]);
            u64::from(u32::from_le_bytes(b))
        }
        _ => {
            let mut b = [0u8; 8];
            b.copy_from_slice(&bytes[at..at + 8]);
            u64::from_le_bytes(b)
        }
    }
}

/// Writes the low `len` (1, 2, 4, 8) bytes of `v` at `at`.
#[inline(always)]
fn write_fixed(bytes: &mut [u8], at: usize, len: u64, v: u64) {
    match len {
        1 => bytes[at] = v as u8,
        2 => bytes[at..at + 2].copy_from_slice(&(v as u16).to_le_bytes()),
        4 => bytes[at..at + 4].copy_from_slice(&(v as u32).to_le_bytes()),
        _ => bytes[at..at + 8].copy_from_slice(&v.to_le_bytes()),
    }
}

/// Checks natural alignment of an access of `len` bytes.
#[inline(always)]
pub(crate) fn check_align(a: u64, len: u64, lane: usize) -> Result<(), ExecFault> {
    if a & (len - 1) != 0 {
        return Err(ExecFault::at(
            FaultKind::Misaligned,
            lane as u32,
            a,
            format!("{len}-byte access at an address that is not a multiple of {len}"),
        ));
    }
    Ok(())
}

/// Where a shared-memory access lands: the running block's memory (`peer` None) or that of
/// another block of its cluster, at byte `at`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SharedAt {
    peer: Option<usize>,
    at: usize,
}

/// The shared memory of the running block, or of the cluster's block `peer`.
fn shared_memory(b: &Block, peer: Option<usize>) -> &[u8] {
    match (peer, &b.cluster) {
        (Some(rank), Some(link)) => &link.peers[rank],
        _ => &b.shared,
    }
}

/// Reads `len` bytes at `at`.
pub(crate) fn read_shared(b: &Block, at: SharedAt, len: u64) -> u64 {
    read_fixed(shared_memory(b, at.peer), at.at, len)
}

/// Writes the low `len` bytes of `v` at `at`.
pub(crate) fn write_shared(b: &mut Block, at: SharedAt, len: u64, v: u64) {
    match (at.peer, &mut b.cluster) {
        (Some(rank), Some(link)) => write_fixed(&mut link.peers[rank], at.at, len, v),
        _ => write_fixed(&mut b.shared, at.at, len, v),
    }
}

/// Checks a shared-memory access of `len` bytes at offset `off` (with a cluster rank in its
/// high bits for another block's memory, `interp/cluster.rs`).
pub(crate) fn shared_range(
    b: &Block,
    off: u64,
    len: u64,
    lane: usize,
    generic: u64,
) -> Result<SharedAt, ExecFault> {
    let (peer, off) = match cluster::rank_of(off) {
        None => (None, off),
        Some(rank) => {
            let own = b.cluster.as_ref().map_or(0, |c| c.rank);
            let blocks = b.cluster.as_ref().map_or(1, |c| c.peers.len().max(1));
            if rank == own {
                (None, off & cluster::OFFSET_MASK)
            } else if (rank as usize) < blocks {
                (Some(rank as usize), off & cluster::OFFSET_MASK)
            } else {
                return Err(ExecFault::at(
                    FaultKind::SharedOverrun,
                    lane as u32,
                    generic,
                    format!(
                        "a `.shared::cluster` address of rank {rank}, outside the block's \
                         cluster of {blocks}"
                    ),
                ));
            }
        }
    };
    let size = shared_memory(b, peer).len() as u64;
    if off.checked_add(len).is_none_or(|end| end > size) {
        let whose = match peer {
            Some(rank) => format!("block {rank} of the cluster has"),
            None => "the block has".to_string(),
        };
        return Err(ExecFault::at(
            FaultKind::SharedOverrun,
            lane as u32,
            generic,
            format!("{len}-byte access at shared offset {off:#x}; {whose} {size} bytes of shared memory"),
        ));
    }
    Ok(SharedAt {
        peer,
        at: off as usize,
    })
}

fn local_range(
    w: &Warp,
    off: u64,
    len: u64,
    lane: usize,
    generic: u64,
) -> Result<usize, ExecFault> {
    if off
        .checked_add(len)
        .is_none_or(|end| end > w.stack_top[lane])
    {
        return Err(ExecFault::at(
            FaultKind::StackOverflow,
            lane as u32,
            generic,
            format!(
                "{len}-byte access at local offset {off:#x}, beyond the thread's {}-byte stack",
                w.stack_top[lane]
            ),
        ));
    }
    Ok(off as usize)
}

/// Loads `len` (1, 2, 4, 8) bytes from `loc` for `lane`.
#[inline]
pub(crate) fn load(
    w: &mut Warp,
    b: &Block,
    l: &Launch<'_>,
    loc: Loc,
    len: u64,
    lane: usize,
    a: u64,
) -> Result<u64, ExecFault> {
    match loc {
        Loc::Global(g) => global_load(w, l, g, len, lane),
        Loc::Shared(o) => {
            let at = shared_range(b, o, len, lane, a)?;
            Ok(read_shared(b, at, len))
        }
        Loc::Local(o) => {
            let at = local_range(w, o, len, lane, a)?;
            Ok(read_fixed(&w.local[lane], at, len))
        }
        Loc::Param(o) => {
            if o.checked_add(len)
                .is_none_or(|end| end > l.params.len() as u64)
            {
                return Err(ExecFault::at(
                    FaultKind::OutOfBounds,
                    lane as u32,
                    a,
                    "beyond the kernel's parameters",
                ));
            }
            Ok(read_fixed(l.params, o as usize, len))
        }
    }
}

/// Stores the low `len` bytes of `v` at `loc` for `lane`.
#[inline]
#[allow(clippy::too_many_arguments)]
pub(crate) fn store(
    w: &mut Warp,
    b: &mut Block,
    l: &Launch<'_>,
    loc: Loc,
    len: u64,
    lane: usize,
    a: u64,
    v: u64,
) -> Result<(), ExecFault> {
    match loc {
        Loc::Global(g) => {
            if let Some(alloc) = w.cache.find(g, len) {
                alloc.store(g - alloc.base, len as u32, v);
            } else {
                let alloc = allocation(w, l, g, len, lane)?;
                alloc.store(g - alloc.base, len as u32, v);
            }
        }
        Loc::Shared(o) => {
            let at = shared_range(b, o, len, lane, a)?;
            write_shared(b, at, len, v);
        }
        Loc::Local(o) => {
            let at = local_range(w, o, len, lane, a)?;
            write_fixed(&mut w.local[lane], at, len, v);
        }
        Loc::Param(_) => {
            return Err(ExecFault::at(
                FaultKind::ReadOnly,
                lane as u32,
                a,
                "kernel parameters are read-only",
            ));
        }
    }
    Ok(())
}

/// Whether a vector access of `count` elements and `total` bytes is made as one access: up to
/// eight bytes, a power of two (its alignment is checked to that size), so it is single-copy
/// atomic as on the hardware.
fn single_access(count: usize, total: u64) -> bool {
    count > 1 && total <= 8 && total.is_power_of_two()
}

/// Element `i` of `bits` bits of a little-endian `word`.
fn element(word: u64, i: usize, bits: u8) -> u64 {
    let shifted = word >> (i as u32 * u32::from(bits));
    if bits >= 64 {
        shifted
    } else {
        shifted & ((1u64 << bits) - 1)
    }
}

fn sign_extend(v: u64, bits: u8) -> u64 {
    let shift = 64 - u32::from(bits);
    (((v << shift) as i64) >> shift) as u64
}

pub(super) fn execute(
    op: &Op,
    w: &mut Warp,
    b: &mut Block,
    l: &Launch<'_>,
    mask: u32,
) -> Result<Flow, ExecFault> {
    match op {
        Op::Ld {
            space,
            bits,
            signed,
            ds,
            addr,
        } if ds.len() == 1 => {
            let (len, d, signed, bits) =
                (u64::from(*bits / 8), ds[0], *signed && *bits < 64, *bits);
            for_lanes!(mask, |lane| {
                let a = address(w, addr, lane);
                check_align(a, len, lane)?;
                let mut v = match *space {
                    Space::Global | Space::Const => global_load(w, l, a, len, lane)?,
                    Space::Shared => {
                        let at = shared_range(b, window_offset(a), len, lane, a)?;
                        read_shared(b, at, len)
                    }
                    _ => load(w, b, l, locate(*space, addr, a), len, lane, a)?,
                };
                if signed {
                    v = sign_extend(v, bits);
                }
                w.set(d, lane, v);
            });
        }
        Op::Ld {
            space,
            bits,
            signed,
            ds,
            addr,
        } => {
            let len = u64::from(*bits / 8);
            let total = len * ds.len() as u64;
            for_lanes!(mask, |lane| {
                let a = address(w, addr, lane);
                check_align(a, total.next_power_of_two(), lane)?;
                let loc = locate(*space, addr, a);
                if let (16, Loc::Global(g)) = (total, loc) {
                    let words = {
                        let alloc = allocation(w, l, g, 16, lane)?;
                        if let Some(at) = alloc.first_undefined(g - alloc.base, 16) {
                            return Err(uninitialized(alloc, g, 16, at, lane));
                        }
                        wide_access::load(alloc, g - alloc.base)
                    };
                    let per_word = 64 / usize::from(*bits);
                    for (i, d) in ds.iter().enumerate() {
                        let mut v = element(words[i / per_word], i % per_word, *bits);
                        if *signed && *bits < 64 {
                            v = sign_extend(v, *bits);
                        }
                        w.set(*d, lane, v);
                    }
                    continue;
                }
                if single_access(ds.len(), total) {
                    // One access for the whole vector, as the hardware makes it: a block that
                    // publishes a (status, value) pair with `st.v2.u32` is never seen half done.
                    let word = load(w, b, l, loc, total, lane, a)?;
                    for (i, d) in ds.iter().enumerate() {
                        let mut v = element(word, i, *bits);
                        if *signed && *bits < 64 {
                            v = sign_extend(v, *bits);
                        }
                        w.set(*d, lane, v);
                    }
                    continue;
                }
                for (i, d) in ds.iter().enumerate() {
                    let off = i as u64 * len;
                    let at = loc.offset(off);
                    let mut v = load(w, b, l, at, len, lane, a.wrapping_add(off))?;
                    if *signed && *bits < 64 {
                        v = sign_extend(v, *bits);
                    }
                    w.set(*d, lane, v);
                }
            });
        }
        Op::St {
            space,
            bits,
            addr,
            srcs,
        } if srcs.len() == 1 => {
            let (len, src) = (u64::from(*bits / 8), srcs[0]);
            for_lanes!(mask, |lane| {
                let a = address(w, addr, lane);
                check_align(a, len, lane)?;
                let v = w.get(src, lane);
                match *space {
                    Space::Shared => {
                        let at = shared_range(b, window_offset(a), len, lane, a)?;
                        write_shared(b, at, len, v);
                    }
                    _ => store(w, b, l, locate(*space, addr, a), len, lane, a, v)?,
                }
            });
        }
        Op::St {
            space,
            bits,
            addr,
            srcs,
        } => {
            let len = u64::from(*bits / 8);
            let total = len * srcs.len() as u64;
            for_lanes!(mask, |lane| {
                let a = address(w, addr, lane);
                check_align(a, total.next_power_of_two(), lane)?;
                let loc = locate(*space, addr, a);
                if let (16, Loc::Global(g)) = (total, loc) {
                    let per_word = 64 / usize::from(*bits);
                    let mut words = [0u64; 2];
                    for (i, s) in srcs.iter().enumerate() {
                        let shift = (i % per_word) as u32 * u32::from(*bits);
                        words[i / per_word] |= element(w.get(*s, lane), 0, *bits) << shift;
                    }
                    let alloc = allocation(w, l, g, 16, lane)?;
                    wide_access::store(alloc, g - alloc.base, words);
                    continue;
                }
                if single_access(srcs.len(), total) {
                    let word = srcs.iter().enumerate().fold(0u64, |word, (i, s)| {
                        word | (element(w.get(*s, lane), 0, *bits) << (i as u32 * u32::from(*bits)))
                    });
                    store(w, b, l, loc, total, lane, a, word)?;
                    continue;
                }
                for (i, s) in srcs.iter().enumerate() {
                    let off = i as u64 * len;
                    let at = loc.offset(off);
                    let v = w.get(*s, lane);
                    store(w, b, l, at, len, lane, a.wrapping_add(off), v)?;
                }
            });
        }
        Op::CpAsync {
            dst,
            src,
            size,
            src_size,
        } => {
            let size = u64::from(*size);
            for_lanes!(mask, |lane| {
                let (to, from) = (address(w, dst, lane), address(w, src, lane));
                check_align(to, size, lane)?;
                check_align(from, size, lane)?;
                let valid = src_size.map(|s| w.get(s, lane)).unwrap_or(size).min(size);
                for off in (0..size).step_by(4) {
                    let v = if off < valid {
                        global_load(w, l, from.wrapping_add(off), 4, lane)?
                    } else {
                        0
                    };
                    let v = if off + 4 > valid && off < valid {
                        v & ((1u64 << (8 * (valid - off))) - 1)
                    } else {
                        v
                    };
                    store(
                        w,
                        b,
                        l,
                        Loc::Shared(window_offset(to.wrapping_add(off))),
                        4,
                        lane,
                        to.wrapping_add(off),
                        v,
                    )?;
                }
            });
        }
        _ => {}
    }
    Ok(Flow::Next)
}
