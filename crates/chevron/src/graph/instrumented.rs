//! Launch nodes of instrumented kernels: like an eager launch, every replay passes the hidden
//! `launch` parameter a value of its own (a launch number, or a built-in tool's fresh record,
//! initialized on the replaying stream before the graph and read once the replay is done).

use std::ffi::c_void;
use std::sync::Arc;

use super::values::ArgValues;
use crate::backend::{ExecGraph, LaunchConfig};
use crate::error::Result;
use crate::launch::args::KernelArgs;
use crate::launch::kernel::Kernel;
use crate::module::hook::{HiddenArg, LaunchHook};
use crate::Stream;

/// The value the hidden parameter holds until the first replay sets it.
static UNSET: u64 = 0;

/// The pointers of a recorded instrumented launch at instantiation: its values, then the
/// hidden parameter (set before every replay).
pub(super) fn pointers_with_hidden(values: &ArgValues) -> Vec<*mut c_void> {
    let mut pointers = values.with_pointers(|p| p.to_vec());
    pointers.push((&UNSET as *const u64).cast_mut().cast::<c_void>());
    pointers
}

/// One launch node of an instrumented kernel.
pub(super) struct InstrumentedNode {
    pub node: usize,
    kernel: Kernel,
    hook: Arc<dyn LaunchHook>,
    config: LaunchConfig,
    /// The caller's argument values (the hidden one aside).
    values: ArgValues,
}

impl InstrumentedNode {
    /// The node, when `kernel` is instrumented.
    pub(super) fn of(
        node: usize,
        kernel: &Kernel,
        config: LaunchConfig,
        values: &ArgValues,
    ) -> Option<InstrumentedNode> {
        Some(InstrumentedNode {
            node,
            kernel: kernel.clone(),
            hook: Arc::clone(kernel.launch_hook()?),
            config,
            values: values.clone(),
        })
    }

    /// New argument values for later replays (already checked against the kernel's layout).
    pub(super) fn set_values(&mut self, args: &impl KernelArgs) -> Result<()> {
        self.values = ArgValues::capture(args)?;
        Ok(())
    }

    /// Prepares this node's hidden value for a replay on `stream` and gives it to the node.
    pub(super) fn prepare(&self, exec: &dyn ExecGraph, stream: &Stream) -> Result<HiddenArg> {
        let hidden = self.hook.prepare(stream, &self.config)?;
        let mut pointers = self.values.with_pointers(|p| p.to_vec());
        pointers.push((&hidden.value as *const u64).cast_mut().cast::<c_void>());
        // SAFETY: the caller's values were checked against the kernel's layout, and the
        // instrumented kernel takes one more u64, `launch`; all alive for the call.
        unsafe { exec.set_kernel_args(self.node, &pointers) }?;
        Ok(hidden)
    }

    /// Notes the replay submitted (a built-in tool's record is read later).
    pub(super) fn launched(&self, stream: &Stream, hidden: HiddenArg) {
        let name = self.kernel.display_name();
        self.hook.launched(name, stream, &self.config, hidden);
    }
}
