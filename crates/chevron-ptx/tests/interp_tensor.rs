//! Tensor-core forms on the interpreter: `mma.sync` integer, tf32 and f64 fragments placed as
//! the PTX ISA's "Matrix Fragments for mma" sections place them (written out here from the ISA
//! text, independently of the interpreter's one rule), exact integer and f64 results, `wmma`
//! integer and f64 tiles through memory, `stmatrix`/`ldmatrix`, and the forms the CPU device refuses.
#![allow(clippy::needless_range_loop)]

mod interp_common;

use chevron_ptx::interp::DeviceMemory;
use interp_common::*;

const HEADER: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

struct Random(u32);

impl Random {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        self.0 >> 8
    }
}

/// A one-warp kernel: lane l loads `a + b + c` registers from `in + l * (a + b + c) * W`, runs
/// `inst` with `{D}`, `{A}`, `{B}`, `{C}` replaced by its register vectors and stores D's
/// `d` registers to `out + l * d * W` (W = 8 bytes with `wide`, else 4).
fn lane_kernel(inst: &str, [d, a, b, c]: [usize; 4], wide: bool) -> String {
    let (bits, w) = if wide { (64, 8) } else { (32, 4) };
    let ins = a + b + c;
    let list = |from: usize, n: usize| {
        let regs: Vec<String> = (from..from + n).map(|i| format!("%x{i}")).collect();
        format!("{{{}}}", regs.join(", "))
    };
    let inst = inst
        .replace("{A}", &list(0, a))
        .replace("{B}", &list(a, b))
        .replace("{C}", &list(a + b, c))
        .replace("{D}", &list(ins, d));
    let loads: String = (0..ins)
        .map(|i| format!("ld.global.b{bits} %x{i}, [%p2+{}];\n", i * w))
        .collect();
    let stores: String = (0..d)
        .map(|i| format!("st.global.b{bits} [%p3+{}], %x{};\n", i * w, ins + i))
        .collect();
    format!(
        "{HEADER}.visible .entry k(.param .u64 in, .param .u64 out) {{\n\
         .reg .b32 %t; .reg .b64 %p<4>; .reg .b{bits} %x<64>;\n\
         ld.param.u64 %p0, [in]; ld.param.u64 %p1, [out]; mov.u32 %t, %tid.x;\n\
         mul.wide.u32 %p2, %t, {}; add.s64 %p2, %p0, %p2;\n\
         mul.wide.u32 %p3, %t, {}; add.s64 %p3, %p1, %p3;\n\
         {loads}{inst}\n{stores}ret;\n}}\n",
        ins * w,
        d * w
    )
}

/// Runs `lane_kernel`'s kernel on per-lane register images; gives D's registers, lane-major.
fn run_lanes(inst: &str, counts: [usize; 4], wide: bool, image: &[u64]) -> Vec<u64> {
    let ptx = lane_kernel(inst, counts, wide);
    let (memory, program) = load(&ptx);
    let input = if wide {
        upload_u64(&memory, image)
    } else {
        let words: Vec<u32> = image.iter().map(|v| *v as u32).collect();
        upload_u32(&memory, &words)
    };
    let out = upload_u64(&memory, &vec![0; 32 * counts[0]]);
    let kernel = program.kernel("k").unwrap();
    let params = Params::new().u64(input).u64(out).build(&kernel);
    program
        .launch(&kernel, &config([1, 1, 1], [32, 1, 1], 1), &params)
        .unwrap_or_else(|f| panic!("{f}"));
    if wide {
        download_u64(&memory, out, 32 * counts[0])
    } else {
        download_u32(&memory, out, 32 * counts[0])
            .into_iter()
            .map(u64::from)
            .collect()
    }
}

fn upload_u64(memory: &DeviceMemory, data: &[u64]) -> u64 {
    let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
    let addr = memory.alloc(bytes.len().max(1) as u64, 256).unwrap();
    memory.write(addr, &bytes).unwrap();
    addr
}

