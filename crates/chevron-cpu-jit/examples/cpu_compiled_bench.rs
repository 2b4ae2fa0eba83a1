//! Benchmark of the CPU device's compiled code against its interpreter and plain C.
//!
//! `scripts/bench-cpu-compiled.sh` builds the C baselines (`examples/bench/native_baseline.c`,
//! gcc -O2), runs them, and passes their output here as the first argument:
//!
//! `cargo run --release -p chevron-cpu-jit --example cpu_compiled_bench -- NATIVE_TIMES`
//!
//! Each kernel of `examples/bench/kernels.ptx` runs on one thread interpreted (once: it is
//! slow) and compiled with checks on and off (median of 5 launches); the outputs of the three
//! must agree. Prints a table with every ratio, the compile time per kernel, and the 2-thread
//! speed-up of compiled matmul 512. `BENCH_ONLY=saxpy,matmul256` runs only the cases named,
//! `BENCH_NO_INTERP=1` skips the interpreter (and the comparison of outputs), `BENCH_USER_PTX=PATH`
//! (the PTX of `examples/bench/user_kernels.cu`) adds the tile scan; `BENCH_GROUP_THREADS=N`
//! keeps the vector function's groups at most N threads wide (as `CHEVRON_CPU_GROUP_THREADS`);
//! `CHEVRON_CPU_CODE_DUMP=DIR` writes the compiled functions' machine code there.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chevron_cpu_jit::CompiledKernel;
use chevron_ptx::interp::{DeviceMemory, LaunchConfig, LaunchHooks, Program};

const PTX: &str = include_str!("bench/kernels.ptx");

/// One benchmark: kernel, launch shape, parameters, and the output range to compare.
struct Case {
    name: String,
    kernel: &'static str,
    config: LaunchConfig,
    params: Vec<u8>,
    /// Reset before each launch: (address, bytes).
    inputs: Vec<(u64, Vec<u8>)>,
    output: (u64, usize),
    /// The kernel is in `BENCH_USER_PTX`'s module, not `kernels.ptx`.
    user: bool,
}

