//! Measures the incremental JIT on the default device, in four parts:
//!
//! 1. **Add time against N**, cache off: one session grows to N = SNIPPETS + 30 (each snippet a
//!    small `__device__` function, snippet SNIPPETS a kernel calling one of them). The last 60
//!    adds are interleaved with adds of snippets 1…20 to fresh sessions (3 rounds), so both
//!    windows see the same machine load; the ratio reported is median t(N near SNIPPETS) over
//!    median t(N in 1…20), with the quartiles of each window.
//! 2. **Recompiling everything** (the quadratic approach): snippets 1…N compiled as one program,
//!    at sampled N (median of 3), next to the incremental curve.
//! 3. **Cache hits**: SNIPPETS adds replayed from a warm disk cache (target ≤ 2 ms each).
//! 4. **Redefinitions**: kernel `spin` redefined REDEFINITIONS times, each definition launched
//!    once and its result checked; host RSS (and on CUDA the process's device memory, from
//!    nvidia-smi) at 10 checkpoints, with the slope from the second checkpoint on. The bodies
//!    rotate through 16 variants with the disk cache on, so each redefinition runs the whole
//!    replace / re-link / load / launch / unload path without waiting for NVRTC every time.
//!
//! `cargo run --release -p chevron --example 07-jit-bench [-- SNIPPETS REDEFINITIONS]`
//! (default 500 and 10000).

use std::time::{Duration, Instant};

use chevron::jit::{nvrtc, Cache, Session};
use chevron::{BackendKind, Buffer, Device, LaunchConfig, Runtime};

/// Adds of snippets 1…WINDOW in fresh sessions, per round.
const WINDOW: usize = 20;
/// Rounds of the interleaved phase.
const ROUNDS: usize = 3;

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
    let total = args.next().flatten().unwrap_or(500).max(WINDOW * ROUNDS);
    let redefinitions = args.next().flatten().unwrap_or(10_000);
    let runtime = Runtime::new()?;
    let device = runtime.default_device()?;
    let warm = Session::with_cache(device, Cache::at(None))?;
    let (path, version) = warm.compiler();
    // The file the path resolves to names NVRTC's full version (libnvrtc.so.13.0.88).
    let resolved = std::fs::canonicalize(&path).map_or(path.clone(), |p| p.display().to_string());
    println!(
        "device: {}   NVRTC {}.{} ({path} -> {resolved})",
        device.label(),
        version.0,
        version.1
    );
    println!("options: {}", warm.options().join(" "));
    let mut warm_up = Session::with_cache(device, Cache::at(None))?;
    for n in 1..=5 {
        warm_up.add(&snippet(n, total))?;
    }

    let rss_before = rss_kb();
    let curve = add_curve(device, total)?;
    println!(
        "host RSS across {} cache-off compiles: {} kB -> {} kB",
        curve.times.len() + curve.small.len(),
        rss_before,
        rss_kb()
    );
    curve.report(total);
    report_quadratic(&curve.times, &quadratic(&warm, total)?);
    cache_hits(device, total)?;
    redefine(device, redefinitions)?;
    Ok(())
}

/// The add times of one growing session (index N-1) and of the fresh sessions' adds of
/// snippets 1…WINDOW, taken in the same period as the growing session's last 60 adds.
struct Curve {
    times: Vec<Duration>,
    small: Vec<Duration>,
    /// The phases of each add of `times` and of `small`.
    phases: Vec<Phases>,
    small_phases: Vec<Phases>,
    /// The link of kernel `last` at the end.
    link: chevron::jit::LinkStats,
    /// The first N of the interleaved phase.
    interleaved_from: usize,
}

fn add_curve(device: &Device, total: usize) -> chevron::Result<Curve> {
    let interleaved = WINDOW * ROUNDS;
    let end = total + interleaved / 2;
    let interleaved_from = end - interleaved + 1;
    let mut session = Session::with_cache(device, Cache::at(None))?;
    let mut times = Vec::with_capacity(end);
    let mut small = Vec::with_capacity(interleaved);
    let (mut phases, mut small_phases) = (Vec::new(), Vec::new());
    let mut fresh = Session::with_cache(device, Cache::at(None))?;
    for n in 1..=end {
        if n >= interleaved_from {
            let k = (n - interleaved_from) % WINDOW + 1;
            if k == 1 {
                fresh = Session::with_cache(device, Cache::at(None))?;
            }
            let (time, split) = timed_add(&mut fresh, &snippet(k, total))?;
            small.push(time);
            small_phases.push(split);
        }
        let (time, split) = timed_add(&mut session, &snippet(n, total))?;
        times.push(time);
        phases.push(split);
    }
    let last = session.kernel("last")?;
    let link = session.link_stats();
    let out = Buffer::<i32>::zeroed(device, 4)?;
    last.launch(
        &device.default_stream()?,
        LaunchConfig::for_elements(4, 4),
        (&out,),
    )?
    .wait()?;
    let half = (total / 2) as i32;
    assert_eq!(
        out.to_vec()?,
        (0..4).map(|x| x * half + 1).collect::<Vec<_>>()
    );
    Ok(Curve {
        times,
        small,
        phases,
        small_phases,
        link,
        interleaved_from,
    })
}

