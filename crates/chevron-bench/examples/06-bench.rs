//! Measures launch overhead on the default device against the raw driver (on CUDA).
//!
//! `cargo run --release -p chevron-bench --example 06-bench` (`-- quick` for fewer samples). An
//! unoptimized build refuses to run: its figures would measure the debug build, not chevron.

use std::process::ExitCode;

use chevron::Runtime;
use chevron_bench::{launch_overhead, BenchOptions};

fn main() -> ExitCode {
    if cfg!(debug_assertions) {
        eprintln!(
            "06-bench: this is an unoptimized build, whose figures say nothing about chevron; \
             run `cargo run --release -p chevron-bench --example 06-bench`"
        );
        return ExitCode::from(2);
    }
    match bench() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("06-bench: {err}");
            ExitCode::from(2)
        }
    }
}

fn bench() -> chevron::Result<()> {
    let runtime = Runtime::new()?;
    let device = runtime.default_device()?;
    let options = match std::env::args().nth(1).as_deref() {
        Some("quick") => BenchOptions::quick(),
        _ => BenchOptions::for_device(device),
    };
    print!("{}", launch_overhead(device, &options)?);
    Ok(())
}
