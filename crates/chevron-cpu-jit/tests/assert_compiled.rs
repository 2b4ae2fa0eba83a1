//! Device `assert` in compiled code: the condition runs compiled, and a failed assertion (a
//! call of `__assertfail`) stops the compiled block as a fault does, so that the interpreter
//! runs the block again and reports the assertion word for word.

mod common;

use chevron_ptx::interp::LaunchHooks;

/// `assert(in[i] < limit); out[i] = 2 * in[i];` as nvcc 13.0 writes it (`-arch=sm_75 -O3`).
const CHECKED_DOUBLE: &str = r#"

.version 9.0
.target sm_75
.address_size 64

.extern .func __assertfail
(
	.param .b64 __assertfail_param_0,
	.param .b64 __assertfail_param_1,
	.param .b32 __assertfail_param_2,
	.param .b64 __assertfail_param_3,
	.param .b64 __assertfail_param_4
)
;
.global .align 1 .b8 __unnamed_1[72] = {118, 111, 105, 100, 32, 99, 104, 101, 99, 107, 101, 100, 95, 100, 111, 117, 98, 108, 101, 40, 99, 111, 110, 115, 116, 32, 117, 110, 115, 105, 103, 110, 101, 100, 32, 105, 110, 116, 32, 42, 44, 32, 117, 110, 115, 105, 103, 110, 101, 100, 32, 105, 110, 116, 32, 42, 44, 32, 117, 110, 115, 105, 103, 110, 101, 100, 32, 105, 110, 116, 41};
.global .align 1 .b8 $str[14] = {105, 110, 91, 105, 93, 32, 60, 32, 108, 105, 109, 105, 116};
.global .align 1 .b8 $str$1[38] = {47, 116, 109, 112, 47, 116, 109, 112, 120, 102, 116, 95, 48, 48, 48, 48, 50, 102, 51, 51, 95, 48, 48, 48, 48, 48, 48, 48, 48, 45, 49, 95, 115, 116, 100, 105, 110};

.visible .entry checked_double(
	.param .u64 checked_double_param_0,
	.param .u64 checked_double_param_1,
	.param .u32 checked_double_param_2
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<11>;
	.reg .b64 	%rd<16>;


	ld.param.u64 	%rd4, [checked_double_param_0];
	ld.param.u64 	%rd3, [checked_double_param_1];
	ld.param.u32 	%r4, [checked_double_param_2];
	mov.u32 	%r5, %ntid.x;
	mov.u32 	%r6, %ctaid.x;
	mov.u32 	%r7, %tid.x;
	mad.lo.s32 	%r8, %r6, %r5, %r7;
	cvt.u64.u32 	%rd1, %r8;
	cvta.to.global.u64 	%rd5, %rd4;
	mul.wide.u32 	%rd6, %r8, 4;
	add.s64 	%rd2, %rd5, %rd6;
	ld.global.u32 	%r10, [%rd2];
	setp.lt.u32 	%p1, %r10, %r4;
	@%p1 bra 	$L__BB0_2;

	mov.u64 	%rd7, $str;
	cvta.global.u64 	%rd8, %rd7;
	mov.u64 	%rd9, $str$1;
	cvta.global.u64 	%rd10, %rd9;
	mov.u64 	%rd11, __unnamed_1;
	cvta.global.u64 	%rd12, %rd11;
	{ // callseq 0, 0
	.reg .b32 temp_param_reg;
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd8;
	.param .b64 param1;
	st.param.b64 	[param1+0], %rd10;
	.param .b32 param2;
	st.param.b32 	[param2+0], 4;
	.param .b64 param3;
	st.param.b64 	[param3+0], %rd12;
	.param .b64 param4;
	st.param.b64 	[param4+0], 1;
	call.uni 
	__assertfail, 
	(
	param0, 
	param1, 
	param2, 
	param3, 
	param4
	);
	} // callseq 0
	ld.global.u32 	%r10, [%rd2];

$L__BB0_2:
	cvta.to.global.u64 	%rd13, %rd3;
	shl.b64 	%rd14, %rd1, 2;
	add.s64 	%rd15, %rd13, %rd14;
	shl.b32 	%r9, %r10, 1;
	st.global.u32 	[%rd15], %r9;
	ret;

}

