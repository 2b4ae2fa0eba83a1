//! Kernels on the CPU device through the backend contract: results, limits, printf, block order.

mod cpu_support;

use std::process::Command;

use chevron::code_object::{CodeObject, CodeObjectKind, IN_MEMORY};
use chevron::Error;
use cpu_support::{device, kernel, launch, read_u32, Arg};

/// `y[i] = a * x[i] + y[i]` for `i < n`, as nvcc emits it (parameters n, a, x, y).
const SAXPY: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.visible .entry saxpy(
	.param .u32 saxpy_param_0,
	.param .f32 saxpy_param_1,
	.param .u64 saxpy_param_2,
	.param .u64 saxpy_param_3
)
{
	.reg .pred 	%p<2>;
	.reg .f32 	%f<5>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<8>;

	ld.param.u32 	%r2, [saxpy_param_0];
	ld.param.f32 	%f1, [saxpy_param_1];
	ld.param.u64 	%rd1, [saxpy_param_2];
	ld.param.u64 	%rd2, [saxpy_param_3];
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mov.u32 	%r5, %tid.x;
	mad.lo.s32 	%r1, %r3, %r4, %r5;
	setp.ge.s32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB0_2;
	cvta.to.global.u64 	%rd3, %rd1;
	mul.wide.s32 	%rd4, %r1, 4;
	add.s64 	%rd5, %rd3, %rd4;
	ld.global.f32 	%f2, [%rd5];
	cvta.to.global.u64 	%rd6, %rd2;
	add.s64 	%rd7, %rd6, %rd4;
	ld.global.f32 	%f3, [%rd7];
	fma.rn.f32 	%f4, %f2, %f1, %f3;
	st.global.f32 	[%rd7], %f4;
$L__BB0_2:
	ret;
}
"#;

/// Each thread prints `block B thread T` through `vprintf`, as nvcc emits `printf`.
const HELLO: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.extern .func  (.param .b32 func_retval0) vprintf
(
	.param .b64 vprintf_param_0,
	.param .b64 vprintf_param_1
)
;
.global .align 1 .b8 $str[20] = {98,108,111,99,107,32,37,100,32,116,104,114,101,97,100,32,37,100,10,0};

.visible .entry hello()
{
	.local .align 8 .b8 	__local_depot0[8];
	.reg .b64 	%SP;
	.reg .b64 	%SPL;
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<5>;

	mov.u64 	%SPL, __local_depot0;
	cvta.local.u64 	%SP, %SPL;
	add.u64 	%rd1, %SP, 0;
	add.u64 	%rd2, %SPL, 0;
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %tid.x;
	st.local.v2.u32 	[%rd2], {%r1, %r2};
	mov.u64 	%rd3, $str;
	cvta.global.u64 	%rd4, %rd3;
	{ // callseq 0, 0
	.reg .b32 temp_param_reg;
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd4;
	.param .b64 param1;
	st.param.b64 	[param1+0], %rd1;
	.param .b32 retval0;
	call.uni (retval0),
	vprintf,
	(
	param0,
	param1
	);
	ld.param.b32 	%r3, [retval0+0];
	} // callseq 0
	ret;
}
"#;

fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

#[test]
fn saxpy_computes_through_the_contract() {
    let device = device();
    let saxpy = kernel(&device, SAXPY, "saxpy");
    assert_eq!(saxpy.name(), "saxpy");
    assert_eq!(saxpy.max_threads_per_block(), 1024);
    let stream = device.create_stream().unwrap();
    let n = 1000u32;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let y: Vec<f32> = (0..n).map(|i| 1000.0 - i as f32).collect();
    let dx = device.alloc(u64::from(n) * 4).unwrap();
    let dy = device.alloc(u64::from(n) * 4).unwrap();
    stream.copy_to_device(dx, &f32_bytes(&x)).unwrap();
    stream.copy_to_device(dy, &f32_bytes(&y)).unwrap();
    let args = [Arg::U32(n), Arg::F32(2.0), Arg::U64(dx), Arg::U64(dy)];
    launch(&stream, &saxpy, n.div_ceil(128), 128, &args).unwrap();
    let result = read_u32(&stream, dy, n as usize).unwrap();
    for (i, bits) in result.iter().enumerate() {
        let expected = 2.0f32.mul_add(x[i], y[i]);
        assert_eq!(f32::from_bits(*bits), expected, "element {i}");
    }
    stream.synchronize().unwrap();
}

