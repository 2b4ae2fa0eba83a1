//! `chevron trace`: run a program with the host trace (and a built-in instrumentation tool)
//! on, or turn a trace into a self-contained HTML timeline; and `--trace` of `chevron run`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

use clap::Args;

use crate::output::{CommandResult, Failure};
use crate::source_file::{read_bounded, MAX_TRACE_BYTES};

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
    /// The program and its arguments: a CUDA program (run on chevron's runtime, as `chevron
    /// exec` runs it) or one linked against chevron (Rust, C or MLIR).
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
    super::exec_env::serve_cuda_runtime(&mut command, program)?;
    let status_file = std::env::temp_dir().join(format!(
        "chevron-trace-status-{}-{}",
        std::process::id(),
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    let _ = std::fs::remove_file(&status_file);
    command.env("CHEVRON_TRACE_STATUS", &status_file);
    let status = command.status();
    let reported = read_bounded(&status_file, 1 << 16, "a trace status").ok();
    let _ = std::fs::remove_file(&status_file);
    let status = status.map_err(|e| format!("cannot run `{program}`: {e}"))?;
    let reported = reported.map(|r| String::from_utf8_lossy(&r).trim().to_string());
    let name = output.display();
    match reported.as_deref() {
        Some(line) if line.starts_with("ok") => {
            let events = line.trim_start_matches("ok").trim();
            eprintln!("chevron: trace written to {name} ({events} events)");
        }
        Some(line) => {
            let message = line.trim_start_matches("error:").trim();
            return Err(format!("the trace was not written: {message}").into());
        }
        // Ended by a signal (abort, a crash): the trace is complete up to the last batch.
        None if output.is_file() && ends_complete(&output) => {
            eprintln!("chevron: trace written to {name} (up to where the program ended)");
        }
        None => {
            return Err(format!(
                "`{program}` wrote no trace to {name} (is it a CUDA program, or linked against \
                 chevron?)"
            )
            .into())
        }
    }
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{program}` failed: {status}").into())
    }
}

/// Whether the trace file `path` ends with the trace's closing text.
fn ends_complete(path: &Path) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    let mut tail = Vec::new();
    file.seek(SeekFrom::End(-4))
        .and_then(|_| file.read_to_end(&mut tail))
        .is_ok()
        && tail.ends_with(b"]}\n")
}

/// Converts the trace `json` into the HTML timeline `output`.
fn write_html(json: &Path, output: &Path) -> CommandResult {
    let text = read_bounded(json, MAX_TRACE_BYTES, "a trace")?;
    let trace: serde_json::Value = serde_json::from_slice(&text)
        .map_err(|e| format!("{} is not JSON: {e}", json.display()))?;
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
    chevron::trace::start(path)?;
    let result = command();
    let written = chevron::trace::stop().map_err(Failure::from);
    result.and(written.map(|_| ()))
}
