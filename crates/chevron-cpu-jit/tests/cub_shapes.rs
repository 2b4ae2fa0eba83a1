//! Two shapes of CUB's block-wide code that kept its merge sorts (`thrust::sort` with a
//! comparator, `thrust::stable_sort` of records) interpreted or one thread at a time, against
//! the interpreter in every group width: a partial tile's valid items passed from one thread
//! to the block through `volatile` shared memory across a barrier
//! (`src/codegen/volatile_shared.rs`), kernel parameters of 8 and 16 bits and signed ones
//! of 32 (CUB's `bool ping`), 16-bit comparisons, `__syncwarp()` and `__syncwarp(mask)` of a
//! mask known at run time between a warp's stores to shared memory and its loads of its
//! neighbours' (no code in groups of a whole warp), shifts by amounts that differ between
//! the threads (CUB's segmented sort; past the width too), and
//! a predicate set by `mov.pred` and by `or.pred` (one register, two writes).
//! Warp-synchronous exchanges through `volatile` shared memory stay interpreted.

mod common;

use common::{config, Setup, GROUPS, HEADER};

/// Thread 0 stores `count - flag` as the tile's valid items (`st.volatile.shared`); after the
/// barrier every thread loads it (`ld.volatile.shared`) and writes its input plus the items,
/// the flag (`.s8`), the half (`.u16`) and the signed word (`.s32`, 64 bits wide), or the
/// items alone past them.
const KERNEL: &str = r"
.visible .entry tile(.param .u64 in, .param .u64 out, .param .s8 flag, .param .u16 half,
    .param .s32 neg, .param .u32 count)
{
    .shared .align 4 .b32 valid;
    .reg .pred %p<3>; .reg .b32 %r<20>; .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];
    ld.param.s8 %r1, [flag]; ld.param.u16 %r2, [half];
    ld.param.s32 %rd3, [neg]; ld.param.u32 %r3, [count];
    mov.u32 %r4, %tid.x; mov.u32 %r5, %ctaid.x; mov.u32 %r6, %ntid.x;
    mad.lo.s32 %r7, %r5, %r6, %r4;
    setp.ne.u32 %p1, %r4, 0;
    @%p1 bra STORED;
    sub.s32 %r8, %r3, %r1;
    st.volatile.shared.u32 [valid], %r8;
STORED:
    bar.sync 0;
    ld.volatile.shared.u32 %r9, [valid];
    mul.wide.u32 %rd4, %r7, 4; add.s64 %rd5, %rd1, %rd4;
    ld.global.u32 %r10, [%rd5];
    mul.wide.u32 %rd6, %r7, 8; add.s64 %rd7, %rd2, %rd6;
    setp.ge.u32 %p2, %r4, %r9;
    @%p2 bra PAST;
    add.s32 %r11, %r10, %r9; add.s32 %r12, %r11, %r1; add.s32 %r13, %r12, %r2;
    cvt.s64.s32 %rd8, %r13; add.s64 %rd9, %rd8, %rd3;
    st.global.u64 [%rd7], %rd9;
    ret;
PAST:
    cvt.u64.u32 %rd10, %r9;
    st.global.u64 [%rd7], %rd10;
    ret;
}

.visible .entry neighbours(.param .u64 in, .param .u64 out, .param .u32 mask)
{
    .shared .align 4 .b32 s[256];
    .reg .pred %p<3>; .reg .b16 %rs<4>; .reg .b32 %r<14>; .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out]; ld.param.u32 %r12, [mask];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r5, [%rd4];
    mov.u32 %r6, s; shl.b32 %r7, %r1, 2; add.u32 %r8, %r6, %r7;
    st.shared.u32 [%r8], %r5;
    bar.warp.sync -1;
    xor.b32 %r9, %r7, 4; add.u32 %r9, %r6, %r9;
    bar.warp.sync %r12;
    ld.shared.u32 %r10, [%r9];
    cvt.u16.u32 %rs1, %r5; cvt.u16.u32 %rs2, %r10;
    setp.lt.s16 %p1, %rs1, %rs2;
    selp.u32 %r11, %r10, %r5, %p1;
    add.s64 %rd5, %rd2, %rd3;
    st.global.u32 [%rd5], %r11;
    ret;
}

