//! The per-device thread that frees memory and unloads modules.
//!
//! The CUDA driver's `cuMemFree` and `cuModuleUnload` wait for the whole device: made on the
//! thread that launches, they would stall it until every kernel of the device finished,
//! including a kernel spinning on another stream. Releases are therefore handed to one worker
//! thread per device, started on the first release; the backend makes its own context current
//! there (the caller's context is never touched). [`ReleaseWorker::drain`] waits until every
//! handed-over release is done (device synchronization and a failed allocation use it).
//!
//! On a device whose releases wait for all of its work
//! ([`backend::Device::releases_wait_for_device`]: CUDA), the worker also waits, before each
//! release, until no stream of the device has unfinished work: CUDA runs work submitted while
//! a `cuMemFree` waits only after it, so a free made while a kernel spins on one stream would
//! hold back a kernel launched meanwhile on another. The wait ends early when a thread drains
//! the queue, when the device goes away, or when the queue holds back half of its memory
//! bound ([`held_bytes_limit`]).
//!
//! The queue is bounded by what it holds back: device memory (at most an eighth of the
//! device's, [`held_bytes_limit`]) and entries ([`MAX_QUEUED`], for the host memory of the
//! queue; [`MAX_QUEUED_CHEAP`] where releases are cheap). Past either
//! bound the caller releases itself, as `cuMemFree` would (waiting for the
//! device), so that a loop freeing faster than the worker keeps memory bounded. The bound is
//! not a count of small releases: while one kernel runs for seconds the worker cannot free
//! anything (each `cuMemFree` waits for it), and a few hundred small buffers dropped meanwhile
//! by other threads must not make an unrelated thread's release wait for that kernel.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::thread::{JoinHandle, ThreadId};
use std::time::Duration;

use crate::backend;
use crate::device::progress::StreamProgress;
use crate::device::state::{lock, Release};

/// The device's streams, as the device keeps them.
pub(crate) type Streams = Arc<Mutex<Vec<Arc<StreamProgress>>>>;

/// The longest pause between two looks at a busy device.
const IDLE_POLL_MAX: Duration = Duration::from_millis(2);

/// Releases waiting for the worker beyond which the caller releases itself (host memory of
/// the queue: a few words each).
const MAX_QUEUED: usize = 1 << 16;

/// The same bound on a device whose releases are cheap (the CPU device): a thread dropping
/// buffers faster than the worker frees them must not leave a long queue of memory behind.
const MAX_QUEUED_CHEAP: usize = 256;

/// Device memory that queued frees may hold back before the caller frees itself: an eighth
/// of the device's memory.
fn held_bytes_limit(backend: &dyn backend::Device) -> u64 {
    backend.info().total_memory / 8
}

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Release>,
    /// Bytes of device memory the queued frees hold.
    held_bytes: u64,
    /// Whether the worker is releasing one now.
    busy: bool,
    /// Whether the worker waits for work (and must be woken).
    sleeping: bool,
    /// Threads waiting in [`ReleaseWorker::drain`].
    draining: usize,
    /// Set when the device goes away: the worker finishes the queue and exits.
    closed: bool,
}

/// The queue, and the signals for work (to the worker) and for an empty queue (to drains).
#[derive(Default)]
struct Shared {
    queue: Mutex<Queue>,
    work: Condvar,
    emptied: Condvar,
}

fn wait<'a>(signal: &Condvar, queue: MutexGuard<'a, Queue>) -> MutexGuard<'a, Queue> {
    signal
        .wait(queue)
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// One device's release thread.
pub(crate) struct ReleaseWorker {
    backend: Arc<dyn backend::Device>,
    name: String,
    /// [`held_bytes_limit`] of the device.
    held_bytes_limit: u64,
    /// [`MAX_QUEUED`] or [`MAX_QUEUED_CHEAP`].
    max_queued: usize,
    shared: Arc<Shared>,
    /// The device's streams: where releases wait for the device, the worker waits for these.
    streams: Streams,
    /// The thread, once started (`None` inside: it could not be started).
    thread: OnceLock<Option<(ThreadId, JoinHandle<()>)>>,
}

impl ReleaseWorker {
    pub(crate) fn new(
        backend: Arc<dyn backend::Device>,
        label: &str,
        streams: Streams,
    ) -> ReleaseWorker {
        ReleaseWorker {
            held_bytes_limit: held_bytes_limit(&*backend),
            max_queued: if backend.releases_are_cheap() {
                MAX_QUEUED_CHEAP
            } else {
                MAX_QUEUED
            },
            backend,
            name: format!("chevron release {label}"),
            shared: Arc::default(),
            streams,
            thread: OnceLock::new(),
        }
    }

