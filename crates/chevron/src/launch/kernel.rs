//! [`Kernel`]: a kernel of a loaded module, resolved once (CUDA's `CUfunction`), and its launch.
//!
//! [`Kernel::launch`] checks before the driver sees anything: the stream is on the kernel's
//! device, the configuration fits the device and the kernel (threads per block including the
//! kernel's own limit, block and grid dimensions, shared memory), and the arguments match the
//! parameter layout (count and size of each; buffers on the right device). Errors name the
//! kernel, the parameter and the device. [`Kernel::launch_unchecked`] skips all of that for the
//! hottest loops. Neither allocates, locks or records an event.

use std::ffi::c_void;
use std::sync::Arc;

use chevron_ptx::symbols::ParamLayout;

use crate::backend::{self, LaunchConfig};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::launch::args::{KernelArg, KernelArgs};
use crate::module::Module;
use crate::stream::token::Token;
use crate::stream::Stream;

/// A resolved kernel. Cloning gives another handle to the same kernel.
#[derive(Clone)]
pub struct Kernel {
    shared: Arc<KernelShared>,
}

struct KernelShared {
    // Declared before `module` so that it is dropped first: the module unloads after it.
    function: Arc<dyn backend::Function>,
    module: Module,
    /// The demangled signature when there is one, else the symbol name.
    display_name: String,
    params: Option<Vec<ParamLayout>>,
    instrumented: Option<Arc<crate::instrument::KernelHook>>,
    max_threads_per_block: u32,
    static_shared_bytes: u32,
}

impl Kernel {
    pub(crate) fn new(
        module: Module,
        function: Arc<dyn backend::Function>,
        display_name: String,
        params: Option<Vec<ParamLayout>>,
    ) -> Kernel {
        Kernel {
            shared: Arc::new(KernelShared {
                max_threads_per_block: function.max_threads_per_block(),
                static_shared_bytes: function.static_shared_bytes(),
                instrumented: (module.shared.instrumented.as_ref())
                    .and_then(|i| i.hook(function.name())),
                function,
                module,
                display_name,
                params,
            }),
        }
    }

    /// The exact (mangled) symbol name.
    pub fn name(&self) -> &str {
        self.shared.function.name()
    }

    /// The demangled C++ signature when the name is mangled, else the name.
    pub fn display_name(&self) -> &str {
        &self.shared.display_name
    }

    /// The parameter layout, when the code object describes it.
    pub fn params(&self) -> Option<&[ParamLayout]> {
        self.shared.params.as_deref()
    }

    /// The most threads per block this kernel can be launched with on its device.
    pub fn max_threads_per_block(&self) -> u32 {
        self.shared.max_threads_per_block
    }

    /// Statically declared shared memory in bytes.
    pub fn static_shared_bytes(&self) -> u32 {
        self.shared.static_shared_bytes
    }

    /// The module the kernel belongs to.
    pub fn module(&self) -> &Module {
        &self.shared.module
    }

    /// The device the kernel is loaded on.
    pub fn device(&self) -> &Device {
        self.shared.module.device()
    }

    pub(crate) fn backend_function(&self) -> &dyn backend::Function {
        &*self.shared.function
    }

    /// The instrumentation hook that fills the hidden `launch` parameter, when instrumented.
    pub(crate) fn instrument_hook(&self) -> Option<&Arc<crate::instrument::KernelHook>> {
        self.shared.instrumented.as_ref()
    }

    /// The backend function, shared (keeps the backend module loaded, not the public one).
    pub(crate) fn backend_function_arc(&self) -> Arc<dyn backend::Function> {
        Arc::clone(&self.shared.function)
    }

    /// Launches the kernel on `stream` after checking the stream's device, the configuration
    /// and the arguments. Returns the token of the launch.
    pub fn launch(
        &self,
        stream: &Stream,
        config: LaunchConfig,
        args: impl KernelArgs,
    ) -> Result<Token> {
        self.check(stream, &config, &args)?;
        // SAFETY: the stream is on the kernel's device (checked), and `args` provides one
        // pointer per parameter to a value of the parameter's size (checked against the
        // layout), alive for the call.
        unsafe { self.enqueue(stream, &config, &args) }
    }

