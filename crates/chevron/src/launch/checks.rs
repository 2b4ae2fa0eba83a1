//! The checks of a launch, in one place for every launch variant: the stream's device, the
//! configuration against the device's and the kernel's limits, thread-block clusters, and the
//! arguments (typed [`KernelArgs`] or [`RawArgs`]) against the parameter layout and the
//! parameter space. Errors name the kernel, the parameter and the device.

use chevron_ptx::symbols::ParamLayout;

use crate::backend::LaunchConfig;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::launch::args::{KernelArg, KernelArgs};
use crate::launch::kernel::Kernel;
use crate::launch::raw_args::RawArgs;
use crate::stream::Stream;

/// Kernel parameter space in bytes (CUDA 12.1+ on sm_70 and later): no argument value, and no
/// launch's values together, may be larger.
pub const MAX_PARAM_BYTES: u64 = 32_764;

/// Parameters an argument-count error names before summarizing the rest.
const SHOWN_PARAMS: usize = 8;

impl Kernel {
    /// Checks a launch without making it: the stream's device, the configuration and the
    /// arguments.
    pub fn check(
        &self,
        stream: &Stream,
        config: &LaunchConfig,
        args: &impl KernelArgs,
    ) -> Result<()> {
        self.check_device(stream)?;
        self.check_config(stream.device(), config)?;
        self.check_args(stream.device(), args)
    }

    /// Checks a launch with raw arguments without making it: the stream's device, the
    /// configuration, the cluster (when given) and the arguments as far as `args` describes
    /// them (count, NULL pointers, and the sizes when given).
    pub fn check_raw(
        &self,
        stream: &Stream,
        config: &LaunchConfig,
        cluster: Option<[u32; 3]>,
        args: &RawArgs<'_>,
    ) -> Result<()> {
        self.check_device(stream)?;
        self.check_config(stream.device(), config)?;
        if let Some(cluster) = cluster {
            self.check_cluster(stream.device(), config, cluster)?;
        }
        self.check_raw_args(args)
    }

    pub(crate) fn check_device(&self, stream: &Stream) -> Result<()> {
        if stream.device().same_device(self.device()) {
            return Ok(());
        }
        Err(Error::InvalidValue {
            call: "Kernel::launch",
            message: format!(
                "kernel `{}` is loaded on {}, the stream is on {}",
                self.display_name(),
                self.device(),
                stream.device()
            ),
        })
    }

    fn config_error(&self, device: &Device, message: String) -> Error {
        Error::LaunchConfig {
            kernel: self.display_name().to_string(),
            device: device.to_string(),
            message,
        }
    }

    /// Checks the configuration against the limits of the kernel's device (read once, when
    /// the kernel was resolved) and the kernel's own; errors name `device`.
    #[inline]
    pub fn check_config(&self, device: &Device, config: &LaunchConfig) -> Result<()> {
        if self.config_fits(config) {
            return Ok(());
        }
        self.config_failure(device, config)
    }

    /// Whether `config` passes every check of [`Kernel::check_config`]: a few compares, no
    /// branch per limit (the launch path's case).
    #[inline]
    fn config_fits(&self, config: &LaunchConfig) -> bool {
        let limits = self.device_limits();
        // `n - 1 < max` holds exactly for 1 <= n <= max.
        let mut fits = true;
        for axis in 0..3 {
            fits &= config.grid[axis].wrapping_sub(1) < limits.max_grid_dim[axis];
            fits &= config.block[axis].wrapping_sub(1) < limits.max_block_dim[axis];
        }
        let most_threads = limits
            .max_threads_per_block
            .min(self.max_threads_per_block());
        let most_shared = limits
            .max_shared_per_block_optin
            .max(limits.max_shared_per_block);
        let shared = u64::from(self.static_shared_bytes()) + u64::from(config.shared_bytes);
        fits & (config.threads_per_block() <= u64::from(most_threads))
            & (shared <= u64::from(most_shared))
    }