    /// Hands `what` to the worker (started now if it is not running). Where no thread can be
    /// started, or the queue is full (see the module's doc), the release is made here.
    pub(crate) fn release(&self, what: Release) {
        if self.thread.get_or_init(|| self.spawn()).is_none() {
            return release_now(&*self.backend, what);
        }
        let bytes = what.bytes();
        let mut queue = lock(&self.shared.queue);
        let held = queue.held_bytes.saturating_add(bytes);
        // A free larger than the limit still goes to the worker when nothing else is held.
        if queue.jobs.len() >= self.max_queued
            || (held > self.held_bytes_limit && queue.held_bytes > 0)
        {
            drop(queue);
            return release_now(&*self.backend, what);
        }
        queue.held_bytes = held;
        queue.jobs.push_back(what);
        let wake = queue.sleeping;
        drop(queue);
        if wake {
            self.shared.work.notify_one();
        }
    }

    fn spawn(&self) -> Option<(ThreadId, JoinHandle<()>)> {
        let backend = Arc::clone(&self.backend);
        let shared = Arc::clone(&self.shared);
        let streams = Arc::clone(&self.streams);
        let patience = self.held_bytes_limit / 2;
        let handle = std::thread::Builder::new()
            .name(self.name.clone())
            .spawn(move || work(&*backend, &shared, &streams, patience))
            .ok()?;
        Some((handle.thread().id(), handle))
    }

    /// Waits until every release handed over so far is done.
    pub(crate) fn drain(&self) {
        if self.is_worker_thread() {
            return;
        }
        let mut queue = lock(&self.shared.queue);
        queue.draining += 1;
        while !queue.jobs.is_empty() || queue.busy {
            queue = wait(&self.shared.emptied, queue);
        }
        queue.draining -= 1;
    }

    fn is_worker_thread(&self) -> bool {
        let current = std::thread::current().id();
        self.thread
            .get()
            .and_then(Option::as_ref)
            .is_some_and(|(id, _)| *id == current)
    }
}

impl Drop for ReleaseWorker {
    fn drop(&mut self) {
        lock(&self.shared.queue).closed = true;
        self.shared.work.notify_one();
        if let Some(Some((id, handle))) = self.thread.take() {
            // A release on the worker may drop the last handle of the device; the worker then
            // finishes its queue by itself.
            if id != std::thread::current().id() {
                let _ = handle.join();
            }
        }
    }
}

/// Whether no stream of the device has unfinished work.
fn device_idle(streams: &Streams) -> bool {
    lock(streams).iter().all(|s| s.is_idle())
}

/// Waits, where releases wait for the device, until it is idle, or until a thread drains the
/// queue, the device goes away or the queue holds back more than `patience` bytes.
fn wait_for_idle(backend: &dyn backend::Device, shared: &Shared, streams: &Streams, patience: u64) {
    if !backend.releases_wait_for_device() {
        return;
    }
    let mut pause = Duration::from_micros(50);
    while !device_idle(streams) {
        {
            let queue = lock(&shared.queue);
            if queue.draining > 0 || queue.closed || queue.held_bytes > patience {
                return;
            }
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(IDLE_POLL_MAX);
    }
}

/// The worker's loop: release in order until the device goes away.
fn work(backend: &dyn backend::Device, shared: &Shared, streams: &Streams, patience: u64) {
    let mut queue = lock(&shared.queue);
    loop {
        if let Some(what) = queue.jobs.pop_front() {
            queue.busy = true;
            let bytes = what.bytes();
            drop(queue);
            wait_for_idle(backend, shared, streams, patience);
            release_now(backend, what);
            queue = lock(&shared.queue);
            queue.held_bytes -= bytes;
            queue.busy = false;
        } else if queue.closed {
            return;
        } else {
            if queue.draining > 0 {
                shared.emptied.notify_all();
            }
            queue.sleeping = true;
            queue = wait(&shared.work, queue);
            queue.sleeping = false;
        }
    }
}

/// Frees or drops `what` on the calling thread.
pub(crate) fn release_now(backend: &dyn backend::Device, what: Release) {
    match what {
        // A failed free cannot be reported from a drop; the memory is lost at worst.
        Release::Memory { ptr, .. } => drop(backend.free(ptr)),
        Release::Object(object) => drop(object),
    }
}
