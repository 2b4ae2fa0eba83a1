//! Automatic graph replay, a layer of every stream (opt-in per stream: [`crate::Stream::auto_graph`],
//! or `CHEVRON_AUTO_GRAPH=1` for every new stream).
//!
//! Every stream's backend stream is wrapped in an [`AutoGraph`]; it knows backend streams and
//! functions only, nothing of the launch path above it, which learns from one word
//! (`launch_extras`, where each stream turning replay on or off counts itself) whether a launch
//! may need it. While replay is off it only
//! forwards (one relaxed load per call). While on, launches of known layout come here with copies of
//! their argument values; `detector.rs` decides whether each is held back (it matches a
//! sequence seen before), released eagerly, or completes a sequence that is replayed as one
//! graph. Every other operation of the stream, including the queries and event records behind
//! tokens and deferred frees, first releases held launches: whatever observes the stream sees
//! the same work submitted as without replay.

mod args;
mod detector;
mod sequence;
mod totals;
#[cfg(test)]
mod typed;

use std::any::Any;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, TryLockError};

use crate::backend::{self, DevicePtr, ExecGraph, GraphStep, LaunchConfig};
use crate::error::Result;
use args::{pointers_into, ArgSource};
use detector::{Candidate, Detector, Replay};

pub(crate) use args::Raw;
pub use detector::AutoGraphStats;
pub use totals::auto_graph_totals;

/// Notes that a stream turned automatic replay on (`true`) or off, in the word the launch path
/// reads (`launch_extras`, which counts such streams).
fn note_on(on: bool) {
    crate::launch_extras::note_replay(on);
}

/// A backend stream with automatic replay in front of it.
pub(crate) struct AutoGraph {
    inner: Arc<dyn backend::Stream>,
    device: Arc<dyn backend::Device>,
    enabled: AtomicBool,
    state: Mutex<Detector>,
}

/// Whether `CHEVRON_AUTO_GRAPH=1` (or `report`, which also prints the process's totals at
/// exit) turns replay on for new streams.
fn enabled_by_environment() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| match std::env::var("CHEVRON_AUTO_GRAPH").as_deref() {
        Ok("1") => true,
        Ok("report") => {
            totals::report_at_exit_once();
            true
        }
        _ => false,
    })
}

impl AutoGraph {
    pub(crate) fn wrap(
        inner: Arc<dyn backend::Stream>,
        device: Arc<dyn backend::Device>,
    ) -> Arc<AutoGraph> {
        let enabled = enabled_by_environment();
        if enabled {
            note_on(true);
        }
        Arc::new(AutoGraph {
            inner,
            device,
            enabled: AtomicBool::new(enabled),
            state: Mutex::new(Detector::default()),
        })
    }

    /// Whether launches come through [`launch`] / [`launch_raw`].
    #[inline]
    pub(crate) fn enabled(&self) -> bool {
        self.enabled.load(Ordering::Relaxed)
    }

    /// What replay did on this stream so far.
    pub(crate) fn stats(&self) -> AutoGraphStats {
        self.lock().stats
    }

