//! `chevron bench`: launch overhead of chevron against the raw driver, in one process.

use chevron_bench::{graph_replay, launch_overhead, BenchOptions, GraphBenchOptions};
use std::io::Write;

use serde_json::json;

use super::{pick_device, runtime};
use crate::output::CommandResult;

/// Runs the benchmark and prints the table (or JSON).
pub fn run(
    device: Option<&str>,
    as_json: bool,
    graphs: bool,
    out: &mut dyn Write,
) -> CommandResult {
    let runtime = runtime()?;
    let device = pick_device(&runtime, device)?;
    if graphs {
        return graph_bench(device, as_json, out);
    }
    let options = BenchOptions::for_device(device);
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

/// `chevron bench --graphs`: graph replay against eager launches (and a raw CUDA graph).
fn graph_bench(device: &chevron::Device, as_json: bool, out: &mut dyn Write) -> CommandResult {
    let options = GraphBenchOptions::for_device(device);
    let report = graph_replay(device, &options).map_err(|e| e.to_string())?;
    if as_json {
        let figures: Vec<_> = report
            .figures
            .iter()
            .map(|f| {
                json!({
                    "variant": f.variant.as_str(),
                    "submit_ns_per_kernel": f.submit_ns,
                    "complete_ns_per_kernel": f.complete_ns,
                })
            })
            .collect();
        writeln!(
            out,
            "{}",
            json!({
                "device": report.device,
                "kernels": report.options.kernels,
                "repetitions": report.options.repetitions,
                "figures": figures,
                "update_ns_per_node": report.update_ns,
                "raw_update_ns_per_node": report.raw_update_ns,
            })
        )?;
    } else {
        write!(out, "{report}")?;
    }
    Ok(())
}
