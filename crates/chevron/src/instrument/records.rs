//! The records of built-in tools: kept per launch until the launch is known complete, then read
//! back, turned into trace events and summed into a per-kernel summary.
//!
//! A record is read right after the host waited for its launch's stream (`Stream::synchronize`,
//! `Token::wait`, `Device::synchronize`, and the C, mgpu and CUDA runtime calls built on them)
//! once that stream has no work left, when the trace stops, or when the program calls [`super::collect`]; what is still
//! pending at process exit is read then, and a read that fails (a driver already shut down) is
//! explained on stderr, not dropped silently.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use serde_json::{json, Map};

use super::Builtin;
use crate::buffer::Buffer;
use crate::stream::Stream;
use crate::trace::{Event, Moment, Track, Waited};

/// One launch's record, not read yet.
pub(crate) struct Pending {
    pub tool: Builtin,
    pub kernel: String,
    pub device: String,
    pub grid: [u32; 3],
    pub block_instructions: Vec<u32>,
    /// When it was launched, in nanoseconds since the trace started (when it was recording).
    pub launched_ns: Option<u64>,
    pub stream: Stream,
    pub buffer: Buffer<u64>,
}

/// What a built-in tool measured for one kernel, over its launches.
#[derive(Debug, Default, Clone, Copy)]
struct Totals {
    launches: u64,
    thread_blocks: u64,
    block_ns: u64,
    basic_blocks: u64,
    instructions: u64,
    loads: u64,
    load_bytes: u64,
    stores: u64,
    store_bytes: u64,
}

struct State {
    pending: Vec<Pending>,
    totals: BTreeMap<(&'static str, String), Totals>,
    skipped: Vec<String>,
}

static STATE: Mutex<State> = Mutex::new(State {
    pending: Vec::new(),
    totals: BTreeMap::new(),
    skipped: Vec::new(),
});

fn state() -> std::sync::MutexGuard<'static, State> {
    STATE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

pub(crate) fn push(pending: Pending) {
    let mut state = state();
    state.pending.push(pending);
    PENDING.store(state.pending.len(), Ordering::Relaxed);
}

/// How many records are waiting to be read (kept beside the list: checked without the lock).
static PENDING: AtomicUsize = AtomicUsize::new(0);

/// The number of built-in tool records not read yet.
pub(crate) fn pending() -> usize {
    PENDING.load(Ordering::Relaxed)
}

/// Takes the pending records `select` picks.
fn take_pending(select: impl Fn(&Pending) -> bool) -> Vec<Pending> {
    let mut state = state();
    let (taken, kept) = std::mem::take(&mut state.pending)
        .into_iter()
        .partition(|p| select(p));
    state.pending = kept;
    PENDING.store(state.pending.len(), Ordering::Relaxed);
    taken
}

/// Notes a module that could not be instrumented, for the summary.
pub(crate) fn note_skipped(source: &str, why: &str) {
    state().skipped.push(format!("{source}: {why}"));
}

/// Reads the records of launches on the streams `waited` names once their stream has no work
/// left, right after a host wait on it: while the device (and its driver) is certainly alive. Their trace
/// events go into the trace when it is recording. Costs one relaxed load when nothing is
/// pending.
pub(crate) fn collect_after_wait(waited: Waited<'_>) {
    if pending() == 0 {
        return;
    }
    let taken = take_pending(|p| match waited {
        Waited::Stream(id) => p.stream.shared.id == id,
        Waited::Device(label) => p.device == label,
    });
    let mut unfinished = Vec::new();
    for record in taken {
        match record.stream.backend_stream().query() {
            Ok(true) => {
                // A failed read is explained on stderr by `read`.
                let _ = read(record, Moment::AfterWait, &mut crate::trace::record_late);
            }
            // Work submitted since (from another thread): read at a later wait.
            Ok(false) => unfinished.push(record),
            // The fault goes to whoever waits for the kernel; the record is incomplete.
            Err(_) => {}
        }
    }
    if !unfinished.is_empty() {
        let mut state = state();
        state.pending.extend(unfinished);
        PENDING.store(state.pending.len(), Ordering::Relaxed);
    }
}

/// Reads every pending record (waiting for its launch), sums it into the summary and hands its
/// trace events to `sink`. Returns the number read and the first error of a record that could
/// not be read (after explaining it on stderr).
pub(crate) fn collect_records(
    sink: &mut dyn FnMut(Event),
    moment: Moment,
) -> (usize, Option<crate::Error>) {
    let taken = take_pending(|_| true);
    let mut read_count = 0;
    let mut first_error = None;
    for record in taken {
        match read(record, moment, sink) {
            Ok(()) => read_count += 1,
            Err(err) => {
                first_error.get_or_insert(err);
            }
        }
    }
    (read_count, first_error)
}

/// Reads one record: its events to `sink`, its totals into the summary.
fn read(record: Pending, moment: Moment, sink: &mut dyn FnMut(Event)) -> crate::Result<()> {
    let values = match read_values(&record) {
        Ok(values) => values,
        // The fault was reported to whoever waited for the kernel.
        Err(err @ crate::Error::Fault { .. }) => return Err(err),
        Err(err) => {
            explain_lost(&record, moment, &err);
            return Err(err);
        }
    };
    let epoch_unix_ns = crate::trace::epoch_unix_ns();
    let mut totals = Totals::default();
    match record.tool {
        Builtin::Blocks => block_events(&record, &values, epoch_unix_ns, &mut totals, sink),
        Builtin::Counts => {
            totals.basic_blocks = values.iter().sum();
            totals.instructions = values
                .iter()
                .zip(&record.block_instructions)
                .map(|(&count, &size)| count * u64::from(size))
                .sum();
        }
        Builtin::Memory => {
            [
                totals.loads,
                totals.load_bytes,
                totals.stores,
                totals.store_bytes,
            ] = [values[0], values[1], values[2], values[3]];
        }
    }
    if let (Some(at), Builtin::Counts | Builtin::Memory) = (record.launched_ns, record.tool) {
        sink(summary_event(&record, at, &totals));
    }
    let key = (record.tool.name(), record.kernel.clone());
    let mut state = state();
    let sum = state.totals.entry(key).or_default();
    sum.launches += 1;
    sum.thread_blocks += totals.thread_blocks;
    sum.block_ns += totals.block_ns;
    sum.basic_blocks += totals.basic_blocks;
    sum.instructions += totals.instructions;
    sum.loads += totals.loads;
    sum.load_bytes += totals.load_bytes;
    sum.stores += totals.stores;
    sum.store_bytes += totals.store_bytes;
    Ok(())
}

/// The record's words, read through the backend directly after the launch's stream finished:
/// chevron's own reads do not show up in the trace as calls of the program.
fn read_values(record: &Pending) -> crate::Result<Vec<u64>> {
    let backend = record.stream.backend_stream();
    backend.synchronize()?;
    let mut values = vec![0u64; record.buffer.len()];
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut values);
    backend.copy_to_host(bytes, record.buffer.device_ptr())?;
    Ok(values)
}

