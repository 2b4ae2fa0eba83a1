//! `chevron exec [--device ID] PROGRAM [ARGS…]`: runs an unmodified CUDA program (built with
//! `-cudart shared`, or calling the driver API) on chevron's CUDA runtime and driver.
//!
//! Two libraries are preloaded. `libchevron_driver.so` (soname `libcudart.so.13`, from
//! `cargo build -p chevron-driver`) holds chevron's state and serves both the runtime and the
//! driver API; `libcuda.so` (soname `libcuda.so.1`, from `cargo build -p chevron-libcuda`) is
//! a filter whose lookups it answers. The dynamic linker then satisfies the program's
//! `libcudart.so.13` and `libcuda.so.1` dependencies, and `dlopen("libcuda.so.1")` by name
//! (cuda-bindings, Numba, CuPy), with them, whatever RPATH or `LD_LIBRARY_PATH` would have
//! found, so NVIDIA's libraries are never loaded by the program (chevron's CUDA backend opens
//! NVIDIA's driver by its path). `--device` sets `CHEVRON_DEVICES` for the program (`cpu`,
//! `cuda:1`, …), `--check` sets `CHEVRON_CHECK` (the sanitizer, docs/sanitizer.md). A program
//! that carries NVIDIA's runtime linked in statically (nvcc's default) runs the same way: that
//! runtime calls the driver API and its private export tables, which the driver library serves
//! (docs/static-runtime.md). The program replaces this process, so its exit status is the
//! command's.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Args;

use crate::output::CommandResult;

/// The variable naming the library that serves `libcudart.so.13` explicitly.
const LIBRARY_VARIABLE: &str = "CHEVRON_CUDART";
/// The variable naming the `libcuda.so.1` filter explicitly.
const FILTER_VARIABLE: &str = "CHEVRON_LIBCUDA";

/// `chevron exec …`.
#[derive(Debug, Args)]
pub struct ExecArgs {
    /// Devices the program sees (as `CHEVRON_DEVICES`: `cpu`, `cuda:0`, `cuda:1,cpu`…).
    #[arg(long)]
    pub device: Option<String>,
    /// Sanitizer checks on the CPU device (as `CHEVRON_CHECK`): memcheck, racecheck, initcheck, synccheck, leaks,
    /// comma-separated, or `all`; the program exits with status 1 when anything was found.
    #[arg(long, value_name = "CHECKS")]
    pub check: Option<String>,
    /// The program, then its arguments.
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    pub program: Vec<OsString>,
}

/// Replaces this process with the program, chevron's runtime and driver preloaded.
pub fn run(args: &ExecArgs) -> CommandResult {
    let (program, rest) = args.program.split_first().ok_or("exec: no program given")?;
    let libraries = find_libraries()?;
    let mut preload = OsString::new();
    for library in &libraries {
        if !preload.is_empty() {
            preload.push(":");
        }
        preload.push(library);
    }
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

/// A file named by `variable`, if set.
fn from_variable(variable: &str) -> Result<Option<PathBuf>, String> {
    match std::env::var_os(variable) {
        None => Ok(None),
        Some(path) if Path::new(&path).is_file() => Ok(Some(PathBuf::from(path))),
        Some(path) => Err(format!(
            "exec: {variable}={} is not a file",
            Path::new(&path).display()
        )),
    }
}

/// The libraries to preload: the one serving `libcudart.so.13` (`$CHEVRON_CUDART`, else
/// `libchevron_driver.so`, else the runtime-only `libcudart.so`, next to this executable (a build
/// tree), in `../lib/chevron` (the layout `scripts/install` writes) or in `../lib`), then the `libcuda.so.1` filter (`$CHEVRON_LIBCUDA`, else `libcuda.so` beside the
/// first) when the first is the driver library or the filter was named.
fn find_libraries() -> Result<Vec<PathBuf>, String> {
    let library = match from_variable(LIBRARY_VARIABLE)? {
        Some(path) => path,
        None => {
            let exe =
                std::env::current_exe().map_err(|e| format!("exec: cannot locate chevron: {e}"))?;
            let dir = exe.parent().unwrap_or(Path::new("."));
            ["libchevron_driver.so", "libcudart.so"]
                .iter()
                .flat_map(|name| {
                    [
                        dir.join(name),
                        dir.join("../lib/chevron").join(name),
                        dir.join("../lib").join(name),
                    ]
                })
                .find(|p| p.is_file())
                .map(|p| p.canonicalize().unwrap_or(p))
                .ok_or_else(|| {
                    format!(
                        "exec: chevron's libchevron_driver.so is not next to {} nor in \
                         ../lib/chevron or ../lib: install chevron with scripts/install, build it \
                         with `cargo build -p chevron-driver -p chevron-libcuda` or set \
                         {LIBRARY_VARIABLE}",
                        exe.display()
                    )
                })?
        }
    };
    let mut libraries = vec![library.clone()];
    let serves_driver = library
        .file_name()
        .is_some_and(|name| name == "libchevron_driver.so");
    let beside = library.with_file_name("libcuda.so");
    match from_variable(FILTER_VARIABLE)? {
        Some(filter) => libraries.push(filter),
        None if serves_driver && beside.is_file() => libraries.push(beside),
        None if serves_driver => {
            return Err(format!(
                "exec: chevron's libcuda.so is not next to {}: build it with `cargo build -p \
                 chevron-libcuda` or set {FILTER_VARIABLE}",
                library.display()
            ))
        }
        None => {}
    }
    Ok(libraries)
}
