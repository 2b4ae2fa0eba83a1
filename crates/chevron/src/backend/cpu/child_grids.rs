//! Child grids of device-side launches (dynamic parallelism) on the kernel's own tier: the
//! interpreter offers each child grid whose kernel launches nothing itself
//! (`chevron_ptx::interp::device_runtime::ChildGridRunner`), and it runs like a host launch of
//! that kernel, compiled where `tier.rs` says it pays. Kernels that launch stay interpreted.

use std::sync::Arc;

use chevron_ptx::interp::device_runtime::ChildGridRunner;
use chevron_ptx::interp::{Fault, KernelHandle, LaunchConfig, LaunchHooks, LaunchReport, Program};

use super::module::Siblings;
use super::tier::Launchable;

/// Runs child grids through the tiers of the kernels of one module.
pub(super) struct TieredChildren<'a> {
    pub siblings: &'a Siblings,
}

impl ChildGridRunner for TieredChildren<'_> {
    fn run(
        &self,
        program: &Program,
        kernel: &KernelHandle,
        config: &LaunchConfig,
        params: &[u8],
        hooks: &LaunchHooks<'_>,
    ) -> Option<Result<LaunchReport, Fault>> {
        let sibling = self.siblings.get()?.get(&kernel.name)?.upgrade()?;
        if !std::ptr::eq(Arc::as_ptr(&sibling.program), program) {
            return None;
        }
        let launchable = Launchable {
            program: &sibling.program,
            handle: &sibling.handle,
        };
        // An invalid CHEVRON_CPU_EXEC was reported with the parent's launch; interpret.
        sibling.tier.launch(launchable, config, params, hooks).ok()
    }
}
