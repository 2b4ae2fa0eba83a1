//! Device-side durations of launches, on a track per stream of each device ("stream N on the
//! device").
//!
//! On backends with timing events (CUDA), each traced launch is bracketed by two events
//! recorded on its stream; nothing waits for them on the launch path. They are resolved once
//! the stream's work is known complete (right after a host wait on the stream, or when the
//! trace stops, which waits for them). Event times are relative: they are placed on the trace's
//! clock through the first event of the device (the anchor), at the latest of the host times
//! at which the events were recorded, each minus its distance from the anchor (an event cannot
//! complete before the host recorded it; the first event recorded while the stream is idle
//! makes the placement exact up to the submission latency).
//!
//! On the CPU device, the stream workers time their work with the executor's clock (see
//! [`crate::trace::device_work`]); their events go on the same tracks, matched to the stream by
//! its timeline.
//!
//! It holds events back, so it is a [`Source`] of the trace, added when the first traced stream
//! work is described.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::time::Instant;

use serde_json::{json, Map};

use crate::backend;
use crate::device::state::lock;
use crate::stream::Stream;
use crate::trace::{enabled, since_start, Event, Moment, Source, Track, Waited};

/// The start of a traced launch: the host time, and the start event on timing backends.
pub(crate) struct LaunchClock {
    pub(crate) host: Instant,
    start: Option<(Arc<dyn backend::Event>, u64)>,
}

/// A launch bracketed by timing events, not resolved yet.
struct Bracketed {
    device: String,
    stream: u64,
    kernel: String,
    sequence: u64,
    /// Trace time (ns) just before the start event was recorded.
    host_ns: u64,
    start: Arc<dyn backend::Event>,
    end: Arc<dyn backend::Event>,
}

/// A launch's times relative to its device's anchor (ns).
struct Resolved {
    device: String,
    stream: u64,
    kernel: String,
    sequence: u64,
    host_ns: u64,
    start: i64,
    end: i64,
}

/// The first timing event of a device in this trace.
struct Anchor {
    event: Arc<dyn backend::Event>,
}

#[derive(Default)]
struct State {
    pending: Vec<Bracketed>,
    resolved: Vec<Resolved>,
    anchors: HashMap<String, Anchor>,
    /// CPU stream timelines (by address) to (device label, stream id).
    cpu_streams: HashMap<usize, (String, u64)>,
    /// Kernel symbol names (as CPU workers name their work) to display names.
    display_names: HashMap<String, String>,
    /// Per device, where its anchor sits on the trace's clock so far (see [`place`]).
    anchor_at: HashMap<String, i64>,
}

/// Resolved launches kept before they are placed and written (so a long trace on a timing
/// backend holds at most this many).
const RESOLVED_BATCH: usize = 4096;

static STATE: Mutex<Option<State>> = Mutex::new(None);
static PENDING: AtomicUsize = AtomicUsize::new(0);

fn with_state<R>(f: impl FnOnce(&mut State) -> R) -> R {
    let mut guard = lock(&STATE);
    let state = guard.get_or_insert_with(State::default);
    let result = f(state);
    PENDING.store(state.pending.len(), Ordering::Relaxed);
    result
}

/// The device durations as a source of the trace.
struct DeviceTime;

impl Source for DeviceTime {
    fn clear(&self) {
        with_state(|state| *state = State::default());
    }

    fn after_wait(&self, what: Waited<'_>) {
        resolve_after_wait(what);
    }

    fn settle(&self) -> crate::Result<()> {
        settle(false);
        Ok(())
    }

    fn drain(&self, moment: Moment, out: &mut dyn FnMut(Event)) {
        drain(moment == Moment::Exit).into_iter().for_each(out);
    }

    fn place(&self, events: &mut [Event]) {
        place_cpu_work(events);
    }
}

/// Adds the device durations to the trace's sources, once.
fn add_source() {
    static ADDED: Once = Once::new();
    ADDED.call_once(|| crate::trace::add_source(&DeviceTime));
}

/// The start of a launch on `stream` when the trace is recording: one relaxed load otherwise.
#[inline(always)]
pub(crate) fn launch_clock(stream: &Stream) -> Option<LaunchClock> {
    if enabled() {
        Some(start_launch(stream))
    } else {
        None
    }
}

#[cold]
fn start_launch(stream: &Stream) -> LaunchClock {
    add_source();
    let host = Instant::now();
    let start = timing_event(stream).and_then(|event| {
        let at = since_start(Instant::now());
        stream.backend_stream().record(&*event).ok()?;
        Some((event, at))
    });
    LaunchClock { host, start }
}

