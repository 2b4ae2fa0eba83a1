//! `chevron trace`: run a program with the host trace (and a built-in instrumentation tool)
//! on, or turn a trace into a self-contained HTML timeline; and `--trace` of `chevron run`.

use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Args;

use crate::output::{CommandResult, Failure};

/// `chevron trace [-o FILE.json] [--instrument KIND] -- PROGRAM [ARGS...]`, or
/// `chevron trace --html FILE.json [-o FILE.html]`.
#[derive(Debug, Args)]
pub struct TraceArgs {
    /// Where the trace goes (default `chevron-trace.json`); with `--html`, where the HTML goes
    /// (default: the trace's name with `.html`).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// A built-in instrumentation tool for every PTX module the program loads: blocks
    /// (per-block timestamps), counts (basic blocks, instructions) or memory (global accesses).
    #[arg(long, value_name = "KIND", value_parser = ["blocks", "counts", "memory"])]
    pub instrument: Option<String>,
    /// Turn this trace (Chrome trace-event JSON) into an HTML timeline instead of running.
    #[arg(long, value_name = "FILE.json", conflicts_with_all = ["instrument", "program"])]
    pub html: Option<PathBuf>,
    /// The program (linked against chevron: Rust, C or MLIR) and its arguments.
    #[arg(last = true, value_name = "PROGRAM [ARGS]")]
    pub program: Vec<String>,
}

/// Runs the command.
pub fn run(args: &TraceArgs) -> CommandResult {
    if let Some(json) = &args.html {
        let output = args
            .output
            .clone()
            .unwrap_or_else(|| json.with_extension("html"));
        return write_html(json, &output);
    }
    let Some((program, rest)) = args.program.split_first() else {
        return Err("nothing to trace: give `-- PROGRAM [ARGS...]` or `--html FILE.json`".into());
    };
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from("chevron-trace.json"));
    let mut command = Command::new(program);
    command.args(rest).env("CHEVRON_TRACE", &output);
    match &args.instrument {
        Some(kind) => command.env("CHEVRON_INSTRUMENT", kind),
        None => command.env_remove("CHEVRON_INSTRUMENT"),
    };
    let status = command
        .status()
        .map_err(|e| format!("cannot run `{program}`: {e}"))?;
    if !output.exists() {
        return Err(format!(
            "`{program}` wrote no trace to {} (is it linked against chevron?)",
            output.display()
        )
        .into());
    }
    eprintln!("chevron: trace written to {}", output.display());
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{program}` failed: {status}").into())
    }
}

/// Converts the trace `json` into the HTML timeline `output`.
fn write_html(json: &Path, output: &Path) -> CommandResult {
    let text = std::fs::read_to_string(json)
        .map_err(|e| format!("cannot read {}: {e}", json.display()))?;
    let trace: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", json.display()))?;
    let title = json
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let html = super::trace_html::render(&trace, &title)
        .map_err(|e| format!("{}: {e}", json.display()))?;
    std::fs::write(output, html).map_err(|e| format!("cannot write {}: {e}", output.display()))?;
    eprintln!("chevron: timeline written to {}", output.display());
    Ok(())
}

/// Runs `command` with the trace recording into `path` when it is given (`chevron run
/// --trace`), and writes the trace afterwards, whether the command succeeded or not. Either
/// way, what the device side holds for the trace and the instrumentation summary (records of
/// `CHEVRON_INSTRUMENT` tools) is read right after the command, before any teardown: at exit a
/// GPU driver may already be shut down.
pub fn with_trace(path: Option<&Path>, command: impl FnOnce() -> CommandResult) -> CommandResult {
    let Some(path) = path else {
        let result = command();
        let flushed = chevron::trace::flush().map_err(Failure::from);
        return result.and(flushed);
    };
    chevron::trace::start(path);
    let result = command();
    let written = chevron::trace::stop().map_err(Failure::from);
    result.and(written.map(|_| ()))
}
