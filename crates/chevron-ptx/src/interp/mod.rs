//! The PTX interpreter: runs the PTX a GPU runs, with GPU semantics, on the CPU.
//!
//! - [`DeviceMemory`] ([`memory`]): a CPU device's memory, host memory behind an allocation
//!   table that catches out-of-bounds accesses and uses after free.
//! - [`Program`] ([`program`]): a module decoded once into an executable form; its `.global` and
//!   `.const` variables allocated in device memory.
//! - [`Program::launch`] ([`grid`]): a grid of blocks on worker threads; each block runs its
//!   warps of 32 lanes with one program counter each, converged lanes stepped together and
//!   divergent ones reconverging (min-PC scheduling); instruction families live in `exec/`.
//! - [`Fault`] ([`fault`]): what a faulting kernel reports: kernel, block, thread, PTX line,
//!   instruction and address.
//! - [`numeric`]: the bit-exact arithmetic of PTX instructions.
//!
//! What runs: integer, float (all rounding modes, `.ftz`, `.sat`), f16/bf16 and conversions;
//! loads and stores in every state space with generic addressing; barriers (`bar.sync`,
//! `bar.arrive`, `bar.red`, named barriers with counts); warp collectives (`shfl`, `vote`,
//! `match`, `redux`, `elect`, `activemask`) with member masks; atomics across concurrent blocks;
//! calls, recursion, indirect calls; `printf`, `malloc`/`free`, `assert`; `cp.async` (run
//! synchronously); `ldmatrix`, `stmatrix`, `mma.sync` and WMMA (integer and f64 forms exact,
//! the others accumulated in f64, not bit-identical to tensor cores); grid-wide
//! synchronisation; thread-block clusters (`cluster.rs`: distributed shared memory, cluster
//! barriers); TMA copies through tensor maps ([`tensor_map`]); Hopper's warpgroup MMA
//! (`exec/wgmma.rs`: `wgmma.mma_async` over shared-memory matrix descriptors with their
//! swizzled layouts, each warp computing its rows of D when it arrives; `wgmma.fence`,
//! `commit_group` and `wait_group` order nothing in a sequential interpreter and are no-ops);
//! texture and surface objects ([`texture`]: `tex`, `tld4`, `txq`, `suld.b`, `sust.b`, `suq`).
//! `tcgen05` fails the load; other instructions the CPU device cannot run (mipmapped or cube textures) fail the
//! launch of a kernel that reaches them, naming function and line.
//!
//! ```no_run
//! use std::sync::Arc;
//! use chevron_ptx::interp::{DeviceMemory, LaunchConfig, Program};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let module = chevron_ptx::parse("…")?;
//! let memory = Arc::new(DeviceMemory::new(0));
//! let program = Program::load(&module, &memory)?;
//! let kernel = program.kernel("saxpy").ok_or("no kernel")?;
//! let params = vec![0u8; kernel.param_size as usize];
//! let config = LaunchConfig { grid: [4, 1, 1], block: [256, 1, 1], dynamic_shared: 0, threads: 2 };
//! let report = program.launch(&kernel, &config, &params)?;
//! print!("{}", report.printf_output);
//! # Ok(())
//! # }
//! ```

mod address_space;
mod block;
mod cluster;
mod defined;
pub mod device_runtime;
mod exec;
pub mod fault;
pub mod grid;
/// The decoded instruction form, defined beside the interpreter that runs it; public as
/// [`crate::lowered`], with what each instruction reads, writes and does.
#[allow(missing_docs, private_interfaces)]
pub(crate) mod inst;
mod launch_tree;
pub mod memory;
pub mod numeric;
mod printf;
pub mod program;
pub mod race;
pub mod source;
mod spin;
pub mod tensor_map;
pub mod texture;
mod warp;
mod wide_access;

pub use cluster::MAX_CLUSTER_BLOCKS;
pub use exec::KEPT_ASSERTIONS;
pub use fault::{Fault, FaultKind, LoadError, MemoryError};
pub use grid::{BlockWorkers, LaunchConfig, LaunchHooks, LaunchReport, KEPT_PRINTF_BYTES};
pub use memory::DeviceMemory;
pub use printf::format_vprintf;
pub use program::{KernelHandle, Program};
pub use race::{Race, RaceAccess, RaceLog};
pub use source::{SourceFrame, SourcePosition};
