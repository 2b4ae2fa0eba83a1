//! No-op events: every piece of work on the device completes before its submission returns,
//! so an event is complete as soon as it is recorded and keeps nothing; a stream still refuses
//! an event of another backend, as every backend does.

use std::any::Any;

use crate::backend::Event;
use crate::error::{Error, Result};

/// An event of a no-op device.
pub(super) struct NoopEvent;

impl NoopEvent {
    /// The no-op event behind `event`, or an error naming `call` if it belongs to another
    /// backend.
    pub fn downcast<'a>(event: &'a dyn Event, call: &'static str) -> Result<&'a NoopEvent> {
        event
            .as_any()
            .downcast_ref::<NoopEvent>()
            .ok_or_else(|| Error::InvalidValue {
                call,
                message: "the event does not belong to a no-op device".into(),
            })
    }
}

impl Event for NoopEvent {
    fn query(&self) -> Result<bool> {
        Ok(true)
    }

    fn synchronize(&self) -> Result<()> {
        Ok(())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
