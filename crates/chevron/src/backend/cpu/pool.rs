//! The CPU device's persistent worker pool, shared by all its streams.
//!
//! A launch used to start and join its own threads (tens of microseconds per multi-block
//! launch). The pool's threads live as long as the device; a launch hands each of them a
//! *ticket* for one worker index and runs worker 0 on the stream's worker thread. Workers take
//! blocks from a shared counter, so the launch finishes even when no pool thread is free (they
//! may all be running another stream's spinning blocks): once the worker thread runs out of
//! blocks it withdraws every ticket no thread has taken, and waits only for those that started.
//! That keeps the old guarantee that a spinning kernel never starves another stream.
//! Each pool thread, and the stream's thread during a launch, runs on a core of its own
//! (`placement.rs`).

use std::any::Any;
use std::collections::VecDeque;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use chevron_ptx::interp::BlockWorkers;

/// The work of one launch: called with a worker index.
type Work = dyn Fn(usize) + Sync;

/// Where a ticket is in its life.
enum TicketState {
    /// Queued, not taken by a pool thread.
    Pending,
    /// A pool thread is running the work.
    Running,
    /// The work returned; a panic's payload if it panicked.
    Done(Option<Box<dyn Any + Send>>),
    /// The launch finished without it; it never runs.
    Withdrawn,
}

/// One worker index of one launch, offered to the pool.
struct Ticket {
    /// The launch's work, its lifetime erased: valid while the launch waits in
    /// [`WorkerPool::run`], which returns only once the ticket is `Done` or `Withdrawn`.
    work: &'static Work,
    worker: usize,
    state: Mutex<TicketState>,
    finished: Condvar,
}