#[test]
fn wrong_argument_counts_and_configurations_are_refused() {
    let device = device();
    let saxpy = kernel(&device, SAXPY, "saxpy");
    let stream = device.create_stream().unwrap();
    let err = launch(&stream, &saxpy, 1, 32, &[Arg::U32(1)]).unwrap_err();
    assert!(matches!(err, Error::Argument { .. }), "{err}");
    let args = [Arg::U32(0), Arg::F32(1.0), Arg::U64(0), Arg::U64(0)];
    let err = launch(&stream, &saxpy, 1, 2048, &args).unwrap_err();
    assert!(matches!(err, Error::LaunchConfig { .. }), "{err}");
    let err = launch(&stream, &saxpy, 0, 32, &args).unwrap_err();
    assert!(matches!(err, Error::LaunchConfig { .. }), "{err}");
    stream.synchronize().unwrap();
}

#[test]
fn loading_reports_what_is_wrong() {
    let device = device();
    let err = device
        .load_module(&CodeObject::read(
            ".version 7.0\n.target sm_70\n@@@",
            IN_MEMORY,
        ))
        .err()
        .unwrap();
    assert!(matches!(err, Error::CodeObject { .. }), "{err}");
    assert!(err.to_string().contains("line 3"), "{err}");
    let cubin = b"\x7fELF\x02\x01\x01";
    let err = device
        .load_module(&CodeObject::read_as(
            CodeObjectKind::Cubin,
            cubin,
            IN_MEMORY,
        ))
        .err()
        .unwrap();
    assert!(err.to_string().contains("runs PTX"), "{err}");
    let module = device
        .load_module(&CodeObject::read(SAXPY, IN_MEMORY))
        .unwrap();
    let err = module.function("saxp").err().unwrap();
    assert!(matches!(err, Error::NotFound { .. }), "{err}");
    assert!(err.to_string().contains("saxpy"), "candidates: {err}");
}

/// Set in the child process of [`printf_output_reaches_stdout`].
const PRINTF_CHILD: &str = "CHEVRON_CPU_TEST_PRINTF_CHILD";

#[test]
fn printf_output_reaches_stdout() {
    if std::env::var_os(PRINTF_CHILD).is_some() {
        let device = device();
        let hello = kernel(&device, HELLO, "hello");
        let stream = device.create_stream().unwrap();
        launch(&stream, &hello, 2, 2, &[]).unwrap();
        stream.synchronize().unwrap();
        return;
    }
    // Run this test again in a child process whose stdout we can read.
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["printf_output_reaches_stdout", "--exact", "--nocapture"])
        .env(PRINTF_CHILD, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "child failed: {stdout}");
    for block in 0..2 {
        for thread in 0..2 {
            let line = format!("block {block} thread {thread}\n");
            assert_eq!(stdout.matches(&line).count(), 1, "{line:?} in {stdout:?}");
        }
    }
}

/// Block `b` stores at `order[b]` the ticket it drew from `*counter` (`atom.add`).
const TICKETS: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.visible .entry tickets(.param .u64 tickets_param_0, .param .u64 tickets_param_1)
{
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<7>;

	ld.param.u64 	%rd1, [tickets_param_0];
	ld.param.u64 	%rd2, [tickets_param_1];
	cvta.to.global.u64 	%rd3, %rd1;
	cvta.to.global.u64 	%rd4, %rd2;
	mov.u32 	%r1, 1;
	atom.global.add.u32 	%r2, [%rd3], %r1;
	mov.u32 	%r3, %ctaid.x;
	mul.wide.u32 	%rd5, %r3, 4;
	add.s64 	%rd6, %rd4, %rd5;
	st.global.u32 	[%rd6], %r2;
	ret;
}
"#;

