//! Host trace: every chevron call recorded into per-thread buffers and written as Chrome
//! trace-event JSON (Perfetto and `chrome://tracing` open it).
//!
//! Start it with `CHEVRON_TRACE=FILE` (written at exit) or [`start`]/[`stop`]. The trace holds
//! one track per host thread (every call: module loads with parse and load time, launches,
//! copies, fills, allocations, waits, faults), one per stream (the work submitted to it, with
//! flow arrows from a token to the work or wait that waited on it), and per device the work as
//! the CPU device's stream workers ran it, and the thread blocks of kernels instrumented with
//! `CHEVRON_INSTRUMENT=blocks` (see [`crate::instrument`]). When the trace is off, each hook on
//! the launch path costs one relaxed atomic load and a not-taken branch.

mod buffer;
mod chrome;
mod hooks;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, Once, OnceLock};
use std::time::Instant;

pub(crate) use buffer::{record, Event, Track};
pub(crate) use hooks::{
    alloc, device_work, fault, launch, module_load, submitted, wait, Submission,
};

use crate::error::{Error, Result};

static ON: AtomicBool = AtomicBool::new(false);

/// Where the trace goes and when it started (as `%globaltimer` reads it).
struct Session {
    path: Option<PathBuf>,
    epoch_unix_ns: u64,
}

/// The instant event times are measured from, and the session's start after it (in ns): read
/// without a lock, since every recording thread needs them.
static BASE: OnceLock<Instant> = OnceLock::new();
static EPOCH_NS: AtomicU64 = AtomicU64::new(0);

fn base() -> Instant {
    *BASE.get_or_init(Instant::now)
}

static SESSION: Mutex<Option<Session>> = Mutex::new(None);

/// Whether the trace is recording.
#[inline(always)]
pub fn is_on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// The time now when the trace is recording (the start of a traced call).
#[inline(always)]
pub(crate) fn clock() -> Option<Instant> {
    if is_on() {
        Some(Instant::now())
    } else {
        None
    }
}

/// Starts recording; [`stop`] writes the trace to `path`. Events recorded by an earlier
/// session that was not stopped are discarded.
pub fn start(path: impl AsRef<Path>) {
    begin(Some(path.as_ref().to_path_buf()));
}

fn begin(path: Option<PathBuf>) {
    let mut session = lock(&SESSION);
    buffer::clear();
    let epoch_unix_ns = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let epoch = Instant::now().saturating_duration_since(base());
    EPOCH_NS.store(epoch.as_nanos() as u64, Ordering::Relaxed);
    *session = Some(Session {
        path,
        epoch_unix_ns,
    });
    ON.store(true, Ordering::Relaxed);
    crate::launch::submit::note_trace(true);
}

/// Stops recording and writes the trace; returns the number of events written. Built-in
/// instrumentation records still pending are read first (their kernels are waited for).
pub fn stop() -> Result<usize> {
    ON.store(false, Ordering::Relaxed);
    crate::launch::submit::note_trace(false);
    let Some(session) = lock(&SESSION).take() else {
        return Err(Error::InvalidValue {
            call: "trace::stop",
            message: "no trace is recording (call trace::start or set CHEVRON_TRACE)".into(),
        });
    };
    let mut events = buffer::drain();
    crate::instrument::collect_records(&mut |event| events.push(event), session.epoch_unix_ns);
    let json = chrome::render(&events);
    if let Some(path) = &session.path {
        std::fs::write(path, json).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
    }
    Ok(events.len())
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
        if let Some(path) = &trace {
            begin(Some(PathBuf::from(path)));
        }
        if trace.is_some() || instrument.is_some() {
            at_exit();
        }
    });
}

extern "C" fn write_at_exit() {
    // A panic must not unwind into the C library.
    let _ = std::panic::catch_unwind(|| {
        if lock(&SESSION).is_some() {
            if let Err(err) = stop() {
                eprintln!("chevron: CHEVRON_TRACE: {err}");
            }
        }
        crate::instrument::print_summary();
    });
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