    /// Names the first limit `config` exceeds (the cold path of [`Kernel::check_config`]).
    #[cold]
    #[inline(never)]
    fn config_failure(&self, device: &Device, config: &LaunchConfig) -> Result<()> {
        let limits = self.device_limits();
        let fail = |message: String| Err(self.config_error(device, message));
        const AXES: [&str; 3] = ["x", "y", "z"];
        for (axis, name) in AXES.iter().enumerate() {
            let (g, b) = (config.grid[axis], config.block[axis]);
            if g == 0 || b == 0 {
                return fail(format!("{config} has an empty dimension"));
            }
            if b > limits.max_block_dim[axis] {
                return fail(format!(
                    "block {name} = {b} exceeds the device's maximum of {}",
                    limits.max_block_dim[axis]
                ));
            }
            if g > limits.max_grid_dim[axis] {
                return fail(format!(
                    "grid {name} = {g} exceeds the device's maximum of {}",
                    limits.max_grid_dim[axis]
                ));
            }
        }
        let threads = config.threads_per_block();
        if threads > u64::from(limits.max_threads_per_block) {
            return fail(format!(
                "{threads} threads per block exceed the device's maximum of {}",
                limits.max_threads_per_block
            ));
        }
        if threads > u64::from(self.max_threads_per_block()) {
            return fail(format!(
                "{threads} threads per block exceed this kernel's maximum of {} (its registers \
                 or .maxntid)",
                self.max_threads_per_block()
            ));
        }
        let most = limits
            .max_shared_per_block_optin
            .max(limits.max_shared_per_block);
        let shared = u64::from(self.static_shared_bytes()) + u64::from(config.shared_bytes);
        if shared > u64::from(most) {
            return fail(format!(
                "{} bytes of static plus {} bytes of dynamic shared memory exceed the device's \
                 maximum of {most} per block",
                self.static_shared_bytes(),
                config.shared_bytes,
            ));
        }
        Ok(())
    }

    /// Checks that `cluster` is non-empty and divides the grid of `config`.
    pub(crate) fn check_cluster(
        &self,
        device: &Device,
        config: &LaunchConfig,
        cluster: [u32; 3],
    ) -> Result<()> {
        let [x, y, z] = cluster;
        let message = if self.is_instrumented() {
            "cluster launches of instrumented kernels are not supported".to_string()
        } else if cluster.contains(&0) {
            format!("the cluster ({x}, {y}, {z}) has an empty dimension")
        } else if let Some(axis) = (0..3).find(|&a| !config.grid[a].is_multiple_of(cluster[a])) {
            let name = ["x", "y", "z"][axis];
            format!(
                "grid {name} = {} is not a multiple of the cluster's {name} = {}",
                config.grid[axis], cluster[axis]
            )
        } else {
            return Ok(());
        };
        Err(self.config_error(device, message))
    }

    /// A backend's configuration error with the kernel's display name and the device filled in.
    pub(crate) fn name_device(&self, device: &Device, err: Error) -> Error {
        match err {
            Error::LaunchConfig { message, .. } => self.config_error(device, message),
            other => other,
        }
    }

    pub(crate) fn check_args(&self, device: &Device, args: &impl KernelArgs) -> Result<()> {
        if let Some(params) = self.params() {
            if self.declared_param_bytes() <= MAX_PARAM_BYTES && args.fits_layout(params, device) {
                return Ok(());
            }
        }
        // A mismatch or no layout: the slow path names the problem.
        let checked = self.check_args_against_layout(device, args);
        if checked.is_ok() && self.params().is_some() {
            return checked;
        }
        // No layout, or a mismatch (the cold path): arguments over the parameter space are
        // reported as such, in the words a GPU launch would fail with.
        let mut passed = 0u64;
        args.visit(&mut |_, arg: &dyn KernelArg| {
            passed = passed.saturating_add(arg.arg_size() as u64);
            Ok(())
        })?;
        self.check_param_space(passed)?;
        checked
    }

