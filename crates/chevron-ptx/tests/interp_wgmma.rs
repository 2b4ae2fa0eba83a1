//! `wgmma.mma_async` on the interpreter against a scalar reference. Each case stores A and B in
//! shared memory the way a TMA box or CUTLASS's canonical tiles hold them (written out here
//! from the PTX ISA's layout tables, independently of the interpreter's descriptor code), builds
//! one descriptor per k-step, runs a 128-thread warpgroup and compares every element of D.
//! Inputs are small multiples of 1/4, so every product and sum is exact and D must equal the
//! reference bit for bit.
#![allow(clippy::needless_range_loop)]

mod interp_common;

use chevron_ptx::interp::numeric::half;
use chevron_ptx::ir::Rounding;
use interp_common::*;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Ty {
    F16,
    Bf16,
    Tf32,
    E4m3,
    S8,
    U8,
}

impl Ty {
    fn bytes(self) -> usize {
        match self {
            Ty::F16 | Ty::Bf16 => 2,
            Ty::Tf32 => 4,
            Ty::E4m3 | Ty::S8 | Ty::U8 => 1,
        }
    }
    fn name(self) -> &'static str {
        match self {
            Ty::F16 => "f16",
            Ty::Bf16 => "bf16",
            Ty::Tf32 => "tf32",
            Ty::E4m3 => "e4m3",
            Ty::S8 => "s8",
            Ty::U8 => "u8",
        }
    }
    /// K of one instruction.
    fn k(self) -> usize {
        32 / self.bytes()
    }
    /// The bits of `v` (a small multiple of 1/4, or an integer), and the value they hold.
    fn encode(self, v: f64, noise: u32) -> (u32, f64) {
        match self {
            Ty::F16 => (u32::from(half::f64_to_f16(v, Rounding::Rn, false)), v),
            Ty::Bf16 => (u32::from(half::f64_to_bf16(v, Rounding::Rn, false)), v),
            // The tensor cores ignore a tf32's low 13 bits: fill them with noise.
            Ty::Tf32 => ((v as f32).to_bits() | (noise & 0x1fff), v),
            Ty::E4m3 => {
                let code = (0..=255u32).find(|&c| e4m3(c) == v).expect("e4m3 value");
                (code, v)
            }
            Ty::S8 => (v as i8 as u8 as u32, v),
            Ty::U8 => (v as u8 as u32, v),
        }
    }
}

/// An e4m3 code's value (finite codes only), written from the OCP FP8 definition.
fn e4m3(code: u32) -> f64 {
    let sign = if code & 0x80 != 0 { -1.0 } else { 1.0 };
    let (e, m) = ((code >> 3) & 0xf, code & 7);
    if e == 15 && m == 7 {
        return f64::NAN;
    }
    let mag = if e == 0 {
        f64::from(m) / 8.0 * 2f64.powi(-6)
    } else {
        (1.0 + f64::from(m) / 8.0) * 2f64.powi(e as i32 - 7)
    };
    sign * mag
}

/// How an operand sits in shared memory.
#[derive(Clone, Copy, Debug)]
enum Layout {
    /// K contiguous, no swizzle: 8x16-byte core matrices; `rows_first` puts the core matrices
    /// of one 8-row group next to each other (LBO 128), else those of one K chunk (SBO 128).
    KCore { rows_first: bool },
    /// K contiguous in lines of this many bytes (32, 64, 128), swizzled as TMA does.
    KSwizzled(usize),
    /// M/N contiguous, no swizzle: core matrices of 8 K rows of 16 bytes.
    MnCore,
    /// M/N contiguous in swizzled lines of this many bytes.
    MnSwizzled(usize),
}

struct Operand {
    layout: Layout,
    /// M (64) of A, N of B.
    rows: usize,
    /// K of the whole product (a multiple of the instruction's).
    depth: usize,
    bytes: usize,
}

fn swizzle(offset: usize, line: usize) -> usize {
    offset ^ (((offset >> 7) & (line / 16 - 1)) << 4)
}

