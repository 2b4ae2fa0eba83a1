//! Timestamps in stream order (what CUDA's timing events are): [`Stream::record_timing`] marks
//! the point in the stream's work reached so far, without waiting for it, and
//! [`TimingMark::elapsed_ms_since`] gives the time between two marks once both are reached.
//!
//! On backends with timing events (CUDA) a mark is the driver's event, recorded on the stream
//! (`cuEventRecord`, `cuEventElapsedTime`): the GPU's own clock. Elsewhere (the CPU device) a
//! mark is a host function in stream order that reads the host's clock when the stream's
//! earlier work is done: the time the device work took, measured where it runs.

use std::sync::{Arc, OnceLock};
use std::time::Instant;

use crate::backend;
use crate::error::{Error, Result};
use crate::stream::token::Token;
use crate::stream::Stream;

/// A point in a stream's work whose time is known once it is reached.
#[derive(Clone)]
pub struct TimingMark {
    clock: MarkClock,
    token: Token,
}

#[derive(Clone)]
enum MarkClock {
    /// A timing event of the device's driver.
    Device(Arc<dyn backend::Event>),
    /// The host's clock, read in stream order.
    Host(Arc<OnceLock<Instant>>),
}

impl Stream {
    /// Marks the work submitted to this stream so far; the mark's time is when that work is
    /// done. Never waits for the work.
    pub fn record_timing(&self) -> Result<TimingMark> {
        if let Some(event) = self.device().core().backend.create_timing_event()? {
            self.backend_stream().record(&*event)?;
            return Ok(TimingMark {
                clock: MarkClock::Device(event),
                token: self.token(),
            });
        }
        let reached = Arc::new(OnceLock::new());
        let slot = Arc::clone(&reached);
        let token = self.launch_host_function(move |_| {
            let _ = slot.set(Instant::now());
        })?;
        Ok(TimingMark {
            clock: MarkClock::Host(reached),
            token,
        })
    }
}

impl TimingMark {
    /// The token of the marked work (done when the mark is reached).
    pub fn token(&self) -> &Token {
        &self.token
    }

    /// Waits until the mark is reached: its work is done and, where the device keeps the
    /// time, the device has taken the timestamp (which it does after the work, so waiting for
    /// the work alone could return before it).
    pub fn wait(&self) -> Result<()> {
        self.token.wait()?;
        match &self.clock {
            MarkClock::Device(event) => event.synchronize(),
            MarkClock::Host(_) => Ok(()),
        }
    }

    /// Whether the mark is reached (see [`TimingMark::wait`]); never waits.
    pub fn is_reached(&self) -> Result<bool> {
        if !self.token.is_done()? {
            return Ok(false);
        }
        match &self.clock {
            MarkClock::Device(event) => event.query(),
            MarkClock::Host(reached) => Ok(reached.get().is_some()),
        }
    }

    /// Milliseconds from `earlier` to this mark (negative if this one was reached first);
    /// `None` while either is not reached. Marks of different kinds of device, or of
    /// devices that cannot compare their clocks, are an error.
    pub fn elapsed_ms_since(&self, earlier: &TimingMark) -> Result<Option<f32>> {
        match (&self.clock, &earlier.clock) {
            (MarkClock::Device(end), MarkClock::Device(start)) => Ok(end
                .elapsed_ns_since(&**start)?
                .map(|ns| (ns as f64 / 1e6) as f32)),
            (MarkClock::Host(end), MarkClock::Host(start)) => Ok(match (start.get(), end.get()) {
                (Some(start), Some(end)) => Some(signed_ms(*start, *end)),
                _ => None,
            }),
            _ => Err(Error::InvalidValue {
                call: "TimingMark::elapsed_ms_since",
                message: "the two marks were recorded on different kinds of device".into(),
            }),
        }
    }
}

/// Milliseconds from `start` to `end`, negative when `end` comes first.
fn signed_ms(start: Instant, end: Instant) -> f32 {
    match end.checked_duration_since(start) {
        Some(forward) => (forward.as_secs_f64() * 1e3) as f32,
        None => -((start - end).as_secs_f64() * 1e3) as f32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn host_marks_give_signed_milliseconds() {
        let start = Instant::now();
        let end = start + Duration::from_millis(3);
        assert!((signed_ms(start, end) - 3.0).abs() < 1e-3);
        assert!((signed_ms(end, start) + 3.0).abs() < 1e-3);
    }
}
