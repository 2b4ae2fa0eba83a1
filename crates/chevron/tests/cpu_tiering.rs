//! The CPU device's tiering policy seen through the backend contract: a big first launch
//! (interpreted until its kernel is compiled, then compiled) gives the interpreter's results
//! and fault reports, and a deterministic device gives a racy kernel one result, run after run.

mod cpu_support;

use std::sync::Arc;

use chevron::backend::cpu::{discover_with, CpuConfig};
use chevron::backend::Device;
use chevron::Error;
use cpu_support::{bytes_of_u32, devices, finishes, kernel, launch, read_u32, Arg};

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

/// `sum[0] += x[i]` without an atomic: a race between every thread of the grid, whose result
/// depends on how the executor interleaves them (parameters sum, x).
const RACY_SUM: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.visible .entry racy_sum(.param .u64 racy_sum_param_0, .param .u64 racy_sum_param_1)
{
	.reg .b32 	%r<8>;
	.reg .b64 	%rd<6>;

	ld.param.u64 	%rd1, [racy_sum_param_0];
	ld.param.u64 	%rd2, [racy_sum_param_1];
	cvta.to.global.u64 	%rd3, %rd1;
	cvta.to.global.u64 	%rd4, %rd2;
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %ntid.x;
	mov.u32 	%r3, %tid.x;
	mad.lo.s32 	%r4, %r1, %r2, %r3;
	mul.wide.s32 	%rd5, %r4, 4;
	add.s64 	%rd5, %rd4, %rd5;
	ld.global.u32 	%r5, [%rd5];
	ld.global.u32 	%r6, [%rd3];
	add.s32 	%r7, %r6, %r5;
	st.global.u32 	[%rd3], %r7;
	ret;
}
"#;

fn deterministic_device() -> Arc<dyn Device> {
    discover_with(&CpuConfig {
        devices: 1,
        threads: 2,
        deterministic: true,
        memory_bytes: 1 << 30,
    })
    .expect("CPU device")
    .remove(0)
}

/// Big launches (compiled: they pay for the compile) and small ones (interpreted) of the racy
/// sum on a fresh deterministic device: the sums after each launch.
fn racy_run() -> Vec<u32> {
    let device = deterministic_device();
    let racy = kernel(&device, RACY_SUM, "racy_sum");
    let stream = device.create_stream().unwrap();
    let (blocks, threads) = (256u32, 256u32);
    let n = (blocks * threads) as usize;
    let sum = device.alloc(4).unwrap();
    let x = device.alloc(n as u64 * 4).unwrap();
    let values: Vec<u32> = (0..n as u32).map(|i| i % 7 + 1).collect();
    stream.copy_to_device(x, &bytes_of_u32(&values)).unwrap();
    stream.memset(sum, 0, 4, 1).unwrap();
    let args = [Arg::U64(sum), Arg::U64(x)];
    let mut sums = Vec::new();
    for launch_index in 0..8 {
        let (grid, block) = if launch_index % 3 == 2 {
            (1, 32)
        } else {
            (blocks, threads)
        };
        launch(&stream, &racy, grid, block, &args).unwrap();
        sums.push(read_u32(&stream, sum, 1).unwrap()[0]);
    }
    sums
}

#[test]
fn a_deterministic_device_gives_a_racy_kernel_one_result() {
    let first = racy_run();
    for run in 1..20 {
        assert_eq!(racy_run(), first, "run {run} differs from run 0");
    }
    // The sums grow at every launch (the kernel adds positive values).
    assert!(first.windows(2).all(|w| w[0] < w[1]), "{first:?}");
}

