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
//! `device_time`), and per device the thread blocks of kernels instrumented with
//! `CHEVRON_INSTRUMENT=blocks` (see [`crate::instrument`]). When the trace is off, each hook on
//! the launch path costs one relaxed atomic load and a not-taken branch ([`enabled`]).

mod buffer;
mod chrome;
mod crash;
mod device_time;
mod hooks;
mod sink;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, Once, OnceLock};
use std::time::Instant;

pub(crate) use buffer::{record, Event, Track};
pub(crate) use device_time::launch_clock;
pub(crate) use hooks::{
    alloc, device_synchronized, device_work, fault, launch, module_load, submitted, wait,
    Submission,
};

use crate::error::{Error, Result};

static ON: AtomicBool = AtomicBool::new(false);

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
    ON.load(Ordering::Relaxed)
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
    device_time::clear();
    sink::open(&path)?;
    let epoch_unix_ns = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let epoch = Instant::now().saturating_duration_since(base());
    EPOCH_NS.store(epoch.as_nanos() as u64, Ordering::Relaxed);
    EPOCH_UNIX_NS.store(epoch_unix_ns, Ordering::Relaxed);
    *session = Some(Session { path });
    ON.store(true, Ordering::Relaxed);
    Ok(())
}

/// Stops recording and completes the trace file; returns the number of events written.
/// Built-in instrumentation records still pending are read first (their kernels are waited
/// for), and device durations not resolved yet are resolved. An error when no trace is
/// recording, or when writing the file failed (at any point of the trace).
pub fn stop() -> Result<usize> {
    finish(crate::instrument::Moment::Collect)
}

/// Stops recording and completes the trace, reading pending records as `moment` says.
fn finish(moment: crate::instrument::Moment) -> Result<usize> {
    ON.store(false, Ordering::Relaxed);
    if lock(&SESSION).take().is_none() {
        return Err(Error::InvalidValue {
            call: "trace::stop",
            message: "no trace is recording (call trace::start or set CHEVRON_TRACE)".into(),
        });
    }
    let mut events = buffer::drain();
    let mut sink = |event| events.push(event);
    crate::instrument::collect_records(&mut sink, moment);
    events.extend(device_time::drain(
        moment == crate::instrument::Moment::Exit,
    ));
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
/// that ends without synchronizing its streams calls this before tearing down.
pub fn flush() -> Result<()> {
    device_time::settle(false);
    crate::instrument::collect().map(|_| ())
}

/// Nanoseconds from the start of the trace to `at` (0 for earlier instants).
pub(crate) fn since_start(at: Instant) -> u64 {
    let since_base = at.saturating_duration_since(base()).as_nanos() as u64;
    since_base.saturating_sub(EPOCH_NS.load(Ordering::Relaxed))
}

/// Starts the trace named by `CHEVRON_TRACE` and the built-in instrumentation named by
/// `CHEVRON_INSTRUMENT` once per process; what they produce is written at exit.
pub(crate) fn init_from_env() {
    static INIT: Once = Once::new();
    INIT.call_once(|| {
        let trace = std::env::var_os("CHEVRON_TRACE").filter(|v| !v.is_empty());
        let instrument = crate::instrument::Builtin::from_env();
        let mut tracing = false;
        if let Some(path) = &trace {
            match begin(PathBuf::from(path)) {
                Ok(()) => tracing = true,
                Err(err) => report_error(&err),
            }
        }
        if tracing || instrument.is_some() {
            at_exit();
        }
    });
}

extern "C" fn write_at_exit() {
    // A panic must not unwind into the C library.
    let _ = std::panic::catch_unwind(|| {
        if lock(&SESSION).is_some() {
            match finish(crate::instrument::Moment::Exit) {
                Ok(events) => {
                    report_status(&format!("ok {events}"));
                }
                Err(err) => report_error(&err),
            }
        }
        crate::instrument::print_summary();
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
