//! A stream's timeline: how much work was submitted, how much is done, and whether it faulted.
//!
//! Every piece of work submitted to a CPU stream gets the next sequence number (1, 2, …). The
//! stream's worker marks it completed once it ran, or once it was cancelled because an earlier
//! piece faulted. A point on the timeline (`seq`) is what an event records and what a wait on
//! another stream blocks on. Faults are sticky: once a stream faulted, it stays faulted and
//! every later synchronizing call reports the first fault. A stream whose worker must wait for
//! a point of another timeline does not block its worker: it leaves a [`Waker`] here, run once
//! the point is reached (see `stream_queue.rs`).

use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crate::error::{Error, FaultKind};

/// The first fault of a stream: which work, on which device, what happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FaultRecord {
    /// The sequence number of the work that faulted.
    pub seq: u64,
    /// The kernel (or the copy, e.g. `memcpy device-to-host`) that faulted.
    pub kernel: String,
    /// The device, e.g. `cpu:0 (chevron CPU device)`.
    pub device: String,
    /// The class of the fault.
    pub kind: FaultKind,
    /// The fault as the interpreter describes it.
    pub message: String,
}

impl FaultRecord {
    /// The error every synchronizing call reports for this fault.
    pub fn to_error(&self) -> Error {
        Error::Fault {
            kernel: self.kernel.clone(),
            device: self.device.clone(),
            kind: self.kind,
            message: self.message.clone(),
        }
    }
}

/// Called once when a timeline reaches a point (see [`Timeline::when_reached`]).
pub(crate) type Waker = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct Progress {
    submitted: u64,
    completed: u64,
    fault: Option<FaultRecord>,
    /// Wakers of points not reached yet: (point, waker).
    waiters: Vec<(u64, Waker)>,
}

/// The shared progress of one stream; streams, their workers and events hold it by `Arc`.
#[derive(Default)]
pub(crate) struct Timeline {
    progress: Mutex<Progress>,
    changed: Condvar,
}

impl Timeline {
    /// A timeline with nothing submitted.
    pub fn new() -> Arc<Timeline> {
        Arc::new(Timeline::default())
    }

    fn lock(&self) -> MutexGuard<'_, Progress> {
        // Poisoning needs a panic while the lock is held; no code below panics, so recover.
        self.progress.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Hands out the next sequence number and calls `enqueue` with it while no other submission
    /// can interleave, so queue order equals sequence order. If `enqueue` fails, the number is
    /// given back.
    pub fn submit<E>(&self, enqueue: impl FnOnce(u64) -> Result<(), E>) -> Result<u64, E> {
        let mut progress = self.lock();
        let seq = progress.submitted + 1;
        enqueue(seq)?;
        progress.submitted = seq;
        Ok(seq)
    }

    /// The sequence number of the last submitted work (0 when none).
    pub fn submitted(&self) -> u64 {
        self.lock().submitted
    }

    /// Whether the stream has faulted.
    pub fn fault(&self) -> Option<FaultRecord> {
        self.lock().fault.clone()
    }

    /// Marks `seq` done (ran or cancelled) and, for the first fault, records it; runs the
    /// wakers of the points now reached (outside the lock).
    pub fn complete(&self, seq: u64, fault: Option<FaultRecord>) {
        let mut progress = self.lock();
        progress.completed = progress.completed.max(seq);
        if progress.fault.is_none() {
            progress.fault = fault;
        }
        let reached = if progress.waiters.is_empty() {
            Vec::new()
        } else {
            let completed = progress.completed;
            let (reached, pending) = std::mem::take(&mut progress.waiters)
                .into_iter()
                .partition(|(point, _)| *point <= completed);
            progress.waiters = pending;
            reached
        };
        drop(progress);
        self.changed.notify_all();
        for (_, waker) in reached {
            waker();
        }
    }

    /// Leaves `waker` to run once the work up to `seq` is done. If it is done already, hands
    /// `waker` back instead (the caller goes on at once).
    pub fn when_reached(&self, seq: u64, waker: Waker) -> Option<Waker> {
        let mut progress = self.lock();
        if progress.completed >= seq {
            return Some(waker);
        }
        progress.waiters.push((seq, waker));
        None
    }

    /// Whether the work up to `seq` is done (ran or cancelled), faulted or not.
    pub fn reached(&self, seq: u64) -> bool {
        self.lock().completed >= seq
    }

    /// Whether the work up to `seq` is done: `Ok(true)`/`Ok(false)`, or the fault that ended it
    /// if it faulted at or before `seq`.
    pub fn status(&self, seq: u64) -> Result<bool, FaultRecord> {
        let progress = self.lock();
        match &progress.fault {
            Some(fault) if fault.seq <= seq => Err(fault.clone()),
            _ => Ok(progress.completed >= seq),
        }
    }

