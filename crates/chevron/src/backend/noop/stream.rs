//! No-op streams and graphs: copies and fills done at once on the calling thread, launches
//! checked and complete at once (no kernel runs). A graph's launch steps are checked when it is
//! instantiated; each replay does its copies and fills again and its launches not at all.

use std::any::Any;
use std::ffi::c_void;
use std::sync::Arc;

use crate::backend::graph::not_a_launch;
use crate::backend::{DevicePtr, Event, ExecGraph, Function, GraphStep, LaunchConfig, Stream};
use crate::error::Result;

use super::event::NoopEvent;
use super::memory::NoopMemory;
use super::module::NoopFunction;

/// A stream of a no-op device.
pub(super) struct NoopStream {
    pub device: Arc<NoopMemory>,
}

impl Stream for NoopStream {
    unsafe fn launch(
        &self,
        function: &dyn Function,
        config: &LaunchConfig,
        args: &[*mut c_void],
    ) -> Result<()> {
        NoopFunction::check_launch(&self.device, function, config, args).map(drop)
    }

    fn copy_to_device(&self, dst: DevicePtr, src: &[u8]) -> Result<()> {
        let failed = self.device.failed("Stream::copy_to_device");
        self.device.table.write(dst, src).map_err(failed)
    }

    fn copy_to_host(&self, dst: &mut [u8], src: DevicePtr) -> Result<()> {
        let failed = self.device.failed("Stream::copy_to_host");
        self.device.table.read(src, dst).map_err(failed)
    }

    fn copy_on_device(&self, dst: DevicePtr, src: DevicePtr, bytes: u64) -> Result<()> {
        self.device.copy(dst, src, bytes)
    }

    fn memset(&self, dst: DevicePtr, value: u32, element_bytes: u32, count: u64) -> Result<()> {
        self.device.fill(dst, value, element_bytes, count)
    }

    fn record(&self, event: &dyn Event) -> Result<()> {
        NoopEvent::downcast(event, "Stream::record").map(drop)
    }

    fn wait(&self, event: &dyn Event) -> Result<()> {
        NoopEvent::downcast(event, "Stream::wait").map(drop)
    }

    fn synchronize(&self) -> Result<()> {
        Ok(())
    }

    fn query(&self) -> Result<bool> {
        Ok(true)
    }

    fn launch_graph(&self, graph: &dyn ExecGraph) -> Result<()> {
        let graph = graph
            .as_any()
            .downcast_ref::<NoopGraph>()
            .filter(|graph| Arc::ptr_eq(&graph.device, &self.device))
            .ok_or_else(|| {
                let message = "the graph was not instantiated on this stream's device".into();
                self.device.invalid("Graph::launch", message)
            })?;
        graph.replay()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// One step of a [`NoopGraph`].
enum Step {
    Launch(NoopFunction),
    CopyToDevice {
        dst: DevicePtr,
        data: Vec<u8>,
    },
    CopyOnDevice {
        dst: DevicePtr,
        src: DevicePtr,
        bytes: u64,
    },
    Memset {
        dst: DevicePtr,
        value: u32,
        element_bytes: u32,
        count: u64,
    },
}

/// An instantiated graph of a no-op device.
pub(super) struct NoopGraph {
    device: Arc<NoopMemory>,
    steps: Vec<Step>,
}

impl NoopGraph {
    /// Checks `steps` as the CPU device does when it instantiates them.
    pub fn instantiate(device: &Arc<NoopMemory>, steps: &[GraphStep<'_>]) -> Result<NoopGraph> {
        let mut planned = Vec::with_capacity(steps.len());
        for step in steps {
            planned.push(match *step {
                GraphStep::Launch {
                    function,
                    config,
                    args,
                    ..
                } => Step::Launch(
                    NoopFunction::check_launch(device, function, &config, args)?.clone(),
                ),
                GraphStep::CopyToDevice { dst, data } => {
                    device.check_range("Graph::copy_to_device", dst, data.len() as u64)?;
                    let data = data.to_vec();
                    Step::CopyToDevice { dst, data }
                }
                GraphStep::CopyOnDevice { dst, src, bytes } => {
                    device.check_range("Graph::copy_buffer", src, bytes)?;
                    device.check_range("Graph::copy_buffer", dst, bytes)?;
                    Step::CopyOnDevice { dst, src, bytes }
                }
                GraphStep::Memset {
                    dst,
                    value,
                    element_bytes,
                    count,
                } => {
                    device.check_fill("Graph::fill", dst, element_bytes, count)?;
                    Step::Memset {
                        dst,
                        value,
                        element_bytes,
                        count,
                    }
                }
            });
        }
        Ok(NoopGraph {
            device: Arc::clone(device),
            steps: planned,
        })
    }

    /// One launch of the graph: its copies and fills, in order.
    fn replay(&self) -> Result<()> {
        for step in &self.steps {
            match step {
                Step::Launch(_) => {}
                Step::CopyToDevice { dst, data } => {
                    let failed = self.device.failed("Graph::copy_to_device");
                    self.device.table.write(*dst, data).map_err(failed)?;
                }
                Step::CopyOnDevice { dst, src, bytes } => {
                    self.device.copy(*dst, *src, *bytes)?;
                }
                Step::Memset {
                    dst,
                    value,
                    element_bytes,
                    count,
                } => self.device.fill(*dst, *value, *element_bytes, *count)?,
            }
        }
        Ok(())
    }
}

impl ExecGraph for NoopGraph {
    unsafe fn set_kernel_args(&self, step: usize, args: &[*mut c_void]) -> Result<()> {
        match self.steps.get(step) {
            Some(Step::Launch(kernel)) => kernel.check_args(args),
            _ => Err(not_a_launch(step)),
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
