//! A host launch with the grids it launches from device code: the grid itself, then each
//! child grid in the order `device_runtime.rs` gives, depth first (a child's own children run
//! before its next sibling), so a launch returns once its whole tree is complete, as CUDA
//! defines a parent's completion. The walk keeps its own stack rather than recursing, so
//! nesting as deep as the pending-launch limit allows (2048 levels by default) costs no host
//! stack; a grid stays pending (`device_runtime.rs`) until its last descendant is done. A child whose kernel launches nothing
//! itself may run elsewhere ([`LaunchHooks::child_grids`]: the CPU device's compiled code).

use super::device_runtime::{ChildGrids, ChildLaunch, LaunchTree};
use super::fault::Fault;
use super::grid::{LaunchConfig, LaunchHooks, LaunchReport};
use super::program::{KernelHandle, Program};

impl Program {
    /// [`Program::launch_with`] running only the blocks (linear indices, x fastest) in
    /// `blocks`, clamped to the grid: the CPU device's compiler re-runs a faulting block here
    /// to report its fault (not a stable interface). Child grids the blocks launch run after
    /// them, before this returns.
    // A fault is the rare end of a launch; its size does not matter.
    #[allow(clippy::result_large_err)]
    #[doc(hidden)]
    pub fn launch_blocks(
        &self,
        kernel: &KernelHandle,
        config: &LaunchConfig,
        params: &[u8],
        hooks: &LaunchHooks<'_>,
        blocks: std::ops::Range<u64>,
    ) -> Result<LaunchReport, Fault> {
        self.launch_rooted(kernel, config, None, params, hooks, blocks)
    }

    /// [`Program::launch_blocks`] in clusters of `cluster` blocks when given
    /// ([`Program::launch_cluster`]).
    #[allow(clippy::result_large_err)]
    pub(crate) fn launch_rooted(
        &self,
        kernel: &KernelHandle,
        config: &LaunchConfig,
        cluster: Option<[u32; 3]>,
        params: &[u8],
        hooks: &LaunchHooks<'_>,
        blocks: std::ops::Range<u64>,
    ) -> Result<LaunchReport, Fault> {
        let tree = LaunchTree::default();
        let grids = ChildGrids::new(&tree);
        let result = self.run_grid(kernel, config, cluster, params, hooks, blocks, &grids);
        let children = self.finish_grid(grids);
        let mut report = result?;
        if !children.is_empty() {
            self.run_children(children, &tree, hooks, &mut report)?;
        }
        Ok(report)
    }

    /// The children of a finished grid, freeing the parameter buffers it never launched.
    fn finish_grid(&self, grids: ChildGrids<'_>) -> Vec<ChildLaunch> {
        let (children, unused) = grids.finish();
        for buffer in unused {
            // Handed out by this grid and not freed since (a launch takes it back): a failure
            // means the program freed it itself.
            let _ = self.memory.free(buffer);
        }
        children
    }

    /// Runs the children of a host-launched grid and all their descendants, adding their
    /// instructions and printf output to `report`. The first fault ends the tree.
    #[allow(clippy::result_large_err)]
    fn run_children(
        &self,
        children: Vec<ChildLaunch>,
        tree: &LaunchTree,
        hooks: &LaunchHooks<'_>,
        report: &mut LaunchReport,
    ) -> Result<(), Fault> {
        // `None`: the grid pushed before it, and all its descendants, are complete.
        let mut stack: Vec<Option<ChildLaunch>> = children.into_iter().rev().map(Some).collect();
        while let Some(step) = stack.pop() {
            let Some(child) = step else {
                tree.pending
                    .fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
                continue;
            };
            let code = &self.functions[child.kernel as usize];
            let kernel = KernelHandle {
                index: child.kernel,
                name: code.name.clone(),
                params: code.kernel_params.clone(),
                param_size: code.param_size,
            };
            if let Some(outside) = hooks
                .child_grids
                .filter(|_| !self.launches_grids(child.kernel))
                .and_then(|runner| runner.run(self, &kernel, &child.config, &child.params, hooks))
            {
                let part = outside?;
                report.lane_instructions += part.lane_instructions;
                report.printf_output.push_str(&part.printf_output);
                stack.push(None);
                continue;
            }
            let grids = ChildGrids::new(tree);
            let result = self.run_grid(
                &kernel,
                &child.config,
                None,
                &child.params,
                hooks,
                0..u64::MAX,
                &grids,
            );
            let grandchildren = self.finish_grid(grids);
            let part = result?;
            report.lane_instructions += part.lane_instructions;
            report.printf_output.push_str(&part.printf_output);
            stack.push(None);
            stack.extend(grandchildren.into_iter().rev().map(Some));
        }
        Ok(())
    }
}
