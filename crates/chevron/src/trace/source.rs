//! [`Source`]: what a feature above the trace that holds events back implements (device
//! durations of launches, built-in instrumentation records), so that the trace asks it for
//! them at the right moments without naming it. Sources add themselves ([`add_source`]); the
//! layers that make host waits report them through [`waited`].

use std::sync::OnceLock;

use super::Event;
use crate::error::Result;

/// What a host wait just waited for.
#[derive(Clone, Copy)]
pub(crate) enum Waited<'a> {
    /// Stream `id` (up to some submission).
    Stream(u64),
    /// Every stream of the device labelled so.
    Device(&'a str),
}

/// When held events are read, for the message explaining a failed read.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Moment {
    /// Right after the host waited for the work's stream.
    AfterWait,
    /// When the trace stops or the program asks (`trace::flush`, `instrument::collect`).
    Collect,
    /// At process exit.
    Exit,
}

/// A holder of trace events that are known later than the call they belong to. Every method
/// has a default that does nothing.
pub(crate) trait Source: Sync {
    /// Forgets what an earlier trace left (a new trace starts).
    fn clear(&self) {}

    /// Right after a host wait for `what`: reads what that wait made complete.
    fn after_wait(&self, _what: Waited<'_>) {}

    /// Waits for what is still held and reads it; the trace goes on.
    fn settle(&self) -> Result<()> {
        Ok(())
    }

    /// The trace stops at `moment`: waits for what is still held and hands its events to `out`.
    fn drain(&self, _moment: Moment, _out: &mut dyn FnMut(Event)) {}

    /// Rewrites a batch of events about to be written (moves them to the tracks they belong to).
    fn place(&self, _events: &mut [Event]) {}

    /// At process exit, once the trace is written (a summary on stderr).
    fn at_exit(&self) {}
}

/// Room for the sources of the process (the runtime has two); filled in order, never emptied,
/// so that reading them takes no lock.
static SOURCES: [OnceLock<&'static dyn Source>; 4] = [const { OnceLock::new() }; 4];

/// Adds `source`; each source adds itself once (behind a `Once`: sources are usually
/// zero-sized, so their addresses cannot tell them apart).
pub(crate) fn add_source(source: &'static dyn Source) {
    let added = SOURCES.iter().any(|slot| slot.set(source).is_ok());
    assert!(added, "more trace sources than SOURCES has room for");
}

/// Calls `f` on every source, in the order they were added.
pub(super) fn each(mut f: impl FnMut(&dyn Source)) {
    for source in SOURCES.iter().map_while(OnceLock::get) {
        f(*source);
    }
}

/// After a host wait for `what`: every source reads what the wait made complete.
pub(crate) fn waited(what: Waited<'_>) {
    each(|source| source.after_wait(what));
}
