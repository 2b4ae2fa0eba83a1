//! Mipmap levels and cube maps, as the CUDA programming guide's texture-fetching appendix and
//! the PTX ISA's `tex.level`, `tex.grad` and `tex.cube` define them.
//!
//! - **Levels.** Level `l` of an array whose level 0 is `w × h × d` is
//!   `max(1, w >> l) × max(1, h >> l) × max(1, d >> l)` (layers do not shrink). The levels lie
//!   one after another in one allocation, each tightly pitched and holding all its layers
//!   ([`level_span`]); a descriptor of level `l` is [`level`].
//! - **Level of detail.** `tex.level` names it; `tex.grad` derives it from the gradients:
//!   `log2` of the longer of the two gradient vectors measured in level-0 texels. Plain `tex`
//!   reads level of detail 0. The texture's bias is added, the result clamped to its
//!   `[min, max]` level clamp and to the levels there are ([`clamp_lod`]).
//! - **Level filtering.** Point: the nearest level (`floor(lod + 0.5)`). Linear: the two levels
//!   around the level of detail, blended by its fraction held in 1/256 steps, as the
//!   hardware's bilinear weights are ([`level_weights`]). The level blend and the rounding of
//!   the level of detail are the guide's rule with the texture unit's weight precision; no
//!   GPU measurement has confirmed them yet (`tests/cudart/tex_mipmap.cu` prints every sample
//!   for that comparison). Anisotropic filtering is not modelled: `maxAnisotropy` is kept but
//!   every sample is isotropic.
//! - **Cube maps.** The direction `(x, y, z)` picks a face by its major axis and face
//!   coordinates `(s, t)` by the guide's table ([`cube_face`]); face `f` of cube `c` is layer
//!   `6c + f` of the array. Each face is sampled as a 2D layer with normalised coordinates
//!   under the texture's address modes: filtering does not cross to the neighbouring face
//!   (CUDA's default, non-seamless cube maps).

use super::descriptor::Descriptor;
use super::sample::{sample, ReadFn, ResultType};

/// The most levels an array may have (level 0 of 2^31 texels has 32).
pub const MAX_LEVELS: u32 = 32;

/// The levels a full mipmap chain of level-0 `extent` has: `1 + floor(log2(max extent))`.
pub fn full_chain(extent: [u64; 3]) -> u32 {
    let largest = extent.iter().copied().max().unwrap_or(1).max(1);
    64 - largest.leading_zeros()
}

/// The extent of level `l` of an array whose level 0 is `extent` (unused dimensions 1; the
/// third is layers and does not shrink unless `dims` is 3).
pub fn level_extent(extent: [u64; 3], dims: u8, l: u32) -> [u64; 3] {
    let mut out = extent;
    for (axis, e) in out.iter_mut().enumerate().take(usize::from(dims)) {
        *e = (extent[axis].checked_shr(l).unwrap_or(0)).max(1);
    }
    out.map(|e| e.max(1))
}

/// Byte offset of level `l` from level 0, and its bytes: levels tightly pitched one after
/// another, each holding `layers` layers (1 if not layered) of `dims`-dimensional slices of
/// `element` bytes per texel.
pub fn level_span(extent: [u64; 3], dims: u8, layers: u64, element: u64, l: u32) -> (u64, u64) {
    let bytes = |level: u32| {
        let [w, h, d] = level_extent(extent, dims, level);
        let slices = if dims == 3 { d } else { layers.max(1) };
        w * h * slices * element
    };
    ((0..l).map(bytes).sum(), bytes(l))
}

/// The descriptor of level `l` of `d` (`d` itself for level 0 of an array without levels).
pub fn level(d: &Descriptor, l: u32) -> Descriptor {
    if d.levels <= 1 {
        return *d;
    }
    let element = d.element_bytes();
    let (offset, _) = level_span(d.extent, d.dims, d.layers, element, l);
    let extent = level_extent(d.extent, d.dims, l);
    let row_pitch = extent[0] * element;
    Descriptor {
        base: d.base + offset,
        extent,
        row_pitch,
        slice_pitch: row_pitch * extent[1],
        levels: 1,
        ..*d
    }
}

/// Where the level of detail comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Lod {
    /// Plain `tex`: level of detail 0.
    Base,
    /// `tex.level`: this level of detail.
    Level(f32),
    /// `tex.grad`: the gradients of the coordinates along x and y (normalised when the
    /// texture's coordinates are).
    Grad([f32; 3], [f32; 3]),
}

