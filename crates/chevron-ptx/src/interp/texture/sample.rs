//! Texture sampling as the CUDA programming guide's appendix on texture fetching defines it.
//!
//! Coordinates are first scaled to texels (normalised coordinates times the extent). Point
//! filtering reads the texel `floor(x)`. Linear filtering reads the two (1D), four (2D) or eight
//! (3D) texels around `x - 0.5` and weighs them with the fraction of `x - 0.5` held in 9-bit
//! fixed point with 8 fractional bits (the coordinate is rounded to the nearest 1/256 of a
//! texel), as NVIDIA's texture units do. Bilinear corner weights (measured on an H200 with
//! `scripts/gpu/probes/tex_weights.cu` and `tests/cudart/tex_filtering.cu`): the upper-upper
//! corner weighs `wx·wy/256` rounded to the nearest 1/256, halves up, and the three others
//! what is left of their axes' weights (`wx − w11`, `wy − w11`, `256 − wx − wy + w11`), so the
//! four always sum to 1; a trilinear corner's weight is the product of its axes' weights,
//! rounded to the nearest 1/256 after each product. The weighted sum is taken in f32 in the
//! guide's order. A 1D array texture is a 2D one of height 1 to the hardware, sampled at row
//! coordinate 0: its linear filter takes half of each texel from row −1, which only a border
//! address mode on the second axis makes the border colour.
//! Each texel index is then resolved by its dimension's address mode: wrap and mirror (which
//! CUDA honours only with normalised coordinates; clamp otherwise), clamp, or border (the
//! border colour outside the extent).

use super::descriptor::{AddressMode, ChannelKind, Descriptor, ResourceKind};
use crate::interp::numeric::half::{f16_to_f32, f64_to_f16};
use crate::ir::Rounding;

/// Reads `len` (1, 2, 4 or 8) bytes of device memory at an address.
pub type ReadFn<'a, E> = dyn FnMut(u64, u64) -> Result<u64, E> + 'a;

/// What the instruction returns: floats, or integers (raw texel values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultType {
    /// `.f32`: texels converted to float (normalised if the texture reads so).
    Float,
    /// `.s32` / `.u32`: texel values, sign- or zero-extended.
    Integer,
}

/// The byte address of element (x, y, z) of `layer`, all in range.
pub fn element_address(d: &Descriptor, at: [u64; 3], layer: u64) -> u64 {
    d.base
        + layer * d.slice_pitch
        + at[2] * d.slice_pitch
        + at[1] * d.row_pitch
        + at[0] * d.element_bytes()
}

/// Resolves texel index `i` of a dimension of `n` texels under `mode` (`None`: the border).
fn resolve(i: i64, n: u64, mode: AddressMode) -> Option<u64> {
    let n = n as i64;
    let at = match mode {
        AddressMode::Clamp => i.clamp(0, n - 1),
        AddressMode::Border => {
            if !(0..n).contains(&i) {
                return None;
            }
            i
        }
        AddressMode::Wrap => i.rem_euclid(n),
        AddressMode::Mirror => {
            let j = i.rem_euclid(2 * n);
            if j < n {
                j
            } else {
                2 * n - 1 - j
            }
        }
    };
    Some(at as u64)
}

/// The address mode in force for dimension `axis` (wrap and mirror need normalised
/// coordinates; CUDA clamps otherwise).
fn mode(d: &Descriptor, axis: usize) -> AddressMode {
    match d.address[axis] {
        AddressMode::Wrap | AddressMode::Mirror if !d.normalized_coords => AddressMode::Clamp,
        m => m,
    }
}

