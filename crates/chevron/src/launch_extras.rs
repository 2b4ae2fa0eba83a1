//! The one word the launch path reads to learn whether a launch may need more than the plain
//! path: bit 0 is set while the trace records, and the bits above count the streams with
//! automatic replay on. Zero (nothing traced, no replay anywhere) lets a launch go straight to
//! the backend stream after a single relaxed load; the owners of the bits (`trace`,
//! `stream/replay`) keep their own state and only mirror it here.

use std::sync::atomic::{AtomicU32, Ordering};

static WORD: AtomicU32 = AtomicU32::new(0);

/// The trace's bit.
const TRACING: u32 = 1;
/// One stream with automatic replay on.
const REPLAY_STREAM: u32 = 2;

/// Whether any launch may need more than the plain path: one relaxed load.
#[inline(always)]
pub(crate) fn any() -> bool {
    WORD.load(Ordering::Relaxed) != 0
}

/// Whether the trace records.
#[inline(always)]
pub(crate) fn tracing() -> bool {
    WORD.load(Ordering::Relaxed) & TRACING != 0
}

/// Notes that the trace started (`true`) or stopped recording.
pub(crate) fn set_tracing(on: bool) {
    if on {
        WORD.fetch_or(TRACING, Ordering::Relaxed);
    } else {
        WORD.fetch_and(!TRACING, Ordering::Relaxed);
    }
}

/// Notes that one stream turned automatic replay on (`true`) or off.
pub(crate) fn note_replay(on: bool) {
    if on {
        WORD.fetch_add(REPLAY_STREAM, Ordering::Relaxed);
    } else {
        WORD.fetch_sub(REPLAY_STREAM, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bits as the owners set them, without touching the process's word: the arithmetic
    /// the word relies on (the trace's bit survives replay counting and the other way round).
    #[test]
    fn tracing_and_replay_counts_share_the_word_without_mixing() {
        let word = AtomicU32::new(0);
        word.fetch_add(REPLAY_STREAM, Ordering::Relaxed);
        word.fetch_or(TRACING, Ordering::Relaxed);
        word.fetch_add(REPLAY_STREAM, Ordering::Relaxed);
        word.fetch_sub(REPLAY_STREAM, Ordering::Relaxed);
        assert_eq!(word.load(Ordering::Relaxed), TRACING | REPLAY_STREAM);
        word.fetch_and(!TRACING, Ordering::Relaxed);
        word.fetch_sub(REPLAY_STREAM, Ordering::Relaxed);
        assert_eq!(word.load(Ordering::Relaxed), 0);
    }
}