/// Where one add's time went.
#[derive(Clone, Copy)]
struct Phases {
    compile: Duration,
    parse: Duration,
    load: Duration,
    other: Duration,
    minor_faults: u64,
    prelude_bytes: usize,
}

/// Adds `source` to `session`: its time and phases.
fn timed_add(session: &mut Session, source: &str) -> chevron::Result<(Duration, Phases)> {
    let faults = minor_faults();
    let started = Instant::now();
    let added = session.add(source)?;
    let time = started.elapsed();
    let known = added.compile_time + added.parse_time + added.load_time;
    Ok((
        time,
        Phases {
            compile: added.compile_time,
            parse: added.parse_time,
            load: added.load_time,
            other: time.saturating_sub(known),
            minor_faults: minor_faults().saturating_sub(faults),
            prelude_bytes: added.prelude_bytes,
        },
    ))
}

/// Medians of each phase, on one line.
fn phase_line(phases: &[Phases]) -> String {
    let median =
        |f: fn(&Phases) -> Duration| quartiles(&phases.iter().map(f).collect::<Vec<_>>()).1;
    let mut faults: Vec<u64> = phases.iter().map(|p| p.minor_faults).collect();
    faults.sort_unstable();
    let prelude = phases.iter().map(|p| p.prelude_bytes).max().unwrap_or(0);
    format!(
        "NVRTC {}  parse {}  module load {}  link (none in an add)  other {}  \
         minor page faults {}  prelude <= {prelude} bytes",
        ms(median(|p| p.compile)),
        ms(median(|p| p.parse)),
        ms(median(|p| p.load)),
        ms(median(|p| p.other)),
        faults.get(faults.len() / 2).copied().unwrap_or(0),
    )
}

impl Curve {
    fn report(&self, total: usize) {
        let late = &self.times[self.interleaved_from - 1..];
        let (early, late_q) = (quartiles(&self.small), quartiles(late));
        println!(
            "add snippet N, cache off, interleaved ({ROUNDS} rounds): N=1..{WINDOW} (fresh \
             sessions) median {} [p25 {}, p75 {}]   N={}..{} median {} [p25 {}, p75 {}]",
            ms(early.1),
            ms(early.0),
            ms(early.2),
            self.interleaved_from,
            self.times.len(),
            ms(late_q.1),
            ms(late_q.0),
            ms(late_q.2),
        );
        println!(
            "  phases (medians), N=1..{WINDOW}: {}",
            phase_line(&self.small_phases)
        );
        println!(
            "  phases (medians), N={}..{}: {}",
            self.interleaved_from,
            self.times.len(),
            phase_line(&self.phases[self.interleaved_from - 1..])
        );
        println!(
            "  kernel `last`: {} snippets linked in {}, module loaded in {}",
            self.link.latest_parts,
            ms(self.link.link_time),
            ms(self.link.load_time)
        );
        let ratio = late_q.1.as_secs_f64() / early.1.as_secs_f64();
        println!(
            "ratio of medians t(N~{total})/t(N~1): {ratio:.3} (target <= 1.2: {})   single \
             samples t({total})/t(1): {:.2}",
            if ratio <= 1.2 { "met" } else { "missed" },
            self.times[total - 1].as_secs_f64() / self.times[0].as_secs_f64()
        );
    }
}

/// Compiles snippets 1…N as one program for sampled N (median of 3): what recompiling
/// everything costs.
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
        let n = n.max(1);
        let source: Vec<String> = (1..=n).map(|i| snippet(i, total)).collect();
        let source = source.join("\n");
        let mut times = Vec::new();
        for _ in 0..3 {
            times.push(timed(|| {
                compiler.compile(&source, "all", session.options())
            })?);
        }
        samples.push((n, quartiles(&times).1));
    }
    Ok(samples)
}

fn report_quadratic(incremental: &[Duration], quadratic: &[(usize, Duration)]) {
    println!("N      incremental add(N)   recompile 1..N (quadratic)   (incremental: median of N-5..N+5)");
    for &(n, time) in quadratic {
        let around = &incremental[n.saturating_sub(6)..(n + 5).min(incremental.len())];
        println!("{n:<6} {:>18}   {:>26}", ms(quartiles(around).1), ms(time));
    }
}

