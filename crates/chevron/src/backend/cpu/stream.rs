//! CPU streams: an in-order queue per stream, run asynchronously by the scheduler's workers.
//!
//! Submissions take the next sequence number on the stream's [`Timeline`] and go to the
//! stream's bounded queue (`stream_queue.rs`), which the scheduler's workers serve
//! (`scheduler.rs`). Launches copy their argument values into a parameter buffer laid out as the
//! kernel declares; host-to-device copies copy the source before returning; device-to-host
//! copies wait for their turn on the queue. Unlike a GPU launch, a CPU launch allocates: its
//! parameter buffer and queue entry must outlive the call, since a worker runs it later. A fault
//! is reported by the next `synchronize` or `query` (and by `copy_to_host`), and cancels all
//! later work on the stream except host functions, which are told of it.

use std::any::Any;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;

use crate::backend::cluster::{check_shape, compiled_shape_differs};
use crate::backend::{DevicePtr, Event, ExecGraph, Function, HostFunction, LaunchConfig, Stream};
use crate::error::{Error, Result};

use super::device_core::DeviceCore;
use super::event::CpuEvent;
use super::graph::CpuGraph;
use super::launch_check::prepare_launch;
use super::stream_queue::StreamQueue;
use super::timeline::Timeline;
use super::worker::{Job, MemoryOp, WorkerContext};

/// A stream of a CPU device.
pub struct CpuStream {
    /// The stream's work; queued work still runs after the stream is dropped.
    queue: Arc<StreamQueue>,
    device: Arc<DeviceCore>,
    /// Set by [`Stream::stop`]; the worker's launches stop once it is set.
    stop: Arc<AtomicBool>,
}

impl CpuStream {
    /// A stream of `device`: an empty queue (no thread of its own).
    pub(crate) fn start(device: Arc<DeviceCore>) -> CpuStream {
        let stop = Arc::new(AtomicBool::new(false));
        let context = WorkerContext {
            stop: Arc::clone(&stop),
            timeline: Timeline::new(),
            memory: Arc::clone(device.memory().shared()),
            threads: device.launch_threads(),
            pool: device.pool().cloned(),
            device: device.label().to_string(),
        };
        CpuStream {
            queue: StreamQueue::new(context),
            device,
            stop,
        }
    }

    /// The stream's timeline (for events and device-wide synchronization).
    pub(crate) fn timeline(&self) -> &Arc<Timeline> {
        &self.queue.context().timeline
    }

    /// Queues `job` (waiting while the queue is full); returns its sequence number.
    fn submit(&self, job: Job) -> Result<u64> {
        self.queue.push(job)
    }

    fn submit_memory(&self, what: &'static str, op: MemoryOp) -> Result<u64> {
        self.submit(Job::Memory { what, op })
    }

    /// Waits for the work up to `seq` and reports the fault that ended it, if any.
    fn wait_for(&self, seq: u64) -> Result<()> {
        self.timeline()
            .wait_for(seq)
            .map_err(|fault| fault.to_error())
    }
}

impl Stream for CpuStream {
    unsafe fn launch(
        &self,
        function: &dyn Function,
        config: &LaunchConfig,
        args: &[*mut c_void],
    ) -> Result<()> {
        // SAFETY: forwarded from the caller.
        let (kernel, params) = unsafe { prepare_launch(&self.device, function, config, args) }?;
        self.submit(Job::Launch {
            kernel,
            config: *config,
            cluster: None,
            params,
        })?;
        Ok(())
    }

    /// Clusters run interpreted: the blocks of a cluster take turns on one worker
    /// (`chevron_ptx::interp`'s `cluster.rs`).
    unsafe fn launch_cluster(
        &self,
        function: &dyn Function,
        config: &LaunchConfig,
        cluster: [u32; 3],
        args: &[*mut c_void],
    ) -> Result<()> {
        let fail = |message: String| Error::LaunchConfig {
            kernel: function.name().to_string(),
            device: self.device.label().to_string(),
            message,
        };
        // The shape rules of CUDA GPUs, the portable maximum of 8 blocks included.
        check_shape(config, cluster).map_err(fail)?;
        // SAFETY: forwarded from the caller.
        let (kernel, params) = unsafe { prepare_launch(&self.device, function, config, args) }?;
        if let Some(required) = kernel.program.kernel_cluster(&kernel.handle) {
            if required != cluster {
                return Err(fail(compiled_shape_differs(required, cluster)));
            }
        }
        self.submit(Job::Launch {
            kernel,
            config: *config,
            cluster: Some(cluster),
            params,
        })?;
        Ok(())
    }

    fn copy_to_device(&self, dst: DevicePtr, src: &[u8]) -> Result<()> {
        if src.is_empty() {
            return Ok(()); // Nothing to copy, whatever `dst` is.
        }
        let memory = self.device.memory();
        memory.check_range("Stream::copy_to_device", dst, src.len() as u64)?;
        let data = src.to_vec();
        self.submit_memory(
            "memcpy host-to-device",
            Box::new(move |memory| memory.write(dst, &data)),
        )?;
        Ok(())
    }

