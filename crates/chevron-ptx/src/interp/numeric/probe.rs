//! Checks results that `scripts/gpu/numeric_probe.py` recorded on a GPU against this library:
//! what each probed instruction must produce for its operands ([`expect`]), whether the GPU's
//! value meets it ([`meets`]), and a per-instruction tally of a whole probe file
//! ([`check_probe`]). The `numeric_check` example and the `numeric_gpu` integration test (which
//! runs over a recorded H200 probe in `tests/data/`) both use it.
//!
//! Probe lines are `name<TAB>class<TAB>a<TAB>b<TAB>c<TAB>d` in hex, `#` lines are comments.
//! Exactly specified instructions must match bit for bit (NaN results included); `.approx`
//! instructions must lie within the GPU's documented error of our value.

use super::*;
use crate::ir::{Compare, Rounding, ScalarType};
use std::collections::BTreeMap;

/// What the GPU must have produced.
pub enum Expect {
    /// These exact bits.
    Bits(u64),
    /// An f32 within this many ulps (same class for NaN, ±∞, ±0).
    Ulps32(f32, u32),
    /// A value within `abs + rel·|value|` (f32 results read from the low word unless `f64`).
    Near {
        /// Our value.
        value: f64,
        /// The absolute error allowed.
        abs: f64,
        /// The error allowed relative to `|value|`.
        rel: f64,
        /// Whether the result is an f64 (else an f32 in the low word).
        f64: bool,
    },
    /// f16/bf16 bits within this many ulps.
    Ulps16(u16, u32),
    /// Not modelled by this checker.
    Unknown,
}

/// The modifiers of an instruction name such as `fma.rn.ftz.sat.f32`.
struct Name<'a> {
    op: &'a str,
    words: Vec<&'a str>,
}

