//! Interpreter tests: thread-block clusters (sm_90). Blocks of a cluster read and update each
//! other's shared memory (`mapa`, `ld`/`st`/`atom.shared::cluster`) between cluster barriers;
//! the kernels of tests/cudart/cluster_dsmem.cu as nvcc compiles them, and small PTX cases.

mod interp_common;

use chevron_ptx::interp::FaultKind;
use interp_common::*;

const NVCC: &str = include_str!("data/cluster_dsmem.ptx");

#[test]
fn cluster_dims_of_the_kernel_pair_neighbours_that_read_each_others_shared_memory() {
    let (memory, program) = load(NVCC);
    let kernel = program.kernel("_Z9neighbourPi").unwrap();
    assert_eq!(program.kernel_cluster(&kernel), Some([2, 1, 1]));
    for threads in [1, 3] {
        let out = upload_u32(&memory, &[u32::MAX; 8 * 64]);
        let params = Params::new().u64(out).build(&kernel);
        // A plain launch takes the kernel's `__cluster_dims__`.
        program
            .launch(&kernel, &config([8, 1, 1], [64, 1, 1], threads), &params)
            .unwrap();
        let got = download_u32(&memory, out, 8 * 64);
        for b in 0..8u32 {
            for t in 0..64u32 {
                assert_eq!(got[(b * 64 + t) as usize], (b ^ 1) * 1000 + t, "block {b}");
            }
        }
    }
}

#[test]
fn a_cluster_launch_gathers_atomics_in_rank_zero_and_reports_cluster_registers() {
    let (memory, program) = load(NVCC);
    let kernel = program.kernel("_Z6gatherPi").unwrap();
    assert_eq!(program.kernel_cluster(&kernel), None);
    let out = upload_u32(&memory, &[u32::MAX; 8 * 4]);
    let params = Params::new().u64(out).build(&kernel);
    let mut config = config([4, 2, 1], [32, 1, 1], 2);
    config.dynamic_shared = 4;
    let hooks = Default::default();
    program
        .launch_cluster(&kernel, &config, [2, 2, 1], &params, &hooks)
        .unwrap();
    let got = download_u32(&memory, out, 8 * 4);
    for y in 0..2u32 {
        for x in 0..4u32 {
            let block = (y * 4 + x) as usize;
            let rank = x % 2 + 2 * y;
            let want = [32 * (1 + 2 + 3 + 4), rank, x % 2 + 10 * y, 2 + 20 + 400];
            assert_eq!(got[4 * block..4 * block + 4], want, "block ({x}, {y})");
        }
    }
}

#[test]
fn grids_that_are_not_a_multiple_of_the_cluster_are_refused() {
    let (memory, program) = load(NVCC);
    let out = upload_u32(&memory, &[0; 64]);
    let gather = program.kernel("_Z6gatherPi").unwrap();
    let params = Params::new().u64(out).build(&gather);
    let hooks = Default::default();
    let fault = program
        .launch_cluster(
            &gather,
            &config([3, 2, 1], [32, 1, 1], 1),
            [2, 2, 1],
            &params,
            &hooks,
        )
        .unwrap_err();
    assert_eq!(fault.kind, FaultKind::InvalidLaunch);
    assert!(
        fault.detail.contains("not a multiple of the cluster"),
        "{}",
        fault.detail
    );
    let fault = program
        .launch_cluster(
            &gather,
            &config([32, 1, 1], [32, 1, 1], 1),
            [32, 1, 1],
            &params,
            &hooks,
        )
        .unwrap_err();
    assert!(
        fault.detail.contains("clusters hold 1 to 16 blocks"),
        "{}",
        fault.detail
    );
    // A kernel compiled for clusters of two cannot run in clusters of four.
    let neighbour = program.kernel("_Z9neighbourPi").unwrap();
    let fault = program
        .launch_cluster(
            &neighbour,
            &config([8, 1, 1], [64, 1, 1], 1),
            [4, 1, 1],
            &params,
            &hooks,
        )
        .unwrap_err();
    assert!(
        fault.detail.contains("compiled for clusters"),
        "{}",
        fault.detail
    );
}

/// Each block stores its rank in its shared word, arrives, waits, reads the next rank's word
/// through a `.shared::cluster` address, and reports `getctarank` of that address and the
/// cluster-shape registers.
const EXCHANGE: &str = r#"
.version 8.0
.target sm_90
.address_size 64