/// Fills a disk cache with snippets 1…total, then replays them from it in a new session.
fn cache_hits(device: &Device, total: usize) -> chevron::Result<()> {
    let dir = std::env::temp_dir().join(format!("chevron-jit-bench-{}", std::process::id()));
    let mut filling = Session::with_cache(device, Cache::at(Some(dir.clone())))?;
    for n in 1..=total {
        filling.add(&snippet(n, total))?;
    }
    let mut session = Session::with_cache(device, Cache::at(Some(dir.clone())))?;
    let mut hits = Vec::with_capacity(total);
    for n in 1..=total {
        let started = Instant::now();
        let added = session.add(&snippet(n, total))?;
        hits.push(started.elapsed());
        assert!(added.cache_hit, "snippet {n} missed the cache");
    }
    let _ = std::fs::remove_dir_all(&dir);
    let (_, median, _) = quartiles(&hits);
    let within = hits.iter().filter(|t| t.as_secs_f64() <= 0.002).count();
    println!(
        "add snippet N, cache hit: median {}  max {}  ({within} of {total} within 2 ms: target {})",
        ms(median),
        ms(hits.iter().copied().max().unwrap_or_default()),
        if within == total { "met" } else { "missed" }
    );
    Ok(())
}

/// Redefines kernel `spin` `count` times, launching each definition once.
fn redefine(device: &Device, count: usize) -> chevron::Result<()> {
    let dir = std::env::temp_dir().join(format!("chevron-jit-redefine-{}", std::process::id()));
    let mut session = Session::with_cache(device, Cache::at(Some(dir.clone())))?;
    let out = Buffer::<i32>::zeroed(device, 32)?;
    let stream = device.default_stream()?;
    let step = (count / 10).max(1);
    let started = Instant::now();
    let mut checkpoints: Vec<(usize, u64, Option<u64>)> = Vec::new();
    println!("redefinitions   host RSS     device memory   live snippets   elapsed");
    for i in 1..=count {
        let variant = (i % 16) as i32;
        session.add(&format!(
            "__global__ void spin(int *out) {{ out[threadIdx.x] = threadIdx.x * {variant} + 1; }}"
        ))?;
        let kernel = session.kernel("spin")?;
        kernel
            .launch(&stream, LaunchConfig::for_elements(32, 32), (&out,))?
            .wait()?;
        assert_eq!(out.to_vec()?[2], 2 * variant + 1, "redefinition {i}");
        if i % step == 0 || i == count {
            let (rss, memory) = (rss_kb(), device_memory_mib(device));
            checkpoints.push((i, rss, memory));
            println!(
                "{i:<15} {:<12} {:<15} {:<15} {:.1} s",
                format!("{rss} kB"),
                match (memory, device.backend()) {
                    (Some(m), _) => format!("{m} MiB"),
                    (None, BackendKind::Cuda) => "? (nvidia-smi)".into(),
                    (None, _) => "(in host RSS)".into(),
                },
                session.live_snippets(),
                started.elapsed().as_secs_f64()
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    if let [_, second, .., last] = checkpoints.as_slice() {
        let per_1000 =
            |from: u64, to: u64| (to as f64 - from as f64) * 1000.0 / (last.0 - second.0) as f64;
        println!(
            "slope from redefinition {} to {}: host RSS {:+.1} kB per 1000{}",
            second.0,
            last.0,
            per_1000(second.1, last.1),
            match (second.2, last.2) {
                (Some(from), Some(to)) =>
                    format!(", device memory {:+.2} MiB per 1000", per_1000(from, to)),
                _ => String::new(),
            }
        );
    }
    Ok(())
}

fn timed<T>(f: impl FnOnce() -> chevron::Result<T>) -> chevron::Result<Duration> {
    let started = Instant::now();
    f()?;
    Ok(started.elapsed())
}

/// The 25th, 50th and 75th percentiles.
fn quartiles(times: &[Duration]) -> (Duration, Duration, Duration) {
    let mut sorted = times.to_vec();
    sorted.sort();
    let at = |q: usize| sorted[(sorted.len() - 1) * q / 4];
    (at(1), at(2), at(3))
}

fn ms(time: Duration) -> String {
    format!("{:.3} ms", time.as_secs_f64() * 1e3)
}

/// Minor page faults of the process so far (heap growth shows here), from /proc.
fn minor_faults() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command name (in parentheses); minflt is the 10th field overall.
    stat.rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().nth(7)?.parse().ok())
        .unwrap_or(0)
}

/// Resident set size in kB, from /proc.
fn rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// This process's device memory in MiB as nvidia-smi reports it (CUDA only); where the process
/// is not listed (another PID namespace), the memory used on the device's GPU.
fn device_memory_mib(device: &Device) -> Option<u64> {
    if device.backend() != BackendKind::Cuda {
        return None;
    }
    let query = |args: &[&str]| -> String {
        std::process::Command::new("nvidia-smi")
            .args(args)
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    };
    let pid = std::process::id().to_string();
    let apps = query(&[
        "--query-compute-apps=pid,used_memory",
        "--format=csv,noheader,nounits",
    ]);
    let own = apps
        .lines()
        .find(|l| l.split(',').next().map(str::trim) == Some(pid.as_str()))
        .and_then(|l| l.split(',').nth(1)?.trim().parse().ok());
    own.or_else(|| {
        let id = format!("--id={}", device.ordinal());
        let used = query(&[
            "--query-gpu=memory.used",
            "--format=csv,noheader,nounits",
            &id,
        ]);
        used.trim().parse().ok()
    })
}
