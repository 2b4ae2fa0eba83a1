//! `chevron bench`: launch overhead of chevron against the raw driver, in one process.

use chevron::bench::{launch_overhead, BenchOptions};
use std::io::Write;

use chevron::BackendKind;
use serde_json::json;

use super::{pick_device, runtime};
use crate::output::CommandResult;

/// Runs the benchmark and prints the table (or JSON).
pub fn run(device: Option<&str>, as_json: bool, out: &mut dyn Write) -> CommandResult {
    let runtime = runtime()?;
    let device = pick_device(&runtime, device)?;
    let options = match device.backend() {
        BackendKind::Cuda => BenchOptions::default(),
        BackendKind::Cpu => BenchOptions::quick(),
    };
    let report = launch_overhead(device, &options).map_err(|e| e.to_string())?;
    if as_json {
        let figures: Vec<_> = report
            .figures
            .iter()
            .map(|f| {
                json!({
                    "kernel": f.kernel,
                    "variant": f.variant.as_str(),
                    "enqueue_ns": f.enqueue_ns,
                    "round_trip_ns": f.round_trip_ns,
                    "enqueue_ratio": f.enqueue_ratio,
                    "round_trip_ratio": f.round_trip_ratio,
                    "meets_target": f.meets_target(),
                })
            })
            .collect();
        writeln!(
            out,
            "{}",
            json!({ "device": report.device, "figures": figures })
        )?;
    } else {
        write!(out, "{report}")?;
    }
    Ok(())
}