fn timing_event(stream: &Stream) -> Option<Arc<dyn backend::Event>> {
    let device = &stream.shared.core.backend;
    device.create_timing_event().ok().flatten()
}

/// Brackets the launch `clock` started, submitted as `sequence` of `stream`, with its end
/// event (on timing backends); on the CPU device, notes the kernel's display name for the work
/// its worker times.
pub(crate) fn launched(
    clock: &LaunchClock,
    stream: &Stream,
    (symbol, kernel): (&str, &str),
    sequence: u64,
) {
    let Some((start, host_ns)) = &clock.start else {
        if symbol != kernel {
            with_state(|state| {
                if !state.display_names.contains_key(symbol) {
                    state
                        .display_names
                        .insert(symbol.to_string(), kernel.to_string());
                }
            });
        }
        return;
    };
    let Some(end) = timing_event(stream) else {
        return;
    };
    if stream.backend_stream().record(&*end).is_err() {
        return;
    }
    let device = stream.device().label().to_string();
    with_state(|state| {
        state
            .anchors
            .entry(device.clone())
            .or_insert_with(|| Anchor {
                event: Arc::clone(start),
            });
        state.pending.push(Bracketed {
            device,
            stream: stream.shared.id,
            kernel: kernel.to_string(),
            sequence,
            host_ns: *host_ns,
            start: Arc::clone(start),
            end,
        });
    });
}

/// Resolves the launches on the streams `waited` names whose events are complete, right after a
/// host wait; one relaxed load when none is pending.
fn resolve_after_wait(waited: Waited<'_>) {
    if PENDING.load(Ordering::Relaxed) == 0 {
        return;
    }
    let placed = with_state(|state| {
        let pending = std::mem::take(&mut state.pending);
        for bracketed in pending {
            let concerned = match waited {
                Waited::Stream(id) => bracketed.stream == id,
                Waited::Device(label) => bracketed.device == label,
            };
            if !concerned {
                state.pending.push(bracketed);
                continue;
            }
            match resolve(state, &bracketed) {
                Ok(Some(resolved)) => state.resolved.push(resolved),
                Ok(None) => state.pending.push(bracketed),
                Err(err) => explain_lost(&bracketed, &err, false),
            }
        }
        if state.resolved.len() < RESOLVED_BATCH {
            return Vec::new();
        }
        let resolved = std::mem::take(&mut state.resolved);
        place(resolved, &mut state.anchor_at)
    });
    // Recorded outside the state's lock: writing a batch reads the state.
    for event in placed {
        crate::trace::record(event);
    }
}

/// The launch's times relative to its device's anchor, once both events are complete.
fn resolve(state: &State, bracketed: &Bracketed) -> crate::Result<Option<Resolved>> {
    let Some(anchor) = state.anchors.get(&bracketed.device) else {
        return Ok(None);
    };
    let start = bracketed.start.elapsed_ns_since(&*anchor.event)?;
    let end = bracketed.end.elapsed_ns_since(&*anchor.event)?;
    Ok(start.zip(end).map(|(start, end)| Resolved {
        device: bracketed.device.clone(),
        stream: bracketed.stream,
        kernel: bracketed.kernel.clone(),
        sequence: bracketed.sequence,
        host_ns: bracketed.host_ns,
        start,
        end,
    }))
}

fn explain_lost(bracketed: &Bracketed, err: &crate::Error, at_exit: bool) {
    let hint = if at_exit {
        " (at exit the device's driver may already be shut down: synchronize the stream, or \
         stop the trace, before the program ends)"
    } else {
        ""
    };
    eprintln!(
        "chevron: the device time of the launch of `{}` on {} could not be read: {err}{hint}",
        bracketed.kernel, bracketed.device
    );
}

/// Waits for the launches still pending and resolves them (the trace goes on).
fn settle(at_exit: bool) {
    if PENDING.load(Ordering::Relaxed) == 0 {
        return;
    }
    with_state(|state| settle_pending(state, at_exit));
}

/// Waits for the launches still pending, resolves them, and returns the trace events of every
/// resolved launch; forgets them.
fn drain(at_exit: bool) -> Vec<Event> {
    with_state(|state| {
        settle_pending(state, at_exit);
        let resolved = std::mem::take(&mut state.resolved);
        state.anchors.clear();
        let mut anchor_at = std::mem::take(&mut state.anchor_at);
        place(resolved, &mut anchor_at)
    })
}