.visible .entry exchange(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<6>;
    .shared .align 4 .u32 word;

    mov.u32 %r1, %cluster_ctarank;
    mov.u32 %r2, %cluster_nctarank;
    mov.u32 %r3, %tid.x;
    setp.ne.u32 %p1, %r3, 0;
    @%p1 bra SKIP;
    add.u32 %r4, %r1, 100;
    st.shared.u32 [word], %r4;
SKIP:
    barrier.cluster.arrive.release.aligned;
    barrier.cluster.wait.acquire.aligned;
    add.u32 %r5, %r1, 1;
    rem.u32 %r5, %r5, %r2;
    mov.u32 %r6, word;
    mapa.shared::cluster.u32 %r7, %r6, %r5;
    ld.shared::cluster.u32 %r8, [%r7];
    getctarank.shared::cluster.u32 %r9, %r7;
    barrier.cluster.arrive.aligned;
    barrier.cluster.wait.aligned;
    @%p1 bra DONE;
    mov.u32 %r10, %ctaid.x;
    mul.wide.u32 %rd1, %r10, 16;
    ld.param.u64 %rd2, [out];
    add.s64 %rd3, %rd2, %rd1;
    mov.u32 %r11, %clusterid.x;
    mov.u32 %r12, %nclusterid.x;
    mov.u32 %r13, %is_explicit_cluster;
    st.global.v4.u32 [%rd3], {%r8, %r9, %r11, %r12};
    st.global.u32 [%rd3+12], %r13;
DONE:
    ret;
}
"#;

#[test]
fn cluster_barriers_and_cluster_addresses_reach_the_next_rank() {
    let (memory, program) = load(EXCHANGE);
    let kernel = program.kernel("exchange").unwrap();
    let out = upload_u32(&memory, &[u32::MAX; 6 * 4]);
    let params = Params::new().u64(out).build(&kernel);
    let hooks = Default::default();
    program
        .launch_cluster(
            &kernel,
            &config([6, 1, 1], [40, 1, 1], 2),
            [3, 1, 1],
            &params,
            &hooks,
        )
        .unwrap();
    let got = download_u32(&memory, out, 6 * 4);
    for b in 0..6u32 {
        let next = (b % 3 + 1) % 3;
        let row = &got[4 * b as usize..4 * b as usize + 4];
        assert_eq!(row, [100 + next, next, b / 3, 1], "block {b}");
    }
    // Without a cluster each block is its own: rank 0 of 1, reading itself.
    let out = upload_u32(&memory, &[u32::MAX; 2 * 4]);
    let params = Params::new().u64(out).build(&kernel);
    program
        .launch(&kernel, &config([2, 1, 1], [40, 1, 1], 1), &params)
        .unwrap();
    let got = download_u32(&memory, out, 8);
    assert_eq!(got, [100, 0, 0, 0, 100, 0, 1, 0]);
}

/// `exited`: rank 1 never arrives at the cluster barrier but exits, so rank 0's wait completes
/// (PTX counts only threads that have not exited). `stuck`: in every block the first warp
/// waits at the cluster barrier while the second waits at a block barrier for 64 threads that
/// never come, so no block of the cluster can progress.
const EXITED: &str = r#"
.version 8.0
.target sm_90
.address_size 64

.visible .entry exited(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;

    mov.u32 %r1, %cluster_ctarank;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    ld.param.u64 %rd1, [out];
    st.global.u32 [%rd1], 7;
DONE:
    ret;
}

.visible .entry stuck(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;

    mov.u32 %r1, %tid.x;
    setp.ge.u32 %p1, %r1, 32;
    @%p1 bra SPIN;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    ret;
SPIN:
    bar.sync 1, 64;
    ret;
}
"#;

#[test]
fn exited_threads_do_not_hold_a_cluster_barrier_and_a_stuck_cluster_deadlocks() {
    let (memory, program) = load(EXITED);
    let out = upload_u32(&memory, &[0]);
    let hooks = Default::default();
    let kernel = program.kernel("exited").unwrap();
    let params = Params::new().u64(out).build(&kernel);
    program
        .launch_cluster(
            &kernel,
            &config([2, 1, 1], [64, 1, 1], 1),
            [2, 1, 1],
            &params,
            &hooks,
        )
        .unwrap();
    assert_eq!(download_u32(&memory, out, 1), [7]);
    let kernel = program.kernel("stuck").unwrap();
    let params = Params::new().u64(out).build(&kernel);
    let fault = program
        .launch_cluster(
            &kernel,
            &config([2, 1, 1], [64, 1, 1], 1),
            [2, 1, 1],
            &params,
            &hooks,
        )
        .unwrap_err();
    assert_eq!(fault.kind, FaultKind::Deadlock, "{fault}");
    assert!(
        fault.detail.contains("barrier.cluster.wait"),
        "{}",
        fault.detail
    );
}

#[test]
fn a_mapa_to_a_rank_outside_the_cluster_faults() {
    let source = EXCHANGE.replace("rem.u32 %r5, %r5, %r2;", "add.u32 %r5, %r5, 4;");
    let (memory, program) = load(&source);
    let kernel = program.kernel("exchange").unwrap();
    let out = upload_u32(&memory, &[0; 16]);
    let params = Params::new().u64(out).build(&kernel);
    let hooks = Default::default();
    let fault = program
        .launch_cluster(
            &kernel,
            &config([2, 1, 1], [32, 1, 1], 1),
            [2, 1, 1],
            &params,
            &hooks,
        )
        .unwrap_err();
    assert_eq!(fault.kind, FaultKind::OutOfBounds, "{fault}");
    assert!(
        fault.detail.contains("cluster of 2 blocks"),
        "{}",
        fault.detail
    );
}
