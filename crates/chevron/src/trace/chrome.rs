//! Rendering events as Chrome trace-event JSON, batch by batch as the trace is written:
//! complete events (`ph: X`) on tracks, metadata naming processes (host, devices) and threads
//! (host threads, streams as submitted and as run on the device, workers, block lanes) when a
//! track first appears, and flow events (`ph: s`/`f`) from the event completing a token to the
//! events waiting for it. What the renderer keeps between batches is bounded: the track ids,
//! the busy block lanes, and the last [`RECENT_TOKENS`] completed tokens of each stream.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, Write};

use serde_json::{json, Value};

use super::{Event, Track};

/// Completed tokens remembered per stream for flows (a wait for an older token gets no arrow).
pub(super) const RECENT_TOKENS: usize = 4096;

/// The text before the first event.
pub(super) const HEADER: &str = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";

/// The text after the last event.
pub(super) const TAIL: &str = "\n]}\n";

/// Process and thread ids for tracks: the host and each device are processes of their own.
#[derive(Default)]
struct Ids {
    processes: BTreeMap<String, u64>,
    threads: BTreeMap<(u64, u64), String>,
    worker_ids: HashMap<(String, String), u64>,
}

impl Ids {
    /// The id of process `name`, and its metadata event when it is new.
    fn process(&mut self, name: &str, new: &mut Vec<Value>) -> u64 {
        if let Some(&pid) = self.processes.get(name) {
            return pid;
        }
        let pid = self.processes.len() as u64 + 1;
        self.processes.insert(name.to_string(), pid);
        new.push(
            json!({"name": "process_name", "ph": "M", "pid": pid, "tid": 0,
            "args": {"name": name}}),
        );
        pid
    }

    /// The (process, thread) of `track` (block lane `lane`), with metadata events for new ones.
    fn place(&mut self, track: &Track, lane: u64, new: &mut Vec<Value>) -> (u64, u64) {
        let (pid, tid, name) = match track {
            Track::Host { index, name } => (self.process("host", new), *index, name.clone()),
            Track::Stream { device, stream } => (
                self.process(device, new),
                *stream,
                format!("stream {stream} (submitted)"),
            ),
            Track::Device { device, stream } => (
                self.process(device, new),
                50_000 + *stream,
                format!("stream {stream} on the device"),
            ),
            Track::Worker { device, name, .. } => {
                let pid = self.process(device, new);
                let count = self.worker_ids.len() as u64;
                let key = (device.clone(), name.clone());
                let tid = *self.worker_ids.entry(key).or_insert(10_000 + count);
                (pid, tid, format!("executor {name}"))
            }
            Track::Blocks { device } => (
                self.process(device, new),
                100_000 + lane,
                format!("thread blocks {lane}"),
            ),
        };
        if let std::collections::btree_map::Entry::Vacant(slot) = self.threads.entry((pid, tid)) {
            new.push(
                json!({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid,
                "args": {"name": name}}),
            );
            slot.insert(name);
        }
        (pid, tid)
    }
}

/// Where a token's completing event was drawn: its start (ns) and track.
#[derive(Clone, Copy)]
struct Placed {
    start_ns: u64,
    pid: u64,
    tid: u64,
}

/// The state carried from one batch to the next.
#[derive(Default)]
pub(super) struct Renderer {
    ids: Ids,
    /// Per block track, when each lane is busy until.
    busy: HashMap<Track, Vec<u64>>,
    /// Per stream, the recent events completing each of its sequence numbers.
    completing: HashMap<u64, BTreeMap<u64, Placed>>,
    flows: u64,
    /// Complete events written so far.
    pub(super) written: usize,
    /// Whether anything follows the header yet (for the separators).
    started: bool,
}

