//! Automatic graph replay (opt-in per stream: [`Stream::auto_graph`], or `CHEVRON_AUTO_GRAPH=1`
//! for every new stream).
//!
//! Every stream's backend stream is wrapped in an [`AutoGraph`]. While replay is off it only
//! forwards (one relaxed load per call). While on, launches of known layout come here with copies of
//! their argument values; `detector.rs` decides whether each is held back (it matches a
//! sequence seen before), released eagerly, or completes a sequence that is replayed as one
//! graph. Every other operation of the stream, including the queries and event records behind
//! tokens and deferred frees, first releases held launches: whatever observes the stream sees
//! the same work submitted as without replay.

mod detector;

use std::any::Any;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use super::values::ArgValues;
use crate::backend::{self, DevicePtr, ExecGraph, GraphStep, LaunchConfig};
use crate::error::Result;
use crate::launch::kernel::Kernel;
use crate::Stream;
use detector::{Detector, Held, Key, Replay};

pub use detector::AutoGraphStats;

/// A backend stream with automatic replay in front of it.
pub(crate) struct AutoGraph {
    inner: Arc<dyn backend::Stream>,
    device: Arc<dyn backend::Device>,
    enabled: AtomicBool,
    state: Mutex<Detector>,
}

/// Whether `CHEVRON_AUTO_GRAPH=1` turns replay on for new streams.
fn enabled_by_environment() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("CHEVRON_AUTO_GRAPH").is_ok_and(|v| v == "1"))
}

impl AutoGraph {
    pub(crate) fn wrap(
        inner: Arc<dyn backend::Stream>,
        device: Arc<dyn backend::Device>,
    ) -> Arc<AutoGraph> {
        let enabled = enabled_by_environment();
        if enabled {
            crate::launch::submit::note_auto_graph(true);
        }
        Arc::new(AutoGraph {
            inner,
            device,
            enabled: AtomicBool::new(enabled),
            state: Mutex::new(Detector::default()),
        })
    }

    /// Whether launches come through [`AutoGraph::launch_tracked`].
    #[inline]
    pub(crate) fn enabled(&self) -> bool {
        self.enabled.load(Ordering::Relaxed)
    }

