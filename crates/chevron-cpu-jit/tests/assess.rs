//! `chevron_cpu_jit::assess`: what the tiering policy learns of a kernel without compiling it.

mod common;

use chevron_cpu_jit::{assess, LOOP_TRIPS};

/// `plain` loops over its elements; `synced` reads `%envreg1` (as a cooperative-groups grid
/// sync does), in the same module.
const TWO_KERNELS: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.visible .entry plain(.param .u64 out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, 0;
	mov.u32 %r2, 0;
LOOP:
	add.s32 %r2, %r2, %r1;
	add.s32 %r1, %r1, 1;
	setp.lt.u32 %p1, %r1, 100;
	@%p1 bra LOOP;
	st.global.u32 [%rd1], %r2;
	ret;
}

.visible .entry synced(.param .u64 out)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %envreg1;
	st.global.u32 [%rd1], %r1;
	ret;
}
"#;

#[test]
fn a_grid_sync_marks_its_kernel_only() {
    let (_memory, program) = common::load(TWO_KERNELS);
    let plain = assess(&program, &program.kernel("plain").unwrap());
    assert_eq!(plain.refusal, None);
    assert!(!plain.grid_sync);
    // A grid-synchronising kernel compiles too: its blocks then run all at once.
    let synced = assess(&program, &program.kernel("synced").unwrap());
    assert!(synced.grid_sync);
    assert_eq!(synced.refusal, None);
}

#[test]
fn loop_bodies_weigh_more_than_straight_code() {
    let (_memory, program) = common::load(TWO_KERNELS);
    let plain = assess(&program, &program.kernel("plain").unwrap());
    // The loop's four instructions count LOOP_TRIPS times each, the rest once.
    assert_eq!(
        plain.thread_work,
        plain.instructions - 4 + 4 * LOOP_TRIPS,
        "{plain:?}"
    );
}
