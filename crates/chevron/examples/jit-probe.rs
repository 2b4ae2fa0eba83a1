//! Probe: which adds of which JIT session are slow on CUDA (temporary).
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use chevron::jit::{nvrtc, Cache, Session};
use chevron::Runtime;

fn snippet(n: usize) -> String {
    format!("__device__ int f{n}(int x) {{ return x * {n} + 1; }}")
}

fn mark(what: &str) {
    let t = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    println!("MARK {t:.6} {what}");
}

fn thread_ticks() -> std::collections::BTreeMap<String, u64> {
    let mut out = std::collections::BTreeMap::new();
    for entry in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let Some(close) = stat.rfind(')') else {
            continue;
        };
        let comm = &stat[stat.find('(').unwrap() + 1..close];
        let fields: Vec<&str> = stat[close + 2..].split(' ').collect();
        let ticks = fields[11].parse::<u64>().unwrap_or(0) + fields[12].parse::<u64>().unwrap_or(0);
        let cpu = fields.get(36).copied().unwrap_or("?");
        out.insert(
            format!("{}:{comm}@cpu{cpu}", entry.file_name().to_string_lossy()),
            ticks,
        );
    }
    out
}

fn report_ticks(what: &str, before: &std::collections::BTreeMap<String, u64>) {
    let now = thread_ticks();
    let deltas: Vec<String> = now
        .iter()
        .map(|(k, v)| format!("{k}={}", v - before.get(k).copied().unwrap_or(0)))
        .collect();
    println!("   threads during {what}: {}", deltas.join(" "));
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn adds(s: &mut Session, range: std::ops::Range<usize>) -> chevron::Result<Vec<f64>> {
    let mut out = Vec::new();
    for n in range {
        let a = s.add(&snippet(n))?;
        out.push(a.compile_time.as_secs_f64() * 1e3);
    }
    Ok(out)
}

fn main() -> chevron::Result<()> {
    let runtime = Runtime::new()?;
    let device = runtime.default_device()?;
    if std::env::var_os("PROBE_FIRST").is_some() {
        let mut s0 = Session::with_cache(device, Cache::at(None))?;
        let z = adds(&mut s0, 1..11)?;
        println!("0  S0 adds 1..10 (then dropped) median {:.1} ms", median(z));
    }
    let mut s1 = Session::with_cache(device, Cache::at(None))?;
    let options = s1.options().to_vec();
    mark("A start");
    let ticks = thread_ticks();
    let a = adds(&mut s1, 1..41)?;
    report_ticks("A", &ticks);
    mark("A end");
    println!(
        "A  S1 adds 1..40      median {:.1} ms  first {:.1}",
        median(a.clone()),
        a[0]
    );
    let mut s2 = Session::with_cache(device, Cache::at(None))?;
    let ticks = thread_ticks();
    let b = adds(&mut s2, 1..41)?;
    report_ticks("B", &ticks);
    mark("B end");
    println!("B  S2 adds 1..40      median {:.1} ms", median(b));
    let c = adds(&mut s1, 41..81)?;
    mark("C end");
    println!("C  S1 adds 41..80     median {:.1} ms", median(c));
    let (mut d1, mut d3) = (Vec::new(), Vec::new());
    let mut s3 = Session::with_cache(device, Cache::at(None))?;
    for i in 0..20 {
        d1.extend(adds(&mut s1, 81 + i..82 + i)?);
        d3.extend(adds(&mut s3, 1 + i..2 + i)?);
    }
    mark("D end");
    println!(
        "D  interleaved: S1 median {:.1} ms, S3 median {:.1} ms",
        median(d1),
        median(d3)
    );
    let compiler = nvrtc::nvrtc()?;
    let text = format!("\n#line 1 \"snippet\"\n{}\n", snippet(7));
    let mut e = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        compiler.compile(&text, "prelude", &options)?;
        e.push(t.elapsed().as_secs_f64() * 1e3);
    }
    mark("E end");
    println!("E  raw NVRTC          median {:.1} ms", median(e));
    drop(s1);
    let f = adds(&mut s2, 41..61)?;
    println!(
        "F  S2 adds 41..60 after S1 dropped: median {:.1} ms",
        median(f)
    );
    Ok(())
}
