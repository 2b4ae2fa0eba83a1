//! Lists the devices chevron found, and why any backend is missing.
//!
//! `cargo run -p chevron --example 01-devices` (try `CHEVRON_DEVICES=cpu` or
//! `CHEVRON_CPU_DEVICES=2`).

fn main() -> chevron::Result<()> {
    let runtime = chevron::Runtime::new()?;
    for (i, device) in runtime.devices().iter().enumerate() {
        let (major, minor) = device.compute_capability();
        println!(
            "{}{device}: compute {major}.{minor}, {} multiprocessors, {} MiB, warp {}, \
             {} threads per block",
            if i == 0 { "* " } else { "  " },
            device.multiprocessor_count(),
            device.total_memory() >> 20,
            device.warp_size(),
            device.limits().max_threads_per_block,
        );
    }
    for status in runtime.backends() {
        if let Some(reason) = &status.unavailable {
            println!("{} unavailable: {reason}", status.backend.as_str());
        }
    }
    Ok(())
}