/// saxpy over `n` elements in blocks of 256 on `device`'s first launch of the kernel; the
/// launch's outcome and `y`.
fn saxpy_once(device: &Arc<dyn Device>, n: u32, allocated: u32) -> (chevron::Result<()>, Vec<u32>) {
    let saxpy = kernel(device, SAXPY, "saxpy");
    let stream = device.create_stream().unwrap();
    let x = device.alloc(u64::from(allocated) * 4).unwrap();
    let y = device.alloc(u64::from(allocated) * 4).unwrap();
    let xs: Vec<u32> = (0..allocated).map(|i| (i as f32 * 0.5).to_bits()).collect();
    let ys: Vec<u32> = (0..allocated).map(|i| (i as f32 - 3.0).to_bits()).collect();
    stream.copy_to_device(x, &bytes_of_u32(&xs)).unwrap();
    stream.copy_to_device(y, &bytes_of_u32(&ys)).unwrap();
    stream.synchronize().unwrap();
    let args = [Arg::U32(n), Arg::F32(1.5), Arg::U64(x), Arg::U64(y)];
    launch(&stream, &saxpy, n.div_ceil(256), 256, &args).unwrap();
    let stream = Arc::clone(&stream);
    let outcome = finishes(300, move || stream.synchronize().map(|_| stream));
    match outcome {
        Ok(stream) => (Ok(()), read_u32(&stream, y, allocated as usize).unwrap()),
        Err(err) => (Err(err), Vec::new()),
    }
}

#[test]
fn a_big_first_launch_gives_the_interpreters_results() {
    // 4096 blocks: far more work than the compile costs, so the launch starts interpreted and
    // finishes compiled (or, on a slow machine, interpreted: the results are the same).
    let device = devices(1, 2).remove(0);
    let n = 1 << 20;
    let (outcome, y) = saxpy_once(&device, n, n);
    outcome.unwrap();
    for (i, &bits) in y.iter().enumerate() {
        let expected = 1.5f32.mul_add(i as f32 * 0.5, i as f32 - 3.0);
        assert_eq!(f32::from_bits(bits), expected, "y[{i}]");
    }
}

#[test]
fn a_fault_in_a_big_first_launch_is_the_interpreters_report() {
    // One element more than allocated: only the last block's thread 0 reads out of bounds.
    let n = 1 << 20;
    for device in [devices(1, 2).remove(0), deterministic_device()] {
        let (outcome, _) = saxpy_once(&device, n + 1, n);
        let Err(Error::Fault {
            kernel, message, ..
        }) = outcome
        else {
            panic!("expected a fault, got {outcome:?}");
        };
        assert_eq!(kernel, "saxpy");
        assert!(
            message
                .contains("in kernel `saxpy`, block (4096, 0, 0), thread (0, 0, 0), PTX line 31"),
            "{message}"
        );
    }
}

/// Cooperative grids synchronising with `grid.sync()`, as nvcc 13.0 compiles them
/// (`chevron-cpu-jit/tests/data/grid_sync.cu`).
const GRID_SYNC: &str = include_str!("../../chevron-cpu-jit/tests/data/grid_sync.ptx");

#[test]
fn a_big_first_launch_of_a_cooperative_grid_runs_on_one_executor() {
    // Enough work to pay for a compile: under `auto` the launch must not start interpreted and
    // go on compiled (no subset of a cooperative grid can pass its barrier alone: the
    // interpreter's first chunk would wait forever), so it waits for the code; it finishes
    // with the interpreter's values on any device. (With the kernel in the code cache, the
    // compile may be ready before the first chunk, which hides that case.)
    let (blocks, rounds) = (64u32, 3u32);
    let mut want: Vec<u32> = (0..blocks).map(|i| 7 * i + 1).collect();
    for r in 0..rounds {
        let last = want.clone();
        for (b, value) in want.iter_mut().enumerate() {
            *value = last[b]
                .wrapping_mul(3)
                .wrapping_add(last[(b + 1) % blocks as usize])
                .wrapping_add(r);
        }
    }
    for device in [devices(1, 2).remove(0), deterministic_device()] {
        let rounds_kernel = kernel(&device, GRID_SYNC, "neighbour_rounds");
        let stream = device.create_stream().unwrap();
        let values = device.alloc(u64::from(blocks) * 4).unwrap();
        let scratch = device.alloc(u64::from(blocks) * 4).unwrap();
        let initial: Vec<u32> = (0..blocks).map(|i| 7 * i + 1).collect();
        stream
            .copy_to_device(values, &bytes_of_u32(&initial))
            .unwrap();
        let args = [Arg::U64(values), Arg::U64(scratch), Arg::U32(rounds)];
        launch(&stream, &rounds_kernel, blocks, 256, &args).unwrap();
        let stream = finishes(300, move || stream.synchronize().map(|_| stream)).unwrap();
        assert_eq!(read_u32(&stream, values, blocks as usize).unwrap(), want);
    }
}
