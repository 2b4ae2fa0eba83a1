//! The recording side: one function per kind of call, each a no-op when the trace is off. They
//! take plain descriptions (names, device labels, stream ids and sequence numbers): the layers
//! above describe their own objects (`stream/traced.rs`, `launch/traced.rs`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use serde_json::{json, Map, Value};

use super::source::{waited, Waited};
use super::{enabled, record, since_start, Event, Track};
use crate::error::Error;

/// Work on a stream: which stream, and the submission (stream id, sequence number) it completes.
pub(crate) struct OnStream<'a> {
    /// The label of the stream's device.
    pub device: &'a str,
    /// The stream's id.
    pub stream: u64,
    /// The submission the work completes, when it is one.
    pub completes: Option<(u64, u64)>,
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

/// Records `name` on the calling thread's track and, for stream work, on the stream's track.
pub(crate) fn emit(
    name: String,
    category: &'static str,
    started: Instant,
    args: Map<String, Value>,
    stream: Option<OnStream<'_>>,
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
    if let Some(on) = stream {
        record(Event {
            track: Track::Stream {
                device: on.device.to_string(),
                stream: on.stream,
            },
            completes: on.completes,
            waits_for,
            ..host.clone()
        });
        record(host);
    } else {
        record(Event { waits_for, ..host });
    }
}

/// After a wait for all the work of the device labelled `device` (`Device::synchronize`).
pub(crate) fn device_synchronized(device: &str) {
    waited(Waited::Device(device));
}

/// A host wait (`what`: `token wait`, `stream synchronize`, …) for `waits_for`, which just
/// returned: the work it waited for is complete (or faulted), so what the trace's sources hold
/// for that stream (instrumentation records, device durations) is read now, while the device is
/// certainly alive.
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