impl Operand {
    fn size(&self) -> usize {
        let (mn, k) = (self.rows * self.bytes, self.depth * self.bytes);
        match self.layout {
            Layout::KSwizzled(line) => k.div_ceil(line) * self.rows * line,
            Layout::MnSwizzled(line) => mn.div_ceil(line) * self.depth * line,
            _ => mn * self.depth,
        }
    }

    /// Byte offset of element (`mn`, `k`) from the operand's (1024-aligned) start.
    fn offset(&self, mn: usize, k: usize) -> usize {
        let e = self.bytes;
        let chunks = self.depth * e / 16;
        match self.layout {
            Layout::KCore { rows_first } => {
                let (group, row, chunk, byte) = (mn / 8, mn % 8, k * e / 16, k * e % 16);
                let core = if rows_first {
                    group * chunks + chunk
                } else {
                    chunk * (self.rows / 8) + group
                };
                core * 128 + row * 16 + byte
            }
            Layout::KSwizzled(line) => {
                let (block, byte) = (k * e / line, k * e % line);
                swizzle(block * self.rows * line + mn * line + byte, line)
            }
            Layout::MnCore => {
                let (chunk, byte) = (mn * e / 16, mn * e % 16);
                (k / 8) * (self.rows * e / 16) * 128 + chunk * 128 + (k % 8) * 16 + byte
            }
            Layout::MnSwizzled(line) => {
                let (group, byte) = (mn * e / line, mn * e % line);
                swizzle(group * self.depth * line + k * line + byte, line)
            }
        }
    }

    /// The descriptor (start relative to the operand) of k-step `s` of `k` elements.
    fn descriptor(&self, s: usize, k: usize) -> u64 {
        let e = self.bytes;
        let enc = |v: usize| (v as u64 >> 4) & 0x3fff;
        let (start, lbo, sbo, mode) = match self.layout {
            Layout::KCore { rows_first } => {
                let chunks = self.depth * e / 16;
                let (lbo, sbo) = if rows_first {
                    (128, chunks * 128)
                } else {
                    (self.rows / 8 * 128, 128)
                };
                (s * k * e / 16 * lbo, lbo, sbo, 0)
            }
            Layout::KSwizzled(line) => {
                let at = s * k * e;
                (
                    (at / line) * self.rows * line + at % line,
                    16,
                    8 * line,
                    mode(line),
                )
            }
            Layout::MnCore => {
                let lbo = self.rows * e / 16 * 128;
                (s * k / 8 * lbo, lbo, 128, 0)
            }
            Layout::MnSwizzled(line) => (s * k * line, self.depth * line, 8 * line, mode(line)),
        };
        enc(start) | enc(lbo) << 16 | enc(sbo) << 32 | mode << 62
    }
}

fn mode(line: usize) -> u64 {
    match line {
        128 => 1,
        64 => 2,
        _ => 3,
    }
}

struct Case {
    a_ty: Ty,
    b_ty: Ty,
    /// f32, f16 or s32.
    acc: &'static str,
    n: usize,
    depth: usize,
    /// A's layout, or None for A from registers.
    a: Option<Layout>,
    b: Layout,
    scale_d: bool,
    negate: [bool; 2],
    satfinite: bool,
}

impl Case {
    fn new(ty: Ty, acc: &'static str, n: usize, a: Option<Layout>, b: Layout) -> Case {
        Case {
            a_ty: ty,
            b_ty: ty,
            acc,
            n,
            depth: ty.k(),
            a,
            b,
            scale_d: true,
            negate: [false; 2],
            satfinite: false,
        }
    }
}

struct Random(u32);

impl Random {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        self.0 >> 8
    }
    fn value(&mut self, ty: Ty) -> f64 {
        match ty {
            Ty::S8 => f64::from(self.next() % 255) - 127.0,
            Ty::U8 => f64::from(self.next() % 256),
            _ => (f64::from(self.next() % 17) - 8.0) / 4.0,
        }
    }
}

fn transposed(layout: &Layout) -> bool {
    matches!(layout, Layout::MnCore | Layout::MnSwizzled(_))
}

