//! Texture and surface instructions on object handles: `tex` (1D, 2D, 3D, layered 1D and 2D,
//! cube and layered cube; float or integer coordinates; mipmap levels by `.level` or `.grad`),
//! `tld4`, `txq`, `suld.b`, `sust.b` (clamp, trap or zero out of range) and `suq`. A handle
//! is the address of a descriptor in device memory ([`crate::interp::texture`]); sampling
//! itself is [`crate::interp::texture::sample`] and [`crate::interp::texture::mipmap`].
//! Multisample textures, formatted surface access (`.p`) and texture references by name are
//! refused when the kernel is loaded.

use super::memory_ops::{load, store, Loc};
use super::{for_lanes, Flow, Launch};
use crate::interp::block::Block;
use crate::interp::fault::{ExecFault, FaultKind, LoadError};
use crate::interp::inst::{Op, Src};
use crate::interp::program::Decoder;
use crate::interp::texture::mipmap::{self, Lod};
use crate::interp::texture::sample::{self, element_address, ResultType};
use crate::interp::texture::{Descriptor, ObjectKind};
use crate::interp::warp::Warp;
use crate::ir::{self, AddressBase, KnownOpcode as K, Operand, ScalarType as T};

/// Geometry of a texture or surface access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Geometry {
    /// Coordinate dimensions (1, 2 or 3).
    pub dims: usize,
    /// A layered access: the first coordinate is the layer.
    pub layered: bool,
    /// A cube map: the three coordinates are a direction (`.cube`, `.acube`).
    pub cube: bool,
}

/// Where a `tex` takes its level of detail from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LodSource {
    /// Plain `tex`: level 0.
    Base,
    /// `tex.level`: the operand after the coordinates.
    Level,
    /// `tex.grad`: two gradient vectors after the coordinates, of this many components.
    Grad(usize),
}

/// What happens outside a surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bounds {
    Trap,
    Clamp,
    Zero,
}

/// The operation of a decoded texture or surface instruction.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TextureKind {
    /// `tex`: float coordinates (`float_coords`) or integer ones.
    Tex {
        geometry: Geometry,
        float_coords: bool,
        ty: ResultType,
        lod: LodSource,
    },
    /// `tld4.comp.2d`.
    Gather { component: usize, ty: ResultType },
    /// `txq` or `suq` of the named attribute.
    Query(Query),
    /// `suld.b`: `count` elements of `bytes` each.
    SurfaceLoad {
        geometry: Geometry,
        bytes: u64,
        bounds: Bounds,
    },
    /// `sust.b`.
    SurfaceStore {
        geometry: Geometry,
        bytes: u64,
        bounds: Bounds,
    },
}

/// An attribute `txq` or `suq` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Query {
    Width,
    Height,
    Depth,
    ArraySize,
    NormalizedCoords,
    FilterMode,
    AddressMode(usize),
    MipmapLevels,
}

/// A decoded texture or surface instruction.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TextureOp {
    pub kind: TextureKind,
    /// Destination registers (loads and queries).
    pub d: Box<[u32]>,
    pub handle: Src,
    pub coords: Box<[Src]>,
    /// Values stored (`sust`), or the level of detail or gradients of `tex.level`/`tex.grad`.
    pub values: Box<[Src]>,
}

impl TextureOp {
    /// Whether the instruction writes memory (`sust`); every other one only reads it.
    pub(crate) fn stores(&self) -> bool {
        matches!(self.kind, TextureKind::SurfaceStore { .. })
    }
}

fn geometry(words: &[String]) -> Option<Geometry> {
    let has = |w: &str| words.iter().any(|x| x == w);
    let (dims, layered, cube) = match () {
        _ if has("1d") => (1, false, false),
        _ if has("2d") => (2, false, false),
        _ if has("3d") => (3, false, false),
        _ if has("a1d") => (1, true, false),
        _ if has("a2d") => (2, true, false),
        _ if has("cube") => (3, false, true),
        _ if has("acube") => (3, true, true),
        _ => return None,
    };
    Some(Geometry {
        dims,
        layered,
        cube,
    })
}