/// Reads one element's channels as raw 32-bit values (integers sign- or zero-extended, floats
/// as f32 bits).
fn raw_element<E>(d: &Descriptor, addr: u64, read: &mut ReadFn<'_, E>) -> Result<[u32; 4], E> {
    let bytes = u64::from(d.bits / 8);
    let mut out = [0u32; 4];
    for (c, slot) in out.iter_mut().enumerate().take(usize::from(d.channels)) {
        let v = read(addr + c as u64 * bytes, bytes)?;
        *slot = match (d.channel_kind, d.bits) {
            (ChannelKind::Float, 16) => f16_to_f32(v as u16).to_bits(),
            (ChannelKind::Signed, 8) => v as u8 as i8 as i32 as u32,
            (ChannelKind::Signed, 16) => v as u16 as i16 as i32 as u32,
            _ => v as u32,
        };
    }
    Ok(out)
}

/// A raw channel value as the float a `.f32` result receives.
fn channel_float(d: &Descriptor, raw: u32) -> f32 {
    match d.channel_kind {
        ChannelKind::Float => f32::from_bits(raw),
        ChannelKind::Unsigned if d.normalized_read && d.bits < 32 => {
            raw as f32 / ((1u64 << d.bits) - 1) as f32
        }
        ChannelKind::Signed if d.normalized_read && d.bits < 32 => {
            (raw as i32 as f32 / ((1u64 << (d.bits - 1)) - 1) as f32).max(-1.0)
        }
        ChannelKind::Unsigned => raw as f32,
        ChannelKind::Signed => raw as i32 as f32,
    }
}

/// The element at resolved indices as four result channels (bits of f32 or integers); channels
/// the format lacks read as 0, and alpha as 1.
fn element<E>(
    d: &Descriptor,
    at: Option<[u64; 3]>,
    layer: u64,
    ty: ResultType,
    read: &mut ReadFn<'_, E>,
) -> Result<[u32; 4], E> {
    let Some(at) = at else {
        return Ok(match ty {
            ResultType::Float => d.border.map(f32::to_bits),
            ResultType::Integer => d.border.map(|b| b as i32 as u32),
        });
    };
    let raw = raw_element(d, element_address(d, at, layer), read)?;
    let channels = usize::from(d.channels);
    let mut out = match ty {
        ResultType::Float => [0, 0, 0, 1.0f32.to_bits()],
        ResultType::Integer => [0, 0, 0, 1],
    };
    for c in 0..channels {
        out[c] = match ty {
            ResultType::Float => channel_float(d, raw[c]).to_bits(),
            ResultType::Integer => raw[c],
        };
    }
    Ok(out)
}

/// The layer index a layered fetch reads (clamped to the layers there are).
fn layer_index(d: &Descriptor, layer: i32) -> u64 {
    if d.layers == 0 {
        0
    } else {
        (layer.max(0) as u64).min(d.layers - 1)
    }
}

/// `coords` scaled to texels in each dimension of the resource.
fn texel_coords(d: &Descriptor, coords: [f32; 3]) -> [f32; 3] {
    let mut u = coords;
    if d.normalized_coords {
        for (axis, x) in u.iter_mut().enumerate().take(usize::from(d.dims)) {
            *x *= d.extent[axis] as f32;
        }
    }
    u
}

/// Resolves the indices `i` of every dimension; `None` if any is on the border.
fn resolve_all(d: &Descriptor, i: [i64; 3]) -> Option<[u64; 3]> {
    let mut at = [0u64; 3];
    for axis in 0..usize::from(d.dims) {
        at[axis] = resolve(i[axis], d.extent[axis], mode(d, axis))?;
    }
    Some(at)
}

/// The linear filter's footprint along one dimension: the lower texel index and the weight of
/// the upper one, in 1/256 steps.
fn footprint(u: f32) -> (i64, u32) {
    // Halves round up, toward +∞ (an H200 reads x - 0.5 = -2.5 + 1/512 as -639/256, not -640).
    let fixed = ((f64::from(u) - 0.5) * 256.0 + 0.5).floor() as i64;
    (fixed >> 8, (fixed & 0xff) as u32)
}