    #[inline]
    fn lock(&self) -> MutexGuard<'_, Detector> {
        crate::device::state::lock(&self.state)
    }

    /// A checked launch of `function`: held (its values copied into the candidate's arena),
    /// replayed with the rest of its sequence, or enqueued.
    #[inline]
    pub(crate) fn launch_tracked(
        &self,
        function: &Arc<dyn backend::Function>,
        config: &LaunchConfig,
        args: &impl ArgSource,
    ) -> Result<()> {
        let mut state = self.lock();
        state.launcher = thread_mark();
        if state.hold(&**function, config, args) {
            return if state.segment_complete() {
                counted(&mut state, |state| self.replay(state))
            } else {
                Ok(())
            };
        }
        counted(&mut state, |state| {
            self.launch_eagerly(state, function, config, args)
        })
    }

    #[cold]
    fn launch_eagerly(
        &self,
        state: &mut Detector,
        function: &Arc<dyn backend::Function>,
        config: &LaunchConfig,
        args: &impl ArgSource,
    ) -> Result<()> {
        state.diverge();
        let released = self.release(state);
        state.eager(function, *config, args);
        // SAFETY: the values were checked against the kernel's layout (or come with it), and
        // the kernel is of this stream's device.
        let launched = args
            .with_pointers(|pointers| unsafe { self.inner.launch(&**function, config, pointers) });
        released.and(launched)
    }

    /// Enqueues the held launches one by one, in order; reports the first failure.
    fn release(&self, state: &mut Detector) -> Result<()> {
        let held = state.take_held();
        let Some(candidate) = &state.candidate else {
            return Ok(());
        };
        let mut outcome = Ok(());
        let count = held.len();
        for index in held {
            let step = &candidate.sequence.steps[index];
            let offsets = candidate.sequence.offsets_of(index);
            // SAFETY: the values were checked against the kernel's layout when launched, and
            // the kernel is of this stream's device.
            let launched = pointers_into(&candidate.incoming, offsets, |pointers| unsafe {
                self.inner.launch(&*step.function, &step.config, pointers)
            });
            if outcome.is_ok() {
                outcome = launched;
            }
        }
        state.stats.eager_launches += count as u64;
        outcome
    }

    /// Replays the held launches as graphs: on the first full match of the candidate, every
    /// segment's graph is instantiated and launched; afterwards the segment just matched is
    /// launched with its changed nodes updated (one batch), so the device runs it while the
    /// host matches the next.
    fn replay(&self, state: &mut Detector) -> Result<()> {
        let segment = state.segment;
        let candidate = state
            .candidate
            .as_mut()
            .expect("a complete match has a candidate");
        // The segments to launch now.
        let ready = match &candidate.replay {
            None => self.instantiate(candidate).map(|execs| {
                state.stats.instantiations += 1;
                candidate.replay = Some(Replay {
                    execs,
                    values: candidate.incoming.clone(),
                });
                0..candidate.segments.len()
            }),
            Some(_) => update_changed(candidate, segment).map(|updated| {
                state.stats.node_updates += updated as u64;
                segment..segment + 1
            }),
        };
        let launched = ready.and_then(|segments| {
            segments.into_iter().try_for_each(|_| {
                self.inner.launch_graph(state.current_graph())?;
                // Launches of segments that went out are not released again.
                state.segment_launched();
                Ok(())
            })
        });
        match launched {
            Ok(()) => Ok(()),
            Err(_) => {
                // This device cannot replay the sequence: it runs as launched.
                if let Some(candidate) = &mut state.candidate {
                    candidate.replay = None;
                }
                state.graph_failed = true;
                state.diverge();
                self.release(state)
            }
        }
    }

    /// One graph per segment of the candidate, with the values just matched.
    fn instantiate(&self, candidate: &Candidate) -> Result<Vec<Arc<dyn ExecGraph>>> {
        let sequence = &candidate.sequence;
        let pointers: Vec<Vec<*mut c_void>> = (0..sequence.len())
            .map(|i| pointers_into(&candidate.incoming, sequence.offsets_of(i), |p| p.to_vec()))
            .collect();
        let steps: Vec<GraphStep<'_>> = sequence
            .steps
            .iter()
            .zip(&pointers)
            .map(|(step, args)| GraphStep::Launch {
                function: &*step.function,
                config: step.config,
                args,
                attributes: &[],
            })
            .collect();
        let mut start = 0;
        candidate
            .segments
            .iter()
            .map(|&end| {
                let segment = &steps[start..end];
                start = end;
                // SAFETY: as `release`: checked values of kernels of this device, alive for
                // the call.
                unsafe { self.device.instantiate_graph(segment) }
            })
            .collect()
    }

    /// A boundary: releases held launches and moves the candidate on.
    fn boundary(&self) -> Result<()> {
        if !self.enabled() {
            return Ok(()); // Turning replay off released everything.
        }
        counted(&mut self.lock(), |state| {
            let released = self.release(state);
            state.boundary();
            released
        })
    }

    /// A device synchronization (made by any thread) must find held launches submitted. Made
    /// by the thread that launches on this stream, it is a boundary of the stream. Made by
    /// another thread, it says nothing of this stream's loop: the held launches go out eagerly,
    /// as at a divergence, and the sequence being learned goes on, so the launches since the
    /// stream's own last boundary still become the candidate at its next one (the same
    /// sequence keeping its graphs) and only the repetition in progress runs eagerly. Taken as
    /// a boundary, another test's `Device::synchronize` made a stream learn a part of its
    /// sequence and lose several repetitions.
    fn device_synchronizing(&self) -> Result<()> {
        if !self.enabled() {
            return Ok(());
        }
        counted(&mut self.lock(), |state| {
            if state.launcher == thread_mark() {
                let released = self.release(state);
                state.boundary();
                return released;
            }
            if !state.holding() {
                return Ok(());
            }
            state.diverge();
            self.release(state)
        })
    }

    /// The backend stream itself while replay is off: launches then skip the wrapper (one
    /// dynamic call fewer on the hot path; the wrapper would only forward them).
    #[inline]
    pub(crate) fn bypass(&self) -> Option<&dyn backend::Stream> {
        (!self.enabled()).then_some(&*self.inner)
    }

    /// An untracked launch: ends the current match, stays eager.
    fn diverge(&self) -> Result<()> {
        if !self.enabled() {
            return Ok(());
        }
        counted(&mut self.lock(), |state| {
            state.launcher = thread_mark();
            state.diverge();
            self.release(state)
        })
    }

    /// Turns replay on or off; turning it off releases held launches.
    pub(crate) fn set_enabled(&self, on: bool) -> Result<()> {
        let released = self.boundary();
        if self.enabled.swap(on, Ordering::Relaxed) != on {
            note_on(on);
        }
        if !on {
            self.lock().forget();
        }
        released
    }
}

