//! Interpreter tests of racecheck (`interp::race`): shared-memory races between barriers with
//! both accesses and a count, `bar.sync` and `bar.warp.sync` as orderings, same-value writes
//! as benign, races between blocks and the fence-then-atomic ordering, and findings that are
//! the same on every run even with several launch threads.

mod interp_common;

use chevron_ptx::interp::{race::Space, LaunchHooks, Race, RaceLog};
use interp_common::*;

/// `neighbour(out, sync, warpsync)`: each thread stores its index in `s[tid]`, then (after a
/// `bar.sync` when `sync`, a `bar.warp.sync` when `warpsync`) reads `s[(tid + 1) % ntid]` and
/// stores it to `out[tid]`.
const NEIGHBOUR: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.file 1 "n.cu"

.visible .entry neighbour(.param .u64 out, .param .u32 sync, .param .u32 warpsync)
{
    .reg .b32 %r<10>;
    .reg .b64 %rd<6>;
    .reg .pred %p<3>;
    .shared .align 4 .b8 s[260];
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r8, [sync];
    ld.param.u32 %r9, [warpsync];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, s;
    shl.b32 %r4, %r1, 2;
    add.s32 %r5, %r3, %r4;
    .loc 1 4 5
    st.shared.u32 [%r5], %r1;
    setp.ne.u32 %p1, %r8, 0;
    @!%p1 bra NOSYNC;
    bar.sync 0;
NOSYNC:
    setp.ne.u32 %p2, %r9, 0;
    @!%p2 bra NOWARP;
    bar.warp.sync -1;
NOWARP:
    add.u32 %r6, %r1, 1;
    rem.u32 %r6, %r6, %r2;
    shl.b32 %r6, %r6, 2;
    add.s32 %r7, %r3, %r6;
    .loc 1 6 9
    ld.shared.u32 %r7, [%r7];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r7;
    ret;
}
"#;

fn run_neighbour(threads: u32, sync: u32, warpsync: u32) -> Vec<Race> {
    let (memory, program) = load(NEIGHBOUR);
    let kernel = program.kernel("neighbour").unwrap();
    let out = upload_u32(&memory, &vec![0; threads as usize]);
    let params = Params::new()
        .u64(out)
        .u32(sync)
        .u32(warpsync)
        .build(&kernel);
    let log = RaceLog::new();
    let hooks = LaunchHooks {
        races: Some(&log),
        ..LaunchHooks::default()
    };
    let config = config([1, 1, 1], [threads, 1, 1], 1);
    program
        .launch_with(&kernel, &config, &params, &hooks)
        .unwrap();
    log.take(&program, "neighbour", &config)
}

#[test]
fn a_missing_barrier_is_a_shared_race_with_both_accesses() {
    let races = run_neighbour(64, 0, 0);
    assert!(!races.is_empty());
    let read = races
        .iter()
        .find(|r| !r.access.write)
        .expect("a read after a write");
    assert_eq!(read.space, Space::Shared);
    assert_eq!(read.access.source_position().unwrap().line, 6);
    assert!(read.other.write);
    assert_eq!(read.other.source_position().unwrap().line, 4);
    assert_eq!(read.access.thread, [0, 0, 0]);
    assert_eq!(read.other.thread, [1, 0, 0]);
    assert_eq!(read.count, 63);
    let text = read.to_string();
    assert!(
        text.starts_with("shared-memory race in kernel `neighbour` at n.cu:6:9, block (0, 0, 0)"),
        "{text}"
    );
    assert!(
        text.contains("after write by thread (1, 0, 0) at n.cu:4:5"),
        "{text}"
    );
    // The same findings on every run.
    assert_eq!(run_neighbour(64, 0, 0), races);
}

#[test]
fn barriers_and_syncwarp_order_the_accesses() {
    assert_eq!(run_neighbour(64, 1, 0), vec![]);
    // One warp: __syncwarp orders its lanes; two warps need the block's barrier.
    assert_eq!(run_neighbour(32, 0, 1), vec![]);
    assert!(!run_neighbour(64, 0, 1).is_empty());
}

/// `publish(data, counter, fenced)`: thread 0 of each block writes `data[ctaid]`, and, when
/// `fenced`, makes a fence and increments `counter` atomically; then reads `data[ctaid - 1]`
/// (block 0 reads its own) after its own atomic.
const PUBLISH: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.file 1 "p.cu"

.visible .entry publish(.param .u64 data, .param .u64 counter, .param .u32 fenced)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    .reg .pred %p<3>;
    ld.param.u64 %rd1, [data];
    ld.param.u64 %rd2, [counter];
    ld.param.u32 %r5, [fenced];
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    mov.u32 %r2, %ctaid.x;
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd4, %rd1, %rd3;
    .loc 1 3 5
    st.global.u32 [%rd4], %r2;
    setp.ne.u32 %p2, %r5, 0;
    @!%p2 bra READ;
    membar.gl;
    atom.global.add.u32 %r3, [%rd2], 1;
READ:
    max.u32 %r4, %r2, 1;
    sub.u32 %r4, %r4, 1;
    mul.wide.u32 %rd5, %r4, 4;
    add.s64 %rd6, %rd1, %rd5;
    .loc 1 5 5
    ld.global.u32 %r6, [%rd6];
DONE:
    ret;
}
"#;

fn run_publish(fenced: u32, threads: usize) -> Vec<Race> {
    let (memory, program) = load(PUBLISH);
    let kernel = program.kernel("publish").unwrap();
    let data = upload_u32(&memory, &[0; 8]);
    let counter = upload_u32(&memory, &[0]);
    let params = Params::new()
        .u64(data)
        .u64(counter)
        .u32(fenced)
        .build(&kernel);
    let log = RaceLog::new();
    let hooks = LaunchHooks {
        races: Some(&log),
        ..LaunchHooks::default()
    };
    let config = config([8, 1, 1], [32, 1, 1], threads);
    program
        .launch_with(&kernel, &config, &params, &hooks)
        .unwrap();
    log.take(&program, "publish", &config)
}

#[test]
fn blocks_race_on_global_memory_unless_a_fence_and_an_atomic_order_them() {
    let races = run_publish(0, 4);
    assert_eq!(races.len(), 1, "{races:?}");
    let race = &races[0];
    assert_eq!(race.space, Space::Global);
    assert!(!race.access.write && race.other.write);
    assert_eq!(race.access.block, [1, 0, 0]);
    assert_eq!(race.other.block, [0, 0, 0]);
    assert_eq!(race.count, 7);
    assert!(race
        .to_string()
        .contains("after write by block (0, 0, 0), thread (0, 0, 0) at p.cu:3:5"));
    // Several launch threads asked for: the blocks still run in order, the findings are equal.
    assert_eq!(run_publish(0, 1), races);
    assert_eq!(run_publish(1, 4), vec![]);
}