/// The vector function's threads per group for `kernel` on rows of `row` threads: as the CPU
/// device chooses them, at most `BENCH_GROUP_THREADS` (4, 8, 16 or 32; default 32).
fn group_threads(program: &Program, kernel: &chevron_ptx::interp::KernelHandle, row: u32) -> u32 {
    let widest = std::env::var("BENCH_GROUP_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(32);
    let assessed = chevron_cpu_jit::assess(program, kernel);
    chevron_cpu_jit::group_threads_for(widest, row, &assessed)
}

fn words(values: impl Iterator<Item = u32>) -> Vec<u8> {
    values.flat_map(|v| v.to_le_bytes()).collect()
}

fn grid(grid: [u32; 3], block: [u32; 3], threads: usize) -> LaunchConfig {
    LaunchConfig {
        grid,
        block,
        dynamic_shared: 0,
        threads,
    }
}

fn cases(memory: &DeviceMemory) -> Vec<Case> {
    let alloc = |bytes: usize| memory.alloc(bytes as u64, 256).expect("device memory");
    let mut cases = Vec::new();
    let n = 1usize << 24;
    let (x, y) = (alloc(4 * n), alloc(4 * n));
    let mut params = Vec::new();
    params.extend(x.to_le_bytes());
    params.extend(y.to_le_bytes());
    params.extend(2.0f32.to_le_bytes());
    params.extend((n as u32).to_le_bytes());
    cases.push(Case {
        name: "saxpy".into(),
        kernel: "saxpy",
        config: grid([(n / 256) as u32, 1, 1], [256, 1, 1], 1),
        params,
        inputs: vec![
            (x, words((0..n as u32).map(|i| (i as f32 * 0.5).to_bits()))),
            (y, words((0..n).map(|_| 1.0f32.to_bits()))),
        ],
        output: (y, 4 * n),
        user: false,
    });
    for size in [256usize, 512] {
        let (a, b, c) = (
            alloc(4 * size * size),
            alloc(4 * size * size),
            alloc(4 * size * size),
        );
        let mut params = Vec::new();
        for p in [a, b, c] {
            params.extend(p.to_le_bytes());
        }
        params.extend((size as u32).to_le_bytes());
        let tiles = (size / 16) as u32;
        cases.push(Case {
            name: format!("matmul{size}"),
            kernel: "matmul",
            config: grid([tiles, tiles, 1], [16, 16, 1], 1),
            params,
            inputs: vec![
                (
                    a,
                    words((0..size * size).map(|i| ((i % 7) as f32).to_bits())),
                ),
                (
                    b,
                    words((0..size * size).map(|i| ((i % 5) as f32).to_bits())),
                ),
            ],
            output: (c, 4 * size * size),
            user: false,
        });
    }
    let m = 1usize << 23;
    let input = alloc(4 * m);
    let data = words((0..m as u32).map(|i| i.wrapping_mul(2654435761)));
    for (name, group) in [("block_sum", 256usize), ("warp_sum", 32)] {
        let out = alloc(4 * m / group);
        let mut params = Vec::new();
        params.extend(input.to_le_bytes());
        params.extend(out.to_le_bytes());
        cases.push(Case {
            name: name.into(),
            kernel: name,
            config: grid([(m / 256) as u32, 1, 1], [256, 1, 1], 1),
            params,
            inputs: vec![(input, data.clone())],
            output: (out, 4 * m / group),
            user: false,
        });
    }
    let hist = alloc(4 * 256);
    let mut params = Vec::new();
    params.extend(input.to_le_bytes());
    params.extend(hist.to_le_bytes());
    params.extend((m as u32).to_le_bytes());
    cases.push(Case {
        name: "histogram".into(),
        kernel: "histogram",
        config: grid([64, 1, 1], [256, 1, 1], 1),
        params,
        inputs: vec![(input, data), (hist, vec![0u8; 4 * 256])],
        output: (hist, 4 * 256),
        user: false,
    });
    // The tile scan of `user_kernels.cu` (its PTX from nvcc, `BENCH_USER_PTX`).
    let n = 1usize << 22;
    let (input, out) = (alloc(4 * n), alloc(4 * n));
    let mut params = Vec::new();
    params.extend(input.to_le_bytes());
    params.extend(out.to_le_bytes());
    cases.push(Case {
        name: "tile_scan".into(),
        kernel: "tile_scan",
        config: grid([(n / 1024) as u32, 1, 1], [256, 1, 1], 1),
        params,
        inputs: vec![(input, words(0..n as u32))],
        output: (out, 4 * n),
        user: true,
    });
    cases
}

/// Median time of `runs` launches through `launch`, and the output of the last.
fn measure(
    memory: &DeviceMemory,
    case: &Case,
    runs: usize,
    launch: &dyn Fn() -> Result<(), String>,
) -> Result<(Duration, Vec<u8>), String> {
    let mut times = Vec::new();
    for _ in 0..runs {
        for (addr, bytes) in &case.inputs {
            memory.write(*addr, bytes).map_err(|e| e.to_string())?;
        }
        let started = Instant::now();
        launch()?;
        times.push(started.elapsed());
    }
    times.sort();
    let mut out = vec![0u8; case.output.1];
    memory
        .read(case.output.0, &mut out)
        .map_err(|e| e.to_string())?;
    Ok((times[runs / 2], out))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() -> Result<(), String> {
    let native: HashMap<String, f64> = std::env::args()
        .nth(1)
        .map(|path| std::fs::read_to_string(path).unwrap_or_default())
        .unwrap_or_default()
        .lines()
        .filter_map(|line| {
            let (name, value) = line.split_once(' ')?;
            Some((name.to_string(), value.trim().parse().ok()?))
        })
        .collect();
    let module = chevron_ptx::parse(PTX).map_err(|e| e.to_string())?;
    let memory = Arc::new(DeviceMemory::new(0));
    let program = Arc::new(Program::load(&module, &memory).map_err(|e| e.to_string())?);
    // `BENCH_USER_PTX=PATH`: the PTX nvcc makes of `examples/bench/user_kernels.cu`, for the
    // tile scan (left out without it).
    let user = match std::env::var_os("BENCH_USER_PTX") {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
            let module = chevron_ptx::parse(&text).map_err(|e| e.to_string())?;
            Some(Arc::new(
                Program::load(&module, &memory).map_err(|e| e.to_string())?,
            ))
        }
        None => None,
    };
    println!(
        "{:<10} {:>9} {:>11} {:>11} {:>9} {:>8} {:>9} {:>9} {:>8}",
        "kernel",
        "native ms",
        "interp ms",
        "checked ms",
        "unchk ms",
        "compile",
        "chk/nat",
        "unchk/nat",
        "interp/chk"
    );
    let hooks = LaunchHooks::default();
    // `BENCH_ONLY=saxpy,matmul256` runs only those.
    let only = std::env::var("BENCH_ONLY").ok();
    for case in cases(&memory) {
        if only
            .as_deref()
            .is_some_and(|only| !only.split(',').any(|name| name == case.name))
        {
            continue;
        }
        let program = match (case.user, &user) {
            (false, _) => &program,
            (true, Some(user)) => user,
            (true, None) => continue,
        };
        let kernel = program.kernel(case.kernel).ok_or("kernel missing")?;
        // `BENCH_NO_INTERP=1` (for profiles of the compiled code): no interpreted run; the
        // outputs are not compared.
        let (interp, reference) = if std::env::var_os("BENCH_NO_INTERP").is_some() {
            (Duration::ZERO, None)
        } else {
            let (time, out) = measure(&memory, &case, 1, &|| {
                program
                    .launch(&kernel, &case.config, &case.params)
                    .map(|_| ())
                    .map_err(|f| f.to_string())
            })?;
            (time, Some(out))
        };
        let mut row = format!("{:<10} {:>9}", case.name, "");
        if let Some(native) = native.get(&case.name) {
            row = format!("{:<10} {:>9.2}", case.name, native);
        }
        let mut timings = Vec::new();
        let mut compile = Duration::ZERO;
        for checks in [true, false] {
            let options = chevron_cpu_jit::CompileOptions {
                checks,
                code_dump: std::env::var_os("CHEVRON_CPU_CODE_DUMP").map(Into::into),
                group_threads: group_threads(program, &kernel, case.config.block[0]),
                ..Default::default()
            };
            match CompiledKernel::compile(program, &kernel, &options) {
                Ok(compiled) => {
                    compile = compiled.compile_time();
                    if let (true, Err(why)) = (checks, compiled.vector()) {
                        eprintln!("{}: one thread at a time: {why}", case.name);
                    }
                    let (time, out) = measure(&memory, &case, 5, &|| {
                        compiled
                            .launch(&case.config, &case.params, &hooks)
                            .map(|_| ())
                            .map_err(|f| f.to_string())
                    })?;
                    if reference.as_ref().is_some_and(|r| out != *r) {
                        return Err(format!("{}: compiled output differs", case.name));
                    }
                    timings.push(Some(time));
                }
                Err(why) => {
                    println!("{:<10} interpreted: {why}", case.name);
                    timings.push(None);
                }
            }
        }
        let native = native.get(&case.name).copied();
        let ratio = |t: Option<Duration>| match (t, native) {
            (Some(t), Some(n)) => format!("{:.1}x", ms(t) / n),
            _ => "-".into(),
        };
        let show = |t: Option<Duration>| t.map_or("-".into(), |t| format!("{:.2}", ms(t)));
        println!(
            "{row} {:>11.1} {:>11} {:>9} {:>7.1}ms {:>9} {:>9} {:>8}",
            ms(interp),
            show(timings[0]),
            show(timings[1]),
            ms(compile),
            ratio(timings[0]),
            ratio(timings[1]),
            timings[0].map_or("-".into(), |t| format!(
                "{:.0}x",
                interp.as_secs_f64() / t.as_secs_f64()
            )),
        );
        if case.name == "matmul512" {
            let options = chevron_cpu_jit::CompileOptions {
                group_threads: group_threads(program, &kernel, case.config.block[0]),
                ..Default::default()
            };
            let compiled = CompiledKernel::compile(program, &kernel, &options)?;
            let mut one_two = Vec::new();
            for threads in [1, 2] {
                let config = LaunchConfig {
                    threads,
                    ..case.config.clone()
                };
                let (time, out) = measure(&memory, &case, 5, &|| {
                    compiled
                        .launch(&config, &case.params, &hooks)
                        .map(|_| ())
                        .map_err(|f| f.to_string())
                })?;
                if reference.as_ref().is_some_and(|r| out != *r) {
                    return Err("matmul512 on 2 threads: output differs".into());
                }
                one_two.push(time);
            }
            println!(
                "matmul512 compiled: 1 thread {:.2} ms, 2 threads {:.2} ms: {:.2}x",
                ms(one_two[0]),
                ms(one_two[1]),
                one_two[0].as_secs_f64() / one_two[1].as_secs_f64()
            );
        }
    }
    Ok(())
}