/// The level of detail of `lod` for `d` before bias and clamps: gradients are measured in
/// level-0 texels of the texture's `dims` dimensions.
pub fn raw_lod(d: &Descriptor, lod: Lod) -> f32 {
    match lod {
        Lod::Base => 0.0,
        Lod::Level(l) => l,
        Lod::Grad(dx, dy) => {
            let length = |g: [f32; 3]| {
                let mut sum = 0f32;
                for (axis, v) in g.iter().enumerate().take(usize::from(d.dims)) {
                    let scale = if d.normalized_coords {
                        d.extent[axis] as f32
                    } else {
                        1.0
                    };
                    sum += (v * scale) * (v * scale);
                }
                sum.sqrt()
            };
            length(dx).max(length(dy)).log2()
        }
    }
}

/// `lod` plus the texture's bias, clamped to its level clamp and to its levels (NaN: the
/// smallest clamp).
pub fn clamp_lod(d: &Descriptor, lod: f32) -> f32 {
    let biased = lod + d.lod_bias;
    let top = d.levels.saturating_sub(1) as f32;
    let clamped = biased.max(d.lod_clamp[0]).min(d.lod_clamp[1]);
    if clamped.is_nan() {
        0.0
    } else {
        clamped.clamp(0.0, top)
    }
}

/// The levels a sample at (clamped) level of detail `lod` reads, with weights in 1/256 steps:
/// the nearest level (point), or the level below and the one above weighed by the fraction
/// (linear; the upper weight the fraction truncated to 1/256 steps, as an H200 weighs it:
/// `tests/cudart/tex_mipmap.cu`'s levels 2.1, 0.3 and 1.6 read 25, 76 and 153 of 256).
pub fn level_weights(d: &Descriptor, lod: f32) -> [(u32, u32); 2] {
    let top = d.levels.saturating_sub(1);
    if !d.mipmap_linear {
        let nearest = ((lod + 0.5).floor() as u32).min(top);
        return [(nearest, 256), (nearest, 0)];
    }
    let low = (lod.floor() as u32).min(top);
    let upper = ((f64::from(lod - low as f32) * 256.0).floor() as u32).min(256);
    if low == top || upper == 0 {
        return [(low, 256), (low, 0)];
    }
    [(low, 256 - upper), (low + 1, upper)]
}

/// The cube face the direction `(x, y, z)` points at and the face coordinates `(s, t)` in
/// [0, 1], by the guide's table (the major axis picks the face; x before y before z on ties):
///
/// | face | major axis | s | t |
/// |---|---|---|---|
/// | 0 | +x | −z | −y |
/// | 1 | −x | +z | −y |
/// | 2 | +y | +x | +z |
/// | 3 | −y | +x | −z |
/// | 4 | +z | +x | −y |
/// | 5 | −z | −x | −y |
pub fn cube_face(x: f32, y: f32, z: f32) -> (u32, f32, f32) {
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (face, m, s, t) = if ax >= ay && ax >= az {
        if x >= 0.0 {
            (0, ax, -z, -y)
        } else {
            (1, ax, z, -y)
        }
    } else if ay >= az {
        if y >= 0.0 {
            (2, ay, x, z)
        } else {
            (3, ay, x, -z)
        }
    } else if z >= 0.0 {
        (4, az, x, -y)
    } else {
        (5, az, -x, -y)
    };
    (face, (s / m + 1.0) / 2.0, (t / m + 1.0) / 2.0)
}

