//! The graph benchmark (`chevron bench --graphs`): `kernels` small launches per repetition,
//! submitted four ways and timed per repetition, reported as medians per kernel:
//!
//! - **eager**: `kernels` checked [`Kernel::launch`] calls;
//! - **explicit graph**: one [`Graph::launch`] of the same launches recorded once;
//! - **automatic replay**: the eager loop on a stream with [`Stream::auto_graph`] on (after the
//!   two repetitions it needs to learn the sequence), once with the same arguments every
//!   repetition and once with one argument changing every repetition (one update per node);
//! - **raw CUDA graph** (CUDA only): the same graph built and launched through the driver.
//!
//! Per repetition, *submit* is the host time to hand the work over and *complete* adds the
//! stream synchronization. The variants run interleaved, one repetition each per round. The
//! cost of argument updates is timed separately: [`Graph::set_args`] on every node, and raw
//! `cuGraphExecKernelNodeSetParams` on every node.

use std::time::Instant;

use super::graph_report::{GraphFigure, GraphReport, GraphVariant};
use super::kernels::GRAPH_PTX;
use super::median;
use super::raw_graph::RawGraph;
use chevron::{Buffer, Device, Graph, LaunchConfig, Module, Result, Stream};

/// The kernel the graph benchmark launches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum GraphKernel {
    /// `add_one(data, n)`: 32 threads each add 1 to one element (two arguments).
    #[default]
    AddOne,
    /// `empty()`: no arguments, no work: what a graph node costs by itself.
    Empty,
}

impl GraphKernel {
    /// The kernel's name in [`GRAPH_PTX`].
    pub fn name(self) -> &'static str {
        match self {
            GraphKernel::AddOne => "add_one",
            GraphKernel::Empty => "empty",
        }
    }
}

/// Sizes of the graph benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphBenchOptions {
    /// Launches per repetition.
    pub kernels: usize,
    /// Timed repetitions per variant.
    pub repetitions: usize,
    /// The kernel launched.
    pub kernel: GraphKernel,
}

impl Default for GraphBenchOptions {
    fn default() -> Self {
        GraphBenchOptions {
            kernels: 256,
            repetitions: 100,
            kernel: GraphKernel::AddOne,
        }
    }
}

impl GraphBenchOptions {
    /// The options for `device`: 10 repetitions where its backend runs kernels in software.
    pub fn for_device(device: &Device) -> GraphBenchOptions {
        let mut options = GraphBenchOptions::default();
        if device.backend().runs_in_software() {
            options.repetitions = 10;
        }
        options
    }
}

/// Elements (threads) each small kernel touches: one warp.
const ELEMENTS: u32 = 32;

/// Evaluates `$body` with `$args` bound to the arguments of `$kind`'s kernel: `(&data, n)` for
/// `add_one`, `()` for `empty` (each kind keeps its typed, checked launch).
macro_rules! by_kernel {
    ($kind:expr, $data:expr, $n:expr, |$args:ident| $body:expr) => {
        match $kind {
            GraphKernel::AddOne => {
                let $args = (&$data, $n);
                $body
            }
            GraphKernel::Empty => {
                let $args = ();
                $body
            }
        }
    };
}