/// (row, column) of C/D element i of lane `lane` (every m16n8 form; m8n8 uses i < 2).
fn c_at(lane: usize, i: usize) -> (usize, usize) {
    (lane / 4 + 8 * (i / 2), 2 * (lane % 4) + i % 2)
}

/// Integer m16n8kK (K = 16 or 32): A 16xK and B Kx8 bytes, C 16x8; D as computed by the
/// instruction, row-major.
fn int8_mma(inst: &str, k: usize, a: &[u8], b: &[u8], c: &[i32]) -> Vec<i32> {
    let (na, nb) = (k / 8, k / 16);
    let mut image = vec![0u64; 32 * (na + nb + 4)];
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        let regs = &mut image[lane * (na + nb + 4)..(lane + 1) * (na + nb + 4)];
        for i in 0..k / 2 {
            // ISA: row g for i < 4 (k16) or i in 0..4, 8..12 (k32), else g + 8; col 4t + (i & 3)
            // (+ 16 for i >= 8 at k32).
            let low = if k == 16 {
                i < 4
            } else {
                i < 4 || (8..12).contains(&i)
            };
            let row = if low { g } else { g + 8 };
            let col = 4 * t + (i & 3) + if k == 32 && i >= 8 { 16 } else { 0 };
            regs[i / 4] |= u64::from(a[row * k + col]) << (8 * (i % 4));
        }
        for i in 0..k / 4 {
            let row = 4 * t + (i & 3) + if k == 32 && i >= 4 { 16 } else { 0 };
            regs[na + i / 4] |= u64::from(b[row * 8 + g]) << (8 * (i % 4));
        }
        for i in 0..4 {
            let (row, col) = c_at(lane, i);
            regs[na + nb + i] = u64::from(c[row * 8 + col] as u32);
        }
    }
    let out = run_lanes(inst, [4, na, nb, 4], false, &image);
    let mut d = vec![0i32; 128];
    for lane in 0..32 {
        for i in 0..4 {
            let (row, col) = c_at(lane, i);
            d[row * 8 + col] = out[lane * 4 + i] as u32 as i32;
        }
    }
    d
}

fn int8_reference(k: usize, a: &[i64], b: &[i64], c: &[i32], sat: bool) -> Vec<i32> {
    (0..128)
        .map(|e| {
            let (row, col) = (e / 8, e % 8);
            let s = (0..k).fold(i64::from(c[e]), |s, kk| {
                s + a[row * k + kk] * b[kk * 8 + col]
            });
            if sat {
                s.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
            } else {
                s as i32
            }
        })
        .collect()
}

#[test]
fn mma_s8_by_u8_m16n8k16_follows_the_isa_layout_exactly() {
    let mut r = Random(7);
    let a: Vec<u8> = (0..256).map(|_| r.next() as u8).collect();
    let b: Vec<u8> = (0..128).map(|_| r.next() as u8).collect();
    let c: Vec<i32> = (0..128).map(|_| r.next() as i32 - (1 << 23)).collect();
    let d = int8_mma(
        "mma.sync.aligned.m16n8k16.row.col.s32.s8.u8.s32 {D}, {A}, {B}, {C};",
        16,
        &a,
        &b,
        &c,
    );
    let sa: Vec<i64> = a.iter().map(|&x| i64::from(x as i8)).collect();
    let ub: Vec<i64> = b.iter().map(|&x| i64::from(x)).collect();
    assert_eq!(d, int8_reference(16, &sa, &ub, &c, false));
}

