//! The vector function (four threads at a time) against the interpreter: every kernel here has
//! a four-wide form, and each launch must leave the interpreter's memory and give its fault
//! reports, through groups that stay together, part at guards, wrap in 32 bits, straddle the
//! end of an allocation, and wait at barriers after running one by one (a spinning group:
//! `compiled_matches_interpreter.rs`, whose deadlock kernel runs four threads at a time).

mod common;

use chevron_cpu_jit::CompiledKernel;
use chevron_ptx::interp::{LaunchConfig, LaunchHooks};
use common::{Setup, HEADER};

const KERNELS: &str = r#"
// out[j * n + i] = the j-th of many integer results of x[i] and u, for i < n.
.visible .entry int_ops(.param .u64 x, .param .u64 out, .param .u32 u, .param .u32 n)
{
    .reg .pred %p<4>; .reg .b32 %r<32>; .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [out]; ld.param.u32 %r1, [u]; ld.param.u32 %r2, [n];
    mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x; mov.u32 %r5, %tid.x;
    mad.lo.s32 %r6, %r3, %r4, %r5;
    setp.ge.u32 %p1, %r6, %r2;
    @%p1 bra DONE;
    mul.wide.u32 %rd3, %r6, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r7, [%rd4];
    add.s32 %r10, %r7, %r1; sub.s32 %r11, %r7, %r1; mul.lo.s32 %r12, %r7, %r1;
    and.b32 %r13, %r7, %r1; or.b32 %r14, %r7, %r5; xor.b32 %r15, %r7, %r6;
    min.s32 %r16, %r7, %r1; max.u32 %r17, %r7, %r1; min.u32 %r18, %r7, 1000; max.s32 %r19, %r7, -5;
    shl.b32 %r20, %r7, 3; shr.s32 %r21, %r7, 5; shr.u32 %r22, %r7, 7; shl.b32 %r23, %r7, 33;
    shr.s32 %r24, %r7, 40; shr.u32 %r25, %r7, 32;
    setp.lt.s32 %p2, %r7, %r1; selp.b32 %r26, %r7, %r1, %p2;
    mad.lo.s32 %r27, %r7, 3, %r1;
    mul.wide.s32 %rd5, %r7, %r1; shr.s64 %rd6, %rd5, 17; shl.b64 %rd7, %rd5, 2;
    add.s64 %rd8, %rd6, %rd7; cvt.s64.s32 %rd9, %r7; sub.s64 %rd10, %rd8, %rd9;
    setp.gt.s64 %p3, %rd10, %rd9; selp.u32 %r28, 1, 2, %p3;
    // The low word of the 64-bit result: a 64-bit register read by a 32-bit operation.
    add.s32 %r29, %r28, 0; xor.b32 %r30, %r28, 0;
    mul.wide.u32 %rd11, %r2, 4;
    add.s64 %rd12, %rd2, %rd3;
    st.global.u32 [%rd12], %r10; add.s64 %rd12, %rd12, %rd11;
    st.global.u32 [%rd12], %r11; add.s64 %rd12, %rd12, %rd11;
    st.global.u32 [%rd12], %r12; add.s64 %rd12, %rd12, %rd11;
    st.global.u32 [%rd12], %r13; add.s64 %rd12, %rd12, %rd11;
    st.global.u32 [%rd12], %r14; add.s64 %rd12, %rd12, %rd11;
    st.global.u32 [%rd12], %r15; add.s64 %rd12, %rd12, %rd11;
    st.global.u32 [%rd12], %r16; add.s64 %rd12, %rd12, %rd11;
    st.global.u32 [%rd12], %r17; add.s64 %rd12, %rd12, %rd11;
    st.global.u32 [%rd12], %r18; add.s64 %rd12, %rd12, %rd11;
    st.global.u32 [%rd12], %r19; add.s64 %rd12, %rd12, %rd11;
    st.global.u32 [%rd12], %r20; add.s64 %rd12, %rd12, %rd11;
    st.global.u32 [%rd12], %r21; add.s64 %rd12, %rd12, %rd11;
    st.global.u32 [%rd12], %r22; add.s64 %rd12, %rd12, %rd11;
    st.global.u32 [%rd12], %r23; add.s64 %rd12, %rd12, %rd11;
    st.global.u32 [%rd12], %r24; add.s64 %rd12, %rd12, %rd11;
    st.global.u32 [%rd12], %r25; add.s64 %rd12, %rd12, %rd11;
    st.global.u32 [%rd12], %r26; add.s64 %rd12, %rd12, %rd11;
    st.global.u32 [%rd12], %r27; add.s64 %rd12, %rd12, %rd11;
    st.global.u32 [%rd12], %r29; add.s64 %rd12, %rd12, %rd11;
    st.global.u32 [%rd12], %r30;
DONE:
    ret;
}