impl Ticket {
    fn state(&self) -> MutexGuard<'_, TicketState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The tickets waiting for a thread, and whether the pool is shutting down.
#[derive(Default)]
struct Queue {
    tickets: VecDeque<Arc<Ticket>>,
    closed: bool,
}

/// What the pool's threads share.
#[derive(Default)]
struct Shared {
    queue: Mutex<Queue>,
    ready: Condvar,
}

impl Shared {
    fn queue(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Persistent helper threads of one CPU device.
pub(crate) struct WorkerPool {
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
}

impl WorkerPool {
    /// Starts up to `helpers` threads named after `name` (fewer if the host refuses some).
    pub fn start(helpers: usize, name: &str) -> WorkerPool {
        let shared = Arc::new(Shared::default());
        let threads = (0..helpers)
            .filter_map(|index| {
                let shared = Arc::clone(&shared);
                std::thread::Builder::new()
                    .name(format!("{name}-worker{index}"))
                    .spawn(move || {
                        // Pool thread `index` is the launches' worker 1, 2, … in turn.
                        super::placement::bind_pool_thread(index + 1);
                        serve(&shared)
                    })
                    .ok()
            })
            .collect();
        WorkerPool { shared, threads }
    }
}

/// A pool thread: runs tickets until the pool closes.
fn serve(shared: &Shared) {
    loop {
        let ticket = {
            let mut queue = shared.queue();
            loop {
                if let Some(ticket) = queue.tickets.pop_front() {
                    break ticket;
                }
                if queue.closed {
                    return;
                }
                queue = shared.ready.wait(queue).unwrap_or_else(|e| e.into_inner());
            }
        };
        {
            let mut state = ticket.state();
            if !matches!(*state, TicketState::Pending) {
                continue; // Withdrawn: its launch is over.
            }
            *state = TicketState::Running;
        }
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| (ticket.work)(ticket.worker)));
        *ticket.state() = TicketState::Done(outcome.err());
        ticket.finished.notify_all();
    }
}

impl BlockWorkers for WorkerPool {
    fn run(&self, workers: usize, work: &(dyn Fn(usize) + Sync)) {
        let helpers = workers.saturating_sub(1).min(self.threads.len());
        // SAFETY: only the lifetime changes. The erased reference is used by a pool thread
        // only while its ticket is `Running`, which it can become only from `Pending`; before
        // returning (or unwinding) this function turns every `Pending` ticket into `Withdrawn`
        // and waits for every `Running` one to become `Done`, all under the ticket's lock. So
        // no use of `work` outlives this call.
        let erased: &'static Work =
            unsafe { std::mem::transmute::<&(dyn Fn(usize) + Sync + '_), &'static Work>(work) };
        let tickets: Vec<Arc<Ticket>> = (1..=helpers)
            .map(|worker| {
                Arc::new(Ticket {
                    work: erased,
                    worker,
                    state: Mutex::new(TicketState::Pending),
                    finished: Condvar::new(),
                })
            })
            .collect();
        if !tickets.is_empty() {
            self.shared.queue().tickets.extend(tickets.iter().cloned());
            for _ in 0..tickets.len() {
                self.shared.ready.notify_one();
            }
        }
        let binding = super::placement::LaunchBinding::for_launch(helpers + 1);
        let own = panic::catch_unwind(AssertUnwindSafe(|| work(0)));
        drop(binding);
        let mut helper_panic = None;
        for ticket in &tickets {
            let mut state = ticket.state();
            loop {
                match &mut *state {
                    TicketState::Pending => {
                        *state = TicketState::Withdrawn;
                        break;
                    }
                    TicketState::Running => {
                        state = ticket
                            .finished
                            .wait(state)
                            .unwrap_or_else(|e| e.into_inner());
                    }
                    TicketState::Done(payload) => {
                        if helper_panic.is_none() {
                            helper_panic = payload.take();
                        }
                        break;
                    }
                    TicketState::Withdrawn => break,
                }
            }
        }
        if let Err(payload) = own {
            panic::resume_unwind(payload);
        }
        if let Some(payload) = helper_panic {
            panic::resume_unwind(payload);
        }
    }
}

impl Drop for WorkerPool {
    fn drop(&mut self) {
        self.shared.queue().closed = true;
        self.shared.ready.notify_all();
        for thread in self.threads.drain(..) {
            // A pool thread catches the panics of the work it runs; joining cannot fail
            // in a way worth reporting while the device goes away.
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn every_worker_index_runs_at_most_once_and_worker_zero_always() {
        let pool = WorkerPool::start(3, "pool-test");
        for _ in 0..200 {
            let seen: Vec<AtomicUsize> = (0..4).map(|_| AtomicUsize::new(0)).collect();
            pool.run(4, &|worker| {
                seen[worker].fetch_add(1, Ordering::Relaxed);
            });
            assert_eq!(seen[0].load(Ordering::Relaxed), 1);
            assert!(seen.iter().all(|count| count.load(Ordering::Relaxed) <= 1));
        }
    }

    #[test]
    fn a_launch_finishes_while_every_pool_thread_is_busy() {
        let pool = Arc::new(WorkerPool::start(1, "pool-busy"));
        let release = Arc::new((Mutex::new(false), Condvar::new()));
        let blocker = {
            let pool = Arc::clone(&pool);
            let release = Arc::clone(&release);
            std::thread::spawn(move || {
                pool.run(2, &|worker| {
                    if worker == 0 {
                        return;
                    }
                    let (lock, wake) = &*release;
                    let mut open = lock.lock().unwrap();
                    while !*open {
                        open = wake.wait(open).unwrap();
                    }
                });
            })
        };
        // Whether or not the blocker's helper holds the only pool thread, this launch's worker 0
        // does all the work and the call returns.
        let done = AtomicUsize::new(0);
        pool.run(2, &|_| {
            done.fetch_add(1, Ordering::Relaxed);
        });
        assert!(done.load(Ordering::Relaxed) >= 1);
        *release.0.lock().unwrap() = true;
        release.1.notify_all();
        blocker.join().unwrap();
    }

    #[test]
    fn a_helper_panic_reaches_the_launching_thread() {
        let pool = WorkerPool::start(1, "pool-panic");
        let helper_started = std::sync::atomic::AtomicBool::new(false);
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.run(2, &|worker| {
                if worker == 0 {
                    // The only pool thread is idle: it takes the ticket.
                    while !helper_started.load(Ordering::Acquire) {
                        std::thread::yield_now();
                    }
                } else {
                    helper_started.store(true, Ordering::Release);
                    panic!("helper failed");
                }
            })
        }));
        assert!(outcome.is_err());
    }
}