/// An address unique to the calling thread while it runs (a thread-local's): which thread
/// launches on a stream, for one word per launch.
#[inline]
fn thread_mark() -> usize {
    thread_local! {
        static MARK: u8 = const { 0 };
    }
    MARK.with(|mark| std::ptr::from_ref(mark) as usize)
}

/// Runs `f` on the state and adds what it did to the process's totals.
fn counted<T>(state: &mut Detector, f: impl FnOnce(&mut Detector) -> T) -> T {
    let before = state.stats;
    let out = f(state);
    totals::note(&before, &state.stats);
    out
}

/// Gives the nodes of `segment` whose values changed their new values (one batch); returns how
/// many.
fn update_changed(candidate: &mut Candidate, segment: usize) -> Result<usize> {
    let Candidate {
        sequence,
        incoming,
        replay,
        changed,
        segments,
    } = candidate;
    let Some(replay) = replay else {
        return Ok(0);
    };
    if changed.is_empty() {
        return Ok(0);
    }
    for &index in changed.iter() {
        let words = sequence.steps[index].words.clone();
        replay.values[words.clone()].copy_from_slice(&incoming[words]);
    }
    let values = &replay.values;
    let first = segment.checked_sub(1).map_or(0, |before| segments[before]);
    let mut each = |set: &mut dyn FnMut(usize, &[*mut c_void]) -> Result<()>| {
        changed.iter().try_for_each(|&index| {
            pointers_into(values, sequence.offsets_of(index), |p| {
                set(index - first, p)
            })
        })
    };
    // SAFETY: the values match each node's kernel (same kernel and sizes as matched).
    unsafe { replay.execs[segment].set_kernel_args_batch(&mut each) }?;
    Ok(changed.len())
}

impl Drop for AutoGraph {
    fn drop(&mut self) {
        // Launches still held run, as they would have without replay (errors have no caller).
        let _ = self.boundary();
        if *self.enabled.get_mut() {
            note_on(false);
        }
    }
}

