//! The host memory a long trace costs: LAUNCHES launches of an empty kernel with the trace
//! recording into FILE (`/dev/null` measures memory without the disk), a synchronize every
//! 10,000 launches; prints the peak resident set (VmHWM) before the trace starts, at each tenth
//! of the launches, and after the trace is written. The trace is written as it is recorded, so
//! the peak stays flat however many launches.
//!
//! `CHEVRON_DEVICES=cpu cargo run -p chevron --example trace-memory -- LAUNCHES FILE`

use std::time::Instant;

use chevron::{LaunchConfig, Module, Runtime};

const EMPTY: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry empty()
{
    ret;
}
"#;

/// The peak resident set so far, in KiB (`VmHWM` of /proc/self/status).
fn peak_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn main() -> chevron::Result<()> {
    let mut args = std::env::args().skip(1);
    let launches: u64 = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let path = args.next().unwrap_or_else(|| "/dev/null".into());
    let runtime = Runtime::new()?;
    let device = runtime.default_device()?;
    let module = Module::from_ptx(device, EMPTY)?;
    let kernel = module.kernel("empty")?;
    let stream = device.create_stream()?;
    let config = LaunchConfig {
        grid: [1, 1, 1],
        block: [1, 1, 1],
        shared_bytes: 0,
    };
    kernel.launch(&stream, config, ())?.wait()?;
    let before = peak_kib();
    println!("before the trace: peak {before} KiB");
    let started = Instant::now();
    chevron::trace::start(&path)?;
    for i in 1..=launches {
        kernel.launch(&stream, config, ())?;
        if i % 10_000 == 0 {
            stream.synchronize()?;
        }
        if i % (launches / 10).max(1) == 0 {
            println!("{i} launches: peak {} KiB", peak_kib());
        }
    }
    stream.synchronize()?;
    let events = chevron::trace::stop()?;
    let after = peak_kib();
    println!(
        "{launches} launches traced, {events} events written in {:.1} s: peak {after} KiB \
         ({} KiB over the peak before the trace)",
        started.elapsed().as_secs_f64(),
        after.saturating_sub(before)
    );
    Ok(())
}
