//! Kernels the unit tests share: the integration tests' `data/grid_sync.ptx` (nvcc's output of
//! `data/grid_sync.cu`), loaded into a program of its own.

use std::sync::Arc;

use chevron_ptx::interp::{DeviceMemory, Program};

/// The program of `tests/data/grid_sync.ptx`.
pub(crate) fn grid_sync() -> Program {
    let text = include_str!("../tests/data/grid_sync.ptx");
    let module = chevron_ptx::parse(text).expect("parses");
    Program::load(&module, &Arc::new(DeviceMemory::new(0))).expect("loads")
}
