//! `chevron devices`: the devices in use and why any backend is unavailable.

use std::io::Write;

use serde_json::json;

use super::runtime;
use crate::output::CommandResult;

/// Lists devices (text or JSON).
pub fn run(as_json: bool, out: &mut dyn Write) -> CommandResult {
    let runtime = runtime()?;
    if as_json {
        let devices: Vec<_> = runtime
            .devices()
            .iter()
            .map(|d| {
                let info = d.info();
                json!({
                    "label": d.label(),
                    "name": info.name,
                    "backend": info.backend.as_str(),
                    "ordinal": info.ordinal,
                    "compute_capability": format!("{}.{}", info.compute_capability.0, info.compute_capability.1),
                    "multiprocessors": info.multiprocessors,
                    "total_memory": info.total_memory,
                    "warp_size": info.warp_size,
                    "max_threads_per_block": info.max_threads_per_block,
                    "max_shared_per_block": info.max_shared_per_block,
                    "max_shared_per_block_optin": info.max_shared_per_block_optin,
                })
            })
            .collect();
        let backends: Vec<_> = runtime
            .backends()
            .iter()
            .map(|b| {
                json!({
                    "backend": b.backend.as_str(),
                    "devices": b.devices_used,
                    "unavailable": b.unavailable,
                })
            })
            .collect();
        writeln!(
            out,
            "{}",
            json!({ "devices": devices, "backends": backends })
        )?;
        return Ok(());
    }
    for (i, d) in runtime.devices().iter().enumerate() {
        let info = d.info();
        let default = if i == 0 { "  (default)" } else { "" };
        writeln!(
            out,
            "{:<8} {}  sm_{}{}  {} SMs  {:.1} GiB  warp {}  {} threads/block  {} KiB shared{}",
            d.label(),
            info.name,
            info.compute_capability.0,
            info.compute_capability.1,
            info.multiprocessors,
            info.total_memory as f64 / (1u64 << 30) as f64,
            info.warp_size,
            info.max_threads_per_block,
            info.max_shared_per_block / 1024,
            default,
        )?;
    }
    for backend in runtime.backends() {
        if let Some(why) = &backend.unavailable {
            writeln!(out, "{:<8} unavailable: {why}", backend.backend.as_str())?;
        }
    }
    if runtime.devices().is_empty() {
        return Err("no device is available".into());
    }
    Ok(())
}
