//! What the compiler's caller decides: [`CompileOptions`]. The compiler reads no environment
//! variable; the CPU device reads `CHEVRON_CPU_CHECKS`, `CHEVRON_CPU_VECTOR`,
//! `CHEVRON_CPU_CODE_CACHE` and `CHEVRON_CPU_CODE_DUMP` once
//! (`chevron/src/backend/cpu/compile_settings.rs`) and passes them in.

use std::path::PathBuf;

/// Settings of one compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileOptions {
    /// Whether compiled code checks the alignment and bounds of shared-memory accesses
    /// (unchecked, a bad offset is clamped into the block's shared memory: wrong data, no
    /// fault, never host memory). Global accesses are always resolved against the allocation
    /// table, so they stay checked either way. Default: on.
    pub checks: bool,
    /// Whether kernels that have a four-wide form run four threads at a time (`vector/`).
    /// Default: on.
    pub vectors: bool,
    /// Threads per group of the vector function (4, 8, 16 or 32; other values are 4): a
    /// varying 32-bit register is one `i32x4` per four threads of the group. A launch whose
    /// rows (`ntid.x`) are not whole groups runs one thread at a time; a kernel with warp
    /// collectives has groups of four. Default: 4.
    pub group_threads: u32,
    /// The folder of the code cache (`code_cache.rs`): compiled functions are read from it and
    /// written to it. Default: none (every function compiled).
    pub code_cache: Option<PathBuf>,
    /// A folder each function's machine code is written to, as `NAME.checked.bin` (or
    /// `.unchecked.bin`), for `objdump -D -b binary -mi386:x86-64`. Default: none.
    pub code_dump: Option<PathBuf>,
}

/// The group width for kernel `assessed` launched on rows of `row` threads, at most `widest`
/// ([`CompileOptions::group_threads`]): a whole warp for a kernel with shuffles (its
/// shuffles permutations of the group's registers), else the widest that divides the rows
/// and keeps the kernel's instructions times its vectors per group within its budget
/// ([`COOPERATIVE_BUDGET`] at every width for a kernel that synchronises the grid, else
/// [`GROUP_BUDGET`] for groups of 32 and [`NARROW_BUDGET`] for narrower ones); four when none
/// fits (rows of no groups of four run one thread at a time).
pub fn group_threads_for(widest: u32, row: u32, assessed: &crate::Assessment) -> u32 {
    let fits = |w: u32| w <= widest && row.is_multiple_of(w);
    if assessed.shuffles {
        return if fits(32) { 32 } else { 4 };
    }
    let budget = |w: u32| match w {
        _ if assessed.grid_sync => COOPERATIVE_BUDGET,
        32 => GROUP_BUDGET,
        _ => NARROW_BUDGET,
    };
    let small = |w: u32| assessed.instructions * u64::from(w / 4) <= budget(w);
    [32, 16, 8, 4]
        .into_iter()
        .find(|&w| fits(w) && small(w))
        .unwrap_or(4)
}

/// The most instructions times vectors per group a kernel without shuffles gets groups of 32
/// for: the vector function's code (its saves and restores at every barrier) grows with both,
/// and past 16 threads a big kernel's loaded and saved vectors outgrow the host's vector
/// registers (the tile scan, 109 instructions: 11.9 ms in groups of 16, 13.5 ms in groups of
/// 32; the histogram, 32 instructions: 9.7-10.5 ms in groups of 16, 6.9-7.6 ms in groups of
/// 32).
pub const GROUP_BUDGET: u64 = 256;

/// The budget of groups of 16 threads and fewer: each region between two barriers runs for
/// all of a block's groups before the next, so what a wider group saves (a region's fixed
/// work per group: its resume, its checks, its states and the step to the next group, over
/// twice the threads) outweighs the bigger code up to 128 instructions in groups of 16 (CPU
/// time in the compiled code, one thread, medians of 5 to 9 interleaved runs, groups of 8 and
/// 16: the tile scan, 109 instructions, 12.5 and 11.9 ms; the radix sort, 115, 315 and 266 ms;
/// the transpose, 65, 17.1 and 10.0 ms).
pub const NARROW_BUDGET: u64 = 512;

/// The budget of every width for a cooperative kernel (one that synchronises the grid): its grid is
/// only as many blocks as are resident at once, so its threads spend their time in
/// grid-stride loops, where a group of 16 or 32 loads whole cache lines and the next pass of
/// the same group is the grid's stride away (the benchmark's reduction, about 150
/// instructions: 19.4 ms of vector code in groups of 4, 13.0 in groups of 16, 9.0 in groups
/// of 32; the code grows with the width, 415 KB in groups of 32, compiled once and then
/// replayed from the code cache).
pub const COOPERATIVE_BUDGET: u64 = 2048;

impl Default for CompileOptions {
    fn default() -> CompileOptions {
        CompileOptions {
            checks: true,
            vectors: true,
            group_threads: 4,
            code_cache: None,
            code_dump: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(instructions: u64, shuffles: bool) -> crate::Assessment {
        crate::Assessment {
            refusal: None,
            instructions,
            thread_work: instructions,
            grid_sync: false,
            shuffles,
        }
    }

    #[test]
    fn groups_are_the_widest_that_divide_the_rows_and_fit_the_budget() {
        let (small, big) = (kernel(53, false), kernel(109, false));
        assert_eq!(group_threads_for(32, 16, &small), 16);
        assert_eq!(group_threads_for(32, 256, &small), 16);
        assert_eq!(group_threads_for(32, 24, &small), 8);
        assert_eq!(group_threads_for(32, 12, &small), 4);
        assert_eq!(group_threads_for(8, 256, &small), 8);
        assert_eq!(group_threads_for(32, 256, &big), 16);
        assert_eq!(group_threads_for(32, 256, &kernel(200, false)), 8);
        assert_eq!(group_threads_for(32, 256, &kernel(300, false)), 4);
        assert_eq!(group_threads_for(32, 256, &kernel(64, false)), 16);
        assert_eq!(group_threads_for(32, 256, &kernel(32, false)), 32);
        assert_eq!(group_threads_for(16, 256, &kernel(32, false)), 16);
        // Shuffles: a whole warp, or four.
        assert_eq!(group_threads_for(32, 64, &kernel(27, true)), 32);
        assert_eq!(group_threads_for(32, 16, &kernel(27, true)), 4);
        assert_eq!(group_threads_for(16, 64, &kernel(27, true)), 4);
    }

    #[test]
    fn cooperative_kernels_get_wider_groups_within_their_budget() {
        let cooperative = |instructions| crate::Assessment {
            grid_sync: true,
            ..kernel(instructions, false)
        };
        // The benchmark's reduction (about 150 instructions): a whole warp, where an
        // ordinary kernel of its size gets eight.
        assert_eq!(group_threads_for(32, 256, &cooperative(150)), 32);
        assert_eq!(group_threads_for(32, 256, &kernel(150, false)), 8);
        assert_eq!(group_threads_for(16, 256, &cooperative(150)), 16);
        assert_eq!(group_threads_for(32, 48, &cooperative(150)), 16);
        assert_eq!(group_threads_for(32, 256, &cooperative(400)), 16);
        assert_eq!(group_threads_for(32, 256, &cooperative(600)), 8);
        assert_eq!(group_threads_for(32, 256, &cooperative(3000)), 4);
    }
}
