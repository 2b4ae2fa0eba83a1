//! Launching kernels: the [`Kernel`] handle, its arguments and the launch configuration.

pub(crate) mod args;
pub(crate) mod config;
pub(crate) mod kernel;

pub use args::{KernelArg, KernelArgs, Value};
pub use config::Dim3;
pub use kernel::Kernel;