fn micros(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

impl Renderer {
    /// Writes `events` (one batch) to `out`.
    pub(super) fn write(&mut self, events: &[Event], out: &mut dyn Write) -> io::Result<()> {
        let lanes = self.block_lanes(events);
        let mut placed = Vec::with_capacity(events.len());
        let mut lines: Vec<Value> = Vec::new();
        for (i, event) in events.iter().enumerate() {
            let (pid, tid) = self.ids.place(&event.track, lanes[i], &mut lines);
            placed.push((pid, tid));
            if let Some((stream, sequence)) = event.completes {
                let recent = self.completing.entry(stream).or_default();
                let at = Placed {
                    start_ns: event.start_ns,
                    pid,
                    tid,
                };
                recent.insert(sequence, at);
                if recent.len() > RECENT_TOKENS {
                    recent.pop_first();
                }
            }
            lines.push(json!({
                "name": event.name,
                "cat": event.category,
                "ph": "X",
                "ts": micros(event.start_ns),
                "dur": micros(event.duration_ns.max(1)),
                "pid": pid,
                "tid": tid,
                "args": event.args,
            }));
            if lines.len() >= 256 {
                self.emit(&mut lines, out)?;
            }
        }
        self.written += events.len();
        for (i, event) in events.iter().enumerate() {
            for (stream, sequence) in &event.waits_for {
                // The work that completed the token: the last traced submission at or before it.
                let Some((_, from)) = self
                    .completing
                    .get(stream)
                    .and_then(|by_sequence| by_sequence.range(..=sequence).next_back())
                else {
                    continue;
                };
                self.flows += 1;
                let (pid, tid) = placed[i];
                lines.push(
                    json!({"name": "token", "cat": "flow", "ph": "s", "id": self.flows,
                    "ts": micros(from.start_ns), "pid": from.pid, "tid": from.tid}),
                );
                lines.push(json!({"name": "token", "cat": "flow", "ph": "f", "bp": "e",
                    "id": self.flows, "ts": micros(event.start_ns), "pid": pid, "tid": tid}));
            }
        }
        self.emit(&mut lines, out)
    }

    /// Writes `lines` as array elements and empties it.
    fn emit(&mut self, lines: &mut Vec<Value>, out: &mut dyn Write) -> io::Result<()> {
        for line in lines.drain(..) {
            if self.started {
                out.write_all(b",\n")?;
            }
            self.started = true;
            serde_json::to_writer(&mut *out, &line)?;
        }
        Ok(())
    }

    /// Assigns overlapping block events of one device to lanes (the first lane free at their
    /// start), lanes carried over from earlier batches.
    fn block_lanes(&mut self, events: &[Event]) -> Vec<u64> {
        let mut lanes = vec![0; events.len()];
        let mut order: Vec<usize> = (0..events.len())
            .filter(|&i| matches!(events[i].track, Track::Blocks { .. }))
            .collect();
        order.sort_by_key(|&i| events[i].start_ns);
        for i in order {
            let event = &events[i];
            let busy = self.busy.entry(event.track.clone()).or_default();
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(track: Track, start_ns: u64, completes: Option<(u64, u64)>) -> Event {
        Event {
            name: "k".into(),
            category: "launch",
            track,
            start_ns,
            duration_ns: 10,
            args: serde_json::Map::new(),
            completes,
            waits_for: Vec::new(),
        }
    }

    #[test]
    fn batches_render_one_valid_trace_with_flows_across_batches() {
        let stream = Track::Stream {
            device: "cpu:0".into(),
            stream: 1,
        };
        let mut renderer = Renderer::default();
        let mut out = HEADER.as_bytes().to_vec();
        renderer
            .write(&[event(stream.clone(), 5, Some((1, 1)))], &mut out)
            .unwrap();
        let mut waiting = event(stream, 50, None);
        waiting.waits_for = vec![(1, 1)];
        renderer.write(&[waiting], &mut out).unwrap();
        out.extend_from_slice(TAIL.as_bytes());
        let trace: Value = serde_json::from_slice(&out).unwrap();
        let all = trace["traceEvents"].as_array().unwrap();
        assert_eq!(all.iter().filter(|e| e["ph"] == "X").count(), 2);
        assert_eq!(
            all.iter().filter(|e| e["ph"] == "M").count(),
            2,
            "named once"
        );
        assert_eq!(all.iter().filter(|e| e["ph"] == "s").count(), 1, "{all:?}");
        assert_eq!(renderer.written, 2);
    }
}