    /// Blocks until the work up to `seq` is done; returns the fault that ended it, if any (a
    /// fault at or before `seq`).
    pub fn wait_for(&self, seq: u64) -> Result<(), FaultRecord> {
        let mut progress = self.lock();
        while progress.completed < seq {
            progress = self
                .changed
                .wait(progress)
                .unwrap_or_else(|e| e.into_inner());
        }
        match &progress.fault {
            Some(fault) if fault.seq <= seq => Err(fault.clone()),
            _ => Ok(()),
        }
    }

    /// Blocks until everything submitted so far is done; reports the stream's fault, if any.
    pub fn synchronize(&self) -> Result<(), FaultRecord> {
        let target = self.submitted();
        self.wait_for(target)?;
        match self.fault() {
            Some(fault) => Err(fault),
            None => Ok(()),
        }
    }

    /// Whether everything submitted so far is done; reports the stream's fault, if any.
    pub fn query(&self) -> Result<bool, FaultRecord> {
        let progress = self.lock();
        match &progress.fault {
            Some(fault) => Err(fault.clone()),
            None => Ok(progress.completed >= progress.submitted),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fault_at(seq: u64) -> FaultRecord {
        FaultRecord {
            seq,
            kernel: "k".into(),
            device: "cpu:0".into(),
            kind: FaultKind::IllegalAddress,
            message: "out of bounds".into(),
        }
    }

    #[test]
    fn sequence_numbers_count_submissions() {
        let timeline = Timeline::new();
        assert_eq!(
            timeline.submit(|seq| if seq == 1 { Ok(()) } else { Err(seq) }),
            Ok(1)
        );
        assert_eq!(timeline.submit(|_| Ok::<_, ()>(())), Ok(2));
        assert_eq!(
            timeline.submit(|_| Err::<(), _>("queue closed")),
            Err("queue closed")
        );
        assert_eq!(timeline.submitted(), 2);
        assert_eq!(timeline.query(), Ok(false));
        timeline.complete(1, None);
        assert_eq!(timeline.status(1), Ok(true));
        assert_eq!(timeline.status(2), Ok(false));
        timeline.complete(2, None);
        assert_eq!(timeline.query(), Ok(true));
        assert_eq!(timeline.synchronize(), Ok(()));
    }

    #[test]
    fn a_fault_is_sticky_and_reported_from_its_point_on() {
        let timeline = Timeline::new();
        for _ in 0..3 {
            timeline.submit(|_| Ok::<_, ()>(())).unwrap();
        }
        timeline.complete(1, None);
        timeline.complete(2, Some(fault_at(2)));
        timeline.complete(3, Some(fault_at(3)));
        assert_eq!(timeline.status(1), Ok(true));
        assert_eq!(timeline.wait_for(1), Ok(()));
        assert_eq!(timeline.status(2), Err(fault_at(2)));
        assert_eq!(timeline.synchronize(), Err(fault_at(2)));
        assert_eq!(timeline.query(), Err(fault_at(2)));
        let err = fault_at(2).to_error().to_string();
        assert!(
            err.contains("`k`") && err.contains("out of bounds"),
            "{err}"
        );
    }

    #[test]
    fn a_waker_runs_once_its_point_is_reached() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let timeline = Timeline::new();
        for _ in 0..2 {
            timeline.submit(|_| Ok::<_, ()>(())).unwrap();
        }
        let woken = Arc::new(AtomicUsize::new(0));
        let waker = |woken: &Arc<AtomicUsize>| -> Waker {
            let woken = Arc::clone(woken);
            Box::new(move || {
                woken.fetch_add(1, Ordering::SeqCst);
            })
        };
        assert!(timeline.when_reached(2, waker(&woken)).is_none());
        timeline.complete(1, None);
        assert_eq!(woken.load(Ordering::SeqCst), 0);
        timeline.complete(2, None);
        assert_eq!(woken.load(Ordering::SeqCst), 1);
        assert!(timeline.when_reached(2, waker(&woken)).is_some());
        timeline.complete(2, None);
        assert_eq!(woken.load(Ordering::SeqCst), 1, "a waker runs once");
    }

    #[test]
    fn waiters_wake_when_work_completes() {
        let timeline = Timeline::new();
        timeline.submit(|_| Ok::<_, ()>(())).unwrap();
        let worker = {
            let timeline = Arc::clone(&timeline);
            std::thread::spawn(move || timeline.complete(1, None))
        };
        assert_eq!(timeline.wait_for(1), Ok(()));
        worker.join().unwrap();
    }
}