// Threads part on their data: odd values take one path, even ones the other.
.visible .entry parting(.param .u64 x, .param .u64 out)
{
    .reg .pred %p<2>; .reg .b32 %r<8>; .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x;
    mad.lo.s32 %r4, %r1, %r2, %r3;
    mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;
    ld.global.u32 %r5, [%rd4];
    and.b32 %r6, %r5, 1;
    setp.eq.u32 %p1, %r6, 0;
    @%p1 bra EVEN;
    mul.lo.s32 %r7, %r5, 3;
    bra STORE;
EVEN:
    add.s32 %r7, %r5, 7;
STORE:
    st.global.u32 [%rd5], %r7;
    ret;
}

// f32 arithmetic, an accumulator that turns NaN in some threads (inf - inf), observed as a
// float store and as an integer move.
.visible .entry floats(.param .u64 x, .param .u64 out, .param .f32 a)
{
    .reg .pred %p<2>; .reg .b32 %r<6>; .reg .f32 %f<8>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [out]; ld.param.f32 %f1, [a];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.f32 %f2, [%rd4];
    mov.f32 %f3, 0f00000000;
    mov.u32 %r2, 0;
LOOP:
    fma.rn.f32 %f3, %f2, %f1, %f3;
    sub.rn.f32 %f3, %f3, %f2;
    mul.rn.f32 %f4, %f3, %f3;
    add.rn.f32 %f3, %f3, %f4;
    add.s32 %r2, %r2, 1;
    setp.lt.u32 %p1, %r2, 5;
    @%p1 bra LOOP;
    mul.wide.u32 %rd5, %r1, 8; add.s64 %rd6, %rd2, %rd5;
    add.s64 %rd7, %rd2, %rd3;
    st.global.f32 [%rd7], %f3;
    mov.b32 %r3, %f3;
    ld.param.u64 %rd5, [out];
    add.s64 %rd7, %rd7, 4096;
    st.global.u32 [%rd7], %r3;
    ret;
}

// 32-bit indices that wrap across a group: `base + tid` widened (signed) must not be taken
// as four consecutive 64-bit values.
.visible .entry wrapping(.param .u64 x, .param .u64 out, .param .u32 base)
{
    .reg .pred %p<2>; .reg .b32 %r<6>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [base];
    mov.u32 %r2, %tid.x;
    add.s32 %r3, %r1, %r2;
    mul.wide.s32 %rd2, %r3, 1;
    setp.lt.s64 %p1, %rd2, 0;
    selp.u32 %r4, 1, 0, %p1;
    mul.wide.u32 %rd3, %r2, 4; add.s64 %rd4, %rd1, %rd3;
    st.global.u32 [%rd4], %r4;
    // A widening multiply's 32-bit constant is unsigned here (4294967289, not -7).
    mul.wide.u32 %rd5, %r2, -7;
    setp.lt.u64 %p1, %rd5, 17592186044416;
    selp.u32 %r4, 1, 0, %p1;
    st.global.u32 [%rd4+128], %r4;
    // base + tid widened unsigned (above 2^32 - 1 only if widened as if it did not wrap),
    // base - tid widened unsigned and signed.
    mul.wide.u32 %rd6, %r3, 1;
    setp.gt.u64 %p1, %rd6, 4294967295;
    selp.u32 %r4, 1, 0, %p1;
    st.global.u32 [%rd4+256], %r4;
    sub.s32 %r5, %r1, %r2;
    mul.wide.u32 %rd6, %r5, 1;
    setp.gt.u64 %p1, %rd6, 4294967295;
    selp.u32 %r4, 1, 0, %p1;
    st.global.u32 [%rd4+384], %r4;
    mul.wide.s32 %rd7, %r5, 1;
    setp.lt.s64 %p1, %rd7, 0;
    selp.u32 %r4, 1, 0, %p1;
    st.global.u32 [%rd4+512], %r4;
    ret;
}

