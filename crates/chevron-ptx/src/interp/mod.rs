//! The PTX interpreter: runs the PTX a GPU runs, with GPU semantics, on the CPU.
//!
//! - [`DeviceMemory`] ([`memory`]): a CPU device's memory, host memory behind an allocation
//!   table that catches out-of-bounds accesses and uses after free.
//! - [`Program`] ([`program`]): a module decoded once into an executable form; its `.global` and
//!   `.const` variables allocated in device memory.
//! - [`Program::launch`] ([`grid`]): a grid of blocks on worker threads; each block ([`block`])
//!   runs its warps ([`warp`]) of 32 lanes with one program counter each, converged lanes
//!   stepped together; instruction families live in `exec/`.
//! - [`Fault`] ([`fault`]): what a faulting kernel reports: kernel, block, thread, PTX line,
//!   instruction and address.
//! - [`numeric`]: the bit-exact arithmetic of PTX instructions.
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

mod block;
mod exec;
pub mod fault;
pub mod grid;
mod inst;
pub mod memory;
pub mod numeric;
mod printf;
pub mod program;
mod warp;

pub use fault::{Fault, FaultKind, LoadError, MemoryError};
pub use grid::{LaunchConfig, LaunchReport};
pub use memory::DeviceMemory;
pub use program::{KernelHandle, Program};
