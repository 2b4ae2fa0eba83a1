//! `shfl` four threads at a time against the interpreter: every mode, lane and clamp/segment
//! operands from the kernel's parameters (the same in the four threads), the in-range
//! predicate, groups that ran one thread at a time before the shuffle (parted on their data)
//! meeting groups that stayed together, a barrier between shuffles, and a warp with an
//! exited lane (the block goes to the interpreter).

mod common;

use chevron_ptx::interp::LaunchConfig;
use common::{Setup, HEADER};

const KERNELS: &str = r#"
// Thread g of T: v = x[g] (+ 7 when odd: groups part); out[k * T + g] = the k-th result.
.visible .entry shuffles(.param .u64 x, .param .u64 out, .param .u32 b, .param .u32 c,
                         .param .u32 quit)
{
    .reg .pred %p<8>; .reg .b32 %r<24>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [out];
    ld.param.u32 %r1, [b]; ld.param.u32 %r2, [c]; ld.param.u32 %r20, [quit];
    mov.u32 %r3, %tid.x; mov.u32 %r4, %ctaid.x; mov.u32 %r5, %ntid.x;
    mov.u32 %r21, %tid.y; mad.lo.s32 %r3, %r21, %r5, %r3;
    mov.u32 %r22, %ntid.y; mul.lo.s32 %r5, %r5, %r22;
    mad.lo.s32 %r6, %r4, %r5, %r3;
    setp.eq.u32 %p7, %r6, %r20;
    @%p7 bra DONE;
    mul.wide.u32 %rd3, %r6, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r7, [%rd4];
    and.b32 %r8, %r7, 1;
    setp.eq.u32 %p1, %r8, 0;
    @%p1 bra EVEN;
    add.s32 %r7, %r7, 7;
EVEN:
    shfl.sync.up.b32 %r10|%p2, %r7, %r1, %r2, -1;
    shfl.sync.down.b32 %r11|%p3, %r10, %r1, %r2, -1;
    bar.sync 0;
    shfl.sync.bfly.b32 %r12|%p4, %r7, %r1, %r2, -1;
    shfl.sync.idx.b32 %r13|%p5, %r11, %r1, %r2, -1;
    selp.u32 %r14, 1, 0, %p2; selp.u32 %r15, 2, 0, %p3;
    selp.u32 %r16, 4, 0, %p4; selp.u32 %r17, 8, 0, %p5;
    or.b32 %r14, %r14, %r15; or.b32 %r16, %r16, %r17; or.b32 %r14, %r14, %r16;
    mov.u32 %r18, %nctaid.x; mul.lo.s32 %r18, %r18, %r5;
    mul.wide.u32 %rd5, %r18, 4;
    add.s64 %rd6, %rd2, %rd3;
    st.global.u32 [%rd6], %r10; add.s64 %rd6, %rd6, %rd5;
    st.global.u32 [%rd6], %r11; add.s64 %rd6, %rd6, %rd5;
    st.global.u32 [%rd6], %r12; add.s64 %rd6, %rd6, %rd5;
    st.global.u32 [%rd6], %r13; add.s64 %rd6, %rd6, %rd5;
    st.global.u32 [%rd6], %r14;
DONE:
    ret;
}
"#;

#[test]
fn shuffles_of_every_mode_match() {
    for group_threads in [4, 32] {
        shuffles_match(group_threads);
    }
}

/// [`shuffles_of_every_mode_match`] with groups of `group_threads` threads (32: the whole
/// warp, whose shuffles are permutations, `src/vector/permute.rs`).
fn shuffles_match(group_threads: u32) {
    let s = Setup::of(&format!("{HEADER}{KERNELS}"));
    let handle = s.program.kernel("shuffles").unwrap();
    let kernel = common::compile_grouped(&s.program, "shuffles", group_threads);
    assert_eq!(
        kernel.vector(),
        Ok(()),
        "shuffles run four threads at a time"
    );
    let blocks = 3u32;
    let threads = blocks as usize * 64;
    let input: Vec<u8> = (0..threads as u32)
        .flat_map(|i| (i.wrapping_mul(2_654_435_761) ^ (i >> 3)).to_le_bytes())
        .collect();
    let out_bytes = 20 * threads;
    let cases = [
        (0u32, 0x1fu32, u32::MAX),
        (1, 0, u32::MAX),
        (1, 0x1f, u32::MAX),
        (5, 0x181f, u32::MAX),
        (16, 0x1f, u32::MAX),
        (31, 0x1c07, u32::MAX),
        (3, 0x1f00, u32::MAX),
        (2, 0x1f, 37),
    ];
    for block in [[64u32, 1, 1], [8, 8, 1]] {
        let cfg = LaunchConfig {
            grid: [blocks, 1, 1],
            block,
            dynamic_shared: 0,
            threads: 2,
        };
        for (b, c, quit) in cases {
            let run = |use_compiled: bool| {
                let kernel = (&handle, use_compiled.then_some(&kernel));
                s.run_in_out(kernel, &cfg, &input, out_bytes, &[b, c, quit])
            };
            let want = run(false);
            assert_eq!(
                run(true),
                want,
                "groups of {group_threads}, block {block:?} b {b} c {c:#x} quit {quit}"
            );
        }
    }
}