impl backend::Stream for AutoGraph {
    unsafe fn launch(
        &self,
        function: &dyn backend::Function,
        config: &LaunchConfig,
        args: &[*mut c_void],
    ) -> Result<()> {
        self.diverge()?;
        // SAFETY: forwarded from the caller.
        unsafe { self.inner.launch(function, config, args) }
    }

    unsafe fn launch_cluster(
        &self,
        function: &dyn backend::Function,
        config: &LaunchConfig,
        cluster: [u32; 3],
        args: &[*mut c_void],
    ) -> Result<()> {
        self.diverge()?;
        // SAFETY: forwarded from the caller.
        unsafe { self.inner.launch_cluster(function, config, cluster, args) }
    }

    unsafe fn launch_cooperative(
        &self,
        function: &dyn backend::Function,
        config: &LaunchConfig,
        args: &[*mut c_void],
    ) -> Result<()> {
        self.diverge()?;
        // SAFETY: forwarded from the caller.
        unsafe { self.inner.launch_cooperative(function, config, args) }
    }

    fn copy_to_device(&self, dst: DevicePtr, src: &[u8]) -> Result<()> {
        self.boundary()?;
        self.inner.copy_to_device(dst, src)
    }

    fn copy_to_host(&self, dst: &mut [u8], src: DevicePtr) -> Result<()> {
        self.boundary()?;
        self.inner.copy_to_host(dst, src)
    }

    fn copy_on_device(&self, dst: DevicePtr, src: DevicePtr, bytes: u64) -> Result<()> {
        self.boundary()?;
        self.inner.copy_on_device(dst, src, bytes)
    }

    unsafe fn copy_array(&self, copy: &backend::ArrayCopy<'_>) -> Result<()> {
        self.boundary()?;
        // SAFETY: forwarded from the caller.
        unsafe { self.inner.copy_array(copy) }
    }

    fn memset(&self, dst: DevicePtr, value: u32, element_bytes: u32, count: u64) -> Result<()> {
        self.boundary()?;
        self.inner.memset(dst, value, element_bytes, count)
    }

    fn record(&self, event: &dyn backend::Event) -> Result<()> {
        self.boundary()?;
        self.inner.record(event)
    }

    fn wait(&self, event: &dyn backend::Event) -> Result<()> {
        self.boundary()?;
        self.inner.wait(event)
    }

    fn synchronize(&self) -> Result<()> {
        self.boundary()?;
        self.inner.synchronize()
    }

    fn query(&self) -> Result<bool> {
        self.boundary()?;
        self.inner.query()
    }

    fn query_quietly(&self) -> Result<bool> {
        if !self.enabled() {
            return self.inner.query();
        }
        // Held launches are work not yet done; a launch in progress on another thread may be
        // about to hold one. Either way the answer is "not done", without releasing anything.
        match self.state.try_lock() {
            Ok(state) if !state.holding() => {}
            Err(TryLockError::Poisoned(state)) if !state.get_ref().holding() => {}
            _ => return Ok(false),
        }
        self.inner.query()
    }

    fn launch_graph(&self, graph: &dyn ExecGraph) -> Result<()> {
        self.boundary()?;
        self.inner.launch_graph(graph)
    }

    fn launch_host_function(&self, function: crate::backend::HostFunction) -> Result<()> {
        self.boundary()?;
        self.inner.launch_host_function(function)
    }

    fn flush(&self) -> Result<()> {
        self.device_synchronizing()?;
        self.inner.flush()
    }

    fn stop(&self) -> bool {
        // Held launches are not queued yet: released later, a stopped stream cancels them.
        self.inner.stop()
    }

    fn executor_track(&self) -> Option<usize> {
        self.inner.executor_track()
    }

    fn as_any(&self) -> &dyn Any {
        // The backend's own stream: backends downcast to it.
        self.inner.as_any()
    }
}