fn kernel(c: &Case, smem: usize, steps: usize, d_regs: usize) -> String {
    let k = c.a_ty.k();
    let int = c.acc == "s32";
    let d_list: Vec<String> = (0..d_regs).map(|i| format!("%x{}", 4 + i)).collect();
    let d_list = format!("{{{}}}", d_list.join(", "));
    let loads: String = (0..4 + d_regs)
        .map(|i| format!("ld.global.b32 %x{i}, [%rd7+{}];\n", 4 * i))
        .collect();
    let stores: String = (0..d_regs)
        .map(|i| format!("st.global.b32 [%rd11+{}], %x{};\n", 4 * i, 4 + i))
        .collect();
    let sat = if c.satfinite { ".satfinite" } else { "" };
    let scale = |neg: bool| if neg { "-1" } else { "1" };
    let mut mmas = String::new();
    for s in 0..steps {
        let a = if c.a.is_some() {
            "%rd9"
        } else {
            "{%x0, %x1, %x2, %x3}"
        };
        let mut imms = String::new();
        if !int {
            imms = format!(", {}, {}", scale(c.negate[0]), scale(c.negate[1]));
            if matches!(c.a_ty, Ty::F16 | Ty::Bf16) {
                if let Some(layout) = &c.a {
                    imms += if transposed(layout) { ", 1" } else { ", 0" };
                }
                imms += if transposed(&c.b) { ", 1" } else { ", 0" };
            }
        }
        let flag = u32::from(s > 0 || c.scale_d);
        mmas += &format!(
            "ld.global.u64 %rd9, [%rd2+{a_off}]; add.s64 %rd9, %rd9, %rd8;\n\
             ld.global.u64 %rd10, [%rd2+{b_off}]; add.s64 %rd10, %rd10, %rd8;\n\
             mov.u32 %r7, {flag}; setp.ne.u32 %p2, %r7, 0;\n\
             wgmma.mma_async.sync.aligned.m64n{n}k{k}{sat}.{acc}.{at}.{bt} {d_list}, {a}, %rd10, %p2{imms};\n",
            a_off = 16 * s,
            b_off = 16 * s + 8,
            n = c.n,
            acc = c.acc,
            at = c.a_ty.name(),
            bt = c.b_ty.name(),
        );
    }
    let words = 4 + d_regs;
    format!(
        ".version 8.0\n.target sm_90a\n.address_size 64\n\
         .visible .entry k(.param .u64 img, .param .u32 bytes, .param .u64 descs, .param .u64 frag, .param .u64 out)\n{{\n\
         .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<16>; .reg .b32 %x<200>;\n\
         .shared .align 1024 .b8 smem[{smem}];\n\
         ld.param.u64 %rd1, [img]; ld.param.u32 %r1, [bytes]; ld.param.u64 %rd2, [descs];\n\
         ld.param.u64 %rd3, [frag]; ld.param.u64 %rd4, [out];\n\
         mov.u32 %r2, %tid.x; mov.u32 %r3, %r2;\n\
         COPY:\n setp.ge.u32 %p1, %r3, %r1; @%p1 bra DONE;\n\
         cvt.u64.u32 %rd5, %r3; add.s64 %rd6, %rd1, %rd5; ld.global.u8 %r4, [%rd6];\n\
         mov.u32 %r5, smem; add.u32 %r5, %r5, %r3; st.shared.u8 [%r5], %r4;\n\
         add.u32 %r3, %r3, 128; bra COPY;\n\
         DONE:\n bar.sync 0;\n\
         mul.wide.u32 %rd7, %r2, {fw}; add.s64 %rd7, %rd3, %rd7;\n{loads}\
         mov.u32 %r6, smem; shr.u32 %r6, %r6, 4; cvt.u64.u32 %rd8, %r6;\n\
         wgmma.fence.sync.aligned;\n{mmas}\
         wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n\
         mul.wide.u32 %rd11, %r2, {dw}; add.s64 %rd11, %rd4, %rd11;\n{stores}ret;\n}}\n",
        fw = 4 * words,
        dw = 4 * d_regs,
    )
}