    fn lock(&self) -> MutexGuard<'_, Detector> {
        crate::device::state::lock(&self.state)
    }

    /// Runs `f` on the state.
    fn with_state<T>(&self, f: impl FnOnce(&mut Detector) -> T) -> T {
        f(&mut self.lock())
    }

    /// A checked launch with copies of its values: held, replayed or enqueued.
    pub(crate) fn launch_tracked(
        &self,
        kernel: &Kernel,
        config: LaunchConfig,
        values: ArgValues,
    ) -> Result<()> {
        self.with_state(|state| {
            let key = Key::of(kernel.backend_function(), &config, &values);
            if state.matches(key) {
                state.held.push(Held {
                    function: kernel.backend_function_arc(),
                    config,
                    values,
                });
                return if state.complete() {
                    self.replay(state)
                } else {
                    Ok(())
                };
            }
            let released = self.release(state);
            state.diverged = true;
            state.any_eager = true;
            state.stats.eager_launches += 1;
            released.and(self.enqueue(kernel.backend_function(), &config, &values))
        })
    }

    fn enqueue(
        &self,
        function: &dyn backend::Function,
        config: &LaunchConfig,
        values: &ArgValues,
    ) -> Result<()> {
        // SAFETY: the values were checked against the kernel's layout when launched (or come
        // from its layout), and the kernel is of this stream's device.
        values.with_pointers(|pointers| unsafe { self.inner.launch(function, config, pointers) })
    }

    /// Enqueues the held launches one by one, in order; reports the first failure.
    fn release(&self, state: &mut Detector) -> Result<()> {
        let mut outcome = Ok(());
        for held in std::mem::take(&mut state.held) {
            state.any_eager = true;
            state.stats.eager_launches += 1;
            let launched = self.enqueue(&*held.function, &held.config, &held.values);
            if outcome.is_ok() {
                outcome = launched;
            }
        }
        outcome
    }

    /// Replays the held launches (the whole candidate) as one graph.
    fn replay(&self, state: &mut Detector) -> Result<()> {
        if state.replay.is_none() {
            match self.instantiate(&state.held) {
                Ok(exec) => {
                    state.stats.instantiations += 1;
                    state.replay = Some(Replay {
                        exec,
                        values: state.held.iter().map(|h| h.values.clone()).collect(),
                        _functions: state.held.iter().map(|h| Arc::clone(&h.function)).collect(),
                    });
                }
                Err(_) => {
                    // This device cannot replay the sequence: it runs as launched, for good.
                    state.graph_failed = true;
                    return self.release(state);
                }
            }
        }
        let replay = state.replay.as_mut().expect("instantiated above");
        let updated = update_values(replay, &state.held);
        if updated
            .and_then(|()| self.inner.launch_graph(&*replay.exec))
            .is_err()
        {
            state.replay = None;
            state.graph_failed = true;
            return self.release(state);
        }
        state.stats.replays += 1;
        state.stats.replayed_launches += state.held.len() as u64;
        state.held.clear();
        Ok(())
    }

    fn instantiate(&self, held: &[Held]) -> Result<Arc<dyn ExecGraph>> {
        let pointers: Vec<Vec<*mut c_void>> = held
            .iter()
            .map(|h| h.values.with_pointers(|p| p.to_vec()))
            .collect();
        let steps: Vec<GraphStep<'_>> = held
            .iter()
            .zip(&pointers)
            .map(|(h, args)| GraphStep::Launch {
                function: &*h.function,
                config: h.config,
                args,
            })
            .collect();
        // SAFETY: as `enqueue`: checked values of kernels of this device, alive for the call.
        unsafe { self.device.instantiate_graph(&steps) }
    }

    /// A boundary: releases held launches and moves the candidate on.
    fn boundary(&self) -> Result<()> {
        if !self.enabled() {
            return Ok(()); // Turning replay off released everything.
        }
        self.with_state(|state| {
            let released = self.release(state);
            state.boundary();
            released
        })
    }

    /// An operation that is not a tracked launch: releases held launches, stays eager.
    /// The backend stream itself while replay is off: launches then skip the wrapper (one
    /// dynamic call fewer on the hot path; the wrapper would only forward them).
    #[inline]
    pub(crate) fn bypass(&self) -> Option<&dyn backend::Stream> {
        (!self.enabled()).then_some(&*self.inner)
    }

    fn diverge(&self) -> Result<()> {
        if !self.enabled() {
            return Ok(());
        }
        self.with_state(|state| {
            state.diverged = true;
            state.any_eager = true;
            self.release(state)
        })
    }

    fn set_enabled(&self, on: bool) -> Result<()> {
        let released = self.boundary();
        if self.enabled.swap(on, Ordering::Relaxed) != on {
            crate::launch::submit::note_auto_graph(on);
        }
        if !on {
            self.with_state(|state| {
                *state = Detector {
                    stats: state.stats,
                    ..Detector::default()
                }
            });
        }
        released
    }
}

/// Gives each node whose values changed its new values.
fn update_values(replay: &mut Replay, held: &[Held]) -> Result<()> {
    for (step, (now, new)) in replay.values.iter_mut().zip(held).enumerate() {
        if *now != new.values {
            let exec = &replay.exec;
            new.values.with_pointers(|pointers| {
                // SAFETY: the values match the node's kernel (same key: same kernel and sizes).
                unsafe { exec.set_kernel_args(step, pointers) }
            })?;
            now.clone_from(&new.values);
        }
    }
    Ok(())
}

impl Drop for AutoGraph {
    fn drop(&mut self) {
        // Launches still held run, as they would have without replay (errors have no caller).
        let _ = self.boundary();
        if *self.enabled.get_mut() {
            crate::launch::submit::note_auto_graph(false);
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

    fn launch_graph(&self, graph: &dyn ExecGraph) -> Result<()> {
        self.boundary()?;
        self.inner.launch_graph(graph)
    }

    fn flush(&self) -> Result<()> {
        self.boundary()?;
        self.inner.flush()
    }

    fn stop(&self) -> bool {
        // Held launches are not queued yet: released later, a stopped stream cancels them.
        self.inner.stop()
    }

    fn as_any(&self) -> &dyn Any {
        // The backend's own stream: backends downcast to it.
        self.inner.as_any()
    }
}

impl Stream {
    /// Turns automatic graph replay on or off for this stream (off by default; on for every new
    /// stream with `CHEVRON_AUTO_GRAPH=1`). Turning it off releases held launches. See
    /// `docs/graphs.md` for what it catches.
    pub fn auto_graph(&self, on: bool) -> Result<()> {
        self.shared.auto.set_enabled(on)
    }

    /// What automatic replay did on this stream so far.
    pub fn auto_graph_stats(&self) -> AutoGraphStats {
        self.shared.auto.with_state(|state| state.stats)
    }
}
