//! [`Token`]: the completion of submitted work (CUDA's `CUevent`, without creating one).
//!
//! A token is (stream, sequence number). It costs nothing to create: an event is recorded only
//! when another stream or the host needs one, and comes from the device's pool. Tokens stay
//! valid after their stream is dropped or has finished.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::stream::StreamShared;

/// The receipt of an unchecked launch ([`crate::Kernel::launch_unchecked`],
/// [`crate::Kernel::launch_raw_unchecked`]): its sequence number on the stream it borrows.
/// [`Launched::token`] makes the launch's [`Token`]; a receipt dropped unused costs nothing, so
/// a loop of launches whose tokens nobody takes pays no reference counting (a token holds a
/// reference to its stream: an atomic increment to make, a decrement to drop).
#[derive(Clone, Copy)]
pub struct Launched<'s> {
    stream: &'s super::Stream,
    sequence: u64,
}

impl<'s> Launched<'s> {
    #[inline]
    pub(crate) fn new(stream: &'s super::Stream, sequence: u64) -> Launched<'s> {
        Launched { stream, sequence }
    }

    /// The launch's token.
    #[inline]
    pub fn token(&self) -> Token {
        self.stream.token_of(self.sequence)
    }

    /// The sequence number of the launch on its stream (as its token's).
    pub fn sequence(&self) -> u64 {
        self.sequence
    }
}

impl std::fmt::Debug for Launched<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Launched")
            .field("sequence", &self.sequence)
            .finish()
    }
}

/// The completion of one submission (and of everything before it on its stream).
#[derive(Clone)]
pub struct Token {
    stream: Option<Arc<StreamShared>>,
    sequence: u64,
}

impl Token {
    #[inline]
    pub(crate) fn new(stream: Arc<StreamShared>, sequence: u64) -> Token {
        Token {
            stream: Some(stream),
            sequence,
        }
    }

    /// A token that is already complete: a dependency on it costs nothing.
    pub fn ready() -> Token {
        Token {
            stream: None,
            sequence: 0,
        }
    }

    pub(crate) fn stream(&self) -> Option<&Arc<StreamShared>> {
        self.stream.as_ref()
    }

    /// The sequence number of the submission on its stream (0 for [`Token::ready`]).
    pub fn sequence(&self) -> u64 {
        self.sequence
    }

    /// The label of the device whose work this token marks (`None` for [`Token::ready`]).
    pub fn device_label(&self) -> Option<&str> {
        self.stream.as_ref().map(|s| s.core.label.as_str())
    }

    /// Waits on the host until the work is done. Reports a fault of the stream's work (naming
    /// the kernel) instead of returning normally.
    pub fn wait(&self) -> Result<()> {
        let Some(stream) = &self.stream else {
            return Ok(());
        };
        let started = crate::trace::clock();
        let waited = self.wait_untraced(stream);
        crate::trace::wait(started, "token wait", Some((stream.id, self.sequence)));
        waited.inspect_err(crate::trace::fault)
    }

    fn wait_untraced(&self, stream: &StreamShared) -> Result<()> {
        let progress = &stream.progress;
        if self.sequence <= progress.completed() {
            return Ok(());
        }
        if self.sequence >= progress.submitted() {
            // The latest submission: waiting for the whole stream is exact and reports faults.
            progress.synchronize()?;
        } else {
            let (covered, event) = stream.event_covering(self.sequence)?;
            if let Err(err) = event.synchronize() {
                return Err(stream.explain(err));
            }
            progress.note_completed(covered);
            // A fault in the covered work reports as an error of the stream's query.
            progress.backend.query()?;
        }
        stream.core.collect();
        Ok(())
    }

    /// Waits like [`Token::wait`], for at most `timeout`. Past the deadline the result is
    /// [`Error::Timeout`]: on the CPU device the stream's work is stopped (the stream stays
    /// faulted) and the error names the kernel and the PTX lines its threads were at; on a GPU
    /// the kernel keeps running (the driver cannot stop one kernel).
    pub fn wait_timeout(&self, timeout: Duration) -> Result<()> {
        let Some(stream) = &self.stream else {
            return Ok(());
        };
        let deadline = Instant::now() + timeout;
        let mut pause = Duration::from_micros(50);
        while Instant::now() < deadline {
            if self.is_done()? {
                return self.wait();
            }
            std::thread::sleep(pause.min(deadline.saturating_duration_since(Instant::now())));
            pause = (pause * 2).min(Duration::from_millis(20));
        }
        if self.is_done()? {
            return self.wait();
        }
        let timed_out = |what: String, detail: String| Error::Timeout {
            what,
            device: stream.core.label.clone(),
            seconds: timeout.as_secs_f64(),
            detail,
        };
        let backend = &stream.progress.backend;
        if !backend.stop() {
            return Err(timed_out(
                format!("submission {} of stream {}", self.sequence, stream.id),
                String::new(),
            ));
        }
        // A stopped kernel ends at its next time slice; give it a moment to report.
        let settle = Instant::now() + Duration::from_secs(2);
        while Instant::now() < settle {
            match backend.query() {
                Err(Error::Fault {
                    kernel, message, ..
                }) => return Err(timed_out(format!("kernel `{kernel}`"), message)),
                Err(other) => return Err(other),
                Ok(true) => return Ok(()),
                Ok(false) => std::thread::sleep(Duration::from_millis(1)),
            }
        }
        Err(timed_out(
            format!("submission {} of stream {}", self.sequence, stream.id),
            "the stream did not stop".into(),
        ))
    }

    /// Whether the work is done (without waiting). Faults report as errors.
    pub fn is_done(&self) -> Result<bool> {
        let Some(stream) = &self.stream else {
            return Ok(true);
        };
        let progress = &stream.progress;
        if progress.reached(self.sequence)? {
            return Ok(true);
        }
        let (covered, event) = stream.event_covering(self.sequence)?;
        if event.query()? {
            progress.note_completed(covered);
            return Ok(true);
        }
        Ok(false)
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.stream {
            None => f.write_str("Token(ready)"),
            Some(s) => write!(
                f,
                "Token({} stream {} #{})",
                s.core.label, s.id, self.sequence
            ),
        }
    }
}