/// The weight of one corner in 1/256 steps: the axes' weights (each in 1/256 steps) multiplied
/// one at a time, each product rounded to the nearest 1/256 (halves to even: the H200's
/// results hash alike only so).
fn corner_weight(axis_weights: impl Iterator<Item = u32>) -> u32 {
    let mut axis_weights = axis_weights;
    let first = axis_weights.next().unwrap_or(256);
    axis_weights.fold(first, |w, a| {
        let product = w * a;
        let (whole, rest) = (product >> 8, product & 0xff);
        whole + u32::from(rest > 128 || (rest == 128 && whole & 1 == 1))
    })
}

/// The four bilinear corner weights in 1/256 steps, in the guide's order ((x0, y0), (x1, y0),
/// (x0, y1), (x1, y1)), for upper weights `wx` and `wy`: the (x1, y1) corner rounded to the
/// nearest 1/256 (halves up), the others what their axes leave.
fn bilinear_weights(wx: u32, wy: u32) -> [u32; 4] {
    let w11 = (wx * wy + 128) >> 8;
    [256 + w11 - wx - wy, wx - w11, wy - w11, w11]
}

/// `tex` with float coordinates: the element (point) or the filtered value (linear) at
/// `coords` (unused dimensions ignored) of `layer`.
pub fn sample<E>(
    d: &Descriptor,
    coords: [f32; 3],
    layer: i32,
    ty: ResultType,
    read: &mut ReadFn<'_, E>,
) -> Result<[u32; 4], E> {
    let layer = layer_index(d, layer);
    let u = texel_coords(d, coords);
    let dims = usize::from(d.dims);
    if !d.linear_filter || ty == ResultType::Integer {
        let mut i = [0i64; 3];
        for axis in 0..dims {
            i[axis] = if u[axis].is_nan() {
                0
            } else {
                u[axis].floor() as i64
            };
        }
        return element(d, resolve_all(d, i), layer, ty, read);
    }
    let mut base = [0i64; 3];
    let mut alpha = [0u32; 3];
    for axis in 0..dims {
        let x = if u[axis].is_nan() { 0.0 } else { u[axis] };
        (base[axis], alpha[axis]) = footprint(x);
    }
    // A 1D array with a border on its second axis: the hardware's row -1 is the border.
    let as_rows =
        dims == 1 && d.resource == ResourceKind::Array && d.address[1] == AddressMode::Border;
    let footprint_dims = if as_rows {
        (base[1], alpha[1]) = footprint(0.0);
        2
    } else {
        dims
    };
    let mut sum = [0f32; 4];
    let mut exact = [0f64; 4];
    // Normalised integer texels of up to 16 bits are filtered as integers.
    let integer = integer_filtering(d);
    let mut wide = [0i64; 4];
    // Corners in the guide's order: x varies fastest, then y, then z.
    for corner in 0..(1usize << footprint_dims) {
        let mut i = base;
        for (axis, index) in i.iter_mut().enumerate().take(footprint_dims) {
            *index += i64::from(corner >> axis & 1 == 1);
        }
        let weight = if footprint_dims == 2 {
            bilinear_weights(alpha[0], alpha[1])[corner]
        } else {
            corner_weight((0..footprint_dims).map(|axis| {
                if corner >> axis & 1 == 1 {
                    alpha[axis]
                } else {
                    256 - alpha[axis]
                }
            }))
        };
        let at = if as_rows {
            // Row -1 is the border; row 0 the array's one row.
            (i[1] == 0)
                .then(|| resolve(i[0], d.extent[0], mode(d, 0)).map(|x| [x, 0, 0]))
                .flatten()
        } else {
            resolve_all(d, i)
        };
        if integer {
            let texel = scaled_element(d, at, layer, read)?;
            for (w, t) in wide.iter_mut().zip(texel) {
                *w += i64::from(weight) * t;
            }
            continue;
        }
        let texel = element(d, at, layer, ty, read)?.map(f32::from_bits);
        for ((s, e), t) in sum.iter_mut().zip(exact.iter_mut()).zip(texel) {
            *s += weight as f32 / 256.0 * t;
            *e += f64::from(weight) / 256.0 * f64::from(t);
        }
    }
    let channels = usize::from(d.channels);
    if integer {
        // Rounded to the nearest 16-bit step (halves up), then converted to float.
        let (max, steps) = normalised_range(d);
        let mut out = [0, 0, 0, 1.0f32.to_bits()];
        for c in 0..channels {
            let denominator = 2 * max * 256;
            let steps_of_16 = (2 * wide[c] + max * 256).div_euclid(denominator);
            out[c] = (steps_of_16 as f32 / steps as f32).max(-1.0).to_bits();
        }
        return Ok(out);
    }
    if d.channel_kind == ChannelKind::Float && d.bits == 16 {
        // Half texels: the exact weighted sum rounded to half precision (an H200's every 1D
        // sample of the probe; 257 of 289 2D ones, the rest one half-precision step apart).
        let mut out = [0, 0, 0, 1.0f32.to_bits()];
        for c in 0..channels {
            out[c] = f16_to_f32(f64_to_f16(exact[c], Rounding::Rn, false)).to_bits();
        }
        return Ok(out);
    }
    Ok(sum.map(f32::to_bits))
}

