//! Cooperative grids compiled: kernels that synchronise the grid with cooperative_groups'
//! `grid.sync()` (nvcc's barrier: `barrier.sync`, an `atom.add.release.gpu` on the workspace,
//! an `ld.acquire.gpu` spin, `barrier.sync`) run compiled, every block resident and yielding
//! at the spin, with the interpreter's results and fault reports, on one to three workers;
//! four threads at a time where the rows are groups of four, a group reaching the spin going
//! on in the scalar code.

mod common;

use chevron_cpu_jit::CompiledKernel;
use std::sync::Arc;

use chevron_ptx::interp::{DeviceMemory, LaunchHooks, Program};
use common::{buffer, config, read_words, Setup};

/// `data/grid_sync.cu` compiled by nvcc 13.0 (see its header).
const PTX: &str = include_str!("data/grid_sync.ptx");

fn params(values: &[u64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// `neighbour_rounds` on the host: each round, every block's value becomes three times its
/// own plus its right neighbour's plus the round.
fn model(blocks: usize, rounds: u32) -> Vec<u32> {
    let mut values: Vec<u32> = (0..blocks).map(|i| 7 * i as u32 + 1).collect();
    for r in 0..rounds {
        values = (0..blocks)
            .map(|b| {
                values[b]
                    .wrapping_mul(3)
                    .wrapping_add(values[(b + 1) % blocks])
                    .wrapping_add(r)
            })
            .collect();
    }
    values
}

#[test]
fn grid_barriers_in_a_loop_give_the_interpreters_and_the_models_values() {
    let Setup { memory, program } = Setup::of(PTX);
    let handle = program.kernel("neighbour_rounds").unwrap();
    let compiled = common::compile(&program, "neighbour_rounds", true);
    assert_eq!(compiled.vector(), Ok(()));
    let rounds = 5;
    for (blocks, threads) in [(1, 32), (3, 96), (8, 64), (17, 33)] {
        for workers in 1..=3 {
            let cfg = config(blocks, threads, workers);
            let mut results = Vec::new();
            for run_compiled in [false, true] {
                let values = buffer(&memory, blocks as usize, |i| 7 * i as u32 + 1);
                let scratch = buffer(&memory, blocks as usize, |_| 0);
                let p = params(&[values, scratch, rounds]);
                if run_compiled {
                    let (before, _) = compiled.groups();
                    let report = compiled.launch(&cfg, &p, &LaunchHooks::default()).unwrap();
                    // The interpreter counts what it runs: no block went back to it.
                    assert_eq!(report.lane_instructions, 0);
                    // Rows of four run four threads at a time.
                    let four_wide = compiled.groups().0 > before;
                    assert_eq!(four_wide, threads % 4 == 0, "{blocks}×{threads}");
                } else {
                    program.launch(&handle, &cfg, &p).unwrap();
                }
                results.push(read_words(&memory, values, blocks as usize));
            }
            let want = model(blocks as usize, rounds as u32);
            assert_eq!(
                results[0], want,
                "interpreted, {blocks}×{threads}, {workers} workers"
            );
            assert_eq!(
                results[1], want,
                "compiled, {blocks}×{threads}, {workers} workers"
            );
        }
    }
}

/// The compiled launch's fault report and the interpreter's, with addresses masked (the two
/// launches' buffers differ).
fn faults(compiled: &CompiledKernel, setup: &Setup, blocks: u32, workers: usize) -> [String; 2] {
    let handle = setup.program.kernel("count_then_store").unwrap();
    let cfg = config(blocks, 64, workers);
    let mask = |text: String| {
        text.split(' ')
            .map(|w| if w.contains("0x") { "ADDR" } else { w })
            .collect::<Vec<_>>()
            .join(" ")
    };
    [false, true].map(|run_compiled| {
        let counts = buffer(&setup.memory, 4, |_| 0);
        let p = params(&[counts, 4]);
        let result = if run_compiled {
            compiled.launch(&cfg, &p, &LaunchHooks::default())
        } else {
            setup.program.launch(&handle, &cfg, &p)
        };
        mask(result.expect_err("stores past the buffer").to_string())
    })
}

#[test]
fn a_fault_after_the_grid_barrier_gives_the_interpreters_report() {
    let setup = Setup::of(PTX);
    let compiled = common::compile(&setup.program, "count_then_store", true);
    // In bounds first: every thread counted before the last block reads the count.
    for workers in 1..=2 {
        let counts = buffer(&setup.memory, 4, |_| 0);
        let p = params(&[counts, 3]);
        let report = compiled
            .launch(&config(6, 64, workers), &p, &LaunchHooks::default())
            .unwrap();
        assert_eq!(report.lane_instructions, 0);
        assert_eq!(read_words(&setup.memory, counts, 4), [384, 0, 0, 384]);
    }
    for (blocks, workers) in [(1, 1), (5, 1), (5, 2)] {
        let [interpreted, compiled] = faults(&compiled, &setup, blocks, workers);
        assert_eq!(interpreted, compiled, "{blocks} blocks, {workers} workers");
        assert!(
            compiled.contains(&format!("block ({}, 0, 0)", blocks - 1)),
            "{compiled}"
        );
    }
}

#[test]
fn a_stop_request_stops_a_cooperative_grid_as_the_interpreter_does() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let Setup { memory, program } = Setup::of(PTX);
    let compiled = common::compile(&program, "neighbour_rounds", true);
    let values = buffer(&memory, 8, |i| i as u32);
    let scratch = buffer(&memory, 8, |_| 0);
    // Rounds enough to run for minutes: only the stop ends the launch.
    let p = params(&[values, scratch, 1 << 30]);
    let stop = AtomicBool::new(false);
    let hooks = LaunchHooks {
        stop: Some(&stop),
        ..Default::default()
    };
    let started = std::time::Instant::now();
    let fault = std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(std::time::Duration::from_millis(100));
            stop.store(true, Ordering::Relaxed);
        });
        compiled
            .launch(&config(8, 64, 2), &p, &hooks)
            .expect_err("stopped")
    });
    assert_eq!(
        fault.kind,
        chevron_ptx::interp::FaultKind::Stopped,
        "{fault}"
    );
    assert!(started.elapsed().as_secs() < 30);
}