    /// Like [`Kernel::launch`], after making `stream` wait for `deps` (any streams, any
    /// devices; same-stream tokens cost nothing).
    pub fn launch_after(
        &self,
        stream: &Stream,
        config: LaunchConfig,
        args: impl KernelArgs,
        deps: &[&Token],
    ) -> Result<Token> {
        self.check(stream, &config, &args)?;
        stream.wait_for(deps)?;
        // SAFETY: as in `launch`: stream, configuration and arguments were checked.
        unsafe { self.enqueue(stream, &config, &args) }
    }

    /// Launches the kernel in thread-block clusters of `cluster` blocks (x, y, z), after the
    /// same checks as [`Kernel::launch`] and checking that the cluster divides the grid.
    /// Clusters of more than one block need a CUDA GPU of compute capability 9.0 or later
    /// (at most 8 blocks per cluster); elsewhere they are [`Error::LaunchConfig`], while a
    /// cluster of one block runs everywhere as an ordinary launch.
    pub fn launch_cluster(
        &self,
        stream: &Stream,
        config: LaunchConfig,
        cluster: [u32; 3],
        args: impl KernelArgs,
    ) -> Result<Token> {
        self.check(stream, &config, &args)?;
        self.check_cluster(stream.device(), &config, cluster)?;
        let backend = &stream.shared.progress.backend;
        let function = &*self.shared.function;
        // SAFETY: as in `launch`: stream, configuration and arguments were checked.
        args.with_pointers(|pointers| unsafe {
            backend.launch_cluster(function, &config, cluster, pointers)
        })
        .map_err(|err| self.name_device(stream.device(), err))?;
        Ok(stream.submitted())
    }

    /// [`Kernel::launch_raw`] in thread-block clusters of `cluster` blocks, with the cluster
    /// checks of [`Kernel::launch_cluster`].
    ///
    /// # Safety
    /// As [`Kernel::launch_raw`].
    pub unsafe fn launch_raw_cluster(
        &self,
        stream: &Stream,
        config: LaunchConfig,
        cluster: [u32; 3],
        args: &[*mut c_void],
        deps: &[&Token],
    ) -> Result<Token> {
        self.check_device(stream)?;
        self.check_config(stream.device(), &config)?;
        self.check_cluster(stream.device(), &config, cluster)?;
        self.check_param_space(0)?;
        if let Some(params) = &self.shared.params {
            if params.len() != args.len() {
                return Err(self.count_error(params, args.len()));
            }
        }
        stream.wait_for(deps)?;
        // SAFETY: device and count checked; values guaranteed by the caller.
        let launched = unsafe {
            stream.shared.progress.backend.launch_cluster(
                &*self.shared.function,
                &config,
                cluster,
                args,
            )
        };
        launched
            .map(|()| stream.submitted())
            .map_err(|err| self.name_device(stream.device(), err))
    }

