//! Resident memory over long runs of launches and graph replays on one stream, with and without
//! periodic synchronization (scripts/rss-soak.sh runs it and checks the figures).
//!
//! `CHEVRON_DEVICES=cpu cargo run -p chevron --example rss-soak [-- COUNT]`: for each of
//! launches and replays of a one-launch graph, COUNT (default 1,000,000) submissions, once
//! synchronizing every 1,000 and once never until the end. Prints the resident memory after a
//! warm-up, its peak, and the growth (peak minus warm-up), in KiB, one line per run.

use chevron::{Buffer, Graph, Kernel, LaunchConfig, Module, Runtime, Stream};

/// `bump(counter)`: one thread adds 1 to `*counter`.
const PTX: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.visible .entry bump(.param .u64 bump_param_0)
{
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<3>;

	ld.param.u64 	%rd1, [bump_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	ld.global.u32 	%r1, [%rd2];
	add.s32 	%r2, %r1, 1;
	st.global.u32 	[%rd2], %r2;
	ret;
}
"#;

/// Submissions between synchronizations in the synchronized runs.
const SYNC_EVERY: usize = 1_000;
/// Submissions before the baseline is taken (pools, queues and caches reach their size).
const WARM_UP: usize = 20_000;
/// Submissions between samples of resident memory.
const SAMPLE_EVERY: usize = 10_000;

/// Resident memory of this process, in KiB.
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("VmRSS:"))
                .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// One submission: a launch or a replay.
enum Work<'a> {
    Launch(&'a Kernel, &'a Buffer<u32>),
    Replay(&'a Graph),
}

/// Runs `count` submissions on `stream`, synchronizing every [`SYNC_EVERY`] if `sync`; returns
/// (baseline, peak) resident memory in KiB.
fn soak(stream: &Stream, work: &Work, count: usize, sync: bool) -> chevron::Result<(u64, u64)> {
    let config = LaunchConfig::for_elements(1, 1);
    let (mut baseline, mut peak) = (0, 0);
    for i in 1..=count + WARM_UP {
        match work {
            Work::Launch(kernel, counter) => drop(kernel.launch(stream, config, (*counter,))?),
            Work::Replay(graph) => drop(graph.launch(stream, &[])?),
        }
        if sync && i % SYNC_EVERY == 0 {
            stream.synchronize()?;
        }
        if i == WARM_UP {
            stream.synchronize()?;
            baseline = rss_kib();
        } else if i > WARM_UP && i % SAMPLE_EVERY == 0 {
            peak = peak.max(rss_kib());
        }
    }
    peak = peak.max(rss_kib());
    stream.synchronize()?;
    Ok((baseline, peak.max(baseline)))
}

fn main() -> chevron::Result<()> {
    let count: usize = match std::env::args().nth(1) {
        None => 1_000_000,
        Some(text) => text.parse().unwrap_or_else(|_| {
            eprintln!("usage: rss-soak [COUNT]");
            std::process::exit(2);
        }),
    };
    let runtime = Runtime::new()?;
    let device = runtime.default_device()?;
    let module = Module::from_ptx(device, PTX)?;
    let bump = module.kernel("bump")?;
    let counter = Buffer::<u32>::zeroed(device, 1)?;
    let stream = device.create_stream()?;
    let graph = stream.record(|recorder| {
        recorder.launch(&bump, LaunchConfig::for_elements(1, 1), (&counter,))?;
        Ok(())
    })?;
    let mut expected = 0u64;
    for (name, work) in [
        ("launches", Work::Launch(&bump, &counter)),
        ("replays", Work::Replay(&graph)),
    ] {
        for sync in [true, false] {
            let (baseline, peak) = soak(&stream, &work, count, sync)?;
            expected += (count + WARM_UP) as u64;
            let mode = if sync {
                format!("synchronized every {SYNC_EVERY}")
            } else {
                "never synchronized".to_string()
            };
            println!(
                "{name}, {mode}: {count} after {WARM_UP} warm-up: resident {baseline} KiB, \
                 peak {peak} KiB, growth {} KiB",
                peak - baseline
            );
        }
    }
    let total = counter.to_vec()?[0];
    if u64::from(total) != expected {
        eprintln!("rss-soak: the counter reads {total}, expected {expected}");
        std::process::exit(1);
    }
    println!("rss-soak: {expected} submissions ran on {}", device.label());
    Ok(())
}