/// (row, column) of A's element `i` of thread `tid`: `mma.sync`'s m16nNk layout (PTX ISA,
/// "Matrix Fragments for mma.m16n8k16" and "…k8" for tf32, "…k32" for 8-bit), warp w taking rows
/// 16w..16w+15.
fn a_frag(tid: usize, i: usize, ty: Ty) -> (usize, usize) {
    let (w, g, t) = (tid / 32, tid % 32 / 4, tid % 4);
    let (row, col) = match ty.bytes() {
        4 => (g + 8 * (i % 2), t + 4 * (i / 2)),
        2 => (g + 8 * ((i / 2) % 2), 2 * t + i % 2 + 8 * (i / 4)),
        _ => (g + 8 * ((i / 4) % 2), 4 * t + i % 4 + 16 * (i / 8)),
    };
    (16 * w + row, col)
}

/// (row, column) of D's element `i` of thread `tid` (PTX ISA, "wgmma .m64nNk16 register
/// fragment layout for accumulator matrix D").
fn d_frag(tid: usize, i: usize) -> (usize, usize) {
    let (w, g, t) = (tid / 32, tid % 32 / 4, tid % 4);
    (16 * w + g + 8 * ((i / 2) % 2), 8 * (i / 4) + 2 * t + i % 2)
}