    /// Checks that `cluster` is non-empty and divides the grid of `config`.
    fn check_cluster(
        &self,
        device: &Device,
        config: &LaunchConfig,
        cluster: [u32; 3],
    ) -> Result<()> {
        let [x, y, z] = cluster;
        let message = if self.shared.instrumented.is_some() {
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
        Err(Error::LaunchConfig {
            kernel: self.shared.display_name.clone(),
            device: device.to_string(),
            message,
        })
    }

    /// A backend's configuration error with the kernel's display name and the device filled in.
    fn name_device(&self, device: &Device, err: Error) -> Error {
        match err {
            Error::LaunchConfig { message, .. } => Error::LaunchConfig {
                kernel: self.shared.display_name.clone(),
                device: device.to_string(),
                message,
            },
            other => other,
        }
    }

    /// Launches without any check: the driver (or the CPU device) sees the call as given.
    ///
    /// # Safety
    /// `stream` is on the kernel's device, and `args` has exactly one value per kernel
    /// parameter, of the parameter's size, in order. An invalid configuration is reported by
    /// the backend without naming the limit.
    #[inline]
    pub unsafe fn launch_unchecked(
        &self,
        stream: &Stream,
        config: LaunchConfig,
        args: impl KernelArgs,
    ) -> Result<Token> {
        // SAFETY: forwarded from the caller.
        unsafe { self.enqueue(stream, &config, &args) }
    }

    /// Launches with an array of pointers to argument values (the `cuLaunchKernel` convention),
    /// checking the device, the configuration and the argument count (not the sizes).
    ///
    /// # Safety
    /// Each pointer points to a readable value of its parameter's size, valid for the call.
    pub unsafe fn launch_raw(
        &self,
        stream: &Stream,
        config: LaunchConfig,
        args: &[*mut c_void],
        deps: &[&Token],
    ) -> Result<Token> {
        self.check_device(stream)?;
        self.check_config(stream.device(), &config)?;
        self.check_param_space(0)?;
        if let Some(params) = &self.shared.params {
            if params.len() != args.len() {
                return Err(self.count_error(params, args.len()));
            }
        }
        stream.wait_for(deps)?;
        if let (true, None, Some(params)) = (
            stream.shared.auto.enabled(),
            &self.shared.instrumented,
            &self.shared.params,
        ) {
            // The caller guarantees one readable value per parameter, of its size.
            return crate::graph::auto::launch_raw(self, stream, &config, args, params);
        }
        let started = crate::trace::launch_clock(stream);
        // SAFETY: device and count checked; values guaranteed by the caller.
        let launched = unsafe { self.backend_launch(stream, &config, args) };
        launched.map(|()| self.submitted(started, stream, &config, deps))
    }

    /// Launches through the backend, through the instrumentation hook when there is one.
    ///
    /// # Safety
    /// As [`Kernel::launch_unchecked`], with the arguments as pointers.
    #[inline]
    unsafe fn backend_launch(
        &self,
        stream: &Stream,
        config: &LaunchConfig,
        args: &[*mut c_void],
    ) -> Result<()> {
        let backend = &stream.shared.progress.backend;
        match &self.shared.instrumented {
            None => {
                let target = stream.shared.auto.bypass().unwrap_or(&**backend);
                // SAFETY: forwarded from the caller.
                unsafe { target.launch(&*self.shared.function, config, args) }
            }
            // SAFETY: forwarded from the caller.
            Some(hook) => unsafe { hook.launch(self, stream, config, args) },
        }
    }

    /// Counts a launch the backend accepted (and traces it when the trace is on).
    #[inline]
    fn submitted(
        &self,
        started: Option<crate::trace::LaunchClock>,
        stream: &Stream,
        config: &LaunchConfig,
        deps: &[&Token],
    ) -> Token {
        let token = stream.submitted();
        if let Some(started) = started {
            crate::trace::launch(&started, self, stream, config, deps, &token);
        }
        token
    }

    /// # Safety
    /// As [`Kernel::launch_unchecked`].
    #[inline]
    unsafe fn enqueue(
        &self,
        stream: &Stream,
        config: &LaunchConfig,
        args: &impl KernelArgs,
    ) -> Result<Token> {
        if stream.shared.auto.enabled() && self.shared.instrumented.is_none() {
            return crate::graph::auto::launch(self, stream, config, args);
        }
        let started = crate::trace::launch_clock(stream);
        // SAFETY: forwarded from the caller.
        args.with_pointers(|pointers| unsafe { self.backend_launch(stream, config, pointers) })?;
        Ok(self.submitted(started, stream, config, &[]))
    }

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

    fn check_device(&self, stream: &Stream) -> Result<()> {
        if stream.device().same_device(self.device()) {
            return Ok(());
        }
        Err(Error::InvalidValue {
            call: "Kernel::launch",
            message: format!(
                "kernel `{}` is loaded on {}, the stream is on {}",
                self.shared.display_name,
                self.device(),
                stream.device()
            ),
        })
    }

    /// Checks the configuration against the device's and the kernel's limits.
    pub fn check_config(&self, device: &Device, config: &LaunchConfig) -> Result<()> {
        let limits = device.limits();
        let fail = |message: String| {
            Err(Error::LaunchConfig {
                kernel: self.shared.display_name.clone(),
                device: device.to_string(),
                message,
            })
        };
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
        if threads > u64::from(self.shared.max_threads_per_block) {
            return fail(format!(
                "{threads} threads per block exceed this kernel's maximum of {} (its registers \
                 or .maxntid)",
                self.shared.max_threads_per_block
            ));
        }
        let shared = u64::from(self.shared.static_shared_bytes) + u64::from(config.shared_bytes);
        if shared
            > u64::from(
                limits
                    .max_shared_per_block_optin
                    .max(limits.max_shared_per_block),
            )
        {
            return fail(format!(
                "{} bytes of static plus {} bytes of dynamic shared memory exceed the device's \
                 maximum of {} per block",
                self.shared.static_shared_bytes,
                config.shared_bytes,
                limits
                    .max_shared_per_block_optin
                    .max(limits.max_shared_per_block)
            ));
        }
        Ok(())
    }

    pub(crate) fn check_args(&self, device: &Device, args: &impl KernelArgs) -> Result<()> {
        let checked = self.check_args_against_layout(device, args);
        if checked.is_ok() && self.shared.params.is_some() {
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
        let Some(params) = &self.shared.params else {
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
                return Err(Error::Argument {
                    kernel: self.shared.display_name.clone(),
                    parameter: Some(i),
                    message: format!(
                        "parameter {i} ({}) is {} bytes, got {} bytes ({})",
                        param_name(param),
                        param.size,
                        arg.arg_size(),
                        arg.arg_type_name()
                    ),
                });
            }
            if let Some(owner) = arg.arg_device() {
                if !owner.same_device(device) {
                    return Err(Error::Argument {
                        kernel: self.shared.display_name.clone(),
                        parameter: Some(i),
                        message: format!(
                            "parameter {i} ({}) is a buffer of {}, the launch is on {}",
                            param_name(param),
                            owner.label(),
                            device.label()
                        ),
                    });
                }
            }
            Ok(())
        })
    }

