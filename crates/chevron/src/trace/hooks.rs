//! The recording side: one function per kind of call, each a no-op when the trace is off.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use serde_json::{json, Map, Value};

use super::device_time::LaunchClock;
use super::{enabled, record, since_start, Event, Track};
use crate::backend::LaunchConfig;
use crate::error::Error;
use crate::instrument::Waited;
use crate::launch::kernel::Kernel;
use crate::stream::token::Token;
use crate::stream::Stream;

/// Work submitted to a stream, described when the trace is on.
pub(crate) enum Submission<'a> {
    /// A copy (`direction`: `host to device`, …) of `bytes`.
    Copy { direction: &'static str, bytes: u64 },
    /// A fill of `bytes`.
    Fill { bytes: u64 },
    /// The stream made to wait for tokens.
    WaitFor { deps: &'a [&'a Token] },
}

fn host_track() -> Track {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    thread_local! {
        static INDEX: u64 = NEXT.fetch_add(1, Ordering::Relaxed);
    }
    let index = INDEX.with(|i| *i);
    let thread = std::thread::current();
    let name = thread
        .name()
        .map_or_else(|| format!("thread {index}"), str::to_string);
    Track::Host { index, name }
}

fn stream_track(stream: &Stream) -> Track {
    Track::Stream {
        device: stream.device().label().to_string(),
        stream: stream.shared.id,
    }
}

fn token_key(token: &Token) -> Option<(u64, u64)> {
    token.stream().map(|s| (s.id, token.sequence()))
}

/// Records `name` on the calling thread's track and, for stream work, on the stream's track.
fn emit(
    name: String,
    category: &'static str,
    started: Instant,
    args: Map<String, Value>,
    stream: Option<(&Stream, Option<&Token>)>,
    waits_for: Vec<(u64, u64)>,
) {
    let start_ns = since_start(started);
    let duration_ns = started.elapsed().as_nanos() as u64;
    let host = Event {
        name,
        category,
        track: host_track(),
        start_ns,
        duration_ns,
        args,
        completes: None,
        waits_for: Vec::new(),
    };
    if let Some((stream, token)) = stream {
        super::device_time::note_stream(stream);
        record(Event {
            track: stream_track(stream),
            completes: token.and_then(token_key),
            waits_for,
            ..host.clone()
        });
        record(host);
    } else {
        record(Event { waits_for, ..host });
    }
}

/// A kernel launch that was submitted (`token`), after `deps`; `clock` is from
/// [`super::launch_clock`] before the launch.
pub(crate) fn launch(
    clock: &LaunchClock,
    kernel: &Kernel,
    stream: &Stream,
    config: &LaunchConfig,
    deps: &[&Token],
    token: &Token,
) {
    let waits: Vec<(u64, u64)> = deps.iter().filter_map(|t| token_key(t)).collect();
    let mut args = Map::new();
    args.insert("kernel".into(), json!(kernel.display_name()));
    args.insert("grid".into(), json!(config.grid));
    args.insert("block".into(), json!(config.block));
    args.insert("shared_bytes".into(), json!(config.shared_bytes));
    args.insert("device".into(), json!(stream.device().label()));
    args.insert("stream".into(), json!(stream.shared.id));
    args.insert("sequence".into(), json!(token.sequence()));
    args.insert("deps".into(), json!(waits));
    let name = kernel.display_name().to_string();
    let names = (kernel.name(), name.as_str());
    super::device_time::launched(clock, stream, names, token.sequence());
    emit(
        name,
        "launch",
        clock.host,
        args,
        Some((stream, Some(token))),
        waits,
    );
}

/// A copy, fill or stream wait that was submitted to `stream`.
pub(crate) fn submitted(
    started: Option<Instant>,
    stream: &Stream,
    token: Option<&Token>,
    what: Submission<'_>,
) {
    let Some(started) = started else {
        return;
    };
    let mut args = Map::new();
    args.insert("device".into(), json!(stream.device().label()));
    args.insert("stream".into(), json!(stream.shared.id));
    let (name, category, waits) = match what {
        Submission::Copy { direction, bytes } => {
            args.insert("bytes".into(), json!(bytes));
            (format!("copy {direction}"), "copy", Vec::new())
        }
        Submission::Fill { bytes } => {
            args.insert("bytes".into(), json!(bytes));
            ("fill".to_string(), "fill", Vec::new())
        }
        Submission::WaitFor { deps } => {
            let waits: Vec<(u64, u64)> = deps.iter().filter_map(|t| token_key(t)).collect();
            args.insert("deps".into(), json!(waits));
            ("wait for tokens".to_string(), "wait", waits)
        }
    };
    emit(name, category, started, args, Some((stream, token)), waits);
}

