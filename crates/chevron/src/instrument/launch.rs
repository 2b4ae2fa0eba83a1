//! Launching an instrumented kernel: its hidden last parameter `launch` is appended to the
//! caller's arguments (a launch number, or the address of a built-in tool's record). The
//! launch path reaches it as the kernel's [`LaunchHook`].

use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};

use chevron_ptx::passes::InstrumentedKernel;

use super::records::{self, Pending};
use super::Builtin;
use crate::backend::{self, LaunchConfig};
use crate::buffer::Buffer;
use crate::error::Result;
use crate::module::hook::{HiddenArg, LaunchHook};
use crate::stream::Stream;

/// What an instrumented kernel's launches pass as `launch`.
pub(crate) struct KernelHook {
    kernel: InstrumentedKernel,
    builtin: Option<Builtin>,
}

static NEXT_LAUNCH: AtomicU64 = AtomicU64::new(1);

impl KernelHook {
    pub(crate) fn new(kernel: InstrumentedKernel, builtin: Option<Builtin>) -> KernelHook {
        KernelHook { kernel, builtin }
    }

    /// The record a built-in tool fills for one launch, initialized on `stream`.
    fn record(&self, tool: Builtin, stream: &Stream, config: &LaunchConfig) -> Result<Buffer<u64>> {
        let blocks = config.grid.iter().map(|&n| n as usize).product::<usize>();
        let (words, initial) = match tool {
            Builtin::Blocks => (2 * blocks, None),
            Builtin::Counts => (self.kernel.block_instructions.len().max(1), Some(0)),
            Builtin::Memory => (4, Some(0)),
        };
        let record = Buffer::<u64>::new(stream.device(), words)?;
        match initial {
            Some(value) => stream.fill(&record, value)?,
            None => {
                let mut times = vec![0u64; words];
                times
                    .iter_mut()
                    .step_by(2)
                    .for_each(|start| *start = u64::MAX);
                stream.copy_to_device(&record, &times)?
            }
        };
        Ok(record)
    }
}

impl LaunchHook for KernelHook {
    /// The value of `launch` for one launch on `stream`, and what [`LaunchHook::launched`]
    /// needs once the launch is submitted (a built-in tool's record, initialized on `stream`
    /// now).
    fn prepare(&self, stream: &Stream, config: &LaunchConfig) -> Result<HiddenArg> {
        Ok(match self.builtin {
            Some(tool) => {
                let buffer = self.record(tool, stream, config)?;
                HiddenArg {
                    value: buffer.device_ptr(),
                    kept: Some(Box::new(Kept { tool, buffer })),
                }
            }
            None => HiddenArg {
                value: NEXT_LAUNCH.fetch_add(1, Ordering::Relaxed),
                kept: None,
            },
        })
    }

    /// Notes a submitted launch prepared by [`LaunchHook::prepare`]: a built-in tool's record
    /// is read once the launch is done (when the trace is written or at exit).
    fn launched(&self, name: &str, stream: &Stream, config: &LaunchConfig, hidden: HiddenArg) {
        let Some(kept) = hidden.kept.and_then(|kept| kept.downcast::<Kept>().ok()) else {
            return;
        };
        let Kept { tool, buffer } = *kept;
        records::push(Pending {
            tool,
            kernel: name.to_string(),
            device: stream.device().label().to_string(),
            grid: config.grid,
            block_instructions: self.kernel.block_instructions.clone(),
            launched_ns: crate::trace::clock().map(crate::trace::since_start),
            stream: stream.clone(),
            buffer,
        });
    }

    unsafe fn launch(
        &self,
        function: &dyn backend::Function,
        name: &str,
        stream: &Stream,
        config: &LaunchConfig,
        args: &[*mut c_void],
    ) -> Result<()> {
        let mut hidden = self.prepare(stream, config)?;
        let mut pointers = args.to_vec();
        pointers.push((&mut hidden.value as *mut u64).cast::<c_void>());
        let backend = &stream.shared.progress.backend;
        // SAFETY: the caller's arguments as guaranteed, plus `launch`, a u64 alive for the call
        // for the u64 parameter the pass appended.
        unsafe { backend.launch(function, config, &pointers) }?;
        self.launched(name, stream, config, hidden);
        Ok(())
    }
}

/// What a built-in tool's launch keeps until it is submitted: the tool and its record.
struct Kept {
    tool: Builtin,
    buffer: Buffer<u64>,
}
