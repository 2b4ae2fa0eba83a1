//! Launching kernels: the [`Kernel`] handle, its arguments and the launch configuration.

pub(crate) mod args;
pub(crate) mod checks;
pub(crate) mod config;
pub(crate) mod kernel;
mod lookup;
pub(crate) mod raw_args;
pub(crate) mod submit;
mod traced;

pub use args::{KernelArg, KernelArgs, Value};
pub use checks::MAX_PARAM_BYTES;
pub use config::Dim3;
pub use kernel::Kernel;
pub use raw_args::RawArgs;
