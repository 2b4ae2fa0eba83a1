//! Guards set by ordered compares of a value affine in the thread with a uniform one
//! (`src/vector/affine_compare.rs`: decided for the whole group by its first and last thread
//! when the values between them cannot wrap), in groups of 4, 8, 16 and 32 threads against the
//! interpreter: 64- and 32-bit values, strides 1, -1 and 3, unsigned and signed, the uniform
//! operand on either side, bounds that part groups anywhere, and values that wrap inside a
//! group (past 2^64 or 2^32 unsigned, past 2^63 or 2^31 signed), where the two ends agree but
//! the threads between them do not.

mod common;

use chevron_ptx::interp::LaunchHooks;
use common::{config, read_words, Setup, GROUPS, HEADER};

const KERNEL: &str = r#"
// out[t] = one bit per compare of base + t, base - t and base + 3t with n (64 bits), and of
// base32 + t and base32 - t with n32 (32 bits), each a guard of the branch just after it.
.visible .entry compares(.param .u64 out, .param .u64 base, .param .u64 n,
    .param .u32 base32, .param .u32 n32)
{
    .reg .pred %p<16>; .reg .b32 %r<24>; .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [base]; ld.param.u64 %rd3, [n];
    ld.param.u32 %r10, [base32]; ld.param.u32 %r11, [n32];
    mov.u32 %r1, %tid.x;
    cvt.u64.u32 %rd4, %r1;
    add.s64 %rd5, %rd2, %rd4;
    sub.s64 %rd6, %rd2, %rd4;
    mul.lo.s64 %rd7, %rd4, 3; add.s64 %rd7, %rd7, %rd2;
    add.s32 %r12, %r10, %r1; sub.s32 %r13, %r10, %r1;
    mov.u32 %r8, 0;
    setp.lt.u64 %p1, %rd5, %rd3;
    @%p1 bra A;
    or.b32 %r8, %r8, 1;
A:
    setp.ge.s64 %p2, %rd6, %rd3;
    @!%p2 bra B;
    or.b32 %r8, %r8, 2;
B:
    setp.gt.u64 %p3|%p4, %rd3, %rd7;
    @%p4 bra C;
    or.b32 %r8, %r8, 4;
C:
    setp.le.s64 %p5, %rd7, %rd3;
    @%p5 bra D;
    or.b32 %r8, %r8, 8;
D:
    setp.gt.s64 %p6, %rd5, %rd3;
    @!%p6 bra E;
    or.b32 %r8, %r8, 16;
E:
    setp.lo.u64 %p7, %rd6, %rd3;
    @%p7 bra F;
    or.b32 %r8, %r8, 32;
F:
    setp.lt.u32 %p8, %r12, %r11;
    @%p8 bra G;
    or.b32 %r8, %r8, 64;
G:
    setp.ge.s32 %p9|%p10, %r13, %r11;
    @%p10 bra H;
    or.b32 %r8, %r8, 128;
H:
    setp.gt.s32 %p11, %r11, %r12;
    @!%p11 bra I;
    or.b32 %r8, %r8, 256;
I:
    setp.hs.u32 %p12, %r13, %r11;
    @%p12 bra J;
    or.b32 %r8, %r8, 512;
J:
    mul.wide.u32 %rd8, %r1, 4; add.s64 %rd9, %rd1, %rd8;
    st.global.u32 [%rd9], %r8;
    ret;
}
"#;

#[test]
fn affine_compares_match_the_interpreter_in_every_group_width() {
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
        // The same in the low 32 bits.
        (0xffff_ffeb, 0xffff_fffc),
        (0xffff_ffeb, 5),
        (0x7fff_ffeb, 0x7fff_fffc),
        (0x7fff_ffeb, 0x8000_0000),
        (0x8000_0003, 0x8000_0001),
        (0x8000_0003, 0x7fff_ffff),
    ];
    for group_threads in GROUPS {
        let compiled = common::compile_grouped(&setup.program, "compares", group_threads);
        assert_eq!(compiled.vector(), Ok(()));
        for &(base, n) in &cases {
            let outputs = [false, true].map(|run_compiled| {
                let out = setup.memory.alloc(4 * u64::from(threads), 256).unwrap();
                let mut p: Vec<u8> = [out, base, n]
                    .iter()
                    .flat_map(|v| v.to_le_bytes())
                    .collect();
                // The low words as the 32-bit operands.
                p.extend([base as u32, n as u32].iter().flat_map(|v| v.to_le_bytes()));
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