    fn copy_to_host(&self, dst: &mut [u8], src: DevicePtr) -> Result<()> {
        if dst.is_empty() {
            return Ok(());
        }
        let bytes = dst.len();
        self.device
            .memory()
            .check_range("Stream::copy_to_host", src, bytes as u64)?;
        let (sender, receiver) = mpsc::sync_channel(1);
        let seq = self.submit_memory(
            "memcpy device-to-host",
            Box::new(move |memory| {
                let mut data = vec![0u8; bytes];
                memory.read(src, &mut data)?;
                // The receiver waits for this; it cannot be gone.
                let _ = sender.send(data);
                Ok(())
            }),
        )?;
        match receiver.recv() {
            Ok(data) => {
                dst.copy_from_slice(&data);
                Ok(())
            }
            // The copy was cancelled or faulted; the timeline says why.
            Err(_) => {
                self.wait_for(seq)?;
                Err(Error::InvalidValue {
                    call: "Stream::copy_to_host",
                    message: format!("the copy on {} did not run", self.device.label()),
                })
            }
        }
    }

    fn copy_on_device(&self, dst: DevicePtr, src: DevicePtr, bytes: u64) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        let memory = self.device.memory();
        memory.check_range("Stream::copy_on_device", src, bytes)?;
        memory.check_range("Stream::copy_on_device", dst, bytes)?;
        self.submit_memory(
            "memcpy device-to-device",
            Box::new(move |memory| memory.copy(dst, src, bytes)),
        )?;
        Ok(())
    }

    fn memset(&self, dst: DevicePtr, value: u32, element_bytes: u32, count: u64) -> Result<()> {
        if !matches!(element_bytes, 1 | 2 | 4) {
            return Err(Error::InvalidValue {
                call: "Stream::memset",
                message: format!("element size {element_bytes} (must be 1, 2 or 4)"),
            });
        }
        if !dst.is_multiple_of(u64::from(element_bytes)) {
            return Err(Error::InvalidValue {
                call: "Stream::memset",
                message: format!(
                    "destination {dst:#x} is not aligned to its {element_bytes}-byte elements"
                ),
            });
        }
        if count == 0 {
            return Ok(());
        }
        let bytes =
            count
                .checked_mul(u64::from(element_bytes))
                .ok_or_else(|| Error::InvalidValue {
                    call: "Stream::memset",
                    message: format!("{count} elements of {element_bytes} bytes overflow"),
                })?;
        self.device
            .memory()
            .check_range("Stream::memset", dst, bytes)?;
        let pattern = value.to_le_bytes()[..element_bytes as usize].to_vec();
        self.submit_memory(
            "memset",
            Box::new(move |memory| memory.fill(dst, &pattern, count)),
        )?;
        Ok(())
    }

    fn record(&self, event: &dyn Event) -> Result<()> {
        let event = CpuEvent::downcast(event, "Stream::record")?;
        event.set(Arc::clone(self.timeline()), self.timeline().submitted());
        Ok(())
    }

    fn wait(&self, event: &dyn Event) -> Result<()> {
        let event = CpuEvent::downcast(event, "Stream::wait")?;
        let Some((timeline, seq)) = event.point() else {
            return Ok(()); // Never recorded: nothing to wait for.
        };
        if Arc::ptr_eq(&timeline, self.timeline()) {
            return Ok(()); // Already ordered: same stream.
        }
        self.submit(Job::Wait { timeline, seq })?;
        Ok(())
    }

    fn synchronize(&self) -> Result<()> {
        self.timeline()
            .synchronize()
            .map_err(|fault| fault.to_error())
    }

    fn launch_host_function(&self, function: HostFunction) -> Result<()> {
        self.submit(Job::Host(function))?;
        Ok(())
    }

    fn query(&self) -> Result<bool> {
        self.timeline().query().map_err(|fault| fault.to_error())
    }

    fn launch_graph(&self, graph: &dyn ExecGraph) -> Result<()> {
        let graph = graph
            .as_any()
            .downcast_ref::<CpuGraph>()
            .filter(|graph| graph.belongs_to(&self.device))
            .ok_or_else(|| Error::InvalidValue {
                call: "Graph::launch",
                message: format!(
                    "the graph was not instantiated on this stream's device ({})",
                    self.device.label()
                ),
            })?;
        self.submit(Job::Graph(graph.replay()))?;
        Ok(())
    }

    fn stop(&self) -> bool {
        self.stop.store(true, Ordering::Relaxed);
        // A stream parked on another stream's work ends its wait with a fault.
        self.queue.unpark();
        true
    }

    fn executor_track(&self) -> Option<usize> {
        Some(Arc::as_ptr(self.timeline()) as usize)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