.visible .entry preds(.param .u64 in, .param .u64 out)
{
    .reg .pred %p<4>; .reg .b32 %r<8>; .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r5, [%rd4];
    mov.pred %p1, 0;
    and.b32 %r6, %r5, 3;
    setp.ne.u32 %p2, %r6, 0;
    @%p2 bra SKIP;
    mov.pred %p1, -1;
SKIP:
    setp.gt.u32 %p3, %r5, 3000000000;
    or.pred %p1, %p1, %p3;
    selp.u32 %r7, 7, 9, %p1;
    add.s64 %rd5, %rd2, %rd3;
    st.global.u32 [%rd5], %r7;
    ret;
}

.visible .entry shifts(.param .u64 in, .param .u64 out)
{
    .reg .b32 %r<16>; .reg .b64 %rd<10>;
    ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r5, [%rd4];
    and.b32 %r6, %r5, 31; shl.b32 %r7, %r5, %r6;
    shr.u32 %r8, %r5, 26; shr.s32 %r9, %r5, %r8;
    and.b32 %r10, %r5, 63; shr.u32 %r11, %r5, %r10;
    xor.b32 %r12, %r7, %r9; xor.b32 %r13, %r12, %r11;
    cvt.u64.u32 %rd5, %r5; shr.u32 %r14, %r5, 25; shl.b64 %rd6, %rd5, %r14;
    mul.wide.u32 %rd7, %r4, 16; add.s64 %rd8, %rd2, %rd7;
    st.global.u32 [%rd8], %r13;
    st.global.u64 [%rd8+8], %rd6;
    ret;
}

.visible .entry warp_sync(.param .u64 in, .param .u64 out)
{
    .shared .align 4 .b32 s[64];
    .reg .b32 %r<10>; .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, s; shl.b32 %r3, %r1, 2; add.u32 %r4, %r2, %r3;
    mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r5, [%rd4];
    st.volatile.shared.u32 [%r4], %r5;
    ld.volatile.shared.u32 %r6, [%r4+4];
    add.u32 %r7, %r5, %r6;
    add.s64 %rd5, %rd2, %rd3;
    st.global.u32 [%rd5], %r7;
    ret;
}
";

/// A launch of one kernel of [`KERNEL`]: `blocks` blocks of `block` threads on two host
/// threads, input word i `input(i)`, an output of `out_words` words per thread and the
/// words `scalars` after the two pointers.
struct Launch {
    setup: Setup,
    kernel: &'static str,
    cfg: chevron_ptx::interp::LaunchConfig,
    input: Vec<u32>,
    out_bytes: usize,
    scalars: Vec<u32>,
}

impl Launch {
    fn new(kernel: &'static str, (blocks, block): (u32, u32), input: fn(u32) -> u32) -> Launch {
        let threads = blocks * block;
        Launch {
            setup: Setup::of(&format!("{HEADER}{KERNEL}")),
            kernel,
            cfg: config(blocks, block, 2),
            input: (0..threads).map(input).collect(),
            out_bytes: 4 * threads as usize,
            scalars: Vec::new(),
        }
    }

    /// The output's words, `compiled` or (given `None`) interpreted.
    fn run(&self, compiled: Option<&chevron_cpu_jit::CompiledKernel>) -> Vec<u32> {
        let handle = self.setup.program.kernel(self.kernel).unwrap();
        let bytes = common::le_bytes(&self.input);
        (self.setup).run_in_out(
            (&handle, compiled),
            &self.cfg,
            &bytes,
            self.out_bytes,
            &self.scalars,
        )
    }

    /// The kernel compiled in each group width, each run and compared with `interpreted`.
    fn in_every_group_width(
        &self,
        interpreted: &[u32],
    ) -> Vec<(u32, chevron_cpu_jit::CompiledKernel)> {
        GROUPS
            .into_iter()
            .map(|width| {
                let compiled = common::compile_grouped(&self.setup.program, self.kernel, width);
                assert_eq!(self.run(Some(&compiled)), interpreted, "groups of {width}");
                (width, compiled)
            })
            .collect()
    }
}