/// The handle register and coordinate list of `[handle, {c…}]` or `[handle]`.
fn handle_and_coords<'o>(
    d: &Decoder<'_>,
    inst: &ir::Instruction,
    op: &'o Operand,
) -> Result<(Src, &'o [Operand]), LoadError> {
    let by_name = || {
        d.error(
            inst,
            "texture and surface references by name are not supported on the CPU device \
             (use texture and surface objects)",
        )
    };
    match op {
        Operand::AddressList(items) => {
            let handle = match items.first() {
                Some(Operand::Register(r)) => d.register(inst, r)?,
                _ => return Err(by_name()),
            };
            let coords = match items.get(1) {
                Some(Operand::Vector(c)) => c.as_slice(),
                Some(other) => std::slice::from_ref(other),
                None => &[],
            };
            Ok((handle, coords))
        }
        Operand::Address(a) => match &a.base {
            AddressBase::Register(r) if a.offset == 0 => Ok((d.register(inst, r)?, &[])),
            _ => Err(by_name()),
        },
        _ => Err(d.error(inst, "expected a texture or surface operand `[handle, …]`")),
    }
}

fn result_type(words: &[String]) -> ResultType {
    let first_type = words
        .iter()
        .find(|w| matches!(w.as_str(), "f32" | "s32" | "u32" | "f16"));
    match first_type.map(String::as_str) {
        Some("s32" | "u32") => ResultType::Integer,
        _ => ResultType::Float,
    }
}