/// `data/grid_sync_shared.ptx`, written by hand.
const SHARED_PTX: &str = include_str!("data/grid_sync_shared.ptx");

/// A block barrier right after the grid barrier: the thread that yielded at the spin goes on
/// alone only to the grid barrier's closing `barrier.sync`, where it waits until the threads
/// after it have reached that barrier too, so every thread reads its neighbour's slot of
/// this round.
#[test]
fn a_block_barrier_after_the_grid_barrier_waits_for_every_thread() {
    let Setup { memory, program } = Setup::of(SHARED_PTX);
    for kernel in [
        "shared_after_grid_sync",
        "shared_after_grid_sync_by_thread_2",
    ] {
        block_barrier_after_grid_barrier(&memory, &program, kernel);
    }
}

fn block_barrier_after_grid_barrier(memory: &DeviceMemory, program: &Arc<Program>, kernel: &str) {
    let handle = program.kernel(kernel).unwrap();
    let compiled = common::compile(program, kernel, true);
    assert_eq!(compiled.vector(), Ok(()));
    for (blocks, threads) in [(1, 32), (3, 96), (5, 33)] {
        for workers in 1..=2 {
            let cfg = config(blocks, threads, workers);
            let words = (blocks * threads) as usize;
            let want: Vec<u32> = (0..words as u32)
                .map(|i| 1000 * (i / threads) + (i % threads + 1) % threads + 1)
                .collect();
            for run_compiled in [false, true] {
                let out = buffer(memory, words, |_| 0);
                let p = params(&[out]);
                if run_compiled {
                    let (before, _) = compiled.groups();
                    let report = compiled.launch(&cfg, &p, &LaunchHooks::default()).unwrap();
                    assert_eq!(report.lane_instructions, 0);
                    assert_eq!(compiled.groups().0 > before, threads % 4 == 0);
                } else {
                    program.launch(&handle, &cfg, &p).unwrap();
                }
                assert_eq!(
                    read_words(memory, out, words),
                    want,
                    "{kernel}: compiled {run_compiled}, {blocks}×{threads}, {workers} workers"
                );
            }
        }
    }
}

/// Words `0..n` of a buffer holding `i * 2654435761` (wrapping) at word `i`, and their sum.
fn sum_input(memory: &DeviceMemory, n: usize) -> (u64, u32) {
    let value = |i: usize| (i as u32).wrapping_mul(2_654_435_761);
    let total = (0..n).fold(0u32, |t, i| t.wrapping_add(value(i)));
    (buffer(memory, n, value), total)
}