#[test]
fn a_broadcast_through_volatile_shared_memory_and_narrow_parameters_run_four_wide() {
    let mut launch = Launch::new("tile", (3, 64), |i| i.wrapping_mul(2_654_435_761));
    launch.out_bytes *= 2;
    // flag -2 (0xfe) at offset 16, half 0xbeef at 18, neg -16 at 20, count 40 at 24.
    launch.scalars = vec![0xbeef_00fe, (-16i32) as u32, 40];
    let handle = launch.setup.program.kernel("tile").unwrap();
    let refusal = chevron_cpu_jit::assess(&launch.setup.program, &handle).refusal;
    assert_eq!(refusal, None);
    let interpreted = launch.run(None);
    // 42 valid items (40 - (-2)): threads 0..42 of each block sum, the others hold 42.
    assert_eq!(interpreted[2 * 50], 42);
    assert_eq!(
        u64::from(interpreted[0]) | u64::from(interpreted[1]) << 32,
        (i64::from(launch.input[0] as i32) + 42 - 2 + 0xbeef - 16) as u64
    );
    for (width, compiled) in launch.in_every_group_width(&interpreted) {
        assert_eq!(compiled.vector(), Ok(()), "groups of {width}");
        assert!(
            compiled.groups().0 > 0,
            "groups of {width}: the vector function ran"
        );
    }
    let scalar = common::compile_scalar(&launch.setup.program, "tile");
    assert_eq!(
        launch.run(Some(&scalar)),
        interpreted,
        "one thread at a time"
    );
}

#[test]
fn a_warp_synchronous_exchange_through_volatile_shared_memory_stays_interpreted() {
    let setup = Setup::of(&format!("{HEADER}{KERNEL}"));
    let handle = setup.program.kernel("warp_sync").unwrap();
    let refusal = chevron_cpu_jit::assess(&setup.program, &handle).refusal;
    assert!(
        refusal
            .as_deref()
            .is_some_and(|why| why.contains("volatile")),
        "{refusal:?}"
    );
}

#[test]
fn a_warp_synchronised_exchange_and_16_bit_comparisons_run_in_groups_of_a_warp() {
    let mut launch = Launch::new("neighbours", (2, 128), |i| i.wrapping_mul(0x9e37_79b9) >> 3);
    // A member mask known only at run time (the whole warp).
    launch.scalars = vec![u32::MAX];
    let interpreted = launch.run(None);
    let threads = launch.input.len();
    let neighbour_won = (0..threads)
        .filter(|&t| interpreted[t] == launch.input[t ^ 1])
        .count();
    assert!(
        neighbour_won > 0 && neighbour_won < threads,
        "{neighbour_won}"
    );
    for (width, compiled) in launch.in_every_group_width(&interpreted) {
        if width == 32 {
            common::assert_stayed_four_wide(&compiled, width);
        } else {
            let why = compiled.vector().unwrap_err();
            assert!(why.contains("__syncwarp"), "groups of {width}: {why}");
        }
    }
}

#[test]
fn a_predicate_set_by_mov_pred_and_or_pred_runs_four_wide() {
    let launch = Launch::new("preds", (2, 64), |i| i.wrapping_mul(0x9e37_79b9));
    let interpreted = launch.run(None);
    let sevens = interpreted.iter().filter(|&&v| v == 7).count();
    assert!(sevens > 0 && sevens < launch.input.len(), "{sevens}");
    for (width, compiled) in launch.in_every_group_width(&interpreted) {
        assert_eq!(compiled.vector(), Ok(()), "groups of {width}");
    }
}

#[test]
fn shifts_by_amounts_that_differ_between_threads_run_four_wide() {
    let mut launch = Launch::new("shifts", (2, 64), |i| {
        i.wrapping_mul(0x9e37_79b9) ^ 0x8000_0011
    });
    launch.out_bytes *= 4;
    let interpreted = launch.run(None);
    // Some amounts reach past the width: shifted out, or filled with the sign.
    let wide_out = (0..launch.input.len())
        .filter(|&t| launch.input[t] >> 25 >= 64)
        .count();
    assert!(wide_out > 0, "no 64-bit shift past the width");
    for (width, compiled) in launch.in_every_group_width(&interpreted) {
        common::assert_stayed_four_wide(&compiled, width);
    }
}
