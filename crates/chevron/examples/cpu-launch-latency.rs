//! Launch latency on the CPU device: a 1-block and a 2-block launch of a tiny kernel, each
//! launched and waited for many times; prints the median of each in microseconds.
//!
//! `CHEVRON_CPU_THREADS=2 cargo run --release -p chevron --example cpu-launch-latency [ROUNDS]`

use std::time::Instant;

use chevron::{Buffer, LaunchConfig, Module, Runtime};

const PTX: &str = include_str!("../tests/data/basics.ptx");

fn main() -> chevron::Result<()> {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|text| text.parse().ok())
        .unwrap_or(2000);
    let runtime = Runtime::new()?;
    let device = runtime.device("cpu")?;
    let module = Module::from_ptx(device, PTX)?;
    let fill = module.kernel("fill_index")?;
    let out = Buffer::<u32>::zeroed(device, 64)?;
    let stream = device.default_stream()?;
    for blocks in [1u32, 2] {
        let config = LaunchConfig {
            grid: [blocks, 1, 1],
            block: [32, 1, 1],
            shared_bytes: 0,
        };
        let mut samples = Vec::with_capacity(rounds);
        for _ in 0..rounds {
            let start = Instant::now();
            fill.launch(&stream, config, (&out, 64u32))?.wait()?;
            samples.push(start.elapsed().as_secs_f64() * 1e6);
        }
        samples.sort_by(f64::total_cmp);
        println!(
            "{blocks}-block launch: median {:.1} us over {rounds} launches",
            samples[rounds / 2]
        );
    }
    Ok(())
}