#[test]
fn mma_u8_m8n8k16_follows_the_isa_layout_exactly() {
    // ISA: A a_i at (g, 4t + i), B b_i at (4t + i, g), C/D c_i at (g, 2t + i).
    let mut r = Random(5);
    let a: Vec<u8> = (0..128).map(|_| r.next() as u8).collect();
    let b: Vec<u8> = (0..128).map(|_| r.next() as u8).collect();
    let c: Vec<i32> = (0..64).map(|_| r.next() as i32).collect();
    let mut image = vec![0u64; 32 * 4];
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        for i in 0..4 {
            image[lane * 4] |= u64::from(a[g * 16 + 4 * t + i]) << (8 * i);
            image[lane * 4 + 1] |= u64::from(b[(4 * t + i) * 8 + g]) << (8 * i);
        }
        for i in 0..2 {
            image[lane * 4 + 2 + i] = u64::from(c[g * 8 + 2 * t + i] as u32);
        }
    }
    let out = run_lanes(
        "mma.sync.aligned.m8n8k16.row.col.s32.u8.s8.s32 {D}, {A}, {B}, {C};",
        [2, 1, 1, 2],
        false,
        &image,
    );
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        for i in 0..2 {
            let col = 2 * t + i;
            let s = (0..16).fold(i64::from(c[g * 8 + col]), |s, k| {
                s + i64::from(a[g * 16 + k]) * i64::from(b[k * 8 + col] as i8)
            });
            assert_eq!(out[lane * 2 + i] as u32 as i32, s as i32, "D[{g}][{col}]");
        }
    }
}

#[test]
fn mma_m16n8k32_saturates_with_satfinite_and_wraps_without() {
    let mut r = Random(11);
    let a: Vec<u8> = (0..512).map(|_| 128 + (r.next() % 128) as u8).collect();
    let b: Vec<u8> = (0..256).map(|_| 128 + (r.next() % 128) as u8).collect();
    // Near the top for even elements (u8 products push up), the bottom for odd (s8 products
    // of two negative halves push up too, so the bottom ones wrap only without saturation).
    let c: Vec<i32> = (0..128)
        .map(|e| {
            if e % 2 == 0 {
                i32::MAX - 1000
            } else {
                i32::MIN + 5
            }
        })
        .collect();
    let ua: Vec<i64> = a.iter().map(|&x| i64::from(x)).collect();
    let ub: Vec<i64> = b.iter().map(|&x| i64::from(x)).collect();
    let sat = int8_mma(
        "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.u8.s32 {D}, {A}, {B}, {C};",
        32,
        &a,
        &b,
        &c,
    );
    assert_eq!(sat, int8_reference(32, &ua, &ub, &c, true));
    assert!(sat.iter().step_by(2).all(|&v| v == i32::MAX));
    let wrapped = int8_mma(
        "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {D}, {A}, {B}, {C};",
        32,
        &a,
        &b,
        &c,
    );
    assert_eq!(wrapped, int8_reference(32, &ua, &ub, &c, false));
    assert!(
        wrapped.iter().step_by(2).all(|&v| v < 0),
        "the even sums wrap"
    );
    let sb: Vec<i64> = b.iter().map(|&x| i64::from(x as i8)).collect();
    let low: Vec<i32> = (0..128).map(|_| i32::MIN + 3).collect();
    let neg: Vec<u8> = a.iter().map(|&x| x.wrapping_neg()).collect();
    let sneg: Vec<i64> = neg.iter().map(|&x| i64::from(x as i8)).collect();
    let d = int8_mma(
        "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {D}, {A}, {B}, {C};",
        32,
        &neg,
        &b,
        &low,
    );
    assert_eq!(d, int8_reference(32, &sneg, &sb, &low, true));
    assert!(
        d.iter().all(|&v| v == i32::MIN),
        "negative sums saturate low"
    );
}

/// tf32 m16n8kK (K = 4 or 8): A 16xK and B Kx8 as f32 bits, C zero.
fn tf32_mma(k: usize, a: &[u32], b: &[u32]) -> Vec<f32> {
    let (na, nb) = (k / 2, k / 4);
    let inst =
        format!("mma.sync.aligned.m16n8k{k}.row.col.f32.tf32.tf32.f32 {{D}}, {{A}}, {{B}}, {{C}};");
    let mut image = vec![0u64; 32 * (na + nb + 4)];
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        let regs = &mut image[lane * (na + nb + 4)..];
        // ISA: a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4); b0 (t, g), b1 (t + 4, g).
        for i in 0..na {
            regs[i] = u64::from(a[(g + 8 * (i % 2)) * k + t + 4 * (i / 2)]);
        }
        for i in 0..nb {
            regs[na + i] = u64::from(b[(t + 4 * i) * 8 + g]);
        }
    }
    let out = run_lanes(&inst, [4, na, nb, 4], false, &image);
    let mut d = vec![0f32; 128];
    for lane in 0..32 {
        for i in 0..4 {
            let (row, col) = c_at(lane, i);
            d[row * 8 + col] = f32::from_bits(out[lane * 4 + i] as u32);
        }
    }
    d
}

