//! Measures graph replay on the default device: 256 small kernels (`add_one`, then the argument-less `empty`) x 100 repetitions, eager,
//! explicit graph, automatic replay and (on CUDA) a graph built through the raw driver, plus
//! the cost of argument updates per node and automatic replay's host time per held launch.
//!
//! `cargo run --release -p chevron-bench --example 07-graph-bench [-- [quick] [runs N]]`: with
//! `runs N` (default 1) the benchmark runs N times, prints each run and then the medians of the
//! runs' medians; `quick` takes 10 repetitions instead of 100.

use chevron::Runtime;
use chevron_bench::{graph_replay, GraphBenchOptions, GraphKernel, GraphReport};

fn main() -> chevron::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut options = GraphBenchOptions::default();
    if args.iter().any(|a| a == "quick") {
        options.repetitions = 10;
    }
    let runs = match args.iter().position(|a| a == "runs") {
        Some(i) => match args.get(i + 1).and_then(|n| n.parse::<usize>().ok()) {
            Some(n) if n > 0 => n,
            _ => {
                eprintln!("usage: 07-graph-bench [quick] [runs N] (N at least 1)");
                std::process::exit(2);
            }
        },
        None => 1,
    };
    let runtime = Runtime::new()?;
    let device = runtime.default_device()?;
    for kernel in [GraphKernel::AddOne, GraphKernel::Empty] {
        options.kernel = kernel;
        let mut reports = Vec::with_capacity(runs);
        for run in 1..=runs {
            let report = graph_replay(device, &options)?;
            if runs > 1 {
                println!("run {run} of {runs}:");
            }
            print!("{report}");
            reports.push(report);
        }
        if let (true, Some(median)) = (runs > 1, GraphReport::median_of(&reports)) {
            println!("\nmedians of {runs} runs:");
            print!("{median}");
        }
    }
    Ok(())
}
