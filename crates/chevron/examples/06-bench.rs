//! Measures launch overhead on the default device against the raw driver (on CUDA).
//!
//! `cargo run --release -p chevron --example 06-bench` (`-- quick` for fewer samples).

use chevron::bench::{launch_overhead, BenchOptions};
use chevron::Runtime;

fn main() -> chevron::Result<()> {
    let runtime = Runtime::new()?;
    let device = runtime.default_device()?;
    let options = match std::env::args().nth(1).as_deref() {
        Some("quick") => BenchOptions::quick(),
        _ if device.backend() == chevron::BackendKind::Cpu => BenchOptions::quick(),
        _ => BenchOptions::default(),
    };
    print!("{}", launch_overhead(device, &options)?);
    Ok(())
}
