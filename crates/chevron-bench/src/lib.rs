//! chevron's benchmarks (what `chevron bench` runs), outside the library they measure: the host
//! cost of a launch through chevron against the raw driver, measured in one process on one
//! device, and graph replay ([`graph_replay`], `chevron bench --graphs`). The raw baselines
//! reach the driver only through `chevron::backend::cuda::raw`.
//!
//! Two figures per (kernel, variant), each the median over many samples:
//! - **enqueue**: host time per launch within bursts of 256 back-to-back launches (after a
//!   warm-up; the stream is synchronized between bursts, outside the timing);
//! - **launch + synchronize**: one launch followed by a stream synchronization.
//!
//! Variants: the raw `cuLaunchKernel` (through the same driver table, same function and stream
//! handles), chevron's checked [`Kernel::launch`] and [`Kernel::launch_unchecked`]; kernels: an
//! empty one and a 4-argument axpy. Variants are interleaved round by round so that clock and
//! driver drift affect all alike. On a device without a raw baseline (the CPU device) only
//! chevron's own figures are reported.

mod graph_report;
mod graphs;
mod kernels;
mod raw;
mod raw_graph;
mod report;

use std::ffi::c_void;
use std::time::Instant;

pub use graph_report::{GraphFigure, GraphReport, GraphVariant};
pub use graphs::{graph_replay, GraphBenchOptions, GraphKernel};
pub use kernels::GRAPH_PTX;
pub use report::{Figure, LaunchReport, Variant, TARGETS};

use chevron::{Buffer, Device, Kernel, KernelArgs, LaunchConfig, Module, Result, Stream};
use raw::RawLauncher;

/// How many samples to take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BenchOptions {
    /// Launches before measuring.
    pub warmup: usize,
    /// Bursts measured per variant.
    pub bursts: usize,
    /// Launches per burst.
    pub burst_len: usize,
    /// Launch + synchronize samples per variant.
    pub round_trips: usize,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions {
            warmup: 2048,
            bursts: 200,
            burst_len: 256,
            round_trips: 2000,
        }
    }
}

impl BenchOptions {
    /// Fewer samples: for slow devices (the CPU device) and smoke runs.
    pub fn quick() -> BenchOptions {
        BenchOptions {
            warmup: 64,
            bursts: 10,
            burst_len: 256,
            round_trips: 50,
        }
    }

    /// The options for `device`: [`BenchOptions::quick`] where its backend runs kernels in
    /// software, the default elsewhere.
    pub fn for_device(device: &Device) -> BenchOptions {
        if device.backend().runs_in_software() {
            BenchOptions::quick()
        } else {
            BenchOptions::default()
        }
    }
}

/// Runs the launch-overhead benchmark on `device`.
pub fn launch_overhead(device: &Device, options: &BenchOptions) -> Result<LaunchReport> {
    let module = Module::from_ptx(device, kernels::PTX)?;
    let stream = device.create_stream()?;
    let n = kernels::AXPY_ELEMENTS;
    let x = Buffer::from_slice(device, &vec![1.0f32; n as usize])?;
    let y = Buffer::from_slice(device, &vec![0.0f32; n as usize])?;
    let config = LaunchConfig::new(1, n);
    let a = 0.5f32;

    let empty = module.kernel("empty")?;
    let axpy = module.kernel("axpy")?;
    let mut figures = Vec::new();
    figures.extend(measure(&empty, &stream, config, options, "empty", ())?);
    figures.extend(measure(
        &axpy,
        &stream,
        config,
        options,
        "axpy (4 args)",
        (&x, &y, a, n),
    )?);
    Ok(LaunchReport::new(device.to_string(), *options, figures))
}

