//! The state of one device shared by everything made from it, and the deferred release of
//! device resources.
//!
//! A buffer (or module) dropped while work may still use it is not freed at once: the release
//! waits until every stream of the device has passed the point at which it was dropped (no
//! per-launch tracking). Pending releases are retried whenever the device is used again
//! (allocation, synchronization, token waits) and finally when the device itself goes away.
//! The releases themselves run on the device's release worker (see `release_worker.rs`), never
//! on the thread that drops the buffer or module.

use std::any::Any;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::backend::{self, DevicePtr};
use crate::device::event_pool::EventPool;
use crate::device::progress::StreamProgress;
use crate::device::release_worker::{release_now, ReleaseWorker};
use crate::error::Result;

/// Something to release once the device's streams have passed a point.
pub(crate) enum Release {
    /// Device memory from [`backend::Device::alloc`], of `bytes`.
    Memory { ptr: DevicePtr, bytes: u64 },
    /// An object whose drop releases device resources (a backend module).
    Object(Box<dyn Any + Send + Sync>),
}

impl Release {
    /// The device memory released (0 for an object).
    pub(crate) fn bytes(&self) -> u64 {
        match self {
            Release::Memory { bytes, .. } => *bytes,
            Release::Object(_) => 0,
        }
    }
}

struct PendingRelease {
    what: Release,
    /// For each stream that had unfinished work: the sequence number it must reach.
    waits: Vec<(Arc<StreamProgress>, u64)>,
}

/// One device as the public types share it.
pub(crate) struct DeviceCore {
    /// The backend device.
    pub(crate) backend: Arc<dyn backend::Device>,
    /// `cuda:0`, `cpu:1`.
    pub(crate) label: String,
    /// Events recorded for tokens.
    pub(crate) events: EventPool,
    /// The device's streams (shared with the release worker, which waits for them to be idle
    /// where releases wait for the device).
    streams: Arc<Mutex<Vec<Arc<StreamProgress>>>>,
    pending: Mutex<Vec<PendingRelease>>,
    pending_count: AtomicUsize,
    worker: ReleaseWorker,
}

impl DeviceCore {
    pub(crate) fn new(backend: Arc<dyn backend::Device>) -> DeviceCore {
        let info = backend.info();
        let label = format!("{}:{}", info.backend.as_str(), info.ordinal);
        let streams = Arc::new(Mutex::new(Vec::new()));
        DeviceCore {
            worker: ReleaseWorker::new(Arc::clone(&backend), &label, Arc::clone(&streams)),
            backend,
            label,
            events: EventPool::new(),
            streams,
            pending: Mutex::new(Vec::new()),
            pending_count: AtomicUsize::new(0),
        }
    }

    /// Registers a new stream so that releases wait for it. Streams that nobody holds any more
    /// and that have finished are forgotten here.
    pub(crate) fn register_stream(&self, progress: Arc<StreamProgress>) {
        let mut streams = lock(&self.streams);
        if streams.len() == streams.capacity() {
            // Forgotten only when the list would grow, leaving half of it free: amortised
            // constant time per stream, even with 100,000 live streams.
            streams.retain(|s| Arc::strong_count(s) > 1 || !s.is_idle());
            let live = streams.len();
            streams.reserve(live.max(8));
        }
        streams.push(progress);
    }

    /// Enqueues what the device's streams hold back (launches held by automatic graph replay).
    pub(crate) fn flush_streams(&self) -> Result<()> {
        let streams: Vec<Arc<StreamProgress>> = {
            let mut streams = lock(&self.streams);
            // A stream nobody holds any more is forgotten once it has finished (a faulted one
            // included: its fault was for its holders, who are gone).
            streams.retain(|s| Arc::strong_count(s) > 1 || !s.is_idle());
            streams.iter().cloned().collect()
        };
        streams.iter().try_for_each(|s| s.backend.flush())
    }

    /// Releases `what` now if no stream of the device has unfinished work, or once they all
    /// have passed this point (checked by [`DeviceCore::collect`], which allocation,
    /// synchronization and token waits call).
    pub(crate) fn release(&self, what: Release) {
        let waits: Vec<(Arc<StreamProgress>, u64)> = lock(&self.streams)
            .iter()
            .filter(|s| !s.is_idle())
            .map(|s| (Arc::clone(s), s.submitted()))
            .collect();
        if waits.is_empty() {
            self.worker.release(what);
        } else {
            let mut pending = lock(&self.pending);
            pending.push(PendingRelease { what, waits });
            self.pending_count.store(pending.len(), Ordering::Release);
        }
    }

    /// Releases whatever is pending and no longer in use: each stream waited for is asked
    /// once, then every pending release is checked against what is known. Cheap (one atomic
    /// load) when nothing is pending.
    pub(crate) fn collect(&self) {
        if self.pending_count.load(Ordering::Acquire) == 0 {
            return;
        }
        let ready: Vec<Release> = {
            let mut pending = lock(&self.pending);
            let mut polled: Vec<*const StreamProgress> = Vec::new();
            let mut faulted: Vec<*const StreamProgress> = Vec::new();
            for release in pending.iter() {
                for (stream, sequence) in &release.waits {
                    let id = Arc::as_ptr(stream);
                    if stream.completed() < *sequence && !polled.contains(&id) {
                        polled.push(id);
                        // A faulted stream runs nothing more: its releases need not wait (the
                        // fault is reported to whoever synchronizes or waits on its tokens).
                        if stream.reached_quietly(*sequence).is_err() {
                            faulted.push(id);
                        }
                    }
                }
            }
            let (done, waiting): (Vec<_>, Vec<_>) =
                std::mem::take(&mut *pending).into_iter().partition(|r| {
                    r.waits
                        .iter()
                        .all(|(s, n)| s.completed() >= *n || faulted.contains(&Arc::as_ptr(s)))
                });
            *pending = waiting;
            self.pending_count.store(pending.len(), Ordering::Release);
            done.into_iter().map(|r| r.what).collect()
        };
        for what in ready {
            self.worker.release(what);
        }
    }

    /// Releases whatever is no longer in use and waits until the release worker has made
    /// every release handed to it (after a device synchronization, or before retrying a
    /// failed allocation).
    pub(crate) fn settle(&self) {
        self.collect();
        self.worker.drain();
    }
}

impl Drop for DeviceCore {
    fn drop(&mut self) {
        let pending = std::mem::take(&mut *lock(&self.pending));
        if pending.is_empty() {
            return;
        }
        for release in &pending {
            for (stream, _) in &release.waits {
                // A fault is reported to whoever synchronizes; here the memory must go anyway.
                let _ = stream.backend.synchronize();
            }
        }
        for release in pending {
            release_now(&*self.backend, release.what);
        }
    }
}

/// Locks a mutex, ignoring poisoning (the protected lists stay consistent across panics).
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