/// Runs the graph benchmark on `device`.
pub fn graph_replay(device: &Device, options: &GraphBenchOptions) -> Result<GraphReport> {
    let module = Module::from_ptx(device, GRAPH_PTX)?;
    let kind = options.kernel;
    let kernel = module.kernel(kind.name())?;
    let data = Buffer::<u32>::zeroed(device, ELEMENTS as usize)?;
    let config = LaunchConfig::new(1, ELEMENTS);
    let n = ELEMENTS;
    let count = options.kernels;

    let eager = device.create_stream()?;
    let auto = device.create_stream()?;
    auto.auto_graph(true)?;
    let changing = device.create_stream()?;
    changing.auto_graph(true)?;
    let explicit = device.create_stream()?;
    let mut graph = explicit.record(|s| {
        for _ in 0..count {
            by_kernel!(kind, data, n, |args| s.launch(&kernel, config, args))?;
        }
        Ok(())
    })?;
    let data_ptr = data.device_ptr();
    let add_one_args = [
        &data_ptr as *const u64 as *mut std::ffi::c_void,
        &n as *const u32 as *mut std::ffi::c_void,
    ];
    let raw_args: &[*mut std::ffi::c_void] = match kind {
        GraphKernel::AddOne => &add_one_args,
        GraphKernel::Empty => &[],
    };
    // SAFETY: one pointer per parameter of the kernel (`add_one`: u64, u32; `empty`: none),
    // alive until the function ends.
    let raw = unsafe { RawGraph::new(&kernel, &eager, config, raw_args, count) }.transpose()?;

    let run_eager = |stream: &Stream, round: usize, vary: bool| -> Result<()> {
        let n = if vary { n - (round % 2) as u32 } else { n };
        for _ in 0..count {
            by_kernel!(kind, data, n, |args| kernel.launch(stream, config, args))?;
        }
        Ok(())
    };
    // Two repetitions teach automatic replay the sequence (and instantiate its graph).
    for round in 0..2 {
        for (stream, vary) in [(&auto, false), (&changing, true)] {
            if vary && kind == GraphKernel::Empty {
                continue; // No argument to change.
            }
            run_eager(stream, round, vary)?;
            stream.synchronize()?;
        }
    }

    let mut samples: Vec<(GraphVariant, Vec<f64>, Vec<f64>)> = Vec::new();
    let mut record = |variant: GraphVariant, submit: f64, complete: f64| match samples
        .iter_mut()
        .find(|(v, _, _)| *v == variant)
    {
        Some((_, s, c)) => {
            s.push(submit);
            c.push(complete);
        }
        None => samples.push((variant, vec![submit], vec![complete])),
    };
    for round in 0..options.repetitions {
        let (s, c) = timed(|| run_eager(&eager, round, false), || eager.synchronize())?;
        record(GraphVariant::Eager, s, c);
        let (s, c) = timed(
            || graph.launch(&explicit, &[]).map(drop),
            || explicit.synchronize(),
        )?;
        record(GraphVariant::Explicit, s, c);
        let (s, c) = timed(|| run_eager(&auto, round, false), || auto.synchronize())?;
        record(GraphVariant::Automatic, s, c);
        if kind == GraphKernel::AddOne {
            let (s, c) = timed(
                || run_eager(&changing, round, true),
                || changing.synchronize(),
            )?;
            record(GraphVariant::AutomaticChanging, s, c);
        }
        if let Some(raw) = &raw {
            let (s, c) = timed(|| raw.launch(), || eager.synchronize())?;
            record(GraphVariant::RawCuda, s, c);
        }
    }

    let per_kernel = count.max(1) as f64;
    let figures = samples
        .into_iter()
        .map(|(variant, mut submit, mut complete)| GraphFigure {
            variant,
            submit_ns: median(&mut submit) / per_kernel,
            complete_ns: median(&mut complete) / per_kernel,
        })
        .collect();
    let matching_ns = matching_cost(&auto, options, |stream| {
        by_kernel!(kind, data, n, |args| kernel.launch(stream, config, args)).map(drop)
    })?;
    let update_ns = update_cost(&mut graph, &data, options)?;
    let raw_update_ns = match &raw {
        Some(raw) => {
            let mut samples = Vec::with_capacity(options.repetitions);
            for _ in 0..options.repetitions {
                let start = Instant::now();
                raw.set_all_params()?;
                samples.push(start.elapsed().as_nanos() as f64 / per_kernel);
            }
            Some(median(&mut samples))
        }
        None => None,
    };
    Ok(GraphReport {
        device: device.to_string(),
        options: *options,
        figures,
        update_ns,
        raw_update_ns,
        matching_ns,
        auto_stats: auto.auto_graph_stats(),
    })
}

