//! Cooperative launches (CUDA's `cudaLaunchCooperativeKernel`): every block of the grid is
//! resident at once, so blocks may synchronize grid-wide. The launch goes through the backend's
//! cooperative path ([`crate::backend::Stream::launch_cooperative`]); the occupancy the device
//! reports ([`Kernel::active_blocks_per_multiprocessor`]) tells how large such a grid may be,
//! and [`Kernel::max_active_clusters`] how many thread-block clusters fit at once
//! ([`Kernel::max_potential_cluster_size`]: how large one may be).

use std::ffi::c_void;

use crate::backend::LaunchConfig;
use crate::error::Result;
use crate::launch::kernel::Kernel;
use crate::launch::raw_args::RawArgs;
use crate::launch::submit::{submit, Submission};
use crate::stream::token::Token;
use crate::stream::Stream;

impl Kernel {
    /// [`Kernel::launch_raw`] as a cooperative launch, with the same checks. Instrumented
    /// kernels launch cooperatively too only where the backend runs every grid co-resident
    /// (the CPU device); on GPUs the instrumentation's own launch path is not cooperative.
    ///
    /// # Safety
    /// As [`Kernel::launch_raw`].
    pub unsafe fn launch_raw_cooperative(
        &self,
        stream: &Stream,
        config: LaunchConfig,
        args: &[*mut c_void],
        deps: &[&Token],
    ) -> Result<Token> {
        let args = RawArgs::new(args);
        self.check_raw(stream, &config, None, &args)?;
        let mut launch = Submission::after(stream, &config, None, deps)?;
        launch.cooperative = true;
        // SAFETY: device, configuration and count checked; the values are guaranteed by the
        // caller.
        unsafe { submit(self, stream, launch, args.pointers()) }
    }

    /// How many blocks of `block_threads` threads with `dynamic_shared` bytes of dynamic shared
    /// memory stay resident per multiprocessor, as the device's driver computes it (registers
    /// included); `None` where the backend has no calculator (the CPU device), for the caller
    /// to estimate.
    pub fn active_blocks_per_multiprocessor(
        &self,
        block_threads: u32,
        dynamic_shared: u32,
    ) -> Result<Option<u32>> {
        self.backend_function()
            .active_blocks_per_multiprocessor(block_threads, dynamic_shared)
    }

    /// How many clusters of `cluster` blocks of `config`'s shape the device keeps resident at
    /// once, as its driver computes it; `None` where the backend has no calculator (the CPU
    /// device), for the caller to estimate.
    pub fn max_active_clusters(
        &self,
        config: &LaunchConfig,
        cluster: [u32; 3],
    ) -> Result<Option<u32>> {
        self.backend_function().max_active_clusters(config, cluster)
    }

    /// The largest cluster (in blocks) `config`'s shape can be launched in, as the device's
    /// driver computes it; `None` where the backend has no calculator (the CPU device).
    pub fn max_potential_cluster_size(&self, config: &LaunchConfig) -> Result<Option<u32>> {
        self.backend_function().max_potential_cluster_size(config)
    }
}
