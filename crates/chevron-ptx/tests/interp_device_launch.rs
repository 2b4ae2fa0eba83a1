//! Interpreter tests: kernels launching kernels (CUDA dynamic parallelism) through the device
//! runtime's `__cudaCDP2GetParameterBufferV2`/`__cudaCDP2LaunchDeviceV2`, streams and errors.
//!
//! `data/device_launch.ptx` is nvcc 13.0's PTX (`-rdc=true -arch=sm_90 -ptx`) of:
//!
//! ```cuda
//! __global__ void tail_mark(int *log, int *pos, int value) {
//!     log[atomicAdd(pos, 1)] = value;
//! }
//! __global__ void count_down(int *log, int *pos, int depth) {
//!     log[atomicAdd(pos, 1)] = depth;
//!     if (depth > 0) {
//!         count_down<<<1, 1>>>(log, pos, depth - 1);
//!         tail_mark<<<1, 1, 0, cudaStreamTailLaunch>>>(log, pos, 100 + depth);
//!     }
//! }
//! __global__ void errors(int *codes) {
//!     tail_mark<<<1, 2048>>>(codes, codes, 1);
//!     codes[0] = cudaPeekAtLastError();
//!     codes[1] = cudaGetLastError();
//!     codes[2] = cudaGetLastError();
//!     cudaStream_t s;
//!     codes[3] = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
//!     codes[4] = cudaStreamDestroy(s);
//!     tail_mark<<<1, 1, 0, s>>>(codes, codes, 1);
//!     codes[5] = cudaGetLastError();
//!     codes[6] = cudaStreamDestroy(s);
//! }
//! __global__ void dive(int depth, int *deepest, int *refusal) {
//!     atomicMax(deepest, depth);
//!     dive<<<1, 1>>>(depth + 1, deepest, refusal);
//!     cudaError_t e = cudaGetLastError();
//!     if (e != cudaSuccess) atomicExch(refusal, int(e));
//! }
//! __global__ void fan_out(int *slots, int count) {
//!     int i = blockIdx.x * blockDim.x + threadIdx.x;
//!     if (i < count) tail_mark<<<1, 1, 0, cudaStreamFireAndForget>>>(slots, slots + count, i);
//! }
//! ```

mod interp_common;

use chevron_ptx::interp::device_runtime::{
    pending_launch_limit, set_pending_launch_limit, ChildGridRunner,
};
use chevron_ptx::interp::{Fault, KernelHandle, LaunchConfig, LaunchHooks, LaunchReport, Program};
use interp_common::*;

const PTX: &str = include_str!("data/device_launch.ptx");

/// Held by the tests that set the process's pending-launch limit or depend on it.
static PENDING_LIMIT: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn params(values: &[u64], sizes: &[usize]) -> Vec<u8> {
    let mut out = Vec::new();
    for (value, size) in values.iter().zip(sizes) {
        out.resize(out.len().next_multiple_of(*size), 0);
        out.extend_from_slice(&value.to_le_bytes()[..*size]);
    }
    out
}

#[test]
fn children_run_depth_first_with_tail_launches_after_their_parent() {
    let (memory, program) = load(PTX);
    let kernel = program.kernel("_Z10count_downPiS_i").unwrap();
    let log = upload_u32(&memory, &[0; 16]);
    let pos = upload_u32(&memory, &[0]);
    for threads in [1, 4] {
        memory.fill(log, &[0], 64).unwrap();
        memory.fill(pos, &[0], 4).unwrap();
        let report = program
            .launch(
                &kernel,
                &config([1, 1, 1], [1, 1, 1], threads),
                &params(&[log, pos, 3], &[8, 8, 4]),
            )
            .unwrap();
        assert!(report.lane_instructions > 0);
        // 3 launches 2 and tail 103; 2 launches 1 and tail 102; …: each child grid (and its
        // descendants) completes before its parent's tail launch.
        assert_eq!(
            download_u32(&memory, log, 7),
            [3, 2, 1, 0, 101, 102, 103],
            "threads {threads}"
        );
        assert_eq!(download_u32(&memory, pos, 1), [7]);
    }
}

#[test]
fn launch_errors_are_cuda_codes_kept_per_thread() {
    let (memory, program) = load(PTX);
    let kernel = program.kernel("_Z6errorsPi").unwrap();
    let codes = upload_u32(&memory, &[7; 8]);
    program
        .launch(
            &kernel,
            &config([1, 1, 1], [1, 1, 1], 1),
            &params(&[codes], &[8]),
        )
        .unwrap();
    // 9: cudaErrorInvalidConfiguration (peeked, then read and cleared); a destroyed stream:
    // 400, cudaErrorInvalidResourceHandle. The refused child never ran (codes[7] untouched).
    assert_eq!(
        download_u32(&memory, codes, 8),
        [9, 9, 0, 0, 0, 400, 400, 7]
    );
}