// A tile through shared memory: each thread stores its element, the block waits, then each
// thread reads its neighbour's and the first element (one address for all). Threads with
// tid % 8 < 3 first run a loop of their own length, so their groups reach the barrier one
// thread at a time.
.visible .entry tile(.param .u64 x, .param .u64 out)
{
    .shared .align 4 .b32 tile[257];
    .reg .pred %p<3>; .reg .b32 %r<17>; .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y; mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mov.u32 %r5, %ctaid.x; mov.u32 %r6, %ntid.y; mul.lo.s32 %r6, %r6, %r3;
    mad.lo.s32 %r7, %r5, %r6, %r4;
    mul.wide.u32 %rd3, %r7, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r8, [%rd4];
    and.b32 %r9, %r1, 7;
    mov.u32 %r16, 0;
    setp.ge.u32 %p1, %r9, 3;
    @%p1 bra STORE;
    mov.u32 %r10, 0;
    // The same in all four threads wherever a group runs together, not where it parted.
    mov.u32 %r16, 100;
EXTRA:
    add.s32 %r8, %r8, %r10;
    add.s32 %r10, %r10, 1;
    setp.lt.u32 %p2, %r10, %r9;
    @%p2 bra EXTRA;
STORE:
    mov.u32 %r11, tile;
    shl.b32 %r12, %r4, 2; add.s32 %r13, %r11, %r12;
    st.shared.u32 [%r13], %r8;
    bar.sync 0;
    ld.shared.u32 %r14, [%r13+4];
    ld.shared.u32 %r15, [tile];
    add.s32 %r14, %r14, %r15;
    add.s32 %r14, %r14, %r16;
    add.s64 %rd5, %rd2, %rd3;
    st.global.u32 [%rd5], %r14;
    ret;
}

// Stores to out[i] for every thread: the array may end inside a group.
.visible .entry store_all(.param .u64 out)
{
    .reg .b32 %r<2>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r1;
    ret;
}

// Loads out[i] and stores it to out[i + 1]: the store's address is not the load's (its base
// register was written between), so it is checked again; the array may end inside a group.
.visible .entry load_then_store_next(.param .u64 out)
{
    .reg .b32 %r<3>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r2, [%rd3];
    add.s64 %rd3, %rd3, 4;
    st.global.u32 [%rd3], %r2;
    ret;
}

// Sums tile[tid + 4j] over the passes of a loop that ends by itself, its counter starting at
// 8 * ctaid.x: 16 passes in block 0, 8 in block 1, one in block 2 (it starts past the bound).
// The loop's shared loads are checked once at its entry; a block of more than four threads
// reads past the tile's end.
.visible .entry rows_down(.param .u64 x, .param .u64 out)
{
    .shared .align 4 .b32 tile[64];
    .reg .pred %p<2>; .reg .b32 %r<10>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x;
    shl.b32 %r3, %r1, 2; mov.u32 %r4, tile; add.s32 %r4, %r4, %r3;
    mad.lo.s32 %r5, %r1, 3, 1; st.shared.u32 [%r4], %r5;
    bar.sync 0;
    shl.b32 %r6, %r2, 3;
    mov.u32 %r7, 0;
LOOP:
    ld.shared.u32 %r8, [%r4];
    mad.lo.s32 %r7, %r7, 5, %r8;
    add.s32 %r4, %r4, 16;
    add.s32 %r6, %r6, 1;
    setp.lt.u32 %p1, %r6, 16;
    @%p1 bra LOOP;
    mov.u32 %r9, %ntid.x; mad.lo.s32 %r9, %r2, %r9, %r1;
    mul.wide.u32 %rd2, %r9, 4; add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r7;
    ret;
}