#[test]
fn mma_tf32_ignores_the_low_13_bits_of_each_element() {
    for k in [4, 8] {
        let mut r = Random(k as u32);
        // Small integers (exact in tf32) with garbage in the 13 bits tf32 does not have.
        let noisy = |v: f32, r: &mut Random| v.to_bits() | (r.next() & 0x1fff);
        let av: Vec<f32> = (0..16 * k).map(|_| (r.next() % 17) as f32 - 8.0).collect();
        let bv: Vec<f32> = (0..8 * k).map(|_| (r.next() % 9) as f32 - 4.0).collect();
        let a: Vec<u32> = av.iter().map(|&v| noisy(v, &mut r)).collect();
        let b: Vec<u32> = bv.iter().map(|&v| noisy(v, &mut r)).collect();
        let d = tf32_mma(k, &a, &b);
        for e in 0..128 {
            let (row, col) = (e / 8, e % 8);
            let expected: f32 = (0..k).map(|kk| av[row * k + kk] * bv[kk * 8 + col]).sum();
            assert_eq!(d[e], expected, "k{k} D[{row}][{col}]");
        }
    }
}

#[test]
fn mma_f64_is_a_chain_of_fused_multiply_adds_in_k_order() {
    // m8n8k4: A (g, t), B (t, g), C/D (g, 2t + i); m16n8k16 (sm_90): A i at (g + 8 (i mod 2),
    // t + 4 ⌊i/2⌋), B i at (t + 4 i, g), C/D as c_at.
    for (m, k) in [(8usize, 4usize), (16, 16)] {
        let mut r = Random(99 + k as u32);
        let mut val = || f64::from(r.next()) / f64::from(1u32 << 24) * 2.0 - 1.0;
        let a: Vec<f64> = (0..m * k).map(|_| val()).collect();
        let b: Vec<f64> = (0..k * 8).map(|_| val()).collect();
        let c: Vec<f64> = (0..m * 8).map(|_| val() * 1e-3).collect();
        let (na, nb, nc) = (m * k / 32, k / 4, m / 4);
        let mut image = vec![0u64; 32 * (na + nb + nc)];
        for lane in 0..32 {
            let (g, t) = (lane / 4, lane % 4);
            let regs = &mut image[lane * (na + nb + nc)..];
            for i in 0..na {
                regs[i] = a[(g + 8 * (i % 2)) * k + t + 4 * (i / 2)].to_bits();
            }
            for i in 0..nb {
                regs[na + i] = b[(t + 4 * i) * 8 + g].to_bits();
            }
            for i in 0..nc {
                let (row, col) = c_at(lane, i);
                regs[na + nb + i] = c[row * 8 + col].to_bits();
            }
        }
        let inst = format!(
            "mma.sync.aligned.m{m}n8k{k}.row.col.f64.f64.f64.f64 {{D}}, {{A}}, {{B}}, {{C}};"
        );
        let out = run_lanes(&inst, [nc, na, nb, nc], true, &image);
        for lane in 0..32 {
            for i in 0..nc {
                let (row, col) = c_at(lane, i);
                let expected = (0..k).fold(c[row * 8 + col], |s, kk| {
                    a[row * k + kk].mul_add(b[kk * 8 + col], s)
                });
                assert_eq!(
                    f64::from_bits(out[lane * nc + i]),
                    expected,
                    "m{m}k{k} D[{row}][{col}]"
                );
            }
        }
    }
}