/// Decodes `tex`, `tld4`, `txq`, `suld`, `sust` and `suq`.
pub(super) fn decode(d: &Decoder<'_>, inst: &ir::Instruction, op: K) -> Result<Op, LoadError> {
    let words: Vec<String> = inst.modifiers.iter().map(|m| m.to_word()).collect();
    let has = |w: &str| words.iter().any(|x| x == w);
    let name = || {
        let mut s = inst.opcode.as_str().to_string();
        for w in &words {
            s.push('.');
            s.push_str(w);
        }
        s
    };
    let refuse = |why: &str| Err(d.error(inst, format!("`{}`: {why}", name())));
    if has("2dms") || has("a2dms") {
        return refuse("multisample textures are not supported on the CPU device");
    }
    let operand = |i: usize| {
        inst.operands
            .get(i)
            .ok_or_else(|| d.error(inst, format!("`{}` is missing an operand", name())))
    };
    let bounds = if has("clamp") {
        Bounds::Clamp
    } else if has("zero") {
        Bounds::Zero
    } else {
        Bounds::Trap
    };
    let coord_srcs = |list: &[Operand]| -> Result<Box<[Src]>, LoadError> {
        list.iter().map(|o| d.src(inst, o, T::B32)).collect()
    };
    let dests = |op: &Operand| match op {
        Operand::PredicatePair(inner, _) => d.dsts(inst, inner),
        other => d.dsts(inst, other),
    };
    let element_bytes = || -> Result<u64, LoadError> {
        Ok(match () {
            _ if has("b8") => 1,
            _ if has("b16") => 2,
            _ if has("b32") => 4,
            _ if has("b64") => 8,
            _ => return Err(d.error(inst, format!("`{}`: no element size", name()))),
        })
    };
    let (kind, dst, handle, coords, values) = match op {
        K::Tex | K::Tld4 => {
            let Some(geometry) = geometry(&words) else {
                return refuse("unsupported geometry on the CPU device");
            };
            let (handle, coords) = handle_and_coords(d, inst, operand(1)?)?;
            let ty = result_type(&words);
            let mut lod_srcs = Box::default();
            let kind = if op == K::Tld4 {
                let component = ["r", "g", "b", "a"].iter().position(|c| has(c));
                let plain_2d = geometry.dims == 2 && !geometry.layered && !geometry.cube;
                match component {
                    Some(component) if plain_2d => TextureKind::Gather { component, ty },
                    _ => return refuse("only `tld4.{r,g,b,a}.2d` is supported on the CPU device"),
                }
            } else {
                let float_coords = words.last().is_some_and(|w| w == "f32");
                let lod = if has("level") {
                    lod_srcs = vec![d.src(inst, operand(2)?, T::F32)?].into_boxed_slice();
                    LodSource::Level
                } else if has("grad") {
                    let dx = d.srcs(inst, operand(2)?, T::F32)?;
                    let dy = d.srcs(inst, operand(3)?, T::F32)?;
                    if dx.len() != dy.len() {
                        return refuse("gradient vectors of different lengths");
                    }
                    let n = dx.len();
                    lod_srcs = dx.iter().chain(dy.iter()).copied().collect();
                    LodSource::Grad(n)
                } else {
                    LodSource::Base
                };
                if (lod != LodSource::Base || geometry.cube) && !float_coords {
                    return refuse("mipmap levels and cube maps take float coordinates");
                }
                TextureKind::Tex {
                    geometry,
                    float_coords,
                    ty,
                    lod,
                }
            };
            (
                kind,
                dests(operand(0)?)?,
                handle,
                coord_srcs(coords)?,
                lod_srcs,
            )
        }
        K::Suld | K::Sust => {
            if !has("b") {
                return refuse(
                    "only unformatted surface access (`.b`) is supported on the CPU device",
                );
            }
            let Some(geometry) = geometry(&words) else {
                return refuse("unsupported geometry on the CPU device");
            };
            let bytes = element_bytes()?;
            if op == K::Suld {
                let (handle, coords) = handle_and_coords(d, inst, operand(1)?)?;
                let kind = TextureKind::SurfaceLoad {
                    geometry,
                    bytes,
                    bounds,
                };
                (
                    kind,
                    dests(operand(0)?)?,
                    handle,
                    coord_srcs(coords)?,
                    Box::default(),
                )
            } else {
                let (handle, coords) = handle_and_coords(d, inst, operand(0)?)?;
                let values = d.srcs(inst, operand(1)?, T::B64)?;
                let kind = TextureKind::SurfaceStore {
                    geometry,
                    bytes,
                    bounds,
                };
                (kind, Box::default(), handle, coord_srcs(coords)?, values)
            }
        }
        K::Txq | K::Suq => {
            let query = match () {
                _ if has("width") => Query::Width,
                _ if has("height") => Query::Height,
                _ if has("depth") => Query::Depth,
                _ if has("array_size") => Query::ArraySize,
                _ if has("normalized_coords") => Query::NormalizedCoords,
                _ if has("filter_mode") => Query::FilterMode,
                _ if has("addr_mode_0") => Query::AddressMode(0),
                _ if has("addr_mode_1") => Query::AddressMode(1),
                _ if has("addr_mode_2") => Query::AddressMode(2),
                _ if has("num_mipmap_levels") => Query::MipmapLevels,
                _ => return refuse("this query is not supported on the CPU device"),
            };
            let (handle, _) = handle_and_coords(d, inst, operand(1)?)?;
            let dst = vec![d.dst_at(inst, 0)?].into_boxed_slice();
            (
                TextureKind::Query(query),
                dst,
                handle,
                Box::default(),
                Box::default(),
            )
        }
        _ => return refuse("not a texture or surface instruction"),
    };
    Ok(Op::Texture(Box::new(TextureOp {
        kind,
        d: dst,
        handle,
        coords,
        values,
    })))
}

/// Reads the descriptor at `handle` for `lane`, checking it is an object of `kind`.
fn descriptor(
    w: &mut Warp,
    b: &Block,
    l: &Launch<'_>,
    handle: u64,
    kind: ObjectKind,
    lane: usize,
) -> Result<Descriptor, ExecFault> {
    let mut words = [0u64; Descriptor::WORDS];
    for (i, word) in words.iter_mut().enumerate() {
        let a = handle.wrapping_add(8 * i as u64);
        *word = load(w, b, l, Loc::Global(a), 8, lane, a)?;
    }
    match Descriptor::from_words(&words) {
        Some(d) if d.kind == kind => Ok(d),
        _ => Err(ExecFault::at(
            FaultKind::OutOfBounds,
            lane as u32,
            handle,
            format!(
                "{handle:#x} is not a live {} object",
                match kind {
                    ObjectKind::Texture => "texture",
                    ObjectKind::Surface => "surface",
                }
            ),
        )),
    }
}