/// The benchmark's cooperative reduction: its grid-stride loop (a 64-bit index, affine in
/// the thread) runs four threads at a time, the group whose thread 0 takes the grid barrier
/// goes on in the scalar code at the barrier's atomic, and the total is the interpreter's and
/// the host's, on one to three workers.
#[test]
fn a_grid_stride_sum_runs_four_wide_and_gives_the_interpreters_total() {
    let Setup { memory, program } = Setup::of(PTX);
    let handle = program.kernel("grid_sum").unwrap();
    let compiled = common::compile(&program, "grid_sum", true);
    assert_eq!(compiled.vector(), Ok(()));
    for (blocks, threads, n) in [
        (1, 64, 1000),
        (4, 128, 1 << 14),
        (9, 256, 50_000),
        (5, 2, 999),
    ] {
        for workers in 1..=3 {
            let cfg = config(blocks, threads, workers);
            let (input, want) = sum_input(&memory, n);
            let mut results = Vec::new();
            for run_compiled in [false, true] {
                let partial = buffer(&memory, blocks as usize, |_| 0);
                let out = buffer(&memory, 1, |_| 0);
                let p: Vec<u8> = [input, partial, out]
                    .iter()
                    .flat_map(|v| v.to_le_bytes())
                    .chain((n as u32).to_le_bytes())
                    .collect();
                if run_compiled {
                    let (groups, handed) = compiled.groups();
                    let report = compiled.launch(&cfg, &p, &LaunchHooks::default()).unwrap();
                    assert_eq!(report.lane_instructions, 0);
                    let (groups, handed) =
                        (compiled.groups().0 - groups, compiled.groups().1 - handed);
                    // Every group of every phase ran in the vector function (rows of four); only
                    // the groups the shared tree's last two levels part, and the group of the
                    // thread that takes the grid barrier (and adds the partial sums) in each
                    // block, went on one thread at a time.
                    let phases = 2 + threads.ilog2() as u64;
                    if threads % 4 == 0 {
                        assert!(
                            groups >= blocks as u64 * phases * threads as u64 / 4,
                            "{groups}"
                        );
                        assert!(handed <= blocks as u64 * 4 + 1, "{handed} of {groups}");
                    } else {
                        assert_eq!(groups, 0);
                    }
                } else {
                    program.launch(&handle, &cfg, &p).unwrap();
                }
                results.push(read_words(&memory, out, 1)[0]);
            }
            assert_eq!(
                results,
                [want, want],
                "{blocks}×{threads}, {workers} workers"
            );
        }
    }
}

/// A grid-stride loop that reads past its buffer faults in the vector code: the grid goes to
/// the interpreter, whose report is the launch's, word for word.
#[test]
fn a_fault_in_the_four_wide_loop_gives_the_interpreters_report() {
    let setup = Setup::of(PTX);
    let handle = setup.program.kernel("grid_sum").unwrap();
    let compiled = common::compile(&setup.program, "grid_sum", true);
    for (blocks, workers) in [(1, 1), (4, 1), (4, 2)] {
        let cfg = config(blocks, 64, workers);
        let reports = [false, true].map(|run_compiled| {
            let (input, _) = sum_input(&setup.memory, 1000);
            let partial = buffer(&setup.memory, blocks as usize, |_| 0);
            let out = buffer(&setup.memory, 1, |_| 0);
            // `n` four past the input's 1000 words: one group of four reads past it, all four
            // threads in the loop, so the vector code's check refuses the access (with several
            // workers, the report of the first of several faulting blocks would depend on
            // timing, in the interpreter too).
            let p: Vec<u8> = [input, partial, out]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .chain(1004u32.to_le_bytes())
                .collect();
            let result = if run_compiled {
                compiled.launch(&cfg, &p, &LaunchHooks::default())
            } else {
                setup.program.launch(&handle, &cfg, &p)
            };
            let text = result.expect_err("reads past the buffer").to_string();
            // The two launches' buffers differ: addresses masked.
            text.split(' ')
                .map(|w| if w.contains("0x") { "ADDR" } else { w })
                .collect::<Vec<_>>()
                .join(" ")
        });
        assert_eq!(reports[0], reports[1], "{blocks} blocks, {workers} workers");
        assert!(reports[1].contains("thread (40, 0, 0)"), "{}", reports[1]);
    }
}
