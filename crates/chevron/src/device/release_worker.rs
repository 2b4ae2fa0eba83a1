//! The per-device thread that frees memory and unloads modules.
//!
//! The CUDA driver's `cuMemFree` and `cuModuleUnload` wait for the whole device: made on the
//! thread that launches, they would stall it until every kernel of the device finished,
//! including a kernel spinning on another stream. Releases are therefore handed to one worker
//! thread per device, started on the first release; the backend makes its own context current
//! there (the caller's context is never touched). [`ReleaseWorker::drain`] waits until every
//! handed-over release is done (device synchronization and a failed allocation use it).

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::{JoinHandle, ThreadId};

use crate::backend;
use crate::device::state::{lock, Release};

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Release>,
    /// Whether the worker is releasing one now.
    busy: bool,
    /// Set when the device goes away: the worker finishes the queue and exits.
    closed: bool,
}

/// The queue and the signal both sides wait on.
#[derive(Default)]
struct Shared {
    queue: Mutex<Queue>,
    changed: Condvar,
}

impl Shared {
    fn wait<'a>(&self, queue: MutexGuard<'a, Queue>) -> MutexGuard<'a, Queue> {
        self.changed
            .wait(queue)
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// One device's release thread.
pub(crate) struct ReleaseWorker {
    backend: Arc<dyn backend::Device>,
    name: String,
    shared: Arc<Shared>,
    thread: Mutex<Option<(ThreadId, JoinHandle<()>)>>,
}

impl ReleaseWorker {
    pub(crate) fn new(backend: Arc<dyn backend::Device>, label: &str) -> ReleaseWorker {
        ReleaseWorker {
            backend,
            name: format!("chevron release {label}"),
            shared: Arc::default(),
            thread: Mutex::new(None),
        }
    }

    /// Hands `what` to the worker (started now if it is not running). Where no thread can be
    /// started, the release is made here.
    pub(crate) fn release(&self, what: Release) {
        {
            let mut thread = lock(&self.thread);
            if thread.is_none() {
                match self.spawn() {
                    Some(started) => *thread = Some(started),
                    None => return release_now(&*self.backend, what),
                }
            }
        }
        lock(&self.shared.queue).jobs.push_back(what);
        self.shared.changed.notify_all();
    }

    fn spawn(&self) -> Option<(ThreadId, JoinHandle<()>)> {
        let backend = Arc::clone(&self.backend);
        let shared = Arc::clone(&self.shared);
        let handle = std::thread::Builder::new()
            .name(self.name.clone())
            .spawn(move || work(&*backend, &shared))
            .ok()?;
        Some((handle.thread().id(), handle))
    }

    /// Waits until every release handed over so far is done.
    pub(crate) fn drain(&self) {
        if self.is_worker_thread() {
            return;
        }
        let mut queue = lock(&self.shared.queue);
        while !queue.jobs.is_empty() || queue.busy {
            queue = self.shared.wait(queue);
        }
    }

    fn is_worker_thread(&self) -> bool {
        let current = std::thread::current().id();
        lock(&self.thread)
            .as_ref()
            .is_some_and(|(id, _)| *id == current)
    }
}

impl Drop for ReleaseWorker {
    fn drop(&mut self) {
        lock(&self.shared.queue).closed = true;
        self.shared.changed.notify_all();
        let thread = lock(&self.thread).take();
        if let Some((id, handle)) = thread {
            // A release on the worker may drop the last handle of the device; the worker then
            // finishes its queue by itself.
            if id != std::thread::current().id() {
                let _ = handle.join();
            }
        }
    }
}

/// The worker's loop: release in order until the device goes away.
fn work(backend: &dyn backend::Device, shared: &Shared) {
    let mut queue = lock(&shared.queue);
    loop {
        if let Some(what) = queue.jobs.pop_front() {
            queue.busy = true;
            drop(queue);
            release_now(backend, what);
            queue = lock(&shared.queue);
            queue.busy = false;
            shared.changed.notify_all();
        } else if queue.closed {
            return;
        } else {
            queue = shared.wait(queue);
        }
    }
}

/// Frees or drops `what` on the calling thread.
pub(crate) fn release_now(backend: &dyn backend::Device, what: Release) {
    match what {
        // A failed free cannot be reported from a drop; the memory is lost at worst.
        Release::Memory(ptr) => drop(backend.free(ptr)),
        Release::Object(object) => drop(object),
    }
}