// Sums tile[12 tid + 4 ctaid + j] for j < 4 in a loop that ends by itself: the four threads'
// words 12 apart (a strided access, checked once at the loop's entry over the last thread's
// words too). Block 0 reads up to the tile's last word; block 1's thread 3 reads past it while
// its thread 0 stays inside.
.visible .entry rows_strided(.param .u64 x, .param .u64 out)
{
    .shared .align 4 .b32 tile[40];
    .reg .pred %p<2>; .reg .b32 %r<12>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x;
    mov.u32 %r6, tile; mad.lo.s32 %r3, %r1, 40, %r6; mad.lo.s32 %r5, %r1, 3, 1;
    st.shared.u32 [%r3], %r5; st.shared.u32 [%r3+4], %r5; st.shared.u32 [%r3+8], %r5;
    st.shared.u32 [%r3+12], %r5; st.shared.u32 [%r3+16], %r5; st.shared.u32 [%r3+20], %r5;
    st.shared.u32 [%r3+24], %r5; st.shared.u32 [%r3+28], %r5; st.shared.u32 [%r3+32], %r5;
    st.shared.u32 [%r3+36], %r5;
    bar.sync 0;
    mad.lo.s32 %r4, %r1, 48, %r6; shl.b32 %r7, %r2, 4; add.s32 %r4, %r4, %r7;
    mov.u32 %r8, 0;
    mov.u32 %r9, 0;
LOOP:
    ld.shared.u32 %r10, [%r4];
    mad.lo.s32 %r9, %r9, 5, %r10;
    add.s32 %r4, %r4, 4;
    add.s32 %r8, %r8, 1;
    setp.lt.u32 %p1, %r8, 4;
    @%p1 bra LOOP;
    mov.u32 %r11, %ntid.x; mad.lo.s32 %r11, %r2, %r11, %r1;
    mul.wide.u32 %rd2, %r11, 4; add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r9;
    ret;
}

// The same with 8-byte elements.
.visible .entry store_all64(.param .u64 out)
{
    .reg .b32 %r<2>; .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 8; add.s64 %rd3, %rd1, %rd2;
    cvt.u64.u32 %rd4, %r1;
    st.global.u64 [%rd3], %rd4;
    ret;
}
"#;

fn setup() -> Setup {
    Setup::of(&format!("{HEADER}{KERNELS}"))
}

fn config(grid: u32, block: [u32; 3]) -> LaunchConfig {
    LaunchConfig {
        grid: [grid, 1, 1],
        block,
        dynamic_shared: 0,
        threads: 2,
    }
}

