//! A group the vector function hands to the scalar code comes back to it at a barrier from
//! the threads' slots, where the scalar code never stores the registers it computes again at
//! each read (a parameter, a constant, a launch-shape register written once at the kernel's
//! top, `codegen/remat.rs`): the vector function computes those again too instead of loading
//! them (a block's first group read 0, a later block another block's values).

mod common;

use common::{compile_grouped, config, le_bytes, Setup, GROUPS, HEADER};

/// `%tid.x + u` widened to 64 bits: where its threads' values wrap (`u` = -2: the first group
/// of each block) the group leaves for the scalar code, before the top's last registers are
/// written (the constants 7 and -0.5); after the barrier every thread stores them and `u`
/// (the output address is written twice, so it is kept: a wrong address would only send the
/// group to the scalar code again, which computes everything right).
const KERNEL: &str = r#"
.visible .entry handed(.param .u64 x, .param .u64 out, .param .u32 u)
{
    .reg .b32 %r<12>; .reg .f32 %f<2>; .reg .b64 %rd<8>;
    .shared .align 4 .b32 sh[64];
    ld.param.u32 %r0, [u];
    ld.param.u64 %rd1, [out];
    add.s64 %rd1, %rd1, 0;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd4, %r1, 24; add.s64 %rd5, %rd1, %rd4;
    shl.b32 %r4, %r1, 2;
    add.s32 %r2, %r1, %r0;
    mul.wide.u32 %rd2, %r2, 1;
    mov.u32 %r9, 7;
    mov.f32 %f1, 0fBF000000;
    st.global.u64 [%rd5+16], %rd2;
    mov.u32 %r3, sh; add.s32 %r3, %r3, %r4;
    st.shared.u32 [%r3], %r2;
    bar.sync 0;
    ld.shared.u32 %r5, [%r3];
    add.s32 %r5, %r5, %r0;
    mov.b32 %r6, %f1;
    st.global.u32 [%rd5], %r5;
    st.global.u32 [%rd5+4], %r6;
    st.global.u32 [%rd5+8], %r9;
    st.global.u32 [%rd5+12], %r4;
    ret;
}
"#;

#[test]
fn a_group_back_from_the_scalar_code_computes_its_top_registers_again() {
    let setup = Setup::of(&format!("{HEADER}{KERNEL}"));
    let handle = setup.program.kernel("handed").unwrap();
    let (blocks, threads) = (3u32, 64u32);
    let n = (blocks * threads) as usize;
    let cfg = config(blocks, threads, 1);
    let input = le_bytes(&[0]);
    let u = [(-2i32) as u32];
    let expected = setup.run_in_out((&handle, None), &cfg, &input, 24 * n, &u);
    for width in GROUPS {
        let compiled = compile_grouped(&setup.program, "handed", width);
        compiled.vector().expect("runs in groups");
        let got = setup.run_in_out((&handle, Some(&compiled)), &cfg, &input, 24 * n, &u);
        let first = (0..got.len()).find(|&i| got[i] != expected[i]);
        assert_eq!(
            first, None,
            "groups of {width}: the first word that differs"
        );
        let (groups, handed_over) = compiled.groups();
        // The first group of each block, once.
        assert_eq!(
            handed_over,
            u64::from(blocks),
            "groups of {width} ({groups} in all)"
        );
    }
}
