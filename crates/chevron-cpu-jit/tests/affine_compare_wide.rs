//! Ordered compares of a 64-bit value affine in the thread with a uniform one
//! (`src/vector/affine_compare.rs`: decided for the whole group by its first and last thread
//! when the values between them cannot wrap), in groups of 4, 8, 16 and 32 threads against the
//! interpreter: strides 1, -1 and 3, unsigned and signed, the uniform operand on either side,
//! bounds that part groups anywhere, and values that wrap inside a group (past 2^64 unsigned,
//! past 2^63 signed), where the two ends agree but the threads between them do not.

mod common;

use chevron_ptx::interp::LaunchHooks;
use common::{config, read_words, Setup, GROUPS, HEADER};

const KERNEL: &str = r#"
// out[t] = one bit per compare of base + t, base - t and base + 3t with n.
.visible .entry compares(.param .u64 out, .param .u64 base, .param .u64 n)
{
    .reg .pred %p<8>; .reg .b32 %r<16>; .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [base]; ld.param.u64 %rd3, [n];
    mov.u32 %r1, %tid.x;
    cvt.u64.u32 %rd4, %r1;
    add.s64 %rd5, %rd2, %rd4;
    sub.s64 %rd6, %rd2, %rd4;
    mul.lo.s64 %rd7, %rd4, 3; add.s64 %rd7, %rd7, %rd2;
    setp.lt.u64 %p1, %rd5, %rd3;
    setp.ge.s64 %p2, %rd6, %rd3;
    setp.gt.u64 %p3, %rd3, %rd7;
    setp.le.s64 %p4, %rd7, %rd3;
    setp.gt.s64 %p5, %rd5, %rd3;
    setp.lo.u64 %p6, %rd6, %rd3;
    selp.u32 %r2, 1, 0, %p1;
    selp.u32 %r3, 2, 0, %p2;
    selp.u32 %r4, 4, 0, %p3;
    selp.u32 %r5, 8, 0, %p4;
    selp.u32 %r6, 16, 0, %p5;
    selp.u32 %r7, 32, 0, %p6;
    or.b32 %r8, %r2, %r3; or.b32 %r8, %r8, %r4; or.b32 %r8, %r8, %r5;
    or.b32 %r8, %r8, %r6; or.b32 %r8, %r8, %r7;
    mul.wide.u32 %rd8, %r1, 4; add.s64 %rd9, %rd1, %rd8;
    st.global.u32 [%rd9], %r8;
    ret;
}
"#;

#[test]
fn affine_64_bit_compares_match_the_interpreter_in_every_group_width() {
    let setup = Setup::of(&format!("{HEADER}{KERNEL}"));
    let handle = setup.program.kernel("compares").unwrap();
    let threads = 64u32;
    let max = u64::MAX;
    let smax = i64::MAX as u64;
    let cases: Vec<(u64, u64)> = vec![
        (0, 0),
        (0, 64),
        (0, 200),
        (0, 5),
        (0, 17),
        (0, 40),
        (100, 130),
        (100, 101),
        (100, 60),
        // Unsigned wrap inside a group: base + t passes 2^64, base - t passes 0.
        (max - 20, max - 3),
        (max - 20, 5),
        (max - 2, max - 1),
        (3, max - 1),
        (3, 1),
        // Signed wrap: base + t passes 2^63 - 1, base - t passes -2^63.
        (smax - 20, smax - 3),
        (smax - 20, 7),
        (smax - 20, 1 << 63),
        ((1 << 63) + 3, (1 << 63) + 1),
        ((1 << 63) + 3, smax),
        ((1 << 63) + 3, 0),
    ];
    for group_threads in GROUPS {
        let compiled = common::compile_grouped(&setup.program, "compares", group_threads);
        assert_eq!(compiled.vector(), Ok(()));
        for &(base, n) in &cases {
            let outputs = [false, true].map(|run_compiled| {
                let out = setup.memory.alloc(4 * u64::from(threads), 256).unwrap();
                let p: Vec<u8> = [out, base, n]
                    .iter()
                    .flat_map(|v| v.to_le_bytes())
                    .collect();
                let cfg = config(1, threads, 1);
                if run_compiled {
                    let (before, _) = compiled.groups();
                    compiled.launch(&cfg, &p, &LaunchHooks::default()).unwrap();
                    assert!(compiled.groups().0 > before, "ran in groups");
                } else {
                    setup.program.launch(&handle, &cfg, &p).unwrap();
                }
                read_words(&setup.memory, out, threads as usize)
            });
            assert_eq!(
                outputs[1], outputs[0],
                "groups of {group_threads}, base {base:#x}, n {n:#x}"
            );
        }
    }
}