/// Median host time per launch that automatic replay holds back (the public checks, matching
/// against the sequence, copying the values): each repetition times its first `kernels - 1`
/// launches, then launches the last (which replays the graph) and synchronizes, untimed.
fn matching_cost(
    stream: &Stream,
    options: &GraphBenchOptions,
    launch: impl Fn(&Stream) -> Result<()>,
) -> Result<f64> {
    let held = options.kernels.saturating_sub(1);
    if held == 0 {
        return Ok(f64::NAN);
    }
    let mut samples = Vec::with_capacity(options.repetitions);
    for _ in 0..options.repetitions {
        let start = Instant::now();
        for _ in 0..held {
            launch(stream)?;
        }
        samples.push(start.elapsed().as_nanos() as f64 / held as f64);
        launch(stream)?;
        stream.synchronize()?;
    }
    Ok(median(&mut samples))
}

/// Median time of [`Graph::set_args`] per node, over every node, `repetitions` times.
fn update_cost(graph: &mut Graph, data: &Buffer<u32>, options: &GraphBenchOptions) -> Result<f64> {
    let mut samples = Vec::with_capacity(options.repetitions);
    for round in 0..options.repetitions {
        let n = ELEMENTS - (round % 2) as u32;
        let start = Instant::now();
        for node in 0..graph.len() {
            by_kernel!(options.kernel, *data, n, |args| graph
                .set_args(graph.node(node), args))?;
        }
        samples.push(start.elapsed().as_nanos() as f64 / graph.len().max(1) as f64);
    }
    Ok(median(&mut samples))
}

/// Host time of `submit`, and of `submit` followed by `sync`, in nanoseconds.
fn timed(
    submit: impl FnOnce() -> Result<()>,
    sync: impl FnOnce() -> Result<()>,
) -> Result<(f64, f64)> {
    let start = Instant::now();
    submit()?;
    let submitted = start.elapsed().as_nanos() as f64;
    sync()?;
    Ok((submitted, start.elapsed().as_nanos() as f64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chevron::backend::cpu::discover;
    use chevron::Runtime;

    /// The benchmark of `kernel` on a CPU device, 8 kernels x 3 repetitions, and the variants
    /// it measured.
    fn run_on_cpu(kernel: GraphKernel) -> (GraphReport, Vec<GraphVariant>) {
        let runtime = Runtime::from_devices(discover().unwrap());
        let device = runtime.default_device().unwrap();
        let options = GraphBenchOptions {
            kernels: 8,
            repetitions: 3,
            kernel,
        };
        let report = graph_replay(device, &options).unwrap();
        let measured = report.figures.iter().map(|f| f.variant).collect();
        (report, measured)
    }

    #[test]
    fn every_variant_is_measured_and_automatic_replay_replays_each_timed_repetition() {
        let (report, measured) = run_on_cpu(GraphKernel::AddOne);
        assert_eq!(
            measured,
            [
                GraphVariant::Eager,
                GraphVariant::Explicit,
                GraphVariant::Automatic,
                GraphVariant::AutomaticChanging
            ]
        );
        assert!(report
            .figures
            .iter()
            .all(|f| f.submit_ns > 0.0 && f.complete_ns >= f.submit_ns));
        // One learning repetition, one that instantiates and replays, then one per timed round
        // and one per round of the matching cost.
        let stats = report.auto_stats;
        assert_eq!((stats.instantiations, stats.replays), (1, 7), "{stats:?}");
        assert_eq!(stats.eager_launches, 8);
        assert_eq!(stats.node_updates, 0, "the same arguments every repetition");
        assert!(report.matching_ns > 0.0);
        assert!(report.update_ns > 0.0 && report.raw_update_ns.is_none());
        assert!(report
            .to_string()
            .contains("no raw CUDA graph on this device"));
    }

    #[test]
    fn the_empty_kernel_has_no_argument_to_change_and_replays_all_the_same() {
        let (report, measured) = run_on_cpu(GraphKernel::Empty);
        assert_eq!(
            measured,
            [
                GraphVariant::Eager,
                GraphVariant::Explicit,
                GraphVariant::Automatic
            ]
        );
        let stats = report.auto_stats;
        assert_eq!((stats.instantiations, stats.replays), (1, 7), "{stats:?}");
        assert!(report.to_string().contains("8 `empty` kernels"));
    }
}