/// Runs `c`; returns D as the kernel left it and the reference, as bits per (row, column).
fn run(c: &Case, seed: u32) -> (Vec<u32>, Vec<u32>) {
    let mut rng = Random(seed);
    let (m, n, depth, k) = (64, c.n, c.depth, c.a_ty.k());
    let steps = depth / k;
    let a_val: Vec<Vec<(u32, f64)>> = (0..m)
        .map(|_| {
            (0..depth)
                .map(|_| c.a_ty.encode(rng.value(c.a_ty), rng.next()))
                .collect()
        })
        .collect();
    let b_val: Vec<Vec<(u32, f64)>> = (0..n)
        .map(|_| {
            (0..depth)
                .map(|_| c.b_ty.encode(rng.value(c.b_ty), rng.next()))
                .collect()
        })
        .collect();
    let d_init: Vec<Vec<f64>> = (0..m)
        .map(|_| (0..n).map(|_| rng.value(Ty::F16) * 4.0).collect())
        .collect();
    // Shared memory: A at 0 (if in memory), B at the next 1024-byte boundary.
    let a_op = c.a.map(|layout| Operand {
        layout,
        rows: m,
        depth,
        bytes: c.a_ty.bytes(),
    });
    let b_op = Operand {
        layout: c.b,
        rows: n,
        depth,
        bytes: c.b_ty.bytes(),
    };
    let b_base = a_op.as_ref().map_or(0, |a| a.size().next_multiple_of(1024));
    let smem = b_base + b_op.size();
    let mut image = vec![0u8; smem];
    let mut put = |at: usize, bits: u32, bytes: usize| {
        image[at..at + bytes].copy_from_slice(&bits.to_le_bytes()[..bytes]);
    };
    if let Some(a) = &a_op {
        for r in 0..m {
            for kk in 0..depth {
                put(a.offset(r, kk), a_val[r][kk].0, a.bytes);
            }
        }
    }
    for col in 0..n {
        for kk in 0..depth {
            put(b_base + b_op.offset(col, kk), b_val[col][kk].0, b_op.bytes);
        }
    }
    let mut descs = Vec::new();
    for s in 0..steps {
        descs.push(a_op.as_ref().map_or(0, |a| a.descriptor(s, k)));
        descs.push(b_op.descriptor(s, k) + (b_base as u64 >> 4));
    }
    // Per thread: A's 4 registers (from registers; the first k-step only), then D's.
    let half_acc = c.acc == "f16";
    let d_regs = if half_acc { n / 4 } else { n / 2 };
    let per = 4 / c.a_ty.bytes();
    let mut frag = vec![0u32; 128 * (4 + d_regs)];
    for tid in 0..128 {
        let words = &mut frag[tid * (4 + d_regs)..(tid + 1) * (4 + d_regs)];
        if c.a.is_none() {
            for i in 0..4 * per {
                let (row, col) = a_frag(tid, i, c.a_ty);
                let shift = 32 / per * (i % per);
                words[i / per] |= (a_val[row][col].0 & (u32::MAX >> (32 - 32 / per))) << shift;
            }
        }
        for i in 0..n / 2 {
            let (row, col) = d_frag(tid, i);
            let v = d_init[row][col];
            let bits = match c.acc {
                "f16" => u32::from(half::f64_to_f16(v, Rounding::Rn, false)) << (16 * (i % 2)),
                "s32" => v as i32 as u32,
                _ => (v as f32).to_bits(),
            };
            words[4 + if half_acc { i / 2 } else { i }] |= bits;
        }
    }
    let (memory, program) = load(&kernel(c, smem, steps, d_regs));
    let img = upload_u32(&memory, &vec![0; smem.div_ceil(4)]);
    memory.write(img, &image).unwrap();
    let descs = {
        let bytes: Vec<u8> = descs.iter().flat_map(|d| d.to_le_bytes()).collect();
        let at = memory.alloc(bytes.len() as u64, 256).unwrap();
        memory.write(at, &bytes).unwrap();
        at
    };
    let frag = upload_u32(&memory, &frag);
    let out = upload_u32(&memory, &vec![0; 128 * d_regs]);
    let kernel = program.kernel("k").unwrap();
    let params = Params::new()
        .u64(img)
        .u32(smem as u32)
        .u64(descs)
        .u64(frag)
        .u64(out)
        .build(&kernel);
    program
        .launch(&kernel, &config([1, 1, 1], [128, 1, 1], 1), &params)
        .unwrap_or_else(|f| panic!("{f}"));
    let words = download_u32(&memory, out, 128 * d_regs);
    let mut got = vec![0u32; m * n];
    let mut want = vec![0u32; m * n];
    let sign = |neg: bool| if neg { -1.0 } else { 1.0 };
    for tid in 0..128 {
        for i in 0..n / 2 {
            let (row, col) = d_frag(tid, i);
            got[row * n + col] = if half_acc {
                (words[tid * d_regs + i / 2] >> (16 * (i % 2))) & 0xffff
            } else {
                words[tid * d_regs + i]
            };
        }
    }
    for row in 0..m {
        for col in 0..n {
            let mut sum = if c.scale_d { d_init[row][col] } else { 0.0 };
            for kk in 0..depth {
                sum += sign(c.negate[0]) * a_val[row][kk].1 * sign(c.negate[1]) * b_val[col][kk].1;
            }
            want[row * n + col] = match c.acc {
                "f16" => u32::from(half::f64_to_f16(sum, Rounding::Rn, false)),
                "s32" if c.satfinite => {
                    sum.clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32 as u32
                }
                "s32" => (sum as i64) as i32 as u32,
                _ => (sum as f32).to_bits(),
            };
        }
    }
    (got, want)
}

fn check(c: &Case, what: &str) {
    let (got, want) = run(c, 7);
    let wrong = (0..got.len()).filter(|&i| got[i] != want[i]).count();
    let first = (0..got.len()).find(|&i| got[i] != want[i]);
    assert_eq!(
        wrong,
        0,
        "{what}: {wrong} of {} elements differ, first at (row {}, col {}): {:#x} vs {:#x}",
        got.len(),
        first.unwrap_or(0) / c.n,
        first.unwrap_or(0) % c.n,
        first.map_or(0, |i| got[i]),
        first.map_or(0, |i| want[i])
    );
}

#[test]
fn f16_with_a_in_registers_and_b_in_core_matrices() {
    let c = Case::new(Ty::F16, "f32", 16, None, Layout::KCore { rows_first: true });
    check(&c, "f16 A regs, B K-major no swizzle (LBO 128)");
    let c = Case::new(
        Ty::F16,
        "f32",
        24,
        None,
        Layout::KCore { rows_first: false },
    );
    check(&c, "f16 A regs, B K-major no swizzle (SBO 128)");
}