/// Says on stderr why a record is lost, and how to have it read in time.
fn explain_lost(record: &Pending, moment: Moment, err: &crate::Error) {
    let when = match moment {
        Moment::AfterWait => "after a wait on its stream",
        Moment::Collect => "when collected",
        Moment::Exit => "at process exit",
    };
    let hint = if moment == Moment::Exit {
        " (the device's driver may already be shut down at exit: records are read when the \
         launch's stream is synchronized or its last token waited for, at trace::stop / \
         chevron_trace_stop, or by chevron::instrument::collect(); do one of these before the \
         program ends)"
    } else {
        ""
    };
    eprintln!(
        "chevron: the `{}` record of a launch of `{}` on {} could not be read {when}: {err}{hint}",
        record.tool.name(),
        record.kernel,
        record.device
    );
}

/// One complete event per thread block that ran, named `block (x, y, z)`.
fn block_events(
    record: &Pending,
    values: &[u64],
    epoch_unix_ns: u64,
    totals: &mut Totals,
    sink: &mut dyn FnMut(Event),
) {
    let [gx, gy, _] = record.grid.map(u64::from);
    for (linear, pair) in values.chunks_exact(2).enumerate() {
        let (start, end) = (pair[0], pair[1]);
        if start == u64::MAX || end < start {
            continue;
        }
        totals.thread_blocks += 1;
        totals.block_ns += end - start;
        let linear = linear as u64;
        let (x, y, z) = (linear % gx, linear / gx % gy, linear / (gx * gy));
        let mut args = Map::new();
        args.insert("kernel".into(), json!(record.kernel));
        args.insert("block".into(), json!([x, y, z]));
        sink(Event {
            name: format!("block ({x}, {y}, {z})"),
            category: "block",
            track: Track::Blocks {
                device: record.device.clone(),
            },
            start_ns: start.saturating_sub(epoch_unix_ns),
            duration_ns: end - start,
            args,
            completes: None,
            waits_for: Vec::new(),
        });
    }
}

fn summary_event(record: &Pending, at: u64, totals: &Totals) -> Event {
    let mut args = Map::new();
    args.insert("kernel".into(), json!(record.kernel));
    if record.tool == Builtin::Counts {
        args.insert("basic_blocks".into(), json!(totals.basic_blocks));
        args.insert("instructions".into(), json!(totals.instructions));
    } else {
        args.insert("loads".into(), json!(totals.loads));
        args.insert("load_bytes".into(), json!(totals.load_bytes));
        args.insert("stores".into(), json!(totals.stores));
        args.insert("store_bytes".into(), json!(totals.store_bytes));
    }
    Event {
        name: format!("{}: {}", record.tool.name(), record.kernel),
        category: "instrument",
        track: Track::Blocks {
            device: record.device.clone(),
        },
        start_ns: at,
        duration_ns: 0,
        args,
        completes: None,
        waits_for: Vec::new(),
    }
}

/// Prints what the built-in tools measured, per kernel, on stderr (nothing when none ran).
pub(crate) fn print_summary() {
    collect_records(&mut |_| {}, Moment::Exit);
    let state = state();
    if state.totals.is_empty() && state.skipped.is_empty() {
        return;
    }
    eprintln!("chevron instrumentation summary:");
    for ((tool, kernel), t) in &state.totals {
        let line = match *tool {
            "blocks" => format!(
                "{} launches, {} thread blocks, {:.1} µs per block on average",
                t.launches,
                t.thread_blocks,
                t.block_ns as f64 / 1000.0 / t.thread_blocks.max(1) as f64
            ),
            "counts" => format!(
                "{} launches, {} basic blocks and {} instructions executed (summed over threads)",
                t.launches, t.basic_blocks, t.instructions
            ),
            _ => format!(
                "{} launches, {} global loads ({} bytes), {} global stores ({} bytes)",
                t.launches, t.loads, t.load_bytes, t.stores, t.store_bytes
            ),
        };
        eprintln!("  {tool:<6} {kernel}: {line}");
    }
    for skipped in &state.skipped {
        eprintln!("  not instrumented: {skipped}");
    }
}