/// A one-warp kernel running WMMA on tiles in memory: D = A·B + C with `shape`, A row-major,
/// B column-major, C and D row-major, all densely packed.
fn wmma_kernel(shape: &str, ab: &str, c: &str, mma_types: &str, counts: [usize; 3]) -> String {
    let [na, nb, nc] = counts;
    let wide = c == "f64";
    let (reg, kind) = if wide { ("%f", "f64") } else { ("%r", "b32") };
    let list = |from: usize, n: usize| {
        let v: Vec<String> = (from..from + n).map(|i| format!("{reg}{i}")).collect();
        format!("{{{}}}", v.join(", "))
    };
    let (a, b, cc, d) = (
        list(0, na),
        list(na, nb),
        list(na + nb, nc),
        list(na + nb + nc, nc),
    );
    format!(
        "{HEADER}.visible .entry w(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd) {{\n\
         .reg .b64 %p<4>; .reg .{kind} {reg}<64>;\n\
         ld.param.u64 %p0, [pa]; ld.param.u64 %p1, [pb]; ld.param.u64 %p2, [pc]; ld.param.u64 %p3, [pd];\n\
         wmma.load.a.sync.aligned.row.{shape}.global.{ab} {a}, [%p0];\n\
         wmma.load.b.sync.aligned.col.{shape}.global.{ab} {b}, [%p1];\n\
         wmma.load.c.sync.aligned.row.{shape}.global.{c} {cc}, [%p2];\n\
         wmma.mma.sync.aligned.row.col.{shape}.{mma_types} {d}, {a}, {b}, {cc};\n\
         wmma.store.d.sync.aligned.row.{shape}.global.{c} [%p3], {d};\n\
         ret;\n}}\n"
    )
}

fn run_wmma(ptx: &str, a: &[u8], b: &[u8], c: &[u8]) -> Vec<u8> {
    let (memory, program) = load(ptx);
    let put = |bytes: &[u8]| {
        let addr = memory.alloc(bytes.len() as u64, 256).unwrap();
        memory.write(addr, bytes).unwrap();
        addr
    };
    let (da, db, dc, dd) = (put(a), put(b), put(c), put(&vec![0u8; c.len()]));
    let kernel = program.kernel("w").unwrap();
    let params = Params::new().u64(da).u64(db).u64(dc).u64(dd).build(&kernel);
    program
        .launch(&kernel, &config([1, 1, 1], [32, 1, 1], 1), &params)
        .unwrap_or_else(|f| panic!("{f}"));
    let mut out = vec![0u8; c.len()];
    memory.read(dd, &mut out).unwrap();
    out
}

#[test]
fn wmma_integer_tiles_are_exact_in_every_shape() {
    for (m, n, k, ab, sat) in [
        (16usize, 16usize, 16usize, "s8", false),
        (32, 8, 16, "u8", true),
        (8, 32, 16, "s8", true),
    ] {
        let mut r = Random((m * 100 + n) as u32);
        let a: Vec<u8> = (0..m * k).map(|_| r.next() as u8).collect();
        let b: Vec<u8> = (0..k * n).map(|_| r.next() as u8).collect();
        let c: Vec<i32> = (0..m * n)
            .map(|e| {
                if e % 3 == 0 {
                    i32::MAX - 7
                } else {
                    r.next() as i32 - (1 << 23)
                }
            })
            .collect();
        let types = format!("s32.{ab}.{ab}.s32{}", if sat { ".satfinite" } else { "" });
        let counts = [m * k / 128, k * n / 128, m * n / 32];
        let ptx = wmma_kernel(&format!("m{m}n{n}k{k}"), ab, "s32", &types, counts);
        let cb: Vec<u8> = c.iter().flat_map(|v| v.to_le_bytes()).collect();
        let out = run_wmma(&ptx, &a, &b, &cb);
        let value = |x: u8| {
            if ab == "s8" {
                i64::from(x as i8)
            } else {
                i64::from(x)
            }
        };
        for row in 0..m {
            for col in 0..n {
                // B is column-major: element (kk, col) at col * k + kk.
                let s = (0..k).fold(i64::from(c[row * n + col]), |s, kk| {
                    s + value(a[row * k + kk]) * value(b[col * k + kk])
                });
                let expected = if sat {
                    s.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
                } else {
                    s as i32
                };
                let e = 4 * (row * n + col);
                let got = i32::from_le_bytes(out[e..e + 4].try_into().unwrap());
                assert_eq!(got, expected, "m{m}n{n}k{k} {ab} D[{row}][{col}]");
            }
        }
    }
}