    fn check_args_against_layout(&self, device: &Device, args: &impl KernelArgs) -> Result<()> {
        let Some(params) = self.params() else {
            return Ok(());
        };
        // With a layout, each argument's size must equal its parameter's (checked below), so
        // the declared space is what is passed.
        self.check_param_space(0)?;
        if args.count() != params.len() {
            return Err(self.count_error(params, args.count()));
        }
        args.visit(&mut |i, arg: &dyn KernelArg| {
            let param = &params[i];
            if arg.arg_size() != param.size as usize {
                let got = format!("{} bytes ({})", arg.arg_size(), arg.arg_type_name());
                return Err(self.size_error(i, param, &got));
            }
            if let Some(owner) = arg.arg_device() {
                if !owner.same_device(device) {
                    return Err(self.argument_error(
                        Some(i),
                        format!(
                            "parameter {i} ({}) is a buffer of {}, the launch is on {}",
                            param_name(param),
                            owner.label(),
                            device.label()
                        ),
                    ));
                }
            }
            Ok(())
        })
    }

    /// Checks raw arguments: the parameter space, the count, NULL value pointers, and each
    /// size when the caller gave sizes. The count comes first, so that a wrong count never
    /// makes a check read past the caller's array.
    pub(crate) fn check_raw_args(&self, args: &RawArgs<'_>) -> Result<()> {
        self.check_param_space(args.passed_bytes())?;
        self.check_arg_count(args.len())?;
        if let Some(i) = args.pointers().iter().position(|p| p.is_null()) {
            return Err(
                self.argument_error(Some(i), format!("argument {i} has a NULL value pointer"))
            );
        }
        if let (Some(params), Some(sizes)) = (self.params(), args.sizes()) {
            let wrong = params
                .iter()
                .zip(sizes)
                .position(|(p, &s)| p.size as usize != s);
            if let Some(i) = wrong {
                return Err(self.size_error(i, &params[i], &format!("{} bytes", sizes[i])));
            }
        }
        Ok(())
    }

    /// Checks that `count` arguments match the parameter layout (when the code object gives
    /// one). C ABIs call it before reading a caller's argument array of that length.
    pub fn check_arg_count(&self, count: usize) -> Result<()> {
        match self.params() {
            Some(params) if params.len() != count => Err(self.count_error(params, count)),
            _ => Ok(()),
        }
    }

    /// Kernel parameter space is 32,764 bytes on every device (CUDA's limit since sm_70), so a
    /// launch passing more fails the same way on the CPU device and on a GPU.
    /// `passed` is the size of the arguments where known (0 for raw pointer arrays).
    fn check_param_space(&self, passed: u64) -> Result<()> {
        let bytes = self.declared_param_bytes().max(passed);
        if bytes <= MAX_PARAM_BYTES {
            return Ok(());
        }
        Err(self.argument_error(
            None,
            format!(
                "parameters take {bytes} bytes, more than the {MAX_PARAM_BYTES} bytes of kernel \
                 parameter space"
            ),
        ))
    }

    fn argument_error(&self, parameter: Option<usize>, message: String) -> Error {
        Error::Argument {
            kernel: self.display_name().to_string(),
            parameter,
            message,
        }
    }

    fn size_error(&self, i: usize, param: &ParamLayout, got: &str) -> Error {
        self.argument_error(
            Some(i),
            format!(
                "parameter {i} ({}) is {} bytes, got {got}",
                param_name(param),
                param.size
            ),
        )
    }

    fn count_error(&self, params: &[ParamLayout], got: usize) -> Error {
        let mut names: Vec<String> = params.iter().take(SHOWN_PARAMS).map(param_name).collect();
        if params.len() > SHOWN_PARAMS {
            names.push(format!("… {} more", params.len() - SHOWN_PARAMS));
        }
        self.argument_error(
            None,
            format!(
                "takes {} parameters ({}), got {got} arguments",
                params.len(),
                names.join(", ")
            ),
        )
    }
}

fn param_name(param: &ParamLayout) -> String {
    if param.name.is_empty() {
        format!("{} bytes at offset {}", param.size, param.offset)
    } else {
        format!("`{}`", param.name)
    }
}