/// Splits coordinate registers into (coordinates, layer) per the geometry.
fn split_coords(w: &Warp, coords: &[Src], g: Geometry, lane: usize) -> ([u32; 3], i32) {
    let values: Vec<u32> = coords.iter().map(|&s| w.get(s, lane) as u32).collect();
    let (layer, rest) = if g.layered {
        (
            values.first().copied().unwrap_or(0) as i32,
            &values[1.min(values.len())..],
        )
    } else {
        (0, &values[..])
    };
    let mut c = [0u32; 3];
    for (slot, v) in c.iter_mut().zip(rest.iter().take(g.dims)) {
        *slot = *v;
    }
    (c, layer)
}

pub(super) fn execute(
    op: &TextureOp,
    w: &mut Warp,
    b: &mut Block,
    l: &Launch<'_>,
    mask: u32,
) -> Result<Flow, ExecFault> {
    for_lanes!(mask, |lane| {
        let handle = w.get(op.handle, lane);
        match &op.kind {
            TextureKind::Tex {
                geometry,
                float_coords,
                ty,
                lod,
            } => {
                let desc = descriptor(w, b, l, handle, ObjectKind::Texture, lane)?;
                let (c, layer) = split_coords(w, &op.coords, *geometry, lane);
                let lod = lod_of(w, &op.values, *lod, lane);
                let plain = lod == Lod::Base && !geometry.cube && desc.levels == 1;
                let out = {
                    let mut read = |a: u64, len: u64| load(w, b, l, Loc::Global(a), len, lane, a);
                    if *float_coords && plain {
                        sample::sample(&desc, c.map(f32::from_bits), layer, *ty, &mut read)?
                    } else if *float_coords {
                        let c = c.map(f32::from_bits);
                        let cube = geometry.cube;
                        mipmap::sample_at(&desc, c, layer, lod, cube, *ty, &mut read)?
                    } else {
                        sample::fetch(&desc, c.map(|v| v as i32), layer, *ty, &mut read)?
                    }
                };
                write_results(w, &op.d, lane, &out);
            }
            TextureKind::Gather { component, ty } => {
                let desc = descriptor(w, b, l, handle, ObjectKind::Texture, lane)?;
                let g = Geometry {
                    dims: 2,
                    layered: false,
                    cube: false,
                };
                let (c, _) = split_coords(w, &op.coords, g, lane);
                let xy = [f32::from_bits(c[0]), f32::from_bits(c[1])];
                let out = {
                    let mut read = |a: u64, len: u64| load(w, b, l, Loc::Global(a), len, lane, a);
                    sample::gather(&desc, xy, 0, *component, *ty, &mut read)?
                };
                write_results(w, &op.d, lane, &out);
            }
            TextureKind::Query(q) => {
                let desc = query_descriptor(w, b, l, handle, ObjectKind::Texture, lane)?;
                let v = match q {
                    Query::Width => desc.extent[0],
                    Query::Height => desc.extent[1],
                    Query::Depth => desc.extent[2],
                    Query::ArraySize => desc.layers,
                    Query::NormalizedCoords => u64::from(desc.normalized_coords),
                    Query::FilterMode => u64::from(desc.linear_filter),
                    Query::AddressMode(i) => desc.address[*i] as u64,
                    Query::MipmapLevels => u64::from(desc.levels),
                };
                if let Some(&dst) = op.d.first() {
                    w.set(dst, lane, v);
                }
            }
            TextureKind::SurfaceLoad {
                geometry,
                bytes,
                bounds,
            } => {
                let desc = descriptor(w, b, l, handle, ObjectKind::Surface, lane)?;
                let (c, layer) = split_coords(w, &op.coords, *geometry, lane);
                let count = op.d.len() as u64;
                match surface_address(&desc, c, layer, bytes * count, *bounds, lane, handle)? {
                    Some(a) => {
                        for (i, &dst) in op.d.iter().enumerate() {
                            let at = a + i as u64 * bytes;
                            let v = load(w, b, l, Loc::Global(at), *bytes, lane, at)?;
                            w.set(dst, lane, v);
                        }
                    }
                    None => {
                        for &dst in op.d.iter() {
                            w.set(dst, lane, 0);
                        }
                    }
                }
            }
            TextureKind::SurfaceStore {
                geometry,
                bytes,
                bounds,
            } => {
                let desc = descriptor(w, b, l, handle, ObjectKind::Surface, lane)?;
                let (c, layer) = split_coords(w, &op.coords, *geometry, lane);
                let count = op.values.len() as u64;
                if let Some(a) =
                    surface_address(&desc, c, layer, bytes * count, *bounds, lane, handle)?
                {
                    for (i, &src) in op.values.iter().enumerate() {
                        let at = a + i as u64 * bytes;
                        let v = w.get(src, lane);
                        store(w, b, l, Loc::Global(at), *bytes, lane, at, v)?;
                    }
                }
            }
        }
    });
    Ok(Flow::Next)
}