impl<'a> Name<'a> {
    fn parse(name: &'a str) -> Name<'a> {
        let mut it = name.split('.');
        let op = it.next().unwrap_or("");
        Name {
            op,
            words: it.collect(),
        }
    }
    fn has(&self, w: &str) -> bool {
        self.words.contains(&w)
    }
    fn rnd(&self) -> Rounding {
        self.words
            .iter()
            .find_map(|w| Rounding::from_word(w))
            .unwrap_or(Rounding::Rn)
    }
    fn word(&self, i: usize) -> &str {
        self.words.get(i).copied().unwrap_or("")
    }
    fn ty(&self) -> ScalarType {
        self.words
            .last()
            .and_then(|w| ScalarType::from_word(w))
            .unwrap_or(ScalarType::B32)
    }
}

fn f(bits: u64) -> f32 {
    f32::from_bits(bits as u32)
}

fn d(bits: u64) -> f64 {
    f64::from_bits(bits)
}

/// The expected f32 result of an `f32_*` probe.
fn float32(n: &Name, a: u64, b: u64, c: u64) -> Expect {
    let ftz = n.has("ftz");
    let fl = |x: f32| if ftz { flush_f32(x) } else { x };
    let (x, y, z, r) = (fl(f(a)), fl(f(b)), fl(f(c)), n.rnd());
    let ulps = |v: f32, u: u32| Expect::Ulps32(v, u);
    let exact = match n.op {
        "add" => add_f32(x, y, r),
        "sub" => sub_f32(x, y, r),
        "mul" if ftz => mul_ftz_f32(x, y, r),
        "mul" => mul_f32(x, y, r),
        "div" if n.has("approx") => return ulps(fl(div_approx_f32(x, y)), 2),
        "div" if n.has("full") => return ulps(fl(div_full_f32(x, y)), 2),
        "div" => div_f32(x, y, r),
        "fma" => fma_f32(x, y, z, r),
        "sqrt" if n.has("approx") => return ulps(sqrt_approx_f32(x), 2),
        "sqrt" => sqrt_f32(x, r),
        "rcp" if n.has("approx") => return ulps(rcp_approx_f32(x), 1),
        "rcp" => rcp_f32(x, r),
        "rsqrt" => return ulps(rsqrt_approx_f32(x), 2),
        "ex2" => return ulps(fl(ex2_approx_f32(x)), 3),
        "lg2" => return near(lg2_approx_f32(x) as f64, 2f64.powi(-21), 2f64.powi(-21)),
        "sin" | "cos" => {
            // The ISA bounds hold within 2π and 100π; beyond, it promises nothing.
            if x.abs() > 100.0 * std::f32::consts::PI {
                return Expect::Unknown;
            }
            let v = if n.op == "sin" {
                sin_approx_f32(x)
            } else {
                cos_approx_f32(x)
            };
            let abs = if x.abs() <= 4.0 {
                2f64.powi(-20)
            } else {
                2f64.powi(-14)
            };
            return near(v as f64, abs, 0.0);
        }
        "tanh" => return near(tanh_approx_f32(x) as f64, 2f64.powi(-24), 2f64.powf(-10.9)),
        "min" | "max" if n.has("xorsign") => {
            minmax_xorsign_abs_f32(x, y, n.op == "max", n.has("NaN"))
        }
        "min" => min_f32(x, y, n.has("NaN")),
        "max" => max_f32(x, y, n.has("NaN")),
        "copysign" => copysign_f32(x, y),
        "neg" => neg_f32(x),
        "abs" => abs_f32(x),
        _ => return Expect::Unknown,
    };
    let v = fl(exact);
    Expect::Bits(if n.has("sat") { saturate_f32(v) } else { v }.to_bits() as u64)
}

fn near(value: f64, abs: f64, rel: f64) -> Expect {
    Expect::Near {
        value,
        abs,
        rel,
        f64: false,
    }
}

/// The expected f64 result of an `f64_*` probe.
fn float64(n: &Name, a: u64, b: u64, c: u64) -> Expect {
    let (x, y, z, r) = (d(a), d(b), d(c), n.rnd());
    let v = match n.op {
        "add" => add_f64(x, y, r),
        "sub" => sub_f64(x, y, r),
        "mul" => mul_f64(x, y, r),
        "div" => div_f64(x, y, r),
        "fma" => fma_f64(x, y, z, r),
        "sqrt" => sqrt_f64(x, r),
        "rcp" if n.has("approx") => {
            let value = rcp_approx_ftz_f64(x);
            return Expect::Near {
                value,
                abs: 0.0,
                rel: 2f64.powi(-19),
                f64: true,
            };
        }
        "rcp" => rcp_f64(x, r),
        "rsqrt" => {
            let value = if n.has("ftz") {
                rsqrt_approx_ftz_f64(x)
            } else {
                rsqrt_approx_f64(x)
            };
            return Expect::Near {
                value,
                abs: 0.0,
                rel: 2f64.powi(-19),
                f64: true,
            };
        }
        "min" => min_f64(x, y, false),
        "max" => max_f64(x, y, false),
        "neg" => neg_f64(x),
        "abs" => abs_f64(x),
        _ => return Expect::Unknown,
    };
    Expect::Bits(v.to_bits())
}

/// The expected result of an f16/bf16 probe (`b16_*`, or packed in `b32_*`).
fn half(n: &Name, a: u64, b: u64, c: u64) -> Expect {
    let (ty, r, ftz, sat) = (n.ty(), n.rnd(), n.has("ftz"), n.has("sat"));
    let (x, y, z) = (a as u16, b as u16, c as u16);
    let relu = |h: u16| match (n.has("relu"), ty) {
        (false, _) => h,
        (true, ScalarType::Bf16) => relu_bf16(h),
        (true, _) => relu_f16(h),
    };
    let nan = n.has("NaN");
    let v = match (n.op, ty) {
        ("add", ScalarType::F16) => add_f16(x, y, r, ftz, sat),
        ("add", ScalarType::Bf16) => add_bf16(x, y, r, ftz, sat),
        ("mul", ScalarType::F16) => mul_f16(x, y, r, ftz, sat),
        ("fma", ScalarType::F16) => relu(fma_f16(x, y, z, r, ftz, sat)),
        ("fma", ScalarType::Bf16) => relu(fma_bf16(x, y, z, r, ftz, sat)),
        ("min", ScalarType::F16) => min_f16(x, y, nan),
        ("max", ScalarType::F16) => max_f16(x, y, nan),
        ("ex2", ScalarType::F16) => return Expect::Ulps16(ex2_approx_f16(x), 2),
        ("ex2", ScalarType::Bf16) => return Expect::Ulps16(ex2_approx_ftz_bf16(x), 2),
        ("tanh", ScalarType::F16) => return Expect::Ulps16(tanh_approx_f16(x), 2),
        ("tanh", ScalarType::Bf16) => return Expect::Ulps16(tanh_approx_bf16(x), 2),
        ("add", ScalarType::F16x2) => {
            return Expect::Bits(add_f16x2(a as u32, b as u32, r, ftz, sat) as u64)
        }
        ("fma", ScalarType::F16x2) => {
            return Expect::Bits(fma_f16x2(a as u32, b as u32, c as u32, r, ftz, sat) as u64)
        }
        ("fma", ScalarType::Bf16x2) => {
            return Expect::Bits(fma_bf16x2(a as u32, b as u32, c as u32, r, ftz, sat) as u64)
        }
        ("max", ScalarType::Bf16x2) => {
            return Expect::Bits(max_bf16x2(a as u32, b as u32, nan) as u64)
        }
        _ => return Expect::Unknown,
    };
    Expect::Bits(v as u64)
}

/// The expected result of an integer or bit-manipulation probe.
fn integer(n: &Name, cls: &str, a: u64, b: u64, c: u64) -> Expect {
    use ScalarType::*;
    let ty = n.ty();
    let (a32, b32, c32) = (a as u32, b as u32, c as u32);
    let v = match n.op {
        "div" => div_int(ty, a, b),
        "rem" => rem_int(ty, a, b),
        "mul" if n.has("hi") => mul_hi(ty, a, b),
        "mul" if n.has("wide") => mul_wide(ty, a, b),
        "min" => min_int(ty, a, b),
        "shr" => shr(ty, a, b32),
        "shl" => shl(ty, a, b32),
        "mul24" => mul24(ty, a, b, n.has("hi")),
        "mad24" => mad24(ty, a, b, c, n.has("hi"), n.has("sat")),
        "mad" => mad_hi(ty, a, b, c, n.has("sat")),
        "add" => add_sat_s32(a32 as i32, b32 as i32) as u32 as u64,
        "sub" => sub_sat_s32(a32 as i32, b32 as i32) as u32 as u64,
        "sad" => sad(ty, a, b, c),
        "bfe" => bfe(ty, a, b32, c32),
        "bfi" => bfi(ty, a, b, c32 & 255, (c32 >> 8) & 255),
        "bfind" => bfind(ty, a, n.has("shiftamt")) as u64,
        "clz" => clz(ty, a) as u64,
        "popc" => popc(ty, a) as u64,
        "brev" => brev(ty, a),
        "fns" => fns(a32, b32, c32 as i32) as u64,
        "bmsk" => bmsk(a32, b32, n.has("clamp")) as u64,
        "szext" => szext(a32, b32, ty == S32, n.has("clamp")) as u64,
        "shf" => shf(a32, b32, c32, n.has("l"), n.has("clamp")) as u64,
        "dp4a" => dp4a(a32, b32, c32, n.word(0) == "s32", n.word(1) == "s32") as u64,
        "dp2a" => dp2a(
            a32,
            b32,
            c32,
            n.has("hi"),
            n.word(1) == "s32",
            n.word(2) == "s32",
        ) as u64,
        "prmt" => prmt(a32, b32, c32, n.words.get(1).copied()) as u64,
        "lop3" if cls == "lop3" => {
            let (p, q) = (lop3(a32, b32, c32, 0x96), lop3(a32, b32, c32, 0xe8));
            lop3(p, q, c32, 0x1e) as u64
        }
        _ => return Expect::Unknown,
    };
    Expect::Bits(v)
}

/// The expected result of a `cvt` probe (`cvt:DST:SRC`) or a pair packing (`pack:DST`).
fn conversion(n: &Name, cls: &str, a: u64, b: u64) -> Expect {
    let mut o = CvtOptions {
        rnd: n.words.iter().find_map(|w| Rounding::from_word(w)),
        ftz: n.has("ftz"),
        sat: n.has("sat"),
        satfinite: n.has("satfinite"),
        relu: n.has("relu"),
    };
    let parts: Vec<&str> = cls.split(':').chain(["", ""]).collect();
    let Some(dst) = ScalarType::from_word(parts[1]) else {
        return Expect::Unknown;
    };
    if parts[0] == "pack" {
        o.rnd = o.rnd.or(Some(Rounding::Rn));
        return Expect::Bits(cvt_pack_f32(dst, f(a), f(b), &o) as u64);
    }
    let Some(src) = ScalarType::from_word(parts[2]) else {
        return Expect::Unknown;
    };
    let reg_bytes = match dst {
        ScalarType::Tf32 | ScalarType::F16x2 | ScalarType::Bf16x2 => 4,
        ScalarType::E4m3x2 | ScalarType::E5m2x2 => 2,
        t => t.size().max(2),
    };
    Expect::Bits(extend_to_register(
        dst,
        cvt_with(dst, src, a, &o),
        reg_bytes,
    ))
}

/// What instruction `name`, probed as operand class `cls`, must produce for operands `a b c`.
pub fn expect(name: &str, cls: &str, a: u64, b: u64, c: u64) -> Expect {
    let n = Name::parse(name);
    match cls {
        "f32_1" | "f32_2" | "f32_3" => float32(&n, a, b, c),
        "f64_1" | "f64_2" | "f64_3" => float64(&n, a, b, c),
        "b16_1" | "b16_2" | "b16_3" => half(&n, a, b, c),
        "b32_2" | "b32_3" if n.ty().is_float() => half(&n, a, b, c),
        "atom_f32" => Expect::Bits(atom_add_f32(f(a), f(b)).to_bits() as u64),
        _ if cls.starts_with("p_") => {
            let hit = if n.op == "testp" {
                testp(n.word(0), n.ty(), a)
            } else {
                let cmp = Compare::from_word(n.word(0)).unwrap_or(Compare::Eq);
                match n.ty() {
                    ScalarType::F32 => compare_f32(cmp, f(a), f(b)),
                    ScalarType::F64 => compare_f64(cmp, d(a), d(b)),
                    t => compare_int(cmp, t, a, b),
                }
            };
            Expect::Bits(hit as u64)
        }
        _ if cls.starts_with("cvt:") || cls.starts_with("pack:") => conversion(&n, cls, a, b),
        _ => integer(&n, cls, a, b, c),
    }
}

/// Whether the GPU's `got` meets `e`.
pub fn meets(e: &Expect, got: u64) -> bool {
    let same_class = |x: f64, y: f64| {
        (x.is_nan() && y.is_nan()) || (x == y && x.is_sign_negative() == y.is_sign_negative())
    };
    match *e {
        Expect::Bits(v) => v == got,
        Expect::Unknown => true,
        Expect::Ulps32(v, u) => {
            let g = f(got);
            if !v.is_finite() || v == 0.0 || !g.is_finite() || g == 0.0 {
                return same_class(v as f64, g as f64);
            }
            (v.to_bits() as i64 - g.to_bits() as i64).unsigned_abs() <= u as u64
        }
        Expect::Ulps16(v, u) => (v as i64 - got as u16 as i64).unsigned_abs() <= u as u64,
        Expect::Near {
            value,
            abs,
            rel,
            f64: wide,
        } => {
            let g = if wide { d(got) } else { f(got) as f64 };
            if !value.is_finite() || !g.is_finite() {
                return same_class(value, g);
            }
            (g - value).abs() <= abs + rel * value.abs()
        }
    }
}

impl Expect {
    /// Our value, for a report (empty for [`Expect::Unknown`]).
    pub fn ours(&self) -> String {
        match *self {
            Expect::Bits(v) => format!("{v:#x}"),
            Expect::Ulps32(v, _) => format!("{:#x}", v.to_bits()),
            Expect::Ulps16(v, _) => format!("{v:#x}"),
            Expect::Near { value, .. } => format!("{value:e}"),
            Expect::Unknown => String::new(),
        }
    }
}

/// One recorded probe result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProbeRow<'a> {
    /// The instruction, e.g. `fma.rn.ftz.f32`.
    pub name: &'a str,
    /// The probe's operand class, e.g. `f32_3` or `cvt:f16:f32`.
    pub class: &'a str,
    /// The operands, as 64-bit register patterns.
    pub operands: [u64; 3],
    /// What the GPU produced, zero-extended to 64 bits.
    pub got: u64,
}

