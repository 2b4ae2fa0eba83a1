//! Parser throughput: parses the largest PTX file of `corpus/` (or the file given) repeatedly and
//! reports the median MB/s (1 MB = 10^6 bytes), plus print throughput for reference. The largest
//! file is not the densest (long mangled names lex fast): pass an instruction-heavy file such as
//! `corpus/nvrtc/compute_80/atomics.O0.ptx` for the slower, more typical figure.
//!
//! `cargo run --release -p chevron-ptx --example parse_throughput [FILE] [ITERATIONS]`

use std::path::{Path, PathBuf};
use std::time::Instant;

/// The largest `*.ptx` under `dir`, recursively.
fn largest_ptx(dir: &Path) -> Option<PathBuf> {
    let mut best: Option<(u64, PathBuf)> = None;
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "ptx") {
                let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
                if best.as_ref().is_none_or(|(s, _)| size > *s) {
                    best = Some((size, path));
                }
            }
        }
    }
    best.map(|(_, path)| path)
}

/// Median of the samples (sorted in place).
fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = match args.next() {
        Some(path) => PathBuf::from(path),
        None => {
            let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus");
            largest_ptx(&corpus).ok_or("no .ptx file under corpus/")?
        }
    };
    let iterations: usize = args.next().map(|n| n.parse()).transpose()?.unwrap_or(200);
    let text = std::fs::read_to_string(&path)?;
    let megabytes = text.len() as f64 / 1e6;

    let mut parse_rates = Vec::with_capacity(iterations);
    let mut module = chevron_ptx::parse(&text)?;
    for _ in 0..iterations.max(1) {
        let start = Instant::now();
        module = chevron_ptx::parse(&text)?;
        parse_rates.push(megabytes / start.elapsed().as_secs_f64());
    }
    let mut print_rates = Vec::with_capacity(iterations);
    for _ in 0..iterations.max(1) {
        let start = Instant::now();
        let printed = chevron_ptx::print(&module);
        print_rates.push(printed.len() as f64 / 1e6 / start.elapsed().as_secs_f64());
    }
    println!(
        "{}: {} bytes, {} iterations",
        path.display(),
        text.len(),
        iterations
    );
    println!("parse: median {:.1} MB/s", median(&mut parse_rates));
    println!("print: median {:.1} MB/s", median(&mut print_rates));
    Ok(())
}
