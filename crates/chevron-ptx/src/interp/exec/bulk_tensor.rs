//! `cp.async.bulk.tensor` (TMA, sm_90), run at once like `cp.async.bulk`: a box of a tensor
//! map (`interp/tensor_map.rs`) copied from global to shared memory (`.tile` loads, 1 to 5
//! dimensions, elements outside the tensor filled with zero or NaN, completing the box's bytes
//! on an `mbarrier`; `.multicast::cluster` into every block of a mask), or from shared to global
//! memory in a bulk group (elements outside the tensor are not stored). `.im2col` and
//! `.tile::gather4`/`scatter4` forms stay unsupported.

use super::mbarrier::complete_tx;
use super::memory_ops::{address, check_align, load, locate, resolve_generic, store, Loc};
use super::{for_lanes, Flow, Launch};
use crate::interp::block::Block;
use crate::interp::cluster;
use crate::interp::fault::{ExecFault, FaultKind, LoadError};
use crate::interp::inst::{Addr, Op, Space, Src};
use crate::interp::program::Decoder;
use crate::interp::tensor_map::{TensorMap, TENSOR_MAP_BYTES};
use crate::interp::warp::Warp;
use crate::ir::{self, Operand, ScalarType as T};

/// A decoded `cp.async.bulk.tensor` copy.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BulkTensor {
    /// Global to shared (a load) or shared to global (a store).
    pub load: bool,
    /// The generic address of the tensor map (a `.param` kernel parameter or global memory).
    pub map: Src,
    /// The box's coordinates, innermost first.
    pub coords: Vec<Src>,
    /// The shared-memory side.
    pub shared: Addr,
    /// The barrier a load completes its bytes on.
    pub mbarrier: Option<Addr>,
    /// `.multicast::cluster`: the mask of cluster ranks a load writes to.
    pub multicast: Option<Src>,
}

/// Decodes `cp.async.bulk.tensor` (the caller has seen the `bulk` and `tensor` modifiers).
pub(super) fn decode(d: &Decoder<'_>, inst: &ir::Instruction) -> Result<Op, LoadError> {
    let words: Vec<String> = inst.modifiers.iter().map(|m| m.to_word()).collect();
    let has = |w: &str| words.iter().any(|x| x == w);
    if has("im2col") || has("im2col_no_offs") || words.iter().any(|w| w.starts_with("tile::")) {
        return Err(d.error(
            inst,
            "`cp.async.bulk.tensor` in im2col, gather4 or scatter4 mode is not supported on the \
             CPU device",
        ));
    }
    let first_space = words
        .iter()
        .find(|w| w.starts_with("shared") || *w == "global");
    let load = first_space.is_some_and(|w| w.starts_with("shared"));
    let operand = |i: usize| {
        inst.operands
            .get(i)
            .ok_or_else(|| d.error(inst, "`cp.async.bulk.tensor` is missing an operand"))
    };
    let (tensor, shared) = if load {
        (operand(1)?, operand(0)?)
    } else {
        (operand(0)?, operand(1)?)
    };
    let Operand::AddressList(parts) = tensor else {
        return Err(d.error(inst, "expected `[tensorMap, {coordinates}]`"));
    };
    let (map, coords) = match &parts[..] {
        [map, Operand::Vector(coords)] => (map, coords),
        _ => return Err(d.error(inst, "expected `[tensorMap, {coordinates}]`")),
    };
    let dims = words
        .iter()
        .find_map(|w| w.strip_suffix('d').and_then(|n| n.parse::<usize>().ok()))
        .unwrap_or(coords.len());
    if dims != coords.len() || dims == 0 || dims > 5 {
        return Err(d.error(
            inst,
            "the coordinates must match the tensor's dimensions (1 to 5)",
        ));
    }
    let map = d.src(inst, map, T::U64)?;
    let coords = coords
        .iter()
        .map(|c| d.src(inst, c, T::S32))
        .collect::<Result<Vec<_>, _>>()?;
    let mbarrier = if load && words.iter().any(|w| w.starts_with("mbarrier")) {
        Some(d.addr(inst, operand(2)?, Space::Shared)?)
    } else {
        None
    };
    let multicast = if load && has("multicast::cluster") {
        Some(d.src(inst, operand(3)?, T::U16)?)
    } else {
        None
    };
    Ok(Op::BulkTensor(Box::new(BulkTensor {
        load,
        map,
        coords,
        shared: d.addr(inst, shared, Space::Shared)?,
        mbarrier,
        multicast,
    })))
}

