//! Instrumentation and tracing on the default device: every corpus PTX file instrumented and
//! loaded (on CUDA the driver's PTX compiler accepts it), a tool's entry/exit hooks counting
//! every thread, and what tracing and `blocks` instrumentation cost.
//!
//! `cargo run --release -p chevron --example 07-trace -- CORPUS_DIR [LAUNCHES]`

use std::path::{Path, PathBuf};
use std::time::Instant;

use chevron::{Buffer, Builtin, Device, Hooks, Instrumentation, LaunchConfig, Module, Runtime};

const EMPTY: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry empty(.param .u64 data)
{
    ret;
}
"#;

/// A counting tool: `tool_entries`, `tool_exits` (and blocks, accesses) in globals.
const COUNT_TOOL: &str = include_str!("../../chevron-ptx/tests/data/tools/count_hooks.ptx");

fn ptx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for path in entries.flatten().map(|e| e.path()) {
        if path.is_dir() {
            ptx_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "ptx") {
            out.push(path);
        }
    }
}

/// Loads every corpus file plainly and instrumented (all hooks with the counting tool, and the
/// `blocks` tool); a file the device rejects plainly is not counted.
fn load_corpus(device: &Device, dir: &Path) -> (usize, usize) {
    let mut files = Vec::new();
    ptx_files(dir, &mut files);
    files.sort();
    let all = Instrumentation {
        hooks: Hooks {
            entry_exit: true,
            blocks: true,
            accesses: true,
        },
        kernels: None,
    };
    let (mut passed, mut failed) = (0, 0);
    for file in files {
        let bytes = std::fs::read(&file).expect("corpus file reads");
        if Module::from_bytes(device, &bytes).is_err() {
            println!(
                "skip {} (not loadable on {} as it is)",
                file.display(),
                device
            );
            continue;
        }
        let results = [
            Module::load_instrumented(device, &bytes, COUNT_TOOL.as_bytes(), &all).err(),
            Module::load_builtin(device, &bytes, Builtin::Blocks).err(),
        ];
        match results.iter().flatten().next() {
            None => passed += 1,
            Some(err) => {
                failed += 1;
                println!("FAIL {}: {err}", file.display());
            }
        }
    }
    (passed, failed)
}

fn global(module: &Module, name: &str) -> chevron::Result<u64> {
    let global = module.global(name)?;
    let mut bytes = [0u8; 8];
    module
        .device()
        .default_stream()?
        .copy_to_host_at(&mut bytes, global.ptr)?;
    Ok(u64::from_le_bytes(bytes))
}

/// Microseconds per launch of `kernel` over `launches` launches (then one synchronize).
fn per_launch(module: &Module, launches: u32, config: LaunchConfig) -> chevron::Result<f64> {
    let kernel = module.kernel("empty")?;
    let stream = module.device().default_stream()?;
    let data = Buffer::<u64>::zeroed(module.device(), 1)?;
    kernel.launch(&stream, config, (&data,))?.wait()?;
    let started = Instant::now();
    for _ in 0..launches {
        kernel.launch(&stream, config, (&data,))?;
    }
    let submitted = started.elapsed();
    stream.synchronize()?;
    Ok(submitted.as_secs_f64() * 1e6 / f64::from(launches))
}

/// Microseconds per launch-and-synchronize of `kernel`.
fn per_kernel(module: &Module, launches: u32, config: LaunchConfig) -> chevron::Result<f64> {
    let kernel = module.kernel("empty")?;
    let stream = module.device().default_stream()?;
    let data = Buffer::<u64>::zeroed(module.device(), 1)?;
    kernel.launch(&stream, config, (&data,))?.wait()?;
    let started = Instant::now();
    for _ in 0..launches {
        kernel.launch(&stream, config, (&data,))?.wait()?;
    }
    Ok(started.elapsed().as_secs_f64() * 1e6 / f64::from(launches))
}

fn main() -> chevron::Result<()> {
    let mut args = std::env::args().skip(1);
    let corpus = PathBuf::from(args.next().unwrap_or_else(|| "corpus".into()));
    let launches: u32 = args.next().and_then(|n| n.parse().ok()).unwrap_or(10_000);
    let runtime = Runtime::new()?;
    let device = runtime.default_device()?;
    println!("device: {device}");

    let (passed, failed) = load_corpus(device, &corpus);
    println!("corpus instrumented and loaded: {passed} passed, {failed} failed");

    let what = Instrumentation {
        hooks: Hooks {
            entry_exit: true,
            ..Hooks::default()
        },
        kernels: None,
    };
    let counted =
        Module::load_instrumented(device, EMPTY.as_bytes(), COUNT_TOOL.as_bytes(), &what)?;
    let config = LaunchConfig {
        grid: [7, 3, 1],
        block: [96, 1, 1],
        shared_bytes: 0,
    };
    per_kernel(&counted, 1, config)?;
    let (entries, exits) = (
        global(&counted, "tool_entries")?,
        global(&counted, "tool_exits")?,
    );
    let threads = 2 * 7 * 3 * 96; // the warm-up launch and the measured one
    let verdict = if entries == threads && exits == threads {
        "ok"
    } else {
        "FAIL"
    };
    println!("entry/exit hooks: {entries} entries, {exits} exits, {threads} expected: {verdict}");

    let plain = Module::from_ptx(device, EMPTY)?;
    let small = LaunchConfig {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        shared_bytes: 0,
    };
    let off = per_launch(&plain, launches, small)?;
    let path = std::env::temp_dir().join("chevron-07-trace.json");
    chevron::trace::start(&path)?;
    let on = per_launch(&plain, launches, small)?;
    let stop = Instant::now();
    let events = chevron::trace::stop()?;
    println!(
        "launch, trace off: {off:.3} µs; trace on: {on:.3} µs (+{:.3} µs); writing {events} \
         events took {:.1} ms",
        on - off,
        stop.elapsed().as_secs_f64() * 1e3
    );
    let _ = std::fs::remove_file(&path);

    let blocks = Module::load_builtin(device, EMPTY.as_bytes(), Builtin::Blocks)?;
    let grid = LaunchConfig {
        grid: [1024, 1, 1],
        block: [128, 1, 1],
        shared_bytes: 0,
    };
    let kernels = (launches / 20).max(10);
    let plain_kernel = per_kernel(&plain, kernels, grid)?;
    let blocks_kernel = per_kernel(&blocks, kernels, grid)?;
    println!(
        "kernel of 1024 x 128 threads, launch + wait: plain {plain_kernel:.1} µs, blocks \
         instrumentation {blocks_kernel:.1} µs (+{:.1} µs)",
        blocks_kernel - plain_kernel
    );
    std::process::exit(if failed == 0 && verdict == "ok" { 0 } else { 1 });
}