impl<'a> ProbeRow<'a> {
    /// Parses a `name<TAB>class<TAB>a<TAB>b<TAB>c<TAB>d` line (hex values); `None` for comments
    /// and malformed lines.
    pub fn parse(line: &'a str) -> Option<ProbeRow<'a>> {
        if line.starts_with('#') {
            return None;
        }
        let cols: Vec<&str> = line.trim_end().split('\t').collect();
        let [name, class, a, b, c, got] = cols[..] else {
            return None;
        };
        let hex = |s: &str| u64::from_str_radix(s, 16).ok();
        Some(ProbeRow {
            name,
            class,
            operands: [hex(a)?, hex(b)?, hex(c)?],
            got: hex(got)?,
        })
    }

    /// What this row's instruction must produce.
    pub fn expect(&self) -> Expect {
        let [a, b, c] = self.operands;
        expect(self.name, self.class, a, b, c)
    }

    /// The row with our value, for a mismatch report.
    pub fn describe(&self, e: &Expect) -> String {
        let [a, b, c] = self.operands;
        format!(
            "{} a={a:#x} b={b:#x} c={c:#x} gpu={:#x} ours={}",
            self.name,
            self.got,
            e.ours()
        )
    }
}

/// The tally of one instruction over a probe file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InstructionTally {
    /// Rows checked.
    pub checked: u64,
    /// Rows whose GPU result does not meet ours.
    pub mismatched: u64,
    /// Rows this checker does not model.
    pub unknown: u64,
    /// Every mismatching row, described.
    pub mismatches: Vec<String>,
}

/// Checks every row of a probe file's text: the tally per instruction name, and the number of
/// lines that were neither comments nor rows.
pub fn check_probe(text: &str) -> (BTreeMap<&str, InstructionTally>, usize) {
    let mut tallies: BTreeMap<&str, InstructionTally> = BTreeMap::new();
    let mut malformed = 0;
    for line in text.lines() {
        let Some(row) = ProbeRow::parse(line) else {
            malformed += !(line.starts_with('#') || line.trim().is_empty()) as usize;
            continue;
        };
        let e = row.expect();
        let t = tallies.entry(row.name).or_default();
        t.checked += 1;
        if matches!(e, Expect::Unknown) {
            t.unknown += 1;
        } else if !meets(&e, row.got) {
            t.mismatched += 1;
            t.mismatches.push(row.describe(&e));
        }
    }
    (tallies, malformed)
}
