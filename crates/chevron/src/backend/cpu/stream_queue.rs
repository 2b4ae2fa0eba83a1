//! A CPU stream's queue: its work in order, bounded, run by the scheduler's workers.
//!
//! An idle stream is this queue and nothing else. Queuing work into an idle stream hands the
//! stream to the scheduler (`scheduler.rs`); a worker runs up to [`BATCH`] pieces, then gives the
//! stream back to the ready list if more is queued. A wait for another stream's work that is not
//! done yet *parks* the stream instead of blocking the worker: the other timeline wakes it.
//!
//! The queue holds at most [`QUEUE_DEPTH`] pieces of work. A submission to a full queue blocks
//! the submitting thread until the worker has taken one, as CUDA blocks a launch when the
//! device's push buffer is full; so a program that never synchronises holds bounded memory.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crate::error::Result;

use super::scheduler::{self, Runnable};
use super::timeline::Timeline;
use super::worker::{self, Job, Work, WorkerContext};

/// The most pieces of work a stream holds queued; the next submission waits for room.
pub(crate) const QUEUE_DEPTH: usize = 1024;

/// Pieces of work a worker runs from one stream before other ready streams get a turn.
const BATCH: usize = 32;

/// A queue above this capacity is shrunk once it is empty, so idle streams stay small.
const IDLE_CAPACITY: usize = 64;

#[derive(Default)]
struct State {
    work: VecDeque<Work>,
    /// On the ready list, on a worker or parked: owned by the scheduler until it runs dry.
    active: bool,
    /// Waiting for another timeline; its waker puts the stream back on the ready list.
    parked: bool,
}

/// The queue of one stream.
pub(crate) struct StreamQueue {
    state: Mutex<State>,
    /// Signalled when the worker takes work out of a full queue.
    room: Condvar,
    context: WorkerContext,
}

impl StreamQueue {
    /// An empty queue whose work runs in `context`.
    pub fn new(context: WorkerContext) -> Arc<StreamQueue> {
        Arc::new(StreamQueue {
            state: Mutex::new(State::default()),
            room: Condvar::new(),
            context,
        })
    }

    /// What the stream's work runs with.
    pub fn context(&self) -> &WorkerContext {
        &self.context
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing panics while this lock is held; recover from poisoning regardless.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues `job` after waiting for room; returns its sequence number.
    pub fn push(self: &Arc<Self>, job: Job) -> Result<u64> {
        let scheduler = scheduler::global();
        scheduler.ensure_running()?;
        let mut state = self.lock();
        while state.work.len() >= QUEUE_DEPTH {
            state = self.room.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        // The sequence number is taken under the queue's lock: queue order is sequence order.
        let seq = self
            .context
            .timeline
            .submit(|seq| {
                state.work.push_back(Work { seq, job });
                Ok::<(), std::convert::Infallible>(())
            })
            .unwrap_or_else(|never| match never {});
        let idle = !state.active;
        state.active = true;
        drop(state);
        if idle {
            scheduler.schedule(Arc::clone(self) as Arc<dyn Runnable>);
        }
        Ok(seq)
    }

    /// Puts a parked stream back on the ready list (its wait is over, or it was stopped).
    pub fn unpark(self: &Arc<Self>) {
        let mut state = self.lock();
        if state.parked {
            state.parked = false;
            drop(state);
            scheduler::global().schedule(Arc::clone(self) as Arc<dyn Runnable>);
        }
    }

    /// The point a wait at the front is still waiting for, unless the stream was stopped (the
    /// wait then ends with a fault) or has faulted (the wait is cancelled).
    fn must_park(&self, job: &Job) -> Option<(Arc<Timeline>, u64)> {
        match job {
            Job::Wait { timeline, seq }
                if !timeline.reached(*seq)
                    && !self.context.stop.load(Ordering::Relaxed)
                    && self.context.timeline.fault().is_none() =>
            {
                Some((Arc::clone(timeline), *seq))
            }
            _ => None,
        }
    }

    fn park(self: &Arc<Self>, timeline: &Timeline, seq: u64) {
        let stream = Arc::clone(self);
        if let Some(waker) = timeline.when_reached(seq, Box::new(move || stream.unpark())) {
            waker(); // Reached meanwhile.
        }
    }
}

impl Runnable for StreamQueue {
    /// Runs up to [`BATCH`] pieces of work in order. Returns whether the stream still has work
    /// for the ready list; `false` when it ran dry or parked.
    fn run_batch(self: Arc<Self>) -> bool {
        for _ in 0..BATCH {
            let work = {
                let mut state = self.lock();
                let Some(front) = state.work.front() else {
                    state.active = false;
                    if state.work.capacity() > IDLE_CAPACITY {
                        state.work.shrink_to_fit();
                    }
                    return false;
                };
                if let Some((timeline, seq)) = self.must_park(&front.job) {
                    state.parked = true;
                    drop(state);
                    self.park(&timeline, seq);
                    return false;
                }
                let work = state.work.pop_front();
                drop(state);
                self.room.notify_one();
                work
            };
            if let Some(work) = work {
                worker::run_one(&self.context, work);
            }
        }
        true
    }
}
