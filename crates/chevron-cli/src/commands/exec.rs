//! `chevron exec [--device ID] PROGRAM [ARGS…]`: runs an unmodified CUDA program (built with
//! `-cudart shared`) on chevron's CUDA runtime.
//!
//! chevron's `libcudart.so` (soname `libcudart.so.13`, from `cargo build -p chevron-cudart`) is
//! preloaded: the dynamic linker then satisfies the program's `libcudart.so.13` dependency with
//! it, whatever RPATH or `LD_LIBRARY_PATH` would have found, so NVIDIA's library is never
//! loaded. `--device` sets `CHEVRON_DEVICES` for the program (`cpu`, `cuda:1`, …), `--check`
//! sets `CHEVRON_CHECK` (the sanitizer, docs/sanitizer.md). The program replaces this process, so
//! its exit status is the command's.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Args;

use crate::output::CommandResult;

/// The variable naming chevron's `libcudart.so` explicitly.
const LIBRARY_VARIABLE: &str = "CHEVRON_CUDART";

/// `chevron exec …`.
#[derive(Debug, Args)]
pub struct ExecArgs {
    /// Devices the program sees (as `CHEVRON_DEVICES`: `cpu`, `cuda:0`, `cuda:1,cpu`…).
    #[arg(long)]
    pub device: Option<String>,
    /// Sanitizer checks on the CPU device (as `CHEVRON_CHECK`): memcheck, initcheck, synccheck, leaks,
    /// comma-separated, or `all`; the program exits with status 1 when anything was found.
    #[arg(long, value_name = "CHECKS")]
    pub check: Option<String>,
    /// The program, then its arguments.
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    pub program: Vec<OsString>,
}

/// Replaces this process with the program, chevron's runtime preloaded.
pub fn run(args: &ExecArgs) -> CommandResult {
    let (program, rest) = args.program.split_first().ok_or("exec: no program given")?;
    let library = find_library()?;
    let mut preload = library.as_os_str().to_owned();
    if let Some(existing) = std::env::var_os("LD_PRELOAD").filter(|v| !v.is_empty()) {
        preload.push(":");
        preload.push(existing);
    }
    let mut command = Command::new(program);
    command.args(rest).env("LD_PRELOAD", preload);
    if let Some(device) = &args.device {
        command.env("CHEVRON_DEVICES", device);
    }
    if let Some(checks) = &args.check {
        crate::args::parse_checks(checks).map_err(|e| format!("exec: --check: {e}"))?;
        command.env(chevron::check::VARIABLE, checks);
    }
    let error = command.exec();
    Err(format!("exec: cannot run {}: {error}", Path::new(program).display()).into())
}

/// chevron's `libcudart.so`: `$CHEVRON_CUDART`, else next to this executable or in `../lib`.
fn find_library() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os(LIBRARY_VARIABLE) {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!(
                "exec: {LIBRARY_VARIABLE}={} is not a file",
                path.display()
            ))
        };
    }
    let exe = std::env::current_exe().map_err(|e| format!("exec: cannot locate chevron: {e}"))?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    [dir.join("libcudart.so"), dir.join("../lib/libcudart.so")]
        .into_iter()
        .find(|p| p.is_file())
        .ok_or_else(|| {
            format!(
                "exec: chevron's libcudart.so is not next to {} nor in ../lib: build it with \
                 `cargo build -p chevron-cudart` or set {LIBRARY_VARIABLE}",
                exe.display()
            )
        })
}