#[test]
fn wmma_f64_rounds_in_the_mode_it_names() {
    // Row 0 of A is (1/3, 0, 0, 0) and column 0 of B is (3, 0, 0, 0): the exact product is
    // 1 - 2^-54, which .rn takes to 1 and .rz to 1 - 2^-53.
    let mut a = vec![0f64; 32];
    let mut b = vec![0f64; 32];
    a[0] = 1.0 / 3.0;
    b[0] = 3.0;
    let bytes = |v: &[f64]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    for (mode, expected) in [("rn", 1.0), ("rz", 1.0 - f64::EPSILON / 2.0)] {
        let types = format!("{mode}.f64.f64.f64.f64");
        let ptx = wmma_kernel("m8n8k4", "f64", "f64", &types, [1, 1, 2]);
        let out = run_wmma(&ptx, &bytes(&a), &bytes(&b), &bytes(&[0.0; 64]));
        let d0 = f64::from_le_bytes(out[0..8].try_into().unwrap());
        assert_eq!(d0, expected, ".{mode}");
    }
}

#[test]
fn stmatrix_places_registers_as_ldmatrix_reads_them() {
    // Register i of lane l holds l + 0x40 i in its low half and that plus 0x1000 in its high
    // half; x4 with and without .trans, then ldmatrix of the same form (written in CUTLASS's
    // modifier order, `.shared::cta`) reads them back.
    for trans in ["", ".trans"] {
        let ptx = format!(
            "{HEADER}.visible .entry s(.param .u64 out, .param .u64 back) {{\n\
             .shared .align 16 .b16 tile[256];\n\
             .reg .b32 %t<4>; .reg .b32 %v<8>; .reg .b32 %w<4>; .reg .b64 %p<6>;\n\
             mov.u32 %t0, %tid.x; mad.lo.u32 %v0, %t0, 0x10001, 0x10000000;\n\
             add.u32 %v1, %v0, 0x00400040; add.u32 %v2, %v0, 0x00800080;\n\
             add.u32 %v3, %v0, 0x00c000c0;\n\
             // Row r of matrix i at tile + 128 i + 16 r bytes, from lane 8 i + r.\n\
             shr.u32 %t2, %t0, 3; and.b32 %t3, %t0, 7; shl.b32 %t2, %t2, 7; shl.b32 %t3, %t3, 4;\n\
             add.u32 %t2, %t2, %t3; mov.u32 %t3, tile; add.u32 %t2, %t2, %t3;\n\
             stmatrix.sync.aligned.m8n8.x4{trans}.shared.b16 [%t2], {{%v0, %v1, %v2, %v3}};\n\
             bar.warp.sync -1;\n\
             ldmatrix.sync.aligned.x4{trans}.m8n8.shared::cta.b16 {{%w0, %w1, %w2, %w3}}, [%t2];\n\
             ld.param.u64 %p0, [out]; ld.param.u64 %p1, [back];\n\
             mul.wide.u32 %p2, %t0, 16; add.s64 %p3, %p1, %p2;\n\
             st.global.v4.b32 [%p3], {{%w0, %w1, %w2, %w3}};\n\
             mul.wide.u32 %p2, %t0, 16; mov.u64 %p4, tile; cvta.shared.u64 %p4, %p4;\n\
             add.s64 %p4, %p4, %p2; ld.v4.b32 {{%w0, %w1, %w2, %w3}}, [%p4];\n\
             add.s64 %p5, %p0, %p2; st.global.v4.b32 [%p5], {{%w0, %w1, %w2, %w3}};\n\
             ret;\n}}\n"
        );
        let (memory, program) = load(&ptx);
        let out = upload_u32(&memory, &[0; 128]);
        let back = upload_u32(&memory, &[0; 128]);
        let kernel = program.kernel("s").unwrap();
        let params = Params::new().u64(out).u64(back).build(&kernel);
        program
            .launch(&kernel, &config([1, 1, 1], [32, 1, 1], 1), &params)
            .unwrap_or_else(|f| panic!("{f}"));
        let tile: Vec<u16> = download_u32(&memory, out, 128)
            .into_iter()
            .flat_map(|w| [w as u16, (w >> 16) as u16])
            .collect();
        for lane in 0..32usize {
            for i in 0..4usize {
                for h in 0..2usize {
                    // Register i of lane 4g + t holds (g, 2t + h) of matrix i (transposed:
                    // (2t + h, g)).
                    let (g, col) = (lane / 4, 2 * (lane % 4) + h);
                    let at = 64 * i
                        + if trans.is_empty() {
                            g * 8 + col
                        } else {
                            col * 8 + g
                        };
                    let half = lane as u16 + 0x40 * i as u16 + if h == 0 { 0 } else { 0x1000 };
                    assert_eq!(tile[at], half, "{trans} lane {lane} register {i} half {h}");
                }
            }
        }
        let regs = download_u32(&memory, back, 128);
        for lane in 0..32u32 {
            for i in 0..4u32 {
                let expected = (lane + 0x40 * i) * 0x10001 + 0x1000_0000;
                assert_eq!(
                    regs[(lane * 4 + i) as usize],
                    expected,
                    "{trans} lane {lane} register {i}"
                );
            }
        }
    }
}