fn words(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Runs `kernel` interpreted and compiled (which must run four threads at a time) on fresh
/// copies of `inputs`, with `out_words` words of output, and returns both outputs; compiled
/// with groups of 8, 16 and 32 threads too, each of whose outputs must be the interpreter's.
/// `scalars`: parameters after the two pointers.
fn both(
    s: &Setup,
    kernel: &str,
    cfg: &LaunchConfig,
    input: &[u32],
    out_words: usize,
    scalars: &[u8],
) -> [Vec<u32>; 2] {
    let handle = s.program.kernel(kernel).unwrap();
    let mut outputs: Vec<Vec<u32>> = Vec::new();
    for group_threads in common::GROUPS {
        let compiled = common::compile_grouped(&s.program, kernel, group_threads);
        assert_eq!(
            compiled.vector(),
            Ok(()),
            "{kernel} runs four threads at a time"
        );
        let run = |use_compiled: bool| {
            one_run(
                s,
                (&handle, &compiled),
                cfg,
                input,
                out_words,
                scalars,
                use_compiled,
            )
        };
        if outputs.is_empty() {
            outputs.push(run(false));
        }
        let got = run(true);
        assert_eq!(outputs[0], got, "{kernel} in groups of {group_threads}");
        outputs.push(got);
    }
    [outputs.swap_remove(0), outputs.swap_remove(0)]
}

/// One launch of `kernel` (interpreted, or `compiled`) for [`both`].
fn one_run(
    s: &Setup,
    (handle, compiled): (&chevron_ptx::interp::KernelHandle, &CompiledKernel),
    cfg: &LaunchConfig,
    input: &[u32],
    out_words: usize,
    scalars: &[u8],
    use_compiled: bool,
) -> Vec<u32> {
    let run = |use_compiled: bool| {
        let x = s.memory.alloc(4 * input.len().max(1) as u64, 256).unwrap();
        s.memory.write(x, &words(input)).unwrap();
        let out = s.memory.alloc(4 * out_words as u64, 256).unwrap();
        s.memory.write(out, &vec![0xee; 4 * out_words]).unwrap();
        let mut p: Vec<u8> = [x, out].iter().flat_map(|v| v.to_le_bytes()).collect();
        p.extend(scalars);
        if use_compiled {
            compiled.launch(cfg, &p, &LaunchHooks::default()).unwrap();
        } else {
            s.program.launch(handle, cfg, &p).unwrap();
        }
        let mut bytes = vec![0u8; 4 * out_words];
        s.memory.read(out, &mut bytes).unwrap();
        bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect::<Vec<u32>>()
    };
    run(use_compiled)
}

/// Pseudo-random words with edge values mixed in.
fn data(n: usize) -> Vec<u32> {
    let edges = [
        0,
        1,
        u32::MAX,
        0x8000_0000,
        0x7fff_ffff,
        3,
        1000,
        0xffff_fffb,
    ];
    (0..n as u32)
        .map(|i| {
            if i % 5 == 0 {
                edges[(i / 5) as usize % edges.len()]
            } else {
                i.wrapping_mul(2_654_435_761) ^ (i >> 3)
            }
        })
        .collect()
}

#[test]
fn integer_operations_and_a_guard_that_parts_the_last_group() {
    let s = setup();
    for n in [1000u32, 1001, 1003] {
        let input = data(1024);
        let mut scalars = 12345u32.to_le_bytes().to_vec();
        scalars.extend(n.to_le_bytes());
        let [want, got] = both(
            &s,
            "int_ops",
            &config(8, [128, 1, 1]),
            &input,
            20 * n as usize,
            &scalars,
        );
        assert_eq!(want, got, "n = {n}");
    }
}

#[test]
fn threads_that_part_on_their_data_match() {
    let s = setup();
    let input = data(4096);
    let [want, got] = both(&s, "parting", &config(16, [256, 1, 1]), &input, 4096, &[]);
    assert_eq!(want, got);
    assert_eq!(
        got[1],
        data(4096)[1].wrapping_mul(3) * (data(4096)[1] & 1)
            + (data(4096)[1].wrapping_add(7)) * (1 - (data(4096)[1] & 1))
    );
}

#[test]
fn float_arithmetic_and_nans_match() {
    let s = setup();
    let input: Vec<u32> = (0..256u32)
        .map(|i| match i % 7 {
            0 => f32::INFINITY.to_bits(),
            1 => f32::NAN.to_bits() | 5,
            2 => (-(i as f32) * 1e30).to_bits(),
            _ => (i as f32 * 0.37 - 20.0).to_bits(),
        })
        .collect();
    let [want, got] = both(
        &s,
        "floats",
        &config(1, [256, 1, 1]),
        &input,
        2048,
        &1.5f32.to_le_bytes(),
    );
    assert_eq!(want, got);
    assert!(
        got.contains(&0x7fff_ffff),
        "a canonical NaN among the results"
    );
}

#[test]
fn indices_that_wrap_in_32_bits_inside_a_group_match() {
    let s = setup();
    // Each a widening's last value that does not wrap, or the first that does, for a group
    // of four rising (base + tid) or falling (base - tid), signed and unsigned.
    let bases = [0x7fff_fffeu32, 0x7fff_fffc, 0xffff_fffe, 5];
    let edges = [0xffff_fffc, 0xffff_fffd, 0x8000_0003, 0x8000_0002, 3, 2];
    for base in bases.into_iter().chain(edges) {
        let [want, got] = both(
            &s,
            "wrapping",
            &config(1, [32, 1, 1]),
            &[],
            160,
            &base.to_le_bytes(),
        );
        assert_eq!(want, got, "base = {base:#x}");
        assert_eq!(&got[32..64], &[1; 32], "unsigned widening of a constant");
        assert_eq!(&got[64..96], &[0; 32], "unsigned widening, rising");
        assert_eq!(&got[96..128], &[0; 32], "unsigned widening, falling");
    }
}

#[test]
fn a_barrier_after_threads_ran_one_by_one_and_shared_broadcasts_match() {
    let s = setup();
    let input = data(4 * 256);
    for block in [[64u32, 4, 1], [16, 8, 1], [8, 2, 1]] {
        let threads = (block[0] * block[1]) as usize;
        let cfg = config(4, block);
        let [want, got] = both(&s, "tile", &cfg, &input, 4 * threads, &[]);
        assert_eq!(want, got, "block {block:?}");
    }
}

#[test]
fn blocks_of_rows_not_made_of_groups_of_four_run_one_thread_at_a_time() {
    let s = setup();
    let input = data(4 * 256);
    // 6 × 4 threads: rows of 6 are no groups of four; the scalar function runs them.
    let [want, got] = both(&s, "tile", &config(4, [6, 4, 1]), &input, 4 * 24, &[]);
    assert_eq!(want, got);
}

/// The interpreter's and the compiled code's fault reports for `kernel` on `cfg`, with `out`
/// pointing `offset` bytes into a fresh allocation of `bytes` bytes; compiled with groups of
/// 8, 16 and 32 threads too, each of whose reports must be the interpreter's.
fn both_faults(kernel: &str, cfg: &LaunchConfig, bytes: u64, offset: u64) -> [String; 2] {
    let s = setup();
    every_group(&s, kernel, |compiled| {
        assert_eq!(compiled.vector(), Ok(()));
        faults_of(&s, kernel, compiled, cfg, (bytes, offset))
    })
}

/// `reports` of `kernel` compiled with each group width (the interpreter's report and the
/// compiled code's), which must be the same: those with groups of four.
fn every_group(
    s: &Setup,
    kernel: &str,
    reports: impl Fn(&CompiledKernel) -> [String; 2],
) -> [String; 2] {
    let mut all = Vec::new();
    for group_threads in common::GROUPS {
        let compiled = common::compile_grouped(&s.program, kernel, group_threads);
        let [want, got] = reports(&compiled);
        assert_eq!(want, got, "{kernel} in groups of {group_threads}");
        all.push([want, got]);
    }
    all.swap_remove(0)
}

/// [`both_faults`] for one compile.
fn faults_of(
    s: &Setup,
    kernel: &str,
    compiled: &CompiledKernel,
    cfg: &LaunchConfig,
    (bytes, offset): (u64, u64),
) -> [String; 2] {
    let handle = s.program.kernel(kernel).unwrap();
    let run = |use_compiled: bool| {
        let out = s.memory.alloc(bytes, 256).unwrap() + offset;
        let p = out.to_le_bytes();
        let fault = if use_compiled {
            compiled
                .launch(cfg, &p, &LaunchHooks::default())
                .unwrap_err()
        } else {
            s.program.launch(&handle, cfg, &p).unwrap_err()
        };
        fault
            .to_string()
            .split(' ')
            .map(|w| if w.contains("0x") { "ADDR" } else { w })
            .collect::<Vec<_>>()
            .join(" ")
    };
    [run(false), run(true)]
}

#[test]
fn an_array_that_ends_inside_a_group_faults_at_the_interpreters_thread() {
    // 10 words: thread 10, the third of its group, is the first out of bounds.
    let [want, got] = both_faults("store_all", &config(1, [32, 1, 1]), 40, 0);
    assert_eq!(want, got);
    assert!(want.contains("thread (10, 0, 0)"), "{want}");
    // Misaligned by 2: the first thread faults.
    let [want, got] = both_faults("store_all", &config(1, [32, 1, 1]), 256, 2);
    assert_eq!(want, got);
    assert!(want.to_lowercase().contains("align"), "{want}");
    // 8-byte elements: 10 of them, and misaligned by 4.
    let [want, got] = both_faults("store_all64", &config(1, [32, 1, 1]), 80, 0);
    assert_eq!(want, got);
    assert!(want.contains("thread (10, 0, 0)"), "{want}");
    let [want, got] = both_faults("store_all64", &config(1, [32, 1, 1]), 512, 4);
    assert_eq!(want, got);
    assert!(want.to_lowercase().contains("align"), "{want}");
}

#[test]
fn a_store_past_the_elements_a_group_loaded_is_checked_again() {
    // 12 words: the group of threads 8..11 loads words 8..11 (in bounds) and stores to words
    // 9..12, the last past the end: the same fault as the interpreter's, not a silent store.
    let [want, got] = both_faults("load_then_store_next", &config(1, [12, 1, 1]), 48, 0);
    assert_eq!(want, got);
    assert!(want.contains("thread (11, 0, 0)"), "{want}");
}

#[test]
fn shared_loads_checked_at_a_loops_entry_match_and_fault_alike() {
    let s = setup();
    // Four threads: block 0's 16 passes read up to the tile's last word; block 2's counter
    // starts past its bound (the entry check sends the group to the scalar code).
    let [want, got] = both(&s, "rows_down", &config(3, [4, 1, 1]), &[0], 12, &[]);
    assert_eq!(want, got);
    assert_ne!(want[0], 0xeeee_eeee, "{want:?}");
    // Sixteen threads: the ranges of all groups but the first pass the tile's end (they go on
    // one thread at a time, and fault); the report is the interpreter's, whose warp reaches
    // the end first at thread 12 (pass 13).
    let [want, got] = loop_faults(&s, "rows_down", &config(1, [16, 1, 1]));
    assert_eq!(want, got);
    assert!(want.contains("thread (12, 0, 0)"), "{want}");
}

/// The interpreter's and the compiled code's fault reports for `kernel` (parameters `x` and
/// `out`, both one fresh 64-byte allocation) on `cfg`; compiled with groups of 8, 16 and 32
/// threads too, each of whose reports must be the interpreter's.
fn loop_faults(s: &Setup, kernel: &str, cfg: &LaunchConfig) -> [String; 2] {
    every_group(s, kernel, |compiled| {
        loop_faults_of(s, kernel, compiled, cfg)
    })
}

/// [`loop_faults`] for one compile.
fn loop_faults_of(
    s: &Setup,
    kernel: &str,
    compiled: &CompiledKernel,
    cfg: &LaunchConfig,
) -> [String; 2] {
    let handle = s.program.kernel(kernel).unwrap();
    let run = |use_compiled: bool| {
        let out = s.memory.alloc(64, 256).unwrap();
        let p: Vec<u8> = [out, out].iter().flat_map(|v| v.to_le_bytes()).collect();
        let fault = if use_compiled {
            compiled
                .launch(cfg, &p, &LaunchHooks::default())
                .unwrap_err()
        } else {
            s.program.launch(&handle, cfg, &p).unwrap_err()
        };
        fault.to_string()
    };
    [run(false), run(true)]
}

#[test]
fn strided_shared_loads_checked_at_a_loops_entry_match_and_fault_alike() {
    let s = setup();
    let [want, got] = both(&s, "rows_strided", &config(1, [4, 1, 1]), &[0], 4, &[]);
    assert_eq!(want, got);
    assert!(want.iter().all(|&w| w != 0xeeee_eeee), "{want:?}");
    // Block 1: the group's first thread reads inside the tile, its last past the end; the
    // entry check covers the last thread's words, so the report is the interpreter's.
    let [want, got] = loop_faults(&s, "rows_strided", &config(2, [4, 1, 1]));
    assert_eq!(want, got);
    assert!(want.contains("thread (3, 0, 0)"), "{want}");
}