#[test]
fn f16_through_each_swizzle_of_k_major_tiles_over_several_k_steps() {
    for (line, n) in [(128, 64), (64, 32), (32, 8)] {
        let mut c = Case::new(
            Ty::F16,
            "f32",
            n,
            Some(Layout::KSwizzled(line)),
            Layout::KSwizzled(line),
        );
        c.depth = 64;
        check(&c, &format!("f16 K-major {line}B swizzle, 4 k-steps"));
    }
    let mut c = Case::new(
        Ty::F16,
        "f32",
        16,
        Some(Layout::KCore { rows_first: false }),
        Layout::KCore { rows_first: true },
    );
    c.depth = 32;
    check(&c, "f16 K-major core matrices, 2 k-steps");
}

#[test]
fn bf16_and_f16_accumulators() {
    let c = Case::new(
        Ty::Bf16,
        "f32",
        40,
        Some(Layout::KSwizzled(64)),
        Layout::KSwizzled(128),
    );
    check(&c, "bf16 → f32");
    let c = Case::new(
        Ty::F16,
        "f16",
        32,
        Some(Layout::KSwizzled(32)),
        Layout::KCore { rows_first: true },
    );
    check(&c, "f16 → f16");
    let c = Case::new(Ty::F16, "f16", 256, None, Layout::KSwizzled(128));
    check(&c, "f16 → f16, N = 256");
}

#[test]
fn transposed_f16_and_bf16_operands() {
    for (a, b) in [
        (Layout::MnCore, Layout::MnCore),
        (Layout::MnSwizzled(128), Layout::MnSwizzled(128)),
        (Layout::MnSwizzled(64), Layout::KSwizzled(32)),
        (Layout::KCore { rows_first: true }, Layout::MnSwizzled(32)),
    ] {
        for ty in [Ty::F16, Ty::Bf16] {
            let mut c = Case::new(ty, "f32", 64, Some(a), b);
            c.depth = 32;
            check(&c, &format!("{ty:?} A {a:?}, B {b:?}"));
        }
    }
    let c = Case::new(Ty::F16, "f32", 128, None, Layout::MnSwizzled(64));
    check(&c, "A regs, B N-major 64B swizzle");
}

#[test]
fn tf32_ignores_the_low_mantissa_bits() {
    let c = Case::new(Ty::Tf32, "f32", 32, None, Layout::KSwizzled(128));
    check(&c, "tf32 A regs");
    let mut c = Case::new(
        Ty::Tf32,
        "f32",
        16,
        Some(Layout::KCore { rows_first: true }),
        Layout::KSwizzled(32),
    );
    c.depth = 16;
    check(&c, "tf32 A smem, 2 k-steps");
}

#[test]
fn scale_d_and_negated_operands() {
    let mut c = Case::new(Ty::F16, "f32", 16, None, Layout::KSwizzled(128));
    c.scale_d = false;
    c.negate = [true, false];
    check(&c, "scale-d 0, A negated");
    let mut c = Case::new(
        Ty::Bf16,
        "f32",
        16,
        Some(Layout::KSwizzled(128)),
        Layout::KSwizzled(128),
    );
    c.negate = [true, true];
    check(&c, "A and B negated");
}

#[test]
fn fp8_and_integer_forms() {
    let c = Case::new(Ty::E4m3, "f32", 32, None, Layout::KSwizzled(128));
    check(&c, "e4m3 → f32");
    let mut c = Case::new(
        Ty::S8,
        "s32",
        48,
        Some(Layout::KSwizzled(64)),
        Layout::KCore { rows_first: true },
    );
    c.b_ty = Ty::U8;
    c.depth = 64;
    check(&c, "s8 x u8 → s32");
    let mut c = Case::new(Ty::U8, "s32", 16, None, Layout::KSwizzled(32));
    c.satfinite = true;
    check(&c, "u8 → s32 .satfinite");
}

