//! Rendering events as Chrome trace-event JSON: complete events (`ph: X`) on tracks, metadata
//! naming processes (host, devices) and threads (host threads, streams as submitted and as run
//! on the device, workers, block lanes),
//! and flow events (`ph: s`/`f`) from the event completing a token to the events waiting for it.

use std::collections::{BTreeMap, HashMap};

use serde_json::{json, Value};

use super::{Event, Track};

/// Process and thread ids for tracks: the host and each device are processes of their own.
#[derive(Default)]
struct Ids {
    processes: BTreeMap<String, u64>,
    threads: BTreeMap<(u64, u64), String>,
    worker_ids: HashMap<(String, String), u64>,
}

impl Ids {
    fn process(&mut self, name: &str) -> u64 {
        let next = self.processes.len() as u64 + 1;
        *self.processes.entry(name.to_string()).or_insert(next)
    }

    fn place(&mut self, track: &Track, lane: u64) -> (u64, u64) {
        let (pid, tid, name) = match track {
            Track::Host { index, name } => (self.process("host"), *index, name.clone()),
            Track::Stream { device, stream } => (
                self.process(device),
                *stream,
                format!("stream {stream} (submitted)"),
            ),
            Track::Device { device, stream } => (
                self.process(device),
                50_000 + *stream,
                format!("stream {stream} on the device"),
            ),
            Track::Worker { device, name, .. } => {
                let pid = self.process(device);
                let count = self.worker_ids.len() as u64;
                let key = (device.clone(), name.clone());
                let tid = *self.worker_ids.entry(key).or_insert(10_000 + count);
                (pid, tid, format!("executor {name}"))
            }
            Track::Blocks { device } => (
                self.process(device),
                100_000 + lane,
                format!("thread blocks {lane}"),
            ),
        };
        self.threads.entry((pid, tid)).or_insert(name);
        (pid, tid)
    }
}

fn micros(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

/// Assigns overlapping block events of one device to lanes (first lane free at their start).
fn block_lanes(events: &[Event]) -> Vec<u64> {
    let mut lanes = vec![0; events.len()];
    let mut order: Vec<usize> = (0..events.len()).collect();
    order.sort_by_key(|&i| events[i].start_ns);
    let mut ends: HashMap<&Track, Vec<u64>> = HashMap::new();
    for i in order {
        let event = &events[i];
        if !matches!(event.track, Track::Blocks { .. }) {
            continue;
        }
        let busy = ends.entry(&event.track).or_default();
        let end = event.start_ns + event.duration_ns;
        let lane = match busy.iter().position(|&e| e <= event.start_ns) {
            Some(lane) => lane,
            None => {
                busy.push(0);
                busy.len() - 1
            }
        };
        busy[lane] = end;
        lanes[i] = lane as u64;
    }
    lanes
}

/// The JSON text of a trace holding `events`.
pub(super) fn render(events: &[Event]) -> String {
    let mut ids = Ids::default();
    let lanes = block_lanes(events);
    let mut out: Vec<Value> = Vec::with_capacity(events.len() + 16);
    let mut placed = Vec::with_capacity(events.len());
    // Per stream, the events completing each of its sequence numbers, in order.
    let mut completing: HashMap<u64, BTreeMap<u64, usize>> = HashMap::new();
    for (i, event) in events.iter().enumerate() {
        let (pid, tid) = ids.place(&event.track, lanes[i]);
        placed.push((pid, tid));
        if let Some((stream, sequence)) = event.completes {
            completing.entry(stream).or_default().insert(sequence, i);
        }
        out.push(json!({
            "name": event.name,
            "cat": event.category,
            "ph": "X",
            "ts": micros(event.start_ns),
            "dur": micros(event.duration_ns.max(1)),
            "pid": pid,
            "tid": tid,
            "args": event.args,
        }));
    }
    let mut flow = 0u64;
    for (i, event) in events.iter().enumerate() {
        for (stream, sequence) in &event.waits_for {
            // The work that completed the token: the last traced submission at or before it.
            let Some((_, &source)) = completing
                .get(stream)
                .and_then(|by_sequence| by_sequence.range(..=sequence).next_back())
            else {
                continue;
            };
            flow += 1;
            let (spid, stid) = placed[source];
            let (pid, tid) = placed[i];
            let from = &events[source];
            out.push(
                json!({"name": "token", "cat": "flow", "ph": "s", "id": flow,
                "ts": micros(from.start_ns), "pid": spid, "tid": stid}),
            );
            out.push(
                json!({"name": "token", "cat": "flow", "ph": "f", "bp": "e", "id": flow,
                "ts": micros(event.start_ns), "pid": pid, "tid": tid}),
            );
        }
    }
    for (name, pid) in &ids.processes {
        out.push(
            json!({"name": "process_name", "ph": "M", "pid": pid, "tid": 0,
            "args": {"name": name}}),
        );
    }
    for ((pid, tid), name) in &ids.threads {
        out.push(
            json!({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid,
            "args": {"name": name}}),
        );
    }
    let trace = json!({"traceEvents": out, "displayTimeUnit": "ns"});
    serde_json::to_string_pretty(&trace).unwrap_or_default()
}