/// A module of one kernel `k` running `inst` (registers %r, %f and %rd declared).
fn one_instruction(inst: &str) -> String {
    format!(
        "{HEADER}.visible .entry k() {{ .reg .b32 %r<40>; .reg .f32 %f<40>; .reg .b64 %rd<4>;\n{inst}\nret; }}"
    )
}

#[test]
fn forms_the_cpu_device_lacks_fail_the_launch_naming_the_form() {
    let cases = [
        (
            "mma.sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r0,%r1,%r2,%r3}, {%r4,%r5}, {%f4,%f5,%f6,%f7};",
            "`mma.sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32` is not supported",
        ),
        (
            "mma.sync.aligned.m16n8k4.row.col.f32.bf16.bf16.f32 {%f0,%f1,%f2,%f3}, {%r0,%r1}, {%r4}, {%f4,%f5,%f6,%f7};",
            "`mma.sync.aligned.m16n8k4.row.col.f32.bf16.bf16.f32` is not supported",
        ),
        (
            "wmma.mma.sync.aligned.row.col.m16n16k16.rz.f32.bf16.bf16.f32 {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7}, {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%f8,%f9,%f10,%f11,%f12,%f13,%f14,%f15};",
            "`wmma.mma.sync.aligned.row.col.m16n16k16.rz.f32.bf16.bf16.f32` is not supported",
        ),
        (
            "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r0, %r1}, [%r2];",
            "`ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8` is not supported on the CPU device",
        ),
    ];
    for (inst, expected) in cases {
        let (_memory, program) = load(&one_instruction(inst));
        let kernel = program.kernel("k").unwrap();
        let fault = program
            .launch(&kernel, &config([1, 1, 1], [32, 1, 1], 1), &[])
            .expect_err("the launch must fault")
            .to_string();
        assert!(fault.contains(expected), "{inst}: {fault}");
    }
}

#[test]
fn fragments_with_the_wrong_register_count_fail_the_load() {
    let cases = [
        (
            "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%r0,%r1,%r2,%r3}, {%r4,%r5}, {%r8,%r9}, {%r10,%r11,%r12,%r13};",
            "operand 2 of `mma` must be a vector of 4 registers",
        ),
        (
            "stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r0], {%r1, %r2};",
            "`stmatrix` .x4 takes 4 registers, not 2",
        ),
        (
            "wmma.load.a.sync.aligned.row.m32n8k16.s8 {%r1, %r2}, [%rd0];",
            "this `wmma` fragment needs 4 registers, not 2",
        ),
    ];
    for (inst, expected) in cases {
        let err = load_error(&one_instruction(inst));
        assert!(err.contains(expected), "{inst}: {err}");
    }
}
