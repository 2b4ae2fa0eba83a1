//! The benchmarks against the raw driver on a CUDA GPU. CI lists them as ignored; on a GPU
//! machine `cargo test -p chevron-bench --test gpu -- --ignored` runs them (quick sizes: they
//! check that the baselines run through `chevron::backend::cuda::raw`, not the figures).

use chevron::{BackendKind, Device, Runtime};
use chevron_bench::{
    graph_replay, launch_overhead, BenchOptions, GraphBenchOptions, GraphVariant, Variant,
};

fn cuda_device(runtime: &Runtime) -> &Device {
    runtime
        .devices()
        .iter()
        .find(|d| d.backend() == BackendKind::Cuda)
        .expect("a CUDA device")
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_launch_benchmark_measures_against_the_raw_driver() {
    let runtime = Runtime::new().unwrap();
    let report = launch_overhead(cuda_device(&runtime), &BenchOptions::quick()).unwrap();
    eprintln!("{report}");
    assert!(report.has_baseline());
    for kernel in ["empty", "axpy (4 args)"] {
        for variant in [Variant::Checked, Variant::Unchecked] {
            let figure = report.figure(kernel, variant).unwrap();
            assert!(figure.enqueue_ratio.unwrap().is_finite());
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_graph_benchmark_measures_a_raw_cuda_graph() {
    let runtime = Runtime::new().unwrap();
    let options = GraphBenchOptions {
        kernels: 16,
        repetitions: 5,
        ..GraphBenchOptions::default()
    };
    let report = graph_replay(cuda_device(&runtime), &options).unwrap();
    eprintln!("{report}");
    assert!(report
        .figures
        .iter()
        .any(|f| f.variant == GraphVariant::RawCuda && f.complete_ns > 0.0));
    assert!(report.raw_update_ns.is_some_and(|ns| ns > 0.0));
}