    /// Kernel parameter space is 32,764 bytes on every device (CUDA's limit since sm_70), so a
    /// launch passing more fails the same way on the CPU device and on a GPU.
    /// `passed` is the size of the arguments where known (0 for raw pointer arrays).
    fn check_param_space(&self, passed: u64) -> Result<()> {
        // Parameters are laid out in order, so the last one ends the space.
        let declared = self.shared.params.as_ref().and_then(|params| {
            params
                .last()
                .map(|p| u64::from(p.offset) + u64::from(p.size))
        });
        let bytes = declared.unwrap_or(0).max(passed);
        if bytes <= MAX_PARAM_BYTES {
            return Ok(());
        }
        Err(Error::Argument {
            kernel: self.shared.display_name.clone(),
            parameter: None,
            message: format!(
                "parameters take {bytes} bytes, more than the {MAX_PARAM_BYTES} bytes of kernel \
                 parameter space"
            ),
        })
    }

    fn count_error(&self, params: &[ParamLayout], got: usize) -> Error {
        let mut names: Vec<String> = params.iter().take(SHOWN_PARAMS).map(param_name).collect();
        if params.len() > SHOWN_PARAMS {
            names.push(format!("… {} more", params.len() - SHOWN_PARAMS));
        }
        Error::Argument {
            kernel: self.shared.display_name.clone(),
            parameter: None,
            message: format!(
                "takes {} parameters ({}), got {got} arguments",
                params.len(),
                names.join(", ")
            ),
        }
    }
}

/// Kernel parameter space in bytes (CUDA 12.1+ on sm_70 and later).
pub const MAX_PARAM_BYTES: u64 = 32_764;

/// Parameters an argument-count error names before summarizing the rest.
const SHOWN_PARAMS: usize = 8;

fn param_name(param: &ParamLayout) -> String {
    if param.name.is_empty() {
        format!("{} bytes at offset {}", param.size, param.offset)
    } else {
        format!("`{}`", param.name)
    }
}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kernel")
            .field("name", &self.name())
            .field("device", &self.device().label())
            .finish()
    }
}
