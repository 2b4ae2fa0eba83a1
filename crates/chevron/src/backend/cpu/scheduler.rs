//! The workers that run CPU streams' work: a bounded set of OS threads shared by every stream of
//! every CPU device.
//!
//! A stream costs a queue, not a thread (`stream_queue.rs`). A stream that gets work while idle
//! is put on the ready list; a worker takes it, runs a batch of its work in order, and puts it
//! back at the end of the list if more is queued, so busy streams take turns. A stream is on the
//! list, on a worker or parked (waiting for another stream) — never two of these at once — so its
//! work runs in order on one worker at a time.
//!
//! Workers start on demand: whenever the ready list holds more streams than there are idle
//! workers to take them, another worker starts (up to [`MAX_WORKERS`]). So a stream with work
//! gets a thread of its own as long as fewer than [`MAX_WORKERS`] streams are busy at once, which
//! keeps the guarantee that a kernel spinning on a flag does not starve the kernel of another
//! stream that sets it. A worker idle for [`IDLE_EXIT`] ends, except the last one.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use crate::error::{Error, Result};

/// Work the scheduler runs: a stream's queue (`stream_queue.rs`), named here only by this trait
/// so the scheduler imports nothing of the streams.
pub(crate) trait Runnable: Send + Sync {
    /// Runs a batch of the work in order; returns whether more is left for another turn.
    fn run_batch(self: Arc<Self>) -> bool;
}

/// The most worker threads the CPU devices run at once.
pub(crate) const MAX_WORKERS: usize = 256;

/// How long a worker waits for work before it ends (the last worker stays).
const IDLE_EXIT: Duration = Duration::from_secs(5);

#[derive(Default)]
struct State {
    /// Streams with work that no worker runs yet, in the order they became ready.
    ready: VecDeque<Arc<dyn Runnable>>,
    /// Workers waiting for a ready stream.
    idle: usize,
    /// Workers alive (or starting).
    workers: usize,
    /// Names workers `chevron-cpu-worker{n}`.
    started: u64,
}

/// The ready list and the workers serving it.
#[derive(Default)]
pub(crate) struct Scheduler {
    state: Mutex<State>,
    wake: Condvar,
    /// Set once the first worker runs; the last worker never ends, so it stays set.
    running: AtomicBool,
}

/// The process's scheduler.
pub(crate) fn global() -> &'static Scheduler {
    static SCHEDULER: OnceLock<Scheduler> = OnceLock::new();
    SCHEDULER.get_or_init(Scheduler::default)
}

impl Scheduler {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing panics while this lock is held; recover from poisoning regardless.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Makes sure one worker runs, so that work queued from now on is served; the error (the
    /// host refused a thread) is CUDA's out-of-memory.
    pub fn ensure_running(&'static self) -> Result<()> {
        if self.running.load(Ordering::Acquire) {
            return Ok(());
        }
        let mut state = self.lock();
        if state.workers == 0 {
            self.spawn(&mut state).map_err(|e| Error::Driver {
                call: "Stream::submit",
                code: 2,
                name: "OUT_OF_MEMORY".into(),
                text: format!("cannot start a worker thread for the CPU device's streams: {e}"),
                device: "cpu".into(),
                context: String::new(),
            })?;
        }
        self.running.store(true, Ordering::Release);
        Ok(())
    }

    /// Puts a stream that got work onto the ready list, starting a worker if every worker is
    /// busy. (Best effort: if the host refuses a thread, the stream waits for a busy worker.)
    pub fn schedule(&'static self, stream: Arc<dyn Runnable>) {
        let mut state = self.lock();
        state.ready.push_back(stream);
        if state.ready.len() > state.idle && state.workers < MAX_WORKERS {
            // Failing is fine: `ensure_running` made sure some worker exists.
            let _ = self.spawn(&mut state);
        }
        drop(state);
        self.wake.notify_one();
    }

    fn spawn(&'static self, state: &mut State) -> std::io::Result<()> {
        let name = format!("chevron-cpu-worker{}", state.started);
        std::thread::Builder::new()
            .name(name)
            .spawn(move || self.serve())?;
        state.started += 1;
        state.workers += 1;
        Ok(())
    }

    /// A worker: runs ready streams until it has been idle for [`IDLE_EXIT`].
    fn serve(&'static self) {
        let mut state = self.lock();
        loop {
            if let Some(stream) = state.ready.pop_front() {
                drop(state);
                let more = Arc::clone(&stream).run_batch();
                state = self.lock();
                if more {
                    // Behind the streams that waited meanwhile. This worker goes on with the
                    // first of them; any more than the idle workers can take get a new worker,
                    // as in `schedule` (a stream's later kernels may be what others spin on).
                    state.ready.push_back(stream);
                    if state.ready.len() > state.idle + 1 && state.workers < MAX_WORKERS {
                        let _ = self.spawn(&mut state);
                    }
                }
                continue;
            }
            state.idle += 1;
            let (guard, timeout) = self
                .wake
                .wait_timeout(state, IDLE_EXIT)
                .unwrap_or_else(|e| e.into_inner());
            state = guard;
            state.idle -= 1;
            if timeout.timed_out() && state.ready.is_empty() && state.workers > 1 {
                state.workers -= 1;
                return;
            }
        }
    }
}
