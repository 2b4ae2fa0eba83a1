//! One module per subcommand. Each writes its output to the `Write` it is given and returns a
//! [`crate::output::Failure`] for a one-line report on stderr.

pub mod bench;
pub mod cuda_source;
pub mod demo;
pub mod devices;
pub mod exec;
pub mod exec_env;
pub mod inspect;
pub mod kernel_params;
pub mod repl;
pub mod results;
pub mod run;
pub mod trace;
pub mod trace_html;
pub mod upload;

use chevron::{Device, Runtime};

/// The runtime, or a one-line error.
pub fn runtime() -> Result<Runtime, String> {
    Runtime::new().map_err(|e| e.to_string())
}

/// The device named by `--device`, or the runtime's default device.
pub fn pick_device<'r>(runtime: &'r Runtime, label: Option<&str>) -> Result<&'r Device, String> {
    match label {
        Some(label) => runtime.device(label),
        None => runtime.default_device(),
    }
    .map_err(|e| e.to_string())
}
