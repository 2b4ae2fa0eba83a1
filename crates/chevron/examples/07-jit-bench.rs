//! Measures the incremental JIT on the default device: the time to add snippet N for
//! N = 1…500 with the cache off, against recompiling all earlier snippets (the quadratic
//! approach) in the same run; disk-cache hits; then host RSS (and, on CUDA, the process's device
//! memory) across 10,000 redefinitions of one kernel, each launched once.
//!
//! `cargo run --release -p chevron --example 07-jit-bench [-- SNIPPETS REDEFINITIONS]`
//! (default 500 and 10000). Redefinitions rotate through 16 kernel bodies with the disk cache
//! on, so each one runs the whole replace/re-link/load/launch/unload path without waiting
//! 10,000 times for the compiler.

use std::time::{Duration, Instant};

use chevron::jit::{nvrtc, Cache, Session};
use chevron::{BackendKind, Buffer, Device, LaunchConfig, Runtime};

fn snippet(n: usize, total: usize) -> String {
    if n == total {
        format!(
            "__global__ void last(int *out) {{ out[threadIdx.x] = f{}(threadIdx.x); }}",
            total / 2
        )
    } else {
        format!("__device__ int f{n}(int x) {{ return x * {n} + 1; }}")
    }
}

fn main() -> chevron::Result<()> {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>().ok());
    let total = args.next().flatten().unwrap_or(500).max(2);
    let redefinitions = args.next().flatten().unwrap_or(10_000);
    let runtime = Runtime::new()?;
    let device = runtime.default_device()?;
    let warm = Session::with_cache(device, Cache::at(None))?;
    let (path, version) = warm.compiler();
    println!(
        "device: {}   NVRTC {}.{} ({path})",
        device.label(),
        version.0,
        version.1
    );
    println!("options: {}", warm.options().join(" "));
    Session::with_cache(device, Cache::at(None))?.add(&snippet(1, total))?;

    let incremental = add_all(device, Cache::at(None), total)?;
    let cache_dir = std::env::temp_dir().join(format!("chevron-jit-bench-{}", std::process::id()));
    add_all(device, Cache::at(Some(cache_dir.clone())), total)?;
    let hits = add_all(device, Cache::at(Some(cache_dir.clone())), total)?;
    let quadratic = quadratic(&warm, total)?;
    report(&incremental, &hits, &quadratic, total);
    let mut session = Session::with_cache(device, Cache::at(None))?;
    for n in 1..=total {
        session.add(&snippet(n, total))?;
    }
    let started = Instant::now();
    let last = session.kernel("last")?;
    println!(
        "first kernel(\"last\") (link + load): {}",
        ms(started.elapsed())
    );
    let out = Buffer::<i32>::zeroed(device, 4)?;
    let stream = device.default_stream()?;
    last.launch(&stream, LaunchConfig::for_elements(4, 4), (&out,))?
        .wait()?;
    let half = (total / 2) as i32;
    assert_eq!(
        out.to_vec()?,
        (0..4).map(|x| x * half + 1).collect::<Vec<_>>()
    );

    redefine(device, Cache::at(Some(cache_dir.clone())), redefinitions)?;
    let _ = std::fs::remove_dir_all(&cache_dir);
    Ok(())
}

/// Adds snippets 1..=total to a fresh session; the time of each add.
fn add_all(device: &Device, cache: Cache, total: usize) -> chevron::Result<Vec<Duration>> {
    let mut session = Session::with_cache(device, cache)?;
    let mut times = Vec::with_capacity(total);
    for n in 1..=total {
        let started = Instant::now();
        session.add(&snippet(n, total))?;
        times.push(started.elapsed());
    }
    Ok(times)
}