/// Measures one kernel with every variant available on the device.
fn measure<A: KernelArgs>(
    kernel: &Kernel,
    stream: &Stream,
    config: LaunchConfig,
    options: &BenchOptions,
    label: &'static str,
    args: A,
) -> Result<Vec<Figure>> {
    let raw = RawLauncher::new(kernel, stream, config);
    let mut raw_launch = || -> Result<()> {
        let launcher = raw
            .as_ref()
            .expect("only called when a raw launcher exists");
        // SAFETY: `args` matches the kernel (the checked variant verifies the same list).
        args.with_pointers(|p: &[*mut c_void]| unsafe { launcher.launch(p) })
    };
    let mut checked = || kernel.launch(stream, config, &args).map(drop);
    // SAFETY: the same arguments pass the checked launch (run first, below).
    let mut unchecked = || unsafe { kernel.launch_unchecked(stream, config, &args) }.map(drop);
    let raw_sync = || raw.as_ref().expect("raw launcher").synchronize();
    let sync = || stream.synchronize();

    checked()?;
    for _ in 0..options.warmup {
        if raw.is_some() {
            raw_launch()?;
        }
        checked()?;
        unchecked()?;
    }
    sync()?;

    let mut enqueue: [Vec<f64>; 3] = Default::default();
    for _ in 0..options.bursts {
        if raw.is_some() {
            enqueue[0].push(burst(options.burst_len, &mut raw_launch)?);
            raw_sync()?;
        }
        enqueue[1].push(burst(options.burst_len, &mut checked)?);
        sync()?;
        enqueue[2].push(burst(options.burst_len, &mut unchecked)?);
        sync()?;
    }
    let mut round_trip: [Vec<f64>; 3] = Default::default();
    for _ in 0..options.round_trips {
        if raw.is_some() {
            round_trip[0].push(once(&mut raw_launch, &raw_sync)?);
        }
        round_trip[1].push(once(&mut checked, &sync)?);
        round_trip[2].push(once(&mut unchecked, &sync)?);
    }

    let mut figures = Vec::new();
    for (i, variant) in [Variant::Raw, Variant::Checked, Variant::Unchecked]
        .into_iter()
        .enumerate()
    {
        if enqueue[i].is_empty() {
            continue;
        }
        figures.push(Figure {
            kernel: label,
            variant,
            enqueue_ns: median(&mut enqueue[i]),
            round_trip_ns: median(&mut round_trip[i]),
            enqueue_ratio: None,
            round_trip_ratio: None,
        });
    }
    Ok(report::with_ratios(figures))
}

/// Nanoseconds per launch over a burst of `len` launches.
fn burst(len: usize, launch: &mut impl FnMut() -> Result<()>) -> Result<f64> {
    let start = Instant::now();
    for _ in 0..len {
        launch()?;
    }
    Ok(start.elapsed().as_nanos() as f64 / len.max(1) as f64)
}

/// Nanoseconds of one launch followed by a synchronization.
fn once(launch: &mut impl FnMut() -> Result<()>, sync: &impl Fn() -> Result<()>) -> Result<f64> {
    let start = Instant::now();
    launch()?;
    sync()?;
    Ok(start.elapsed().as_nanos() as f64)
}

fn median(samples: &mut [f64]) -> f64 {
    if samples.is_empty() {
        return f64::NAN;
    }
    samples.sort_by(f64::total_cmp);
    let mid = samples.len() / 2;
    if samples.len() % 2 == 1 {
        samples[mid]
    } else {
        (samples[mid - 1] + samples[mid]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chevron::backend::cpu::discover;
    use chevron::Runtime;

    #[test]
    fn reports_chevron_figures_without_a_baseline_off_cuda() {
        let runtime = Runtime::from_devices(discover().unwrap());
        let device = runtime.default_device().unwrap();
        let options = BenchOptions {
            warmup: 2,
            bursts: 3,
            burst_len: 4,
            round_trips: 3,
        };
        let report = launch_overhead(device, &options).unwrap();
        assert!(!report.has_baseline());
        assert_eq!(report.figures.len(), 4);
        let checked = report.figure("axpy (4 args)", Variant::Checked).unwrap();
        assert!(checked.enqueue_ns.is_finite() && checked.enqueue_ratio.is_none());
        assert!(report.to_string().contains("no raw driver baseline"));
    }

    #[test]
    fn median_of_odd_and_even_samples() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&mut []).is_nan());
    }
}