#[test]
fn deterministic_devices_run_blocks_in_order() {
    let device = chevron::backend::cpu::discover_with(&chevron::backend::cpu::CpuConfig {
        devices: 1,
        threads: 8,
        deterministic: true,
        memory_bytes: 1 << 20,
    })
    .unwrap()
    .remove(0);
    assert_eq!(device.info().multiprocessors, 1);
    let tickets = kernel(&device, TICKETS, "tickets");
    let stream = device.create_stream().unwrap();
    let blocks = 64u32;
    let counter = device.alloc(4).unwrap();
    let order = device.alloc(u64::from(blocks) * 4).unwrap();
    stream.memset(counter, 0, 4, 1).unwrap();
    let args = [Arg::U64(counter), Arg::U64(order)];
    launch(&stream, &tickets, blocks, 1, &args).unwrap();
    let drawn = read_u32(&stream, order, blocks as usize).unwrap();
    assert_eq!(drawn, (0..blocks).collect::<Vec<_>>());
    assert_eq!(read_u32(&stream, counter, 1).unwrap(), vec![blocks]);
}

#[test]
fn parallel_blocks_draw_every_ticket_once() {
    let device = cpu_support::devices(1, 4).remove(0);
    let tickets = kernel(&device, TICKETS, "tickets");
    let stream = device.create_stream().unwrap();
    let blocks = 256u32;
    let counter = device.alloc(4).unwrap();
    let order = device.alloc(u64::from(blocks) * 4).unwrap();
    stream.memset(counter, 0, 4, 1).unwrap();
    let args = [Arg::U64(counter), Arg::U64(order)];
    launch(&stream, &tickets, blocks, 32, &args).unwrap();
    let mut drawn = read_u32(&stream, order, blocks as usize).unwrap();
    drawn.sort_unstable();
    // Every thread draws a ticket; the last thread of each block to store wins its slot, so the
    // slots hold distinct tickets.
    drawn.dedup();
    assert_eq!(drawn.len(), blocks as usize);
    assert_eq!(read_u32(&stream, counter, 1).unwrap(), vec![blocks * 32]);
}

/// Declares `.maxntid 64` and 1 KiB of static shared memory, and uses 256 bytes of the module's.
const LIMITED: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.shared .align 4 .b8 module_tile[256];
.shared .align 4 .b8 other_kernels_tile[4096];

.visible .entry limited()
.maxntid 64, 1, 1
{
	.reg .b32 	%r<2>;
	.shared .align 4 .b8 tile[1024];
	ld.shared.u32 	%r1, [module_tile];
	ret;
}
"#;

/// Demands blocks of exactly 32 × 2 threads.
const REQUIRED: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.visible .entry required()
.reqntid 32, 2
{
	ret;
}
"#;

#[test]
fn a_required_block_shape_is_enforced() {
    let device = device();
    let required = kernel(&device, REQUIRED, "required");
    assert_eq!(required.max_threads_per_block(), 64);
    let stream = device.create_stream().unwrap();
    let err = launch(&stream, &required, 1, 64, &[]).unwrap_err();
    assert!(err.to_string().contains("reqntid"), "{err}");
    let config = chevron::backend::LaunchConfig {
        grid: [1, 1, 1],
        block: [32, 2, 1],
        shared_bytes: 0,
    };
    // SAFETY: the kernel has no parameters.
    unsafe { stream.launch(required.as_ref(), &config, &[]) }.unwrap();
    stream.synchronize().unwrap();
}

#[test]
fn kernel_limits_come_from_its_declaration() {
    let device = device();
    let limited = kernel(&device, LIMITED, "limited");
    assert_eq!(limited.max_threads_per_block(), 64);
    assert_eq!(limited.static_shared_bytes(), 1024 + 256);
    let stream = device.create_stream().unwrap();
    launch(&stream, &limited, 2, 64, &[]).unwrap();
    let err = launch(&stream, &limited, 1, 65, &[]).unwrap_err();
    assert!(matches!(err, Error::LaunchConfig { .. }), "{err}");
    stream.synchronize().unwrap();
}

#[test]
fn a_kernel_of_one_device_is_refused_on_another() {
    // Devices of two discoveries share ordinal 0 and label, yet are distinct devices.
    for devices in [cpu_support::devices(2, 1), {
        let mut two = cpu_support::devices(1, 1);
        two.extend(cpu_support::devices(1, 1));
        two
    }] {
        let saxpy = kernel(&devices[0], SAXPY, "saxpy");
        let stream = devices[1].create_stream().unwrap();
        let args = [Arg::U32(0), Arg::F32(1.0), Arg::U64(0), Arg::U64(0)];
        let err = launch(&stream, &saxpy, 1, 32, &args).unwrap_err();
        assert!(matches!(err, Error::InvalidValue { .. }), "{err}");
    }
}