/// Whether linear filtering runs on integers: texels of up to 16 bits, unsigned or signed,
/// read as normalised floats. An H200 weighs the integer texels in 1/256 steps, rounds the
/// sum to the nearest step of a 16-bit normalised value (halves up: 1/65535 unsigned, 1/32767
/// signed) and returns it as a float (signed ones clamped to −1, so −128 and −32768 filter as
/// themselves first). Measured with `tests/cudart/tex_filtering.cu`'s 48 filtered 8-bit
/// samples and `scripts/gpu/probes/tex_formats.cu` (257 1D and 289 2D samples per format):
/// every unsigned 8- and 16-bit and signed 16-bit sample equal; signed 8-bit: every 1D sample
/// and 283 of 289 2D ones (six differ by one 16-bit step: an intermediate rounding of the
/// hardware's not found).
fn integer_filtering(d: &Descriptor) -> bool {
    d.normalized_read
        && matches!(d.channel_kind, ChannelKind::Unsigned | ChannelKind::Signed)
        && d.bits <= 16
}

/// The largest texel value of an integer format (`M`) and the steps of its 16-bit normalised
/// result (65535 unsigned, 32767 signed).
fn normalised_range(d: &Descriptor) -> (i64, i64) {
    let signed = d.channel_kind == ChannelKind::Signed;
    let value_bits = u32::from(d.bits) - u32::from(signed);
    ((1i64 << value_bits) - 1, if signed { 32767 } else { 65535 })
}

/// The channels of the element at `at` (the border when `None`) in units of `1/(M·S)` of the
/// normalised range (`M`, `S` from [`normalised_range`]): a texel `t` is `t·S`, the border
/// colour rounded to the nearest 16-bit step first, times `M`.
fn scaled_element<E>(
    d: &Descriptor,
    at: Option<[u64; 3]>,
    layer: u64,
    read: &mut ReadFn<'_, E>,
) -> Result<[i64; 4], E> {
    let (max, steps) = normalised_range(d);
    let signed = d.channel_kind == ChannelKind::Signed;
    let Some(at) = at else {
        let low = if signed { -1.0 } else { 0.0 };
        return Ok(d
            .border
            .map(|b| (f64::from(b.clamp(low, 1.0)) * steps as f64 + 0.5).floor() as i64 * max));
    };
    let raw = raw_element(d, element_address(d, at, layer), read)?;
    Ok(raw.map(|v| {
        let value = if signed {
            i64::from(v as i32)
        } else {
            i64::from(v)
        };
        value * steps
    }))
}

