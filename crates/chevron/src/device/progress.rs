//! How far a stream has got: submitted and known-completed sequence numbers.
//!
//! Every submission to a stream (launch, copy, memset) gets the next sequence number *after* the
//! backend has accepted it. Hence, if [`StreamProgress::submitted`] reads `n`, at least the
//! submissions numbered `1..=n` are already in the backend's queue, and an event recorded (or a
//! query made) after that read covers all of them. `completed` only grows, and only from
//! evidence (a synchronize, a query, an event that fired).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::backend;
use crate::error::Result;

/// Sequence numbers of one stream, shared by the stream, its tokens and the deferred frees of
/// its device.
pub(crate) struct StreamProgress {
    /// The backend stream.
    pub(crate) backend: Arc<dyn backend::Stream>,
    submitted: AtomicU64,
    completed: AtomicU64,
}

impl StreamProgress {
    pub(crate) fn new(backend: Arc<dyn backend::Stream>) -> StreamProgress {
        StreamProgress {
            backend,
            submitted: AtomicU64::new(0),
            completed: AtomicU64::new(0),
        }
    }

    /// The number of submissions so far.
    pub(crate) fn submitted(&self) -> u64 {
        self.submitted.load(Ordering::Acquire)
    }

    /// Counts one submission the backend has accepted; returns its sequence number.
    #[inline]
    pub(crate) fn note_submitted(&self) -> u64 {
        self.submitted.fetch_add(1, Ordering::AcqRel) + 1
    }

    /// The highest sequence number known to be complete.
    pub(crate) fn completed(&self) -> u64 {
        self.completed.load(Ordering::Acquire)
    }

    /// Records that every submission up to `sequence` is complete.
    pub(crate) fn note_completed(&self, sequence: u64) {
        self.completed.fetch_max(sequence, Ordering::AcqRel);
    }

    /// Whether submission `sequence` is known to be complete, asking the backend (one query,
    /// no event) when the answer is not known yet.
    pub(crate) fn reached(&self, sequence: u64) -> Result<bool> {
        self.reached_by(sequence, |backend| backend.query())
    }

    /// As [`StreamProgress::reached`], for the device's bookkeeping: launches held back by
    /// automatic graph replay stay held (and count as not complete).
    pub(crate) fn reached_quietly(&self, sequence: u64) -> Result<bool> {
        self.reached_by(sequence, |backend| backend.query_quietly())
    }

    fn reached_by(
        &self,
        sequence: u64,
        query: impl FnOnce(&dyn backend::Stream) -> Result<bool>,
    ) -> Result<bool> {
        if sequence <= self.completed() {
            return Ok(true);
        }
        let submitted = self.submitted();
        if query(&*self.backend)? {
            self.note_completed(submitted);
        }
        Ok(sequence <= self.completed())
    }

    /// Whether everything submitted so far is complete (asking the backend quietly when not
    /// known).
    pub(crate) fn is_idle(&self) -> bool {
        self.reached_quietly(self.submitted()).unwrap_or(true)
    }

    /// Waits for everything submitted so far.
    pub(crate) fn synchronize(&self) -> Result<()> {
        let submitted = self.submitted();
        self.backend.synchronize()?;
        self.note_completed(submitted);
        Ok(())
    }
}