const ONE_MMA: &str = ".version 8.0\n.target sm_90a\n.address_size 64\n\
    .visible .entry k()\n{\n.reg .pred %p; .reg .b32 %r; .reg .f32 %f<4>; .reg .b64 %rd<2>;\n\
    .shared .align 1024 .b8 smem[1024];\n\
    mov.u64 %rd0, 0; mov.u64 %rd1, 0; mov.u32 %r, 0; setp.ne.u32 %p, %r, 0;\n\
    wgmma.fence.sync.aligned;\n\
    MMA\nret;\n}\n";

#[test]
fn a_warpgroup_the_block_does_not_fill_faults() {
    let ptx = ONE_MMA.replace(
        "MMA",
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd0, %rd1, %p, 1, 1, 0, 0;",
    );
    let (_memory, program) = load(&ptx);
    let kernel = program.kernel("k").unwrap();
    let fault = program
        .launch(&kernel, &config([1, 1, 1], [96, 1, 1], 1), &[])
        .unwrap_err();
    let text = fault.to_string();
    assert!(
        text.contains("all 4 warps of warpgroup 0") && text.contains("96 threads"),
        "{text}"
    );
    // A whole warpgroup runs it.
    program
        .launch(&kernel, &config([1, 1, 1], [128, 1, 1], 1), &[])
        .unwrap_or_else(|f| panic!("{f}"));
}

#[test]
fn forms_ptx_does_not_define_fail_naming_the_line() {
    for (mma, why) in [
        ("m64n8k16.f16.bf16.bf16 {%f0, %f1}", "bf16 with f16 D"),
        (
            "m64n12k16.f32.f16.f16 {%f0, %f1, %f2, %f3}",
            "N not a multiple of 8",
        ),
        ("m64n8k8.f32.f16.f16 {%f0, %f1, %f2, %f3}", "k8 for f16"),
        ("m64n8k16.f32.f16.f16 {%f0, %f1}", "too few D registers"),
    ] {
        let ptx = ONE_MMA.replace(
            "MMA",
            &format!("wgmma.mma_async.sync.aligned.{mma}, %rd0, %rd1, %p, 1, 1, 0, 0;"),
        );
        // Malformed operands fail the load; forms PTX does not define, the launch.
        let module = chevron_ptx::parse(&ptx).unwrap();
        let memory = std::sync::Arc::new(chevron_ptx::interp::DeviceMemory::new(0));
        let text = match chevron_ptx::interp::Program::load(&module, &memory) {
            Err(e) => e.to_string(),
            Ok(program) => {
                let kernel = program.kernel("k").unwrap();
                program
                    .launch(&kernel, &config([1, 1, 1], [128, 1, 1], 1), &[])
                    .unwrap_err()
                    .to_string()
            }
        };
        assert!(
            text.contains("wgmma") && text.contains("line 10"),
            "{why}: {text}"
        );
    }
}

#[test]
fn lanes_that_do_not_all_execute_it_or_disagree_fault() {
    let launch = |setup: &str, mma: &str| {
        let ptx = ONE_MMA
            .replace(".reg .pred %p;", ".reg .pred %p, %q; .reg .b32 %t;")
            .replace("mov.u64 %rd0, 0;", setup)
            .replace("MMA", mma);
        let (_memory, program) = load(&ptx);
        let kernel = program.kernel("k").unwrap();
        program
            .launch(&kernel, &config([1, 1, 1], [128, 1, 1], 1), &[])
            .unwrap_err()
            .to_string()
    };
    let mma = "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd0, %rd1, %p, 1, 1, 0, 0;";
    // Half the lanes of each warp (a guard): `.aligned` is broken.
    let text = launch(
        "mov.u32 %t, %tid.x; and.b32 %t, %t, 1; setp.eq.u32 %q, %t, 0; mov.u64 %rd0, 0;",
        &format!("@%q {mma}"),
    );
    assert!(
        text.contains("all 32 lanes of warp 0") && text.contains("16 did"),
        "{text}"
    );
    // A descriptor that differs between lanes.
    let text = launch("cvt.u64.u32 %rd0, %tid.x;", mma);
    assert!(
        text.contains("A descriptor differs between lanes 0 and 1"),
        "{text}"
    );
}
