//! `not.b32` and `not.b64` in the vector function (`src/vector/integer.rs`), in groups of 4, 8,
//! 16 and 32 threads against the interpreter: no group leaves the vector code for them.

mod common;

use common::{config, Setup, GROUPS, HEADER};

/// Over n threads: out64[i] = ~(i * 2^32 + in[i]) (the output's first 8n bytes), then
/// out32[i] = ~in[i] ^ (in[i] >> 3).
const KERNEL: &str = r"
.visible .entry flip(.param .u64 x, .param .u64 out)
{
    .reg .b32 %r<12>; .reg .b64 %rd<14>;
    ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r5, [%rd4];
    not.b32 %r6, %r5;
    shr.u32 %r7, %r5, 3;
    xor.b32 %r8, %r6, %r7;
    mul.wide.u32 %rd5, %r4, 65536; shl.b64 %rd5, %rd5, 16; cvt.u64.u32 %rd6, %r5;
    or.b64 %rd5, %rd5, %rd6;
    not.b64 %rd7, %rd5;
    mul.wide.u32 %rd9, %r4, 8; add.s64 %rd10, %rd2, %rd9;
    st.global.u64 [%rd10], %rd7;
    mov.u32 %r9, %nctaid.x; mul.lo.u32 %r10, %r9, %r3;
    mul.wide.u32 %rd11, %r10, 8; add.s64 %rd12, %rd2, %rd11; add.s64 %rd13, %rd12, %rd3;
    st.global.u32 [%rd13], %r8;
    ret;
}
";

#[test]
fn not_runs_in_every_group_width_with_the_interpreter_s_bits() {
    let setup = Setup::of(&format!("{HEADER}{KERNEL}"));
    let handle = setup.program.kernel("flip").unwrap();
    let threads = 4 * 64u32;
    let input: Vec<u8> = (0..threads)
        .flat_map(|i| (i.wrapping_mul(0x9e37_79b9) ^ 0x00ff_00f0).to_le_bytes())
        .collect();
    let cfg = config(4, 64, 1);
    let out_bytes = 12 * threads as usize;
    let interpreted = setup.run_in_out((&handle, None), &cfg, &input, out_bytes, &[]);
    let value = |i: u32| i.wrapping_mul(0x9e37_79b9) ^ 0x00ff_00f0;
    let mut expected: Vec<u32> = (0..threads)
        .flat_map(|i| {
            let wide = !((u64::from(i) << 32) | u64::from(value(i)));
            [wide as u32, (wide >> 32) as u32]
        })
        .collect();
    expected.extend((0..threads).map(|i| !value(i) ^ (value(i) >> 3)));
    assert_eq!(interpreted, expected);
    for width in GROUPS {
        let compiled = common::compile_grouped(&setup.program, "flip", width);
        let got = setup.run_in_out((&handle, Some(&compiled)), &cfg, &input, out_bytes, &[]);
        assert_eq!(got, expected, "groups of {width}");
        common::assert_stayed_four_wide(&compiled, width);
    }
}