/// The level of detail of lane `lane` from the registers `srcs` of a `tex` whose level
/// comes from `source`.
fn lod_of(w: &Warp, srcs: &[Src], source: LodSource, lane: usize) -> Lod {
    let f = |i: usize| {
        srcs.get(i)
            .map_or(0.0, |&s| f32::from_bits(w.get(s, lane) as u32))
    };
    match source {
        LodSource::Base => Lod::Base,
        LodSource::Level => Lod::Level(f(0)),
        LodSource::Grad(n) => {
            let mut dx = [0f32; 3];
            let mut dy = [0f32; 3];
            for i in 0..n.min(3) {
                (dx[i], dy[i]) = (f(i), f(n + i));
            }
            Lod::Grad(dx, dy)
        }
    }
}

/// The descriptor a query reads: a texture's or a surface's (the handle says which).
fn query_descriptor(
    w: &mut Warp,
    b: &Block,
    l: &Launch<'_>,
    handle: u64,
    kind: ObjectKind,
    lane: usize,
) -> Result<Descriptor, ExecFault> {
    descriptor(w, b, l, handle, kind, lane).or_else(|_| {
        let other = match kind {
            ObjectKind::Texture => ObjectKind::Surface,
            ObjectKind::Surface => ObjectKind::Texture,
        };
        descriptor(w, b, l, handle, other, lane)
    })
}

/// Writes a fetch's four channels to as many destinations as the instruction names.
fn write_results(w: &mut Warp, d: &[u32], lane: usize, out: &[u32; 4]) {
    for (&dst, &v) in d.iter().zip(out) {
        w.set(dst, lane, u64::from(v));
    }
}

/// The address of a surface access of `len` bytes at byte column `c[0]`, row `c[1]`, slice
/// `c[2]` of `layer`; `None` for an access outside that reads zero or stores nothing.
fn surface_address(
    d: &Descriptor,
    c: [u32; 3],
    layer: i32,
    len: u64,
    bounds: Bounds,
    lane: usize,
    handle: u64,
) -> Result<Option<u64>, ExecFault> {
    let dims = usize::from(d.dims);
    let row_bytes = d.extent[0] * d.element_bytes();
    let limits = [row_bytes, d.extent[1], d.extent[2]];
    let mut at = [0u64; 3];
    let mut outside = false;
    for axis in 0..dims {
        let v = i64::from(c[axis] as i32);
        let span = if axis == 0 { len } else { 1 };
        if v < 0 || v as u64 + span > limits[axis] {
            outside = true;
            at[axis] = if v < 0 { 0 } else { limits[axis] - span };
        } else {
            at[axis] = v as u64;
        }
    }
    let layers = d.layers.max(1);
    let layer = if layer < 0 || layer as u64 >= layers {
        outside = true;
        (layer.max(0) as u64).min(layers - 1)
    } else {
        layer as u64
    };
    if outside {
        match bounds {
            Bounds::Zero => return Ok(None),
            Bounds::Trap => {
                return Err(ExecFault::at(
                    FaultKind::OutOfBounds,
                    lane as u32,
                    handle,
                    format!(
                        "surface access at ({}, {}, {}) layer {layer} is outside the surface \
                         ({row_bytes} bytes by {} by {})",
                        c[0] as i32, c[1] as i32, c[2] as i32, d.extent[1], d.extent[2]
                    ),
                ))
            }
            Bounds::Clamp => {}
        }
    }
    let element = element_address(d, [0, at[1], at[2]], layer);
    Ok(Some(element + at[0]))
}
