//! Measures graph replay on the default device: 256 small kernels x 100 repetitions, eager,
//! explicit graph, automatic replay and (on CUDA) a graph built through the raw driver.
//!
//! `cargo run --release -p chevron --example 07-graph-bench` (`-- quick` for fewer samples).

use chevron::bench::{graph_replay, GraphBenchOptions};
use chevron::Runtime;

fn main() -> chevron::Result<()> {
    let runtime = Runtime::new()?;
    let device = runtime.default_device()?;
    let mut options = GraphBenchOptions::default();
    if std::env::args().nth(1).as_deref() == Some("quick") {
        options.repetitions = 10;
    }
    print!("{}", graph_replay(device, &options)?);
    Ok(())
}