/// Waits for each pending launch's end event (and its device's anchor) and resolves it.
fn settle_pending(state: &mut State, at_exit: bool) {
    let pending = std::mem::take(&mut state.pending);
    for bracketed in pending {
        let waited = bracketed.end.synchronize().and_then(|()| {
            let anchor = state.anchors.get(&bracketed.device);
            anchor.map_or(Ok(()), |a| a.event.synchronize())
        });
        match waited.and_then(|()| resolve(state, &bracketed)) {
            Ok(Some(resolved)) => state.resolved.push(resolved),
            Ok(None) => {}
            Err(err) => explain_lost(&bracketed, &err, at_exit),
        }
    }
}

/// Trace events of `resolved` launches, placed on the trace's clock device by device; a
/// device's anchor is placed at the latest host bound of its launches so far (`anchor_at`,
/// kept from batch to batch: a later batch may move it later, never earlier ones).
fn place(resolved: Vec<Resolved>, anchor_at: &mut HashMap<String, i64>) -> Vec<Event> {
    for r in &resolved {
        let at = anchor_at.entry(r.device.clone()).or_insert(i64::MIN);
        *at = (*at).max(r.host_ns as i64 - r.start);
    }
    resolved
        .iter()
        .map(|r| {
            let anchor = anchor_at.get(&r.device).copied().unwrap_or(0);
            let mut args = Map::new();
            args.insert("kernel".into(), json!(r.kernel));
            args.insert("sequence".into(), json!(r.sequence));
            args.insert("clock".into(), json!("device events"));
            Event {
                name: r.kernel.clone(),
                category: "device",
                track: Track::Device {
                    device: r.device.clone(),
                    stream: r.stream,
                },
                start_ns: (anchor + r.start).max(0) as u64,
                duration_ns: (r.end - r.start).max(0) as u64,
                args,
                completes: None,
                waits_for: Vec::new(),
            }
        })
        .collect()
}

/// Notes which CPU stream timeline belongs to `stream`, so that the work its worker times goes
/// on the stream's device track.
pub(crate) fn note_stream(stream: &Stream) {
    let Some(key) = stream.backend_stream().executor_track() else {
        return;
    };
    add_source();
    let id = stream.shared.id;
    with_state(|state| {
        if state
            .cpu_streams
            .get(&key)
            .is_none_or(|(_, known)| *known != id)
        {
            let device = stream.device().label().to_string();
            state.cpu_streams.insert(key, (device, id));
        }
    });
}

/// Moves the work of CPU stream workers onto the device tracks of their streams.
fn place_cpu_work(events: &mut [Event]) {
    with_state(|state| {
        for event in events.iter_mut() {
            if let Track::Worker { timeline, .. } = &event.track {
                if let Some((device, stream)) = state.cpu_streams.get(timeline) {
                    event.track = Track::Device {
                        device: device.clone(),
                        stream: *stream,
                    };
                    event.args.insert("clock".into(), json!("executor"));
                    if let Some(display) = state.display_names.get(&event.name) {
                        event.args.insert("symbol".into(), json!(event.name));
                        event.name = display.clone();
                    }
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolved(host_ns: u64, start: i64, end: i64) -> Resolved {
        Resolved {
            device: "cuda:0".into(),
            stream: 1,
            kernel: "k".into(),
            sequence: 1,
            host_ns,
            start,
            end,
        }
    }

    #[test]
    fn launches_are_placed_at_the_latest_host_bound() {
        // The anchor's stream was busy when it was recorded (at 1000 ns): the second launch,
        // recorded at 50_000 ns on an idle stream and 40_000 ns after the anchor, shows the
        // anchor completed at 10_000 ns.
        let mut anchor_at = HashMap::new();
        let events = place(
            vec![resolved(1_000, 0, 5_000), resolved(50_000, 40_000, 45_000)],
            &mut anchor_at,
        );
        let times: Vec<(u64, u64)> = events.iter().map(|e| (e.start_ns, e.duration_ns)).collect();
        assert_eq!(times, [(10_000, 5_000), (50_000, 5_000)]);
        // A later batch keeps the anchor found so far.
        let later = place(vec![resolved(90_000, 80_000, 81_000)], &mut anchor_at);
        assert_eq!((later[0].start_ns, later[0].duration_ns), (90_000, 1_000));
        assert!(events.iter().all(|e| e.track
            == Track::Device {
                device: "cuda:0".into(),
                stream: 1
            }));
    }
}