/// `tex` with integer coordinates (`tex1Dfetch` on linear memory, or texel indices of an
/// array): no filtering; outside linear memory the result is zero.
pub fn fetch<E>(
    d: &Descriptor,
    coords: [i32; 3],
    layer: i32,
    ty: ResultType,
    read: &mut ReadFn<'_, E>,
) -> Result<[u32; 4], E> {
    let layer = layer_index(d, layer);
    let i = coords.map(i64::from);
    if d.resource == ResourceKind::Linear {
        let n = d.extent[0] as i64;
        if !(0..n).contains(&i[0]) {
            return Ok([0; 4]);
        }
        return element(d, Some([i[0] as u64, 0, 0]), 0, ty, read);
    }
    element(d, resolve_all(d, i), layer, ty, read)
}

/// `tld4`: channel `component` of the four texels of the 2D linear footprint at `coords`,
/// counter-clockwise from the lower left: (i, j+1), (i+1, j+1), (i+1, j), (i, j).
pub fn gather<E>(
    d: &Descriptor,
    coords: [f32; 2],
    layer: i32,
    component: usize,
    ty: ResultType,
    read: &mut ReadFn<'_, E>,
) -> Result<[u32; 4], E> {
    let layer = layer_index(d, layer);
    let u = texel_coords(d, [coords[0], coords[1], 0.0]);
    let (i, _) = footprint(if u[0].is_nan() { 0.0 } else { u[0] });
    let (j, _) = footprint(if u[1].is_nan() { 0.0 } else { u[1] });
    let mut out = [0u32; 4];
    for (slot, (di, dj)) in out.iter_mut().zip([(0, 1), (1, 1), (1, 0), (0, 0)]) {
        let texel = element(d, resolve_all(d, [i + di, j + dj, 0]), layer, ty, read)?;
        *slot = texel[component];
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::texture::descriptor::ObjectKind;

    fn texture(width: u64, filter: bool, normalized: bool, mode: AddressMode) -> Descriptor {
        Descriptor {
            kind: ObjectKind::Texture,
            base: 0,
            extent: [width, 1, 1],
            layers: 0,
            row_pitch: width * 4,
            slice_pitch: width * 4,
            channels: 1,
            bits: 32,
            channel_kind: ChannelKind::Float,
            resource: ResourceKind::Array,
            dims: 1,
            linear_filter: filter,
            normalized_read: false,
            normalized_coords: normalized,
            address: [mode; 3],
            border: [-1.0, 0.0, 0.0, 0.0],
            levels: 1,
            cubemap: false,
            mipmap_linear: false,
            lod_bias: 0.0,
            lod_clamp: [0.0, 0.0],
        }
    }

    fn run(d: &Descriptor, data: &[f32], x: f32) -> f32 {
        let mut read = |addr: u64, _len: u64| -> Result<u64, ()> {
            Ok(u64::from(data[(addr / 4) as usize].to_bits()))
        };
        f32::from_bits(sample(d, [x, 0.0, 0.0], 0, ResultType::Float, &mut read).unwrap()[0])
    }

    #[test]
    fn point_and_linear_with_nine_bit_weights() {
        let data = [0.0, 1.0, 2.0, 3.0];
        let point = texture(4, false, false, AddressMode::Clamp);
        assert_eq!(run(&point, &data, 1.9), 1.0);
        assert_eq!(run(&point, &data, -3.0), 0.0);
        assert_eq!(run(&point, &data, 9.0), 3.0);
        let linear = texture(4, true, false, AddressMode::Clamp);
        assert_eq!(run(&linear, &data, 1.5), 1.0);
        assert_eq!(run(&linear, &data, 2.0), 1.5);
        // 0.1 of a texel is 25.6/256: the weight is 26/256.
        assert_eq!(run(&linear, &data, 1.6), 1.0 + 26.0 / 256.0);
    }

    /// A linear sample at `x` of a 1D texture of two-byte texels `raw`, read as `kind`.
    fn run_16_bit(kind: ChannelKind, normalized: bool, raw: [u16; 2], x: f32) -> f32 {
        let mut d = texture(2, true, false, AddressMode::Clamp);
        (d.bits, d.channel_kind, d.normalized_read, d.row_pitch) = (16, kind, normalized, 4);
        let mut read =
            |addr: u64, _len: u64| -> Result<u64, ()> { Ok(u64::from(raw[(addr / 2) as usize])) };
        f32::from_bits(sample(&d, [x, 0.0, 0.0], 0, ResultType::Float, &mut read).unwrap()[0])
    }

    #[test]
    fn signed_normalised_and_half_texels_filter_like_an_h200() {
        // scripts/gpu/probes/tex_formats.cu on an H200: snorm16 {-32768, 32767} at x = 0.5 +
        // 1/256 reads -32512/32767 (the sum rounded to a 16-bit step, -32768 not clamped
        // first); half {-1.5, 1000.0} at 0.5 + 3/256 reads 10.234375 (the exact sum rounded to
        // half precision), where an f32 sum gives 10.236328.
        let snorm = run_16_bit(
            ChannelKind::Signed,
            true,
            [(-32768i16) as u16, 32767],
            0.5 + 1.0 / 256.0,
        );
        assert_eq!(snorm, -32512.0 / 32767.0);
        let half = [0xbe00, 0x63d0]; // -1.5, 1000.0
        assert_eq!(
            run_16_bit(ChannelKind::Float, false, half, 0.5 + 3.0 / 256.0),
            10.234375
        );
        assert_eq!(
            run_16_bit(ChannelKind::Signed, true, [(-32768i16) as u16, 32767], 0.5),
            -1.0
        );
    }

    #[test]
    fn bilinear_corner_weights_are_rounded_like_an_h200s() {
        // tex2D at (0.5 + 17/64, 0.5 + 4/64) over texels {0, 1, 256, 65536} read 1036.25 on an
        // H200 (scripts/gpu/probes/tex_weights.cu); the exact bilinear weights would give 1100.
        let (wx, wy) = (68, 16);
        let weights: Vec<u32> = [
            (256 - wx, 256 - wy),
            (wx, 256 - wy),
            (256 - wx, wy),
            (wx, wy),
        ]
        .iter()
        .map(|&(a, b)| corner_weight([a, b].into_iter()))
        .collect();
        assert_eq!(weights, [176, 64, 12, 4]);
        let texels = [0.0f32, 1.0, 256.0, 65536.0];
        let sum: f32 = weights
            .iter()
            .zip(texels)
            .map(|(&w, t)| w as f32 / 256.0 * t)
            .sum();
        assert_eq!(sum, 1036.25);
        assert_eq!(
            corner_weight([200].into_iter()),
            200,
            "one axis: no rounding"
        );
        // 128·129 = 64.5·256 rounds to 64 and 128·131 = 65.5·256 to 66: halves go to even.
        assert_eq!(corner_weight([128, 129].into_iter()), 64);
        assert_eq!(corner_weight([128, 131].into_iter()), 66);
    }

    #[test]
    fn address_modes() {
        let data = [10.0, 20.0, 30.0, 40.0];
        let wrap = texture(4, false, true, AddressMode::Wrap);
        assert_eq!(run(&wrap, &data, 1.25), 20.0);
        let mirror = texture(4, false, true, AddressMode::Mirror);
        assert_eq!(run(&mirror, &data, 1.25), 30.0);
        let border = texture(4, false, false, AddressMode::Border);
        assert_eq!(run(&border, &data, 4.5), -1.0);
        // Wrap without normalised coordinates clamps.
        let unnormalized_wrap = texture(4, false, false, AddressMode::Wrap);
        assert_eq!(run(&unnormalized_wrap, &data, 5.0), 40.0);
    }
}
