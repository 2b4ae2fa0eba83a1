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
