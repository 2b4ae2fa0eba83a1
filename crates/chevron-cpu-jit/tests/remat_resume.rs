//! A group the vector function hands to the scalar code comes back to it at a barrier from
//! the threads' slots, where the scalar code never stores the registers it computes again at
//! each read (a parameter, a constant, a launch-shape register written once at the kernel's
//! top, `codegen/remat.rs`): the vector function computes those again too instead of loading
//! them (a block's first group read 0, a later block's another block's values).

mod common;

use chevron_ptx::interp::LaunchConfig;
use common::{compile_grouped, le_bytes, Setup, HEADER};

/// A kernel of the vector differential suite (`vector_differential.rs`, its case 37, cut
/// down): of 56 registers, coalesced (`coalesce.rs`), so that its 64-bit registers are
/// varying and a block's first group leaves for the scalar code at a load before `%f3` and
/// `%f7` are set to constants; both are stored after the barrier.
const KERNEL: &str = r#"
.visible .entry k(.param .u64 x, .param .u64 out, .param .u32 u, .param .u32 n)
{
.shared .align 4 .b32 sh[65];
.reg .pred %p<4>; .reg .b32 %r<20>; .reg .f32 %f<8>; .reg .b64 %rd<24>;
ld.param.u64 %rd0, [x]; ld.param.u64 %rd1, [out]; ld.param.u32 %r0, [u];
mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y; mov.u32 %r3, %ntid.x;
mad.lo.s32 %r16, %r2, %r3, %r1;
mov.u32 %r17, %ctaid.x; mov.u32 %r18, %ntid.y; mul.lo.s32 %r18, %r18, %r3;
mad.lo.s32 %r4, %r17, %r18, %r16;
mul.wide.u32 %rd2, %r4, 4; add.s64 %rd3, %rd0, %rd2;
ld.param.u32 %r19, [n]; mul.wide.u32 %rd4, %r19, 4;
add.s64 %rd8, %rd3, %rd4;
mul.wide.u32 %rd10, %r4, 8; add.s64 %rd11, %rd0, %rd10;
mul.wide.u32 %rd20, %r19, 96; add.s64 %rd20, %rd20, %rd1;
add.s64 %rd20, %rd20, %rd2; add.s64 %rd21, %rd20, %rd4;
ld.global.u32 %r5, [%rd3]; ld.global.u32 %r6, [%rd8];
ld.global.f32 %f1, [%rd3]; ld.global.f32 %f2, [%rd8];
ld.global.u32 %r7, [%rd0]; ld.global.u64 %rd12, [%rd0+8];
cvt.u64.u32 %rd13, %r6; mul.wide.s32 %rd14, %r5, %r0; mov.b64 %rd15, %rd2;
mov.u32 %r8, %r1; mov.u32 %r9, 3; mov.u32 %r10, %r0; mov.u32 %r11, %r4;
mov.u32 %r13, %r2; mov.u32 %r12, 0;
mov.f32 %f3, 0f3FC00000; mov.f32 %f4, 0f7F800000; mov.f32 %f5, %f1; mov.f32 %f6, %f2;
mov.f32 %f7, 0fBF000000;
    ld.global.u32 %r7, [%rd20];
    selp.b64 %rd12, %rd2, %rd13, %p2;
LOOP0:
    add.s32 %r12, %r12, 1;
    @%p3 bra LOOP0;
    @%p1 bra SKIP1;
    shr.u64 %rd12, 9252899, 3;
    max.u32 %r9, %r7, -36172;
SKIP1:
    sub.rn.f32 %f4, %f1, %f5;
    bar.sync 0;
    add.s64 %rd9, %rd1, %rd2;
    st.global.u32 [%rd9], %r5; add.s64 %rd9, %rd9, %rd4;
    st.global.u32 [%rd9], %r6; add.s64 %rd9, %rd9, %rd4;
    st.global.u32 [%rd9], %r7; add.s64 %rd9, %rd9, %rd4;
    st.global.u32 [%rd9], %r8; add.s64 %rd9, %rd9, %rd4;
    st.global.u32 [%rd9], %r9; add.s64 %rd9, %rd9, %rd4;
    st.global.u32 [%rd9], %r10; add.s64 %rd9, %rd9, %rd4;
    st.global.u32 [%rd9], %r11; add.s64 %rd9, %rd9, %rd4;
    st.global.u32 [%rd9], %r12; add.s64 %rd9, %rd9, %rd4;
    st.global.u32 [%rd9], %r13; add.s64 %rd9, %rd9, %rd4;
    st.global.f32 [%rd9], %f1; add.s64 %rd9, %rd9, %rd4;
    st.global.f32 [%rd9], %f2; add.s64 %rd9, %rd9, %rd4;
    st.global.f32 [%rd9], %f3; add.s64 %rd9, %rd9, %rd4;
    st.global.f32 [%rd9], %f4; add.s64 %rd9, %rd9, %rd4;
    st.global.f32 [%rd9], %f5; add.s64 %rd9, %rd9, %rd4;
    st.global.f32 [%rd9], %f6; add.s64 %rd9, %rd9, %rd4;
    st.global.f32 [%rd9], %f7; add.s64 %rd9, %rd9, %rd4;
    mul.wide.u32 %rd9, %r19, 64; add.s64 %rd9, %rd9, %rd1; add.s64 %rd9, %rd9, %rd10;
add.s64 %rd22, %rd4, %rd4;
    st.global.u64 [%rd9], %rd12; add.s64 %rd9, %rd9, %rd22;
    st.global.u64 [%rd9], %rd13; add.s64 %rd9, %rd9, %rd22;
    st.global.u64 [%rd9], %rd14; add.s64 %rd9, %rd9, %rd22;
    st.global.u64 [%rd9], %rd15; add.s64 %rd9, %rd9, %rd22;
    ret;
}
"#;

#[test]
fn a_group_back_from_the_scalar_code_computes_its_top_registers_again() {
    let setup = Setup::of(&format!("{HEADER}{KERNEL}"));
    let handle = setup.program.kernel("k").unwrap();
    let (block, grid) = ([8u32, 8, 1], 3u32);
    let n = (grid * block[0] * block[1]) as usize;
    let xs: Vec<u32> = (0..2 * n as u32 + 4)
        .map(|i| i.wrapping_mul(7) ^ 3)
        .collect();
    let input = le_bytes(&xs);
    let cfg = LaunchConfig {
        grid: [grid, 1, 1],
        block,
        dynamic_shared: 0,
        threads: 1,
    };
    // 16 32-bit and 4 64-bit outputs, two scratch words, per thread.
    let out_bytes = 4 * (16 + 2 * 4 + 2) * n;
    let scalars = [0x0001_0203, n as u32];
    let expected = setup.run_in_out((&handle, None), &cfg, &input, out_bytes, &scalars);
    for width in [4, 8] {
        let compiled = compile_grouped(&setup.program, "k", width);
        compiled.vector().expect("runs in groups");
        let got = setup.run_in_out(
            (&handle, Some(&compiled)),
            &cfg,
            &input,
            out_bytes,
            &scalars,
        );
        let first = (0..got.len()).find(|&i| got[i] != expected[i]);
        assert_eq!(
            first, None,
            "groups of {width}: the first word that differs"
        );
        let (_, handed_over) = compiled.groups();
        assert!(
            handed_over > 0,
            "groups of {width}: no group left the vector code"
        );
    }
}
