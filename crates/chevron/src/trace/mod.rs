//! Host trace: every chevron call recorded into per-thread buffers and written as Chrome
//! trace-event JSON (Perfetto and `chrome://tracing` open it).
//!
//! Start it with `CHEVRON_TRACE=FILE` (closed at exit) or [`start`]/[`stop`]. The file is
//! written as the trace records, in batches, so memory stays bounded however long the run;
//! a program that crashes or aborts still leaves a valid trace (see `sink`). The trace holds
//! one track per host thread (every call: module loads with parse and load time, launches,
//! copies, fills, allocations, waits, faults), one per stream (the work submitted to it, with
//! flow arrows from a token to the work or wait that waited on it), one per stream for the work
//! as the device ran it (CUDA timing events, or the CPU device's executor clock: see
//! `stream/device_time.rs`), and per device the thread blocks of kernels instrumented with
//! `CHEVRON_INSTRUMENT=blocks` (see [`crate::instrument`]). When the trace is off, each hook on
//! the launch path costs one relaxed atomic load and a not-taken branch ([`enabled`]).
//!
//! The trace is a sink that imports nothing of the runtime: the layers above describe their
//! calls to it in plain terms (`hooks`), and the features that hold events back until later
//! (device durations, instrumentation records) are its [`Source`]s, asked for them when a host
//! wait returns, when the trace is flushed or stops, and at exit.

mod buffer;
mod chrome;
mod crash;
mod hooks;
mod sink;
mod source;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, Once, OnceLock};
use std::time::Instant;

pub(crate) use buffer::{record, Event, Track};
pub(crate) use hooks::{
    alloc, device_synchronized, device_work, emit, fault, module_load, wait, OnStream,
};
pub(crate) use source::{add_source, Moment, Source, Waited};

use crate::error::{Error, Result};

/// Where the trace goes.
struct Session {
    path: PathBuf,
}

/// When the trace started, as `%globaltimer` reads it (ns since the Unix epoch).
static EPOCH_UNIX_NS: AtomicU64 = AtomicU64::new(0);

/// The instant event times are measured from, and the session's start after it (in ns): read
/// without a lock, since every recording thread needs them.
static BASE: OnceLock<Instant> = OnceLock::new();
static EPOCH_NS: AtomicU64 = AtomicU64::new(0);

fn base() -> Instant {
    *BASE.get_or_init(Instant::now)
}

static SESSION: Mutex<Option<Session>> = Mutex::new(None);

/// Whether the trace is recording: one relaxed atomic load, the single check the launch path
/// needs (every trace hook does nothing when it is false).
#[inline(always)]
pub fn enabled() -> bool {
    crate::launch_extras::tracing()
}

/// Whether the trace is recording (the same as [`enabled`]).
#[inline(always)]
pub fn is_on() -> bool {
    enabled()
}

/// The time now when the trace is recording (the start of a traced call).
#[inline(always)]
pub(crate) fn clock() -> Option<Instant> {
    if enabled() {
        Some(Instant::now())
    } else {
        None
    }
}

/// Starts recording into the file `path` (created now, written as events are recorded);
/// [`stop`] completes it. An error when a trace is already recording (stop it first) or when
/// the file cannot be created.
pub fn start(path: impl AsRef<Path>) -> Result<()> {
    begin(path.as_ref().to_path_buf())
}

fn begin(path: PathBuf) -> Result<()> {
    let mut session = lock(&SESSION);
    if let Some(recording) = session.as_ref() {
        return Err(Error::InvalidValue {
            call: "trace::start",
            message: format!(
                "a trace is already recording into {}: stop it first",
                recording.path.display()
            ),
        });
    }
    buffer::clear();
    source::each(|source| source.clear());
    sink::open(&path)?;
    let epoch_unix_ns = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let epoch = Instant::now().saturating_duration_since(base());
    EPOCH_NS.store(epoch.as_nanos() as u64, Ordering::Relaxed);
    EPOCH_UNIX_NS.store(epoch_unix_ns, Ordering::Relaxed);
    *session = Some(Session { path });
    crate::launch_extras::set_tracing(true);
    Ok(())
}

/// Stops recording and completes the trace file; returns the number of events written.
/// Built-in instrumentation records still pending are read first (their kernels are waited
/// for), and device durations not resolved yet are resolved. An error when no trace is
/// recording, or when writing the file failed (at any point of the trace).
pub fn stop() -> Result<usize> {
    finish(Moment::Collect)
}