/// After a host wait for `what`: reads the built-in tool records and resolves the device
/// durations it made complete.
fn waited(what: Waited<'_>) {
    crate::instrument::collect_after_wait(what);
    super::device_time::resolve_after_wait(what);
}

/// After a wait for all the work of the device labelled `device` (`Device::synchronize`).
pub(crate) fn device_synchronized(device: &str) {
    waited(Waited::Device(device));
}

/// A host wait (`what`: `token wait`, `stream synchronize`, …) for `waits_for`, which just
/// returned: the work it waited for is complete (or faulted), so the built-in tool records of
/// that stream's launches are read now, while the device is certainly alive.
pub(crate) fn wait(started: Option<Instant>, what: &str, waits_for: Option<(u64, u64)>) {
    if let Some((stream, _)) = waits_for {
        waited(Waited::Stream(stream));
    }
    let Some(started) = started else {
        return;
    };
    let mut args = Map::new();
    if let Some((stream, sequence)) = waits_for {
        args.insert("stream".into(), json!(stream));
        args.insert("sequence".into(), json!(sequence));
    }
    let waits = waits_for.into_iter().collect();
    emit(what.to_string(), "wait", started, args, None, waits);
}

/// An allocation of `bytes` on `device`.
pub(crate) fn alloc(started: Option<Instant>, device: &str, bytes: u64) {
    let Some(started) = started else {
        return;
    };
    let mut args = Map::new();
    args.insert("device".into(), json!(device));
    args.insert("bytes".into(), json!(bytes));
    emit("alloc".into(), "memory", started, args, None, Vec::new());
}

/// A module load: `source` on `device`, of which `parse_ns` parsing.
pub(crate) fn module_load(started: Option<Instant>, source: &str, device: &str, parse_ns: u64) {
    let Some(started) = started else {
        return;
    };
    let mut args = Map::new();
    args.insert("source".into(), json!(source));
    args.insert("device".into(), json!(device));
    args.insert("parse_us".into(), json!(parse_ns as f64 / 1000.0));
    args.insert(
        "load_us".into(),
        json!(started.elapsed().as_nanos() as f64 / 1000.0),
    );
    emit(
        "module load".into(),
        "module",
        started,
        args,
        None,
        Vec::new(),
    );
}

/// A fault reported to the host.
pub(crate) fn fault(error: &Error) {
    if !enabled() || !matches!(error, Error::Fault { .. }) {
        return;
    }
    let mut args = Map::new();
    args.insert("message".into(), json!(error.to_string()));
    emit(
        "fault".into(),
        "fault",
        Instant::now(),
        args,
        None,
        Vec::new(),
    );
}

/// Work a device's worker ran from `started` until now (the CPU device's executor clock), for
/// the stream whose timeline is at address `timeline`.
pub(crate) fn device_work(
    started: Option<Instant>,
    device: &str,
    timeline: usize,
    name: impl FnOnce() -> String,
) {
    let Some(started) = started else {
        return;
    };
    let worker = std::thread::current()
        .name()
        .unwrap_or("worker")
        .to_string();
    record(Event {
        name: name(),
        category: "device",
        track: Track::Worker {
            // `cpu:0 (chevron CPU device)`: the label the other tracks use is `cpu:0`.
            device: device.split(" (").next().unwrap_or(device).to_string(),
            name: worker,
            timeline,
        },
        start_ns: since_start(started),
        duration_ns: started.elapsed().as_nanos() as u64,
        args: Map::new(),
        completes: None,
        waits_for: Vec::new(),
    });
}

impl Stream {
    /// Counts a submission the backend accepted, like `Stream::submitted`, and traces it as
    /// `what` when the trace is on (`started` is `Some`).
    #[inline]
    pub(crate) fn submitted_traced(
        &self,
        started: Option<Instant>,
        what: impl FnOnce() -> Submission<'static>,
    ) -> Token {
        let token = self.submitted();
        if started.is_some() {
            submitted(started, self, Some(&token), what());
        }
        token
    }
}