"#;

const N: u32 = 256;

/// Runs `checked_double` over `N` inputs `0..N` with `limit`, interpreted and compiled: the
/// outcome of each, as text (the fault's report, or the output words).
fn both(limit: u32) -> [String; 2] {
    let setup = common::Setup::of(CHECKED_DOUBLE);
    let compiled = common::compile(&setup.program, "checked_double", true);
    let handle = setup.program.kernel("checked_double").unwrap();
    let input = setup.memory.alloc(u64::from(N) * 4, 256).unwrap();
    let output = setup.memory.alloc(u64::from(N) * 4, 256).unwrap();
    let values: Vec<u8> = (0..N).flat_map(|v| v.to_le_bytes()).collect();
    setup.memory.write(input, &values).unwrap();
    let mut params = Vec::new();
    params.extend(input.to_le_bytes());
    params.extend(output.to_le_bytes());
    params.extend(limit.to_le_bytes());
    let config = common::config(N / 64, 64, 1);
    let hooks = LaunchHooks::default();
    let mut outcomes = Vec::new();
    for run_compiled in [false, true] {
        setup
            .memory
            .write(output, &vec![0u8; N as usize * 4])
            .unwrap();
        let result = if run_compiled {
            compiled.launch(&config, &params, &hooks)
        } else {
            setup.program.launch_with(&handle, &config, &params, &hooks)
        };
        outcomes.push(match result {
            Err(fault) => fault.to_string(),
            Ok(_) => format!(
                "{:?}",
                common::read_words(&setup.memory, output, N as usize)
            ),
        });
    }
    [outcomes[0].clone(), outcomes[1].clone()]
}

#[test]
fn a_kernel_that_asserts_compiles_and_runs_its_checks() {
    let [interpreted, compiled] = both(N);
    assert_eq!(interpreted, compiled);
    let doubled: Vec<u32> = (0..N).map(|v| 2 * v).collect();
    assert_eq!(compiled, format!("{doubled:?}"));
}

#[test]
fn a_failed_assertion_is_the_interpreters_report() {
    // Inputs from 100 on fail: block 1 (threads 64..128) is the first to fail, at thread 36.
    let [interpreted, compiled] = both(100);
    assert_eq!(interpreted, compiled);
    assert!(
        compiled.contains("block (1, 0, 0), thread (36, 0, 0)"),
        "{compiled}"
    );
}

#[test]
fn every_failed_assertion_of_the_launch_is_reported_as_interpreted() {
    // Inputs from 100 on fail: 156 threads of blocks 1, 2 and 3, each block run again by the
    // interpreter while the other blocks go on.
    let setup = common::Setup::of(CHECKED_DOUBLE);
    let compiled = common::compile(&setup.program, "checked_double", true);
    let handle = setup.program.kernel("checked_double").unwrap();
    let input = common::buffer(&setup.memory, N as usize, |i| i as u32);
    let output = common::buffer(&setup.memory, N as usize, |_| 0);
    let mut params = Vec::new();
    params.extend(input.to_le_bytes());
    params.extend(output.to_le_bytes());
    params.extend(100u32.to_le_bytes());
    let hooks = LaunchHooks::default();
    for workers in [1, 2] {
        let config = common::config(N / 64, 64, workers);
        let interpreted =
            (setup.program.launch_with(&handle, &config, &params, &hooks)).unwrap_err();
        let compiled = compiled.launch(&config, &params, &hooks).unwrap_err();
        assert_eq!(interpreted.failed_asserts, 156);
        assert_eq!(compiled.failed_asserts, interpreted.failed_asserts);
        assert_eq!(compiled.assertions, interpreted.assertions);
        assert_eq!(compiled.to_string(), interpreted.to_string());
    }
}