/// `tex`, `tex.level`, `tex.grad` (`lod`) with float coordinates, of a 1D, 2D, 3D or layered
/// texture, or of a cube map (`cube`: `coords` is a direction and `layer` the cube): the
/// levels [`level_weights`] names, each sampled as [`sample`] does, blended in f32 by their
/// weights in 1/256 steps. Integer results read the first level alone.
pub fn sample_at<E>(
    d: &Descriptor,
    coords: [f32; 3],
    layer: i32,
    lod: Lod,
    cube: bool,
    ty: ResultType,
    read: &mut ReadFn<'_, E>,
) -> Result<[u32; 4], E> {
    let (face_d, coords, layer, lod) = if cube {
        let (face, s, t) = cube_face(coords[0], coords[1], coords[2]);
        let m = coords.iter().fold(0f32, |m, c| m.max(c.abs()));
        let face_d = Descriptor {
            dims: 2,
            normalized_coords: true,
            ..*d
        };
        // Gradients of the direction, projected on the face: d(s, t) ≈ d(dir) / 2|m|, in
        // texels of the face's width.
        let lod = match lod {
            Lod::Grad(dx, dy) => {
                let scale = d.extent[0] as f32 / (2.0 * m);
                let length = |g: [f32; 3]| g.iter().map(|v| (v * scale) * (v * scale)).sum::<f32>();
                Lod::Level(length(dx).max(length(dy)).sqrt().log2())
            }
            other => other,
        };
        let layer = layer.max(0).saturating_mul(6).saturating_add(face as i32);
        (face_d, [s, t, 0.0], layer, lod)
    } else {
        (*d, coords, layer, lod)
    };
    let lod = clamp_lod(&face_d, raw_lod(&face_d, lod));
    let [(low, w_low), (high, w_high)] = level_weights(&face_d, lod);
    let at_level = |l: u32| {
        let ld = level(&face_d, l);
        let mut c = coords;
        if !ld.normalized_coords {
            for (axis, x) in c.iter_mut().enumerate().take(usize::from(ld.dims)) {
                *x *= ld.extent[axis] as f32 / face_d.extent[axis] as f32;
            }
        }
        (ld, c)
    };
    let (ld, c) = at_level(low);
    let first = sample(&ld, c, layer, ty, read)?;
    if w_high == 0 || ty == ResultType::Integer {
        return Ok(first);
    }
    let (hd, c) = at_level(high);
    let second = sample(&hd, c, layer, ty, read)?;
    let (a, b) = (w_low as f32 / 256.0, w_high as f32 / 256.0);
    let mut out = [0u32; 4];
    for (o, (x, y)) in out.iter_mut().zip(first.iter().zip(second)) {
        *o = (a * f32::from_bits(*x) + b * f32::from_bits(y)).to_bits();
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::texture::descriptor::{AddressMode, ChannelKind, ObjectKind, ResourceKind};

    fn mipmapped(extent: [u64; 3], dims: u8, levels: u32, linear: bool) -> Descriptor {
        Descriptor {
            kind: ObjectKind::Texture,
            base: 0x1000,
            extent,
            layers: 0,
            row_pitch: extent[0] * 4,
            slice_pitch: extent[0] * extent[1] * 4,
            channels: 1,
            bits: 32,
            channel_kind: ChannelKind::Float,
            resource: ResourceKind::Array,
            dims,
            linear_filter: false,
            normalized_read: false,
            normalized_coords: true,
            address: [AddressMode::Clamp; 3],
            border: [0.0; 4],
            levels,
            cubemap: false,
            mipmap_linear: linear,
            lod_bias: 0.0,
            lod_clamp: [0.0, 100.0],
        }
    }

    #[test]
    fn levels_halve_each_dimension_down_to_one() {
        assert_eq!(full_chain([16, 4, 1]), 5);
        assert_eq!(full_chain([17, 1, 1]), 5);
        assert_eq!(full_chain([1, 1, 1]), 1);
        assert_eq!(level_extent([16, 4, 1], 2, 3), [2, 1, 1]);
        assert_eq!(level_extent([16, 4, 6], 2, 4), [1, 1, 6], "layers stay");
        assert_eq!(level_extent([8, 8, 8], 3, 2), [2, 2, 2]);
        assert_eq!(level_extent([5, 3, 1], 2, 1), [2, 1, 1]);
        // 16×4, 8×2, 4×1 of 4-byte texels: 256, 64, 16 bytes.
        assert_eq!(level_span([16, 4, 1], 2, 0, 4, 0), (0, 256));
        assert_eq!(level_span([16, 4, 1], 2, 0, 4, 2), (320, 16));
        // A cubemap of 4×4 faces: 6 layers per level.
        assert_eq!(level_span([4, 4, 1], 2, 6, 1, 1), (96, 24));
        let d = level(&mipmapped([16, 4, 1], 2, 5, false), 2);
        assert_eq!(
            (d.base, d.extent, d.row_pitch),
            (0x1000 + 320, [4, 1, 1], 16)
        );
    }

    #[test]
    fn level_of_detail_from_levels_and_gradients() {
        let mut d = mipmapped([16, 16, 1], 2, 5, false);
        assert_eq!(raw_lod(&d, Lod::Level(1.5)), 1.5);
        // A gradient of 4/16 along x is 4 texels: level 2; the longer vector wins.
        let grad = Lod::Grad([0.25, 0.0, 0.0], [0.0, 0.125, 0.0]);
        assert_eq!(raw_lod(&d, grad), 2.0);
        assert_eq!(
            raw_lod(&d, Lod::Grad([0.0; 3], [0.0; 3])),
            f32::NEG_INFINITY
        );
        assert_eq!(clamp_lod(&d, f32::NEG_INFINITY), 0.0);
        assert_eq!(clamp_lod(&d, 9.0), 4.0, "clamped to the last level");
        d.lod_bias = 0.5;
        d.lod_clamp = [1.0, 2.25];
        assert_eq!(clamp_lod(&d, 0.0), 1.0);
        assert_eq!(clamp_lod(&d, 1.5), 2.0);
        assert_eq!(clamp_lod(&d, 3.0), 2.25);
        assert_eq!(clamp_lod(&d, f32::NAN), 1.0, "NaN reads the smallest clamp");
    }

    #[test]
    fn point_and_linear_level_selection() {
        let point = mipmapped([16, 16, 1], 2, 5, false);
        assert_eq!(level_weights(&point, 1.49)[0], (1, 256));
        assert_eq!(level_weights(&point, 1.5)[0], (2, 256));
        let linear = mipmapped([16, 16, 1], 2, 5, true);
        assert_eq!(level_weights(&linear, 1.25), [(1, 192), (2, 64)]);
        assert_eq!(level_weights(&linear, 2.0), [(2, 256), (2, 0)]);
        // 0.1 of a level is 25.6/256: the upper weight is 25, truncated as on an H200.
        assert_eq!(level_weights(&linear, 0.1), [(0, 231), (1, 25)]);
        assert_eq!(level_weights(&linear, 4.0), [(4, 256), (4, 0)]);
    }

    #[test]
    fn cube_faces_by_major_axis() {
        assert_eq!(cube_face(1.0, 0.0, 0.0), (0, 0.5, 0.5));
        assert_eq!(cube_face(-1.0, 0.0, 0.0), (1, 0.5, 0.5));
        assert_eq!(cube_face(0.0, 2.0, 0.0), (2, 0.5, 0.5));
        assert_eq!(cube_face(0.0, -1.0, 0.0), (3, 0.5, 0.5));
        assert_eq!(cube_face(0.0, 0.0, 1.0), (4, 0.5, 0.5));
        assert_eq!(cube_face(0.0, 0.0, -1.0), (5, 0.5, 0.5));
        // +x face: s follows −z, t follows −y.
        assert_eq!(cube_face(1.0, 0.5, -0.5), (0, 0.75, 0.25));
        assert_eq!(cube_face(-1.0, 0.5, -0.5), (1, 0.25, 0.25));
        assert_eq!(cube_face(0.5, 1.0, 0.5), (2, 0.75, 0.75));
        assert_eq!(cube_face(0.5, -1.0, 0.5), (3, 0.75, 0.25));
        assert_eq!(cube_face(0.5, -0.5, 1.0), (4, 0.75, 0.75));
        assert_eq!(cube_face(0.5, -0.5, -1.0), (5, 0.25, 0.75));
        // Near an edge the larger component still decides.
        assert_eq!(cube_face(0.99, 1.0, 0.0).0, 2);
        assert_eq!(cube_face(1.0, 0.99, 0.0).0, 0);
    }

    /// Level l of a 4×4 float mipmap holds 10·(l + 1) everywhere.
    fn run(d: &Descriptor, lod: Lod) -> f32 {
        let mut read = |addr: u64, _len: u64| -> Result<u64, ()> {
            let at = addr - d.base;
            let l = if at < 64 {
                0
            } else if at < 80 {
                1
            } else {
                2
            };
            Ok(u64::from((10.0 * (l + 1) as f32).to_bits()))
        };
        let out = sample_at(
            d,
            [0.3, 0.6, 0.0],
            0,
            lod,
            false,
            ResultType::Float,
            &mut read,
        );
        f32::from_bits(out.unwrap()[0])
    }

    #[test]
    fn levels_are_read_and_blended() {
        let point = mipmapped([4, 4, 1], 2, 3, false);
        assert_eq!(run(&point, Lod::Base), 10.0);
        assert_eq!(run(&point, Lod::Level(0.6)), 20.0);
        assert_eq!(run(&point, Lod::Level(7.0)), 30.0);
        assert_eq!(run(&point, Lod::Grad([0.5, 0.0, 0.0], [0.0; 3])), 20.0);
        let linear = mipmapped([4, 4, 1], 2, 3, true);
        assert_eq!(run(&linear, Lod::Level(0.25)), 12.5);
        assert_eq!(run(&linear, Lod::Level(1.5)), 25.0);
    }
}