/// Stops recording and completes the trace, reading pending records as `moment` says.
fn finish(moment: Moment) -> Result<usize> {
    crate::launch_extras::set_tracing(false);
    if lock(&SESSION).take().is_none() {
        return Err(Error::InvalidValue {
            call: "trace::stop",
            message: "no trace is recording (call trace::start or set CHEVRON_TRACE)".into(),
        });
    }
    let mut events = buffer::drain();
    source::each(|source| source.drain(moment, &mut |event| events.push(event)));
    for batch in events.chunks(buffer::BATCH) {
        sink::write(batch.to_vec());
    }
    sink::close()
}

/// When the trace started, in ns since the Unix epoch (as `%globaltimer` counts).
pub(crate) fn epoch_unix_ns() -> u64 {
    EPOCH_UNIX_NS.load(Ordering::Relaxed)
}

/// Records `event` when the trace is recording (events produced after the call they belong to,
/// such as built-in tool records read later); drops it otherwise.
pub(crate) fn record_late(event: Event) {
    if enabled() {
        record(event);
    }
}

/// Reads what the device side still holds for the trace and the instrumentation summary
/// (device durations of launches, records of built-in tools, see
/// [`crate::instrument::collect`]), waiting for the kernels
/// concerned, while the devices are alive; the trace, if recording, goes on. A program or tool
/// that ends without synchronizing its streams calls this before tearing down. Returns the
/// first error of a source (after asking every one).
pub fn flush() -> Result<()> {
    let mut first_error = None;
    source::each(|source| {
        if let Err(err) = source.settle() {
            first_error.get_or_insert(err);
        }
    });
    first_error.map_or(Ok(()), Err)
}

/// Nanoseconds from the start of the trace to `at` (0 for earlier instants).
pub(crate) fn since_start(at: Instant) -> u64 {
    let since_base = at.saturating_duration_since(base()).as_nanos() as u64;
    since_base.saturating_sub(EPOCH_NS.load(Ordering::Relaxed))
}

/// Starts the trace named by `CHEVRON_TRACE` once per process; it is written at exit.
pub(crate) fn init_from_env() {
    static INIT: Once = Once::new();
    INIT.call_once(|| {
        let trace = std::env::var_os("CHEVRON_TRACE").filter(|v| !v.is_empty());
        if let Some(path) = &trace {
            match begin(PathBuf::from(path)) {
                Ok(()) => write_at_exit_once(),
                Err(err) => report_error(&err),
            }
        }
    });
}

/// Registers, once per process, the exit handler that completes the trace (when one records)
/// and lets every source finish (a source that prints a summary at exit asks for it too).
pub(crate) fn write_at_exit_once() {
    static REGISTERED: Once = Once::new();
    REGISTERED.call_once(at_exit);
}

extern "C" fn write_at_exit() {
    // A panic must not unwind into the C library.
    let _ = std::panic::catch_unwind(|| {
        if lock(&SESSION).is_some() {
            match finish(Moment::Exit) {
                Ok(events) => {
                    report_status(&format!("ok {events}"));
                }
                Err(err) => report_error(&err),
            }
        }
        source::each(|source| source.at_exit());
    });
}

/// Writes how the `CHEVRON_TRACE` trace ended (`ok EVENTS` or `error: MESSAGE`) to the file
/// `CHEVRON_TRACE_STATUS` names, for `chevron trace`, which runs the program and reports.
/// Returns whether it was written.
fn report_status(line: &str) -> bool {
    std::env::var_os("CHEVRON_TRACE_STATUS")
        .filter(|p| !p.is_empty())
        .is_some_and(|path| std::fs::write(path, format!("{line}\n")).is_ok())
}

/// Reports a `CHEVRON_TRACE` failure: to `chevron trace` when it runs the program (it says so
/// on one line), else on stderr.
fn report_error(err: &Error) {
    if !report_status(&format!("error: {err}")) {
        eprintln!("chevron: CHEVRON_TRACE: {err}");
    }
}

fn at_exit() {
    extern "C" {
        fn atexit(callback: extern "C" fn()) -> std::ffi::c_int;
    }
    // SAFETY: `atexit` is the C library's; the callback is a plain `extern "C"` function that
    // lets no panic out (it catches them).
    if unsafe { atexit(write_at_exit) } != 0 {
        eprintln!("chevron: cannot register the exit handler: the trace will not be written");
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
