//! Cooperative grids in groups of 8, 16 and 32 threads (the CPU device gives a cooperative
//! kernel wider groups than an ordinary kernel of its size: `chevron_cpu_jit::
//! group_threads_for`): grid barriers in a loop and the benchmark's grid-stride reduction give
//! the interpreter's results on one and two workers, no block handed back to the interpreter,
//! the vector function running exactly where the rows are whole groups.

mod common;

use chevron_ptx::interp::LaunchHooks;
use common::{buffer, config, read_words, Setup};

/// `data/grid_sync.cu` compiled by nvcc 13.0 (see its header).
const PTX: &str = include_str!("data/grid_sync.ptx");

fn params(pointers: &[u64], last: u32) -> Vec<u8> {
    (pointers.iter().flat_map(|v| v.to_le_bytes()))
        .chain(last.to_le_bytes())
        .collect()
}

#[test]
fn grid_barriers_in_a_loop_match_the_interpreter_in_wide_groups() {
    let Setup { memory, program } = Setup::of(PTX);
    let handle = program.kernel("neighbour_rounds").unwrap();
    for group_threads in [8, 16, 32] {
        let compiled = common::compile_grouped(&program, "neighbour_rounds", group_threads);
        assert_eq!(compiled.vector(), Ok(()));
        for (blocks, threads) in [(3, 96), (8, 64), (5, 40), (2, 32)] {
            for workers in 1..=2 {
                let cfg = config(blocks, threads, workers);
                let values = [false, true].map(|run_compiled| {
                    let values = buffer(&memory, blocks as usize, |i| 7 * i as u32 + 1);
                    let scratch = buffer(&memory, blocks as usize, |_| 0);
                    let p: Vec<u8> = [values, scratch, 5]
                        .iter()
                        .flat_map(|v| v.to_le_bytes())
                        .collect();
                    if run_compiled {
                        let (before, _) = compiled.groups();
                        let report = compiled.launch(&cfg, &p, &LaunchHooks::default()).unwrap();
                        assert_eq!(report.lane_instructions, 0, "no block interpreted");
                        let grouped = compiled.groups().0 > before;
                        assert_eq!(grouped, threads % group_threads == 0, "{blocks}×{threads}");
                    } else {
                        program.launch(&handle, &cfg, &p).unwrap();
                    }
                    read_words(&memory, values, blocks as usize)
                });
                assert_eq!(
                    values[1], values[0],
                    "groups of {group_threads}, {blocks}×{threads}, {workers} workers"
                );
            }
        }
    }
}

/// The benchmark's reduction: its 64-bit grid-stride loop (whose closing compare decides the
/// whole group from its first and last thread) runs in the wide groups, the total is the
/// interpreter's and the host's, with inputs that end inside a group's last pass.
#[test]
fn a_grid_stride_sum_runs_in_wide_groups_and_gives_the_interpreters_total() {
    let Setup { memory, program } = Setup::of(PTX);
    let handle = program.kernel("grid_sum").unwrap();
    for group_threads in [8, 16, 32] {
        let compiled = common::compile_grouped(&program, "grid_sum", group_threads);
        assert_eq!(compiled.vector(), Ok(()));
        for (blocks, threads, n) in [(1, 64, 1000), (4, 128, 1 << 14), (9, 256, 50_001)] {
            for workers in 1..=2 {
                let cfg = config(blocks, threads, workers);
                let value = |i: usize| (i as u32).wrapping_mul(2_654_435_761);
                let want = (0..n).fold(0u32, |t, i| t.wrapping_add(value(i)));
                let input = buffer(&memory, n, value);
                let totals = [false, true].map(|run_compiled| {
                    let partial = buffer(&memory, blocks as usize, |_| 0);
                    let out = buffer(&memory, 1, |_| 0);
                    let p = params(&[input, partial, out], n as u32);
                    if run_compiled {
                        let (groups, handed) = compiled.groups();
                        let report = compiled.launch(&cfg, &p, &LaunchHooks::default()).unwrap();
                        assert_eq!(report.lane_instructions, 0, "no block interpreted");
                        let groups = compiled.groups().0 - groups;
                        let handed = compiled.groups().1 - handed;
                        // Every group of every phase ran in the vector function; per block
                        // only the group the loop's last pass parts, the groups of the
                        // tree's levels below the group's width and of thread 0's steps, and
                        // the group that takes the grid barrier went on one thread at a time.
                        let phases = 2 + threads.ilog2() as u64;
                        let per_block = u64::from(threads / group_threads);
                        assert!(groups >= u64::from(blocks) * phases * per_block, "{groups}");
                        let parted = u64::from(group_threads.ilog2() + 5);
                        assert!(
                            handed <= u64::from(blocks) * parted + 1,
                            "{handed} of {groups}"
                        );
                    } else {
                        program.launch(&handle, &cfg, &p).unwrap();
                    }
                    read_words(&memory, out, 1)[0]
                });
                assert_eq!(
                    totals,
                    [want, want],
                    "groups of {group_threads}, {blocks}×{threads}, {workers} workers"
                );
            }
        }
    }
}