/// Compiles snippets 1..=N as one program for sampled N: what recompiling everything costs.
fn quadratic(session: &Session, total: usize) -> chevron::Result<Vec<(usize, Duration)>> {
    let compiler = nvrtc::nvrtc()?;
    let mut samples = Vec::new();
    for n in [
        1,
        total / 10,
        total / 5,
        2 * total / 5,
        3 * total / 5,
        4 * total / 5,
        total,
    ] {
        let source: Vec<String> = (1..=n.max(1)).map(|i| snippet(i, total)).collect();
        let started = Instant::now();
        compiler.compile(&source.join("\n"), "all", session.options())?;
        samples.push((n.max(1), started.elapsed()));
    }
    Ok(samples)
}

fn report(incremental: &[Duration], hits: &[Duration], quadratic: &[(usize, Duration)], n: usize) {
    let first = median(&incremental[..10.min(n)]);
    let last = median(&incremental[n.saturating_sub(10)..]);
    println!(
        "add snippet N, cache off: t(1) {}  t({n}) {}  median N=1..10 {}  median N={}..{n} {}  \
         ratio t({n})/t(1) {:.2}  ratio of medians {:.2}",
        ms(incremental[0]),
        ms(incremental[n - 1]),
        ms(first),
        n.saturating_sub(9),
        ms(last),
        incremental[n - 1].as_secs_f64() / incremental[0].as_secs_f64(),
        last.as_secs_f64() / first.as_secs_f64()
    );
    let mut sorted = hits.to_vec();
    sorted.sort();
    println!(
        "add snippet N, cache hit: median {}  max {}  ({} of {n} within 2 ms)",
        ms(sorted[n / 2]),
        ms(sorted[n - 1]),
        hits.iter().filter(|t| t.as_secs_f64() <= 0.002).count()
    );
    println!("N      incremental add(N)   recompile 1..N (quadratic)");
    for &(k, time) in quadratic {
        println!("{k:<6} {:>18}   {:>18}", ms(incremental[k - 1]), ms(time));
    }
}

/// Redefines kernel `spin` `count` times, launching each definition once; prints host RSS (and
/// device memory on CUDA) along the way.
fn redefine(device: &Device, cache: Cache, count: usize) -> chevron::Result<()> {
    let mut session = Session::with_cache(device, cache)?;
    let out = Buffer::<i32>::zeroed(device, 32)?;
    let stream = device.default_stream()?;
    let step = (count / 10).max(1);
    println!("redefinitions   host RSS        device memory   live snippets");
    for i in 0..=count {
        let variant = i % 16;
        session.add(&format!(
            "__global__ void spin(int *out) {{ out[threadIdx.x] = threadIdx.x * {variant} + {i}; }}"
        ))?;
        let kernel = session.kernel("spin")?;
        kernel
            .launch(&stream, LaunchConfig::for_elements(32, 32), (&out,))?
            .wait()?;
        assert_eq!(out.to_vec()?[1], variant as i32 + i as i32);
        if i % step == 0 {
            println!(
                "{i:<15} {:<15} {:<15} {}",
                rss(),
                device_memory(device),
                session.live_snippets()
            );
        }
    }
    Ok(())
}

fn median(times: &[Duration]) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort();
    sorted[sorted.len() / 2]
}

fn ms(time: Duration) -> String {
    format!("{:.3} ms", time.as_secs_f64() * 1e3)
}

/// Resident set size from /proc.
fn rss() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .map_or("?".into(), |v| v.trim().to_string())
}

/// This process's device memory as nvidia-smi reports it (CUDA only).
fn device_memory(device: &Device) -> String {
    if device.backend() != BackendKind::Cuda {
        return "(in host RSS)".into();
    }
    let output = std::process::Command::new("nvidia-smi")
        .args([
            "--query-compute-apps=pid,used_memory",
            "--format=csv,noheader",
        ])
        .output();
    let pid = std::process::id().to_string();
    output
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .find(|l| l.split(',').next().map(str::trim) == Some(pid.as_str()))
                .and_then(|l| l.split(',').nth(1).map(|m| m.trim().to_string()))
        })
        .unwrap_or_else(|| "?".into())
}