/// A grid launching one child from each level goes as deep as the pending-launch limit: every
/// level waits for its child, so the launch from the deepest is refused with
/// `cudaErrorLaunchPendingCountExceeded` (69), as on an H200 (2048 levels by default; no
/// limit of 24 levels).
#[test]
fn nesting_stops_at_the_pending_launch_limit() {
    let _held = PENDING_LIMIT.lock().unwrap_or_else(|e| e.into_inner());
    let (memory, program) = load(PTX);
    let kernel = program.kernel("_Z4diveiPiS_").unwrap();
    let deepest = upload_u32(&memory, &[0]);
    let refusal = upload_u32(&memory, &[0]);
    program
        .launch(
            &kernel,
            &config([1, 1, 1], [1, 1, 1], 1),
            &params(&[0, deepest, refusal], &[4, 8, 8]),
        )
        .unwrap();
    assert_eq!(download_u32(&memory, deepest, 1), [pending_launch_limit()]);
    assert_eq!(download_u32(&memory, refusal, 1), [69]);
}

#[test]
fn fire_and_forget_children_all_run_and_pending_launches_are_limited() {
    let _held = PENDING_LIMIT.lock().unwrap_or_else(|e| e.into_inner());
    let (memory, program) = load(PTX);
    let kernel = program.kernel("_Z7fan_outPii").unwrap();
    let count = 300u32;
    let slots = upload_u32(&memory, &vec![u32::MAX; count as usize + 1]);
    memory.fill(slots + 4 * u64::from(count), &[0], 4).unwrap();
    program
        .launch(
            &kernel,
            &config([3, 1, 1], [128, 1, 1], 2),
            &params(&[slots, u64::from(count)], &[8, 4]),
        )
        .unwrap();
    let mut seen = download_u32(&memory, slots, count as usize + 1);
    assert_eq!(seen.pop(), Some(count));
    seen.sort_unstable();
    assert_eq!(seen, (0..count).collect::<Vec<_>>());

    // With a limit of 100 pending launches, the 101st and later are refused (and never run).
    let limit = pending_launch_limit();
    set_pending_launch_limit(100);
    memory.fill(slots, &[0xff], 4 * u64::from(count)).unwrap();
    memory.fill(slots + 4 * u64::from(count), &[0], 4).unwrap();
    let result = program.launch(
        &kernel,
        &config([3, 1, 1], [128, 1, 1], 1),
        &params(&[slots, u64::from(count)], &[8, 4]),
    );
    set_pending_launch_limit(limit);
    result.unwrap();
    assert_eq!(
        download_u32(&memory, slots + 4 * u64::from(count), 1),
        [100]
    );
}

#[test]
fn a_faulting_child_is_the_host_launchs_fault() {
    let (memory, program) = load(PTX);
    let kernel = program.kernel("_Z7fan_outPii").unwrap();
    // The children's counter (slots + count) lies past the allocation.
    let slots = upload_u32(&memory, &[0; 4]);
    let fault = program
        .launch(
            &kernel,
            &config([1, 1, 1], [32, 1, 1], 1),
            &params(&[slots, 4], &[8, 4]),
        )
        .unwrap_err();
    assert_eq!(fault.kernel, "_Z9tail_markPiS_i");
    assert_eq!(fault.kind, chevron_ptx::interp::FaultKind::OutOfBounds);
}

/// Records the kernels offered and runs them itself (with the interpreter, standing in for
/// compiled code).
struct Recorder(std::sync::Mutex<Vec<String>>);

impl ChildGridRunner for Recorder {
    fn run(
        &self,
        program: &Program,
        kernel: &KernelHandle,
        config: &LaunchConfig,
        params: &[u8],
        hooks: &LaunchHooks<'_>,
    ) -> Option<Result<LaunchReport, Fault>> {
        self.0.lock().unwrap().push(kernel.name.clone());
        Some(program.launch_with(kernel, config, params, hooks))
    }
}

#[test]
fn only_children_that_launch_nothing_are_offered_to_the_runner() {
    let (memory, program) = load(PTX);
    let kernel = program.kernel("_Z10count_downPiS_i").unwrap();
    let log = upload_u32(&memory, &[0; 16]);
    let pos = upload_u32(&memory, &[0]);
    let recorder = Recorder(std::sync::Mutex::default());
    let hooks = LaunchHooks {
        child_grids: Some(&recorder),
        ..LaunchHooks::default()
    };
    program
        .launch_with(
            &kernel,
            &config([1, 1, 1], [1, 1, 1], 1),
            &params(&[log, pos, 2], &[8, 8, 4]),
            &hooks,
        )
        .unwrap();
    // count_down launches, so it stays with the interpreter; the tail launches are offered.
    assert_eq!(download_u32(&memory, log, 5), [2, 1, 0, 101, 102]);
    assert_eq!(
        *recorder.0.lock().unwrap(),
        ["_Z9tail_markPiS_i", "_Z9tail_markPiS_i"]
    );
}
