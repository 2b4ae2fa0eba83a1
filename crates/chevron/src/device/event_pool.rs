//! The per-device pool of events that back tokens.
//!
//! Events are created ahead of need (a few with every stream, and in batches when the pool runs
//! dry) and recycled once the work they marked is complete, so that ordering work across
//! streams never creates events on the launch path. The pool shrinks again: each live stream
//! reserves [`EVENTS_PER_STREAM`] idle events, a stream that goes away gives its reservation
//! back, and idle events beyond the reservations (at least [`REFILL_BATCH`], at most
//! [`MAX_IDLE`]) are destroyed instead of kept. Creating and releasing streams in a loop
//! therefore holds a bounded number of events.

use std::sync::{Arc, Mutex, MutexGuard};

use crate::backend;
use crate::error::Result;

/// How many idle events each live stream reserves in its device's pool.
const EVENTS_PER_STREAM: usize = 2;
/// How many events are created at once when the pool is empty.
const REFILL_BATCH: usize = 8;
/// The most idle events a pool keeps, however many streams are alive.
const MAX_IDLE: usize = 256;

/// Events of one device, ready to be recorded.
pub(crate) struct EventPool {
    state: Mutex<PoolState>,
}

struct PoolState {
    idle: Vec<Arc<dyn backend::Event>>,
    /// Live streams of the device (each created through [`EventPool::grow_for_stream`]).
    streams: usize,
}

impl PoolState {
    /// How many idle events the pool keeps.
    fn keep(&self) -> usize {
        (self.streams * EVENTS_PER_STREAM).clamp(REFILL_BATCH, MAX_IDLE)
    }

    /// Destroys idle events beyond what the pool keeps; returns them to be dropped unlocked.
    fn trim(&mut self) -> Vec<Arc<dyn backend::Event>> {
        let keep = self.keep();
        if self.idle.len() > keep {
            self.idle.split_off(keep)
        } else {
            Vec::new()
        }
    }
}

impl EventPool {
    pub(crate) fn new() -> EventPool {
        EventPool {
            state: Mutex::new(PoolState {
                idle: Vec::new(),
                streams: 0,
            }),
        }
    }

    /// Reserves events for a new stream of `device`, creating those the pool lacks. Pair with
    /// [`EventPool::release_for_stream`] when the stream goes away.
    pub(crate) fn grow_for_stream(&self, device: &dyn backend::Device) -> Result<()> {
        let missing = {
            let state = self.lock();
            (state.streams + 1)
                .saturating_mul(EVENTS_PER_STREAM)
                .min(MAX_IDLE)
                .saturating_sub(state.idle.len())
                .min(EVENTS_PER_STREAM)
        };
        let mut created = Vec::with_capacity(missing);
        for _ in 0..missing {
            created.push(device.create_event()?);
        }
        let mut state = self.lock();
        state.streams += 1;
        state.idle.extend(created);
        Ok(())
    }

    /// Gives back the reservation of a stream that went away, destroying surplus idle events.
    pub(crate) fn release_for_stream(&self) {
        let surplus = {
            let mut state = self.lock();
            state.streams = state.streams.saturating_sub(1);
            state.trim()
        };
        drop(surplus);
    }

    /// Takes an event, creating a batch first if the pool is empty.
    pub(crate) fn take(&self, device: &dyn backend::Device) -> Result<Arc<dyn backend::Event>> {
        if let Some(event) = self.lock().idle.pop() {
            return Ok(event);
        }
        let mut created = Vec::with_capacity(REFILL_BATCH);
        for _ in 0..REFILL_BATCH {
            created.push(device.create_event()?);
        }
        let event = created.pop().expect("REFILL_BATCH is positive");
        let surplus = {
            let mut state = self.lock();
            state.idle.extend(created);
            state.trim()
        };
        drop(surplus);
        Ok(event)
    }

    /// Returns an event whose recorded work is complete (destroyed if the pool is full).
    pub(crate) fn give_back(&self, event: Arc<dyn backend::Event>) {
        let mut state = self.lock();
        if state.idle.len() < state.keep() {
            state.idle.push(event);
        } else {
            drop(state);
            drop(event);
        }
    }

    /// How many idle events the pool holds.
    #[cfg(test)]
    pub(crate) fn idle(&self) -> usize {
        self.lock().idle.len()
    }

    fn lock(&self) -> MutexGuard<'_, PoolState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::scripted::ScriptedDevice;

    #[test]
    fn streams_that_go_away_shrink_the_pool() {
        let device = ScriptedDevice::new(0);
        let pool = EventPool::new();
        for _ in 0..1000 {
            pool.grow_for_stream(&device).unwrap();
            let event = pool.take(&device).unwrap();
            pool.give_back(event);
            pool.release_for_stream();
        }
        assert!(pool.idle() <= REFILL_BATCH, "{} idle events", pool.idle());
    }

    #[test]
    fn live_streams_keep_their_reservation_up_to_the_cap() {
        let device = ScriptedDevice::new(0);
        let pool = EventPool::new();
        for _ in 0..10 {
            pool.grow_for_stream(&device).unwrap();
        }
        assert_eq!(pool.idle(), 10 * EVENTS_PER_STREAM);
        for _ in 0..MAX_IDLE {
            pool.grow_for_stream(&device).unwrap();
        }
        assert_eq!(pool.idle(), MAX_IDLE);
        let taken: Vec<_> = (0..MAX_IDLE + 5)
            .map(|_| pool.take(&device).unwrap())
            .collect();
        taken.into_iter().for_each(|e| pool.give_back(e));
        assert_eq!(pool.idle(), MAX_IDLE);
    }
}