/// Reads the tensor map at generic address `a` for `lane`.
fn read_map(
    w: &mut Warp,
    b: &Block,
    l: &Launch<'_>,
    a: u64,
    lane: usize,
) -> Result<TensorMap, ExecFault> {
    check_align(a, 64, lane)?;
    let mut bytes = [0u8; TENSOR_MAP_BYTES];
    for (i, chunk) in bytes.chunks_mut(8).enumerate() {
        let at = a + 8 * i as u64;
        let word = match resolve_generic(at) {
            Loc::Param(o) => load(w, b, l, Loc::Param(o), 8, lane, at)?,
            _ => load(w, b, l, Loc::Global(at), 8, lane, at)?,
        };
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    TensorMap::decode(&bytes).ok_or_else(|| {
        ExecFault::at(
            FaultKind::OutOfBounds,
            lane as u32,
            a,
            "`cp.async.bulk.tensor` names 128 bytes that are not a tensor map made by \
             cuTensorMapEncodeTiled for the CPU device",
        )
    })
}

pub(super) fn execute(
    op: &BulkTensor,
    w: &mut Warp,
    b: &mut Block,
    l: &Launch<'_>,
    mask: u32,
) -> Result<Flow, ExecFault> {
    for_lanes!(mask, |lane| {
        let map_address = w.get(op.map, lane);
        let map = read_map(w, b, l, map_address, lane)?;
        if map.dims.len() != op.coords.len() {
            return Err(ExecFault::at(
                FaultKind::OutOfBounds,
                lane as u32,
                map_address,
                format!(
                    "a {}-dimensional copy through a tensor map of {} dimensions",
                    op.coords.len(),
                    map.dims.len()
                ),
            ));
        }
        let coords: Vec<i64> = op
            .coords
            .iter()
            .map(|&c| i64::from(w.get(c, lane) as u32 as i32))
            .collect();
        let shared = address(w, &op.shared, lane);
        check_align(shared, 128, lane)?;
        let targets = match op.multicast {
            Some(ranks) => {
                let ranks = w.get(ranks, lane) as u16;
                (0..16u32).filter(|r| ranks & (1 << r) != 0).collect()
            }
            None => vec![],
        };
        if op.load {
            let mut destinations = vec![shared];
            if !targets.is_empty() {
                destinations = targets
                    .iter()
                    .map(|&r| cluster::map_address(shared, r))
                    .collect();
            }
            copy_box(&map, &coords, |global, at| {
                let len = u64::from(map.element_bytes);
                let value = match global {
                    Some(g) => load(w, b, l, Loc::Global(g), len, lane, g)?,
                    None if map.nan_fill => nan(len),
                    None => 0,
                };
                for &dst in &destinations {
                    let s = map.shared_offset(dst, at);
                    store(
                        w,
                        b,
                        l,
                        locate(Space::Shared, &op.shared, s),
                        len,
                        lane,
                        s,
                        value,
                    )?;
                }
                Ok(())
            })?;
            if let Some(bar) = &op.mbarrier {
                let a = address(w, bar, lane);
                let barriers: Vec<u64> = if targets.is_empty() {
                    vec![a]
                } else {
                    targets
                        .iter()
                        .map(|&r| cluster::map_address(a, r))
                        .collect()
                };
                for a in barriers {
                    check_align(a, 8, lane)?;
                    let loc = locate(Space::Shared, bar, a);
                    let word = load(w, b, l, loc, 8, lane, a)?;
                    store(w, b, l, loc, 8, lane, a, complete_tx(word, map.box_bytes()))?;
                }
            }
        } else {
            copy_box(&map, &coords, |global, at| {
                let Some(g) = global else { return Ok(()) };
                let len = u64::from(map.element_bytes);
                let s = map.shared_offset(shared, at);
                let value = load(w, b, l, locate(Space::Shared, &op.shared, s), len, lane, s)?;
                store(w, b, l, Loc::Global(g), len, lane, g, value)
            })?;
        }
    });
    Ok(Flow::Next)
}

/// A NaN of `len` bytes (the out-of-bound fill of float maps that ask for it).
fn nan(len: u64) -> u64 {
    match len {
        2 => 0x7fff,
        4 => 0x7fff_ffff,
        _ => 0x7fff_ffff_ffff_ffff,
    }
}

/// Calls `visit(global address if inside the tensor, byte offset in the box)` for
/// every element of the box at `coords`, innermost dimension fastest.
fn copy_box(
    map: &TensorMap,
    coords: &[i64],
    mut visit: impl FnMut(Option<u64>, u64) -> Result<(), ExecFault>,
) -> Result<(), ExecFault> {
    let rank = map.dims.len();
    let counts: Vec<u64> = (0..rank)
        .map(|d| u64::from(map.boxes[d].div_ceil(map.element_strides[d])))
        .collect();
    let total: u64 = counts.iter().product();
    let mut index = vec![0u64; rank];
    for element in 0..total {
        let mut global = Some(map.address);
        for d in 0..rank {
            let position = coords[d] + (index[d] * u64::from(map.element_strides[d])) as i64;
            global = match global {
                Some(g) if position >= 0 && (position as u64) < map.dims[d] => {
                    Some(g.wrapping_add(position as u64 * map.strides[d]))
                }
                _ => None,
            };
        }
        visit(global, element * u64::from(map.element_bytes))?;
        for d in 0..rank {
            index[d] += 1;
            if index[d] < counts[d] {
                break;
            }
            index[d] = 0;
        }
    }
    Ok(())
}
