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
use crate::device::{Device, Limits};
use crate::error::Result;
use crate::launch::args::KernelArgs;
use crate::launch::raw_args::RawArgs;
use crate::launch::submit::{submit, submit_counted, Submission};
use crate::module::hook::LaunchHook;
use crate::module::Module;
use crate::stream::token::{Launched, Token};
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
    instrumented: Option<Arc<dyn LaunchHook>>,
    max_threads_per_block: u32,
    static_shared_bytes: u32,
    /// The limits of the kernel's device, read once (launches check against them).
    device_limits: Limits,
    /// The parameter space the layout declares (0 without a layout).
    declared_param_bytes: u64,
}

impl Kernel {
    pub(crate) fn new(
        module: Module,
        function: Arc<dyn backend::Function>,
        display_name: String,
        params: Option<Vec<ParamLayout>>,
    ) -> Kernel {
        // Parameters are laid out in order, so the last one ends the space.
        let declared_param_bytes = params
            .as_ref()
            .and_then(|params| params.last())
            .map_or(0, |p| u64::from(p.offset) + u64::from(p.size));
        Kernel {
            shared: Arc::new(KernelShared {
                device_limits: module.device().limits(),
                declared_param_bytes,
                max_threads_per_block: function.max_threads_per_block(),
                static_shared_bytes: function.static_shared_bytes(),
                instrumented: module.launch_hook(function.name()),
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

    /// The backend function behind the kernel: what a backend's own helpers take (the CUDA
    /// driver's handle of it: [`crate::backend::cuda::raw::function`]).
    #[inline]
    pub fn backend_function(&self) -> &dyn backend::Function {
        &*self.shared.function
    }

    /// The instrumentation hook launches go through (it fills the hidden `launch` parameter),
    /// when the kernel is instrumented.
    pub(crate) fn launch_hook(&self) -> Option<&Arc<dyn LaunchHook>> {
        self.shared.instrumented.as_ref()
    }

    /// The backend function, shared (keeps the backend module loaded, not the public one).
    pub(crate) fn backend_function_arc(&self) -> Arc<dyn backend::Function> {
        Arc::clone(&self.shared.function)
    }

    /// The launch limits of the kernel's device.
    #[inline]
    pub(crate) fn device_limits(&self) -> &Limits {
        &self.shared.device_limits
    }

    /// The parameter space the layout declares, in bytes (0 without a layout).
    #[inline]
    pub(crate) fn declared_param_bytes(&self) -> u64 {
        self.shared.declared_param_bytes
    }

    /// Whether launches go through an instrumentation hook.
    #[inline]
    pub(crate) fn is_instrumented(&self) -> bool {
        self.shared.instrumented.is_some()
    }

    /// Launches the kernel on `stream` after checking the stream's device, the configuration
    /// and the arguments. Returns the token of the launch.
    pub fn launch(
        &self,
        stream: &Stream,
        config: LaunchConfig,
        args: impl KernelArgs,
    ) -> Result<Token> {
        self.launch_checked(stream, config, None, args, &[])
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
        self.launch_checked(stream, config, None, args, deps)
    }

    /// Launches the kernel in thread-block clusters of `cluster` blocks (x, y, z), after the
    /// same checks as [`Kernel::launch`] and checking that the cluster divides the grid.
    /// Clusters of more than one block (at most 8) run on the CPU device and on CUDA GPUs of
    /// compute capability 9.0 or later; elsewhere they are [`crate::Error::LaunchConfig`],
    /// while a cluster of one block runs everywhere as an ordinary launch.
    pub fn launch_cluster(
        &self,
        stream: &Stream,
        config: LaunchConfig,
        cluster: [u32; 3],
        args: impl KernelArgs,
    ) -> Result<Token> {
        self.launch_checked(stream, config, Some(cluster), args, &[])
    }

    /// Every typed checked launch: checks, waits for `deps`, submits.
    fn launch_checked(
        &self,
        stream: &Stream,
        config: LaunchConfig,
        cluster: Option<[u32; 3]>,
        args: impl KernelArgs,
        deps: &[&Token],
    ) -> Result<Token> {
        self.check(stream, &config, &args)?;
        if let Some(cluster) = cluster {
            self.check_cluster(stream.device(), &config, cluster)?;
        }
        let launch = Submission::after(stream, &config, cluster, deps)?;
        // SAFETY: the stream is on the kernel's device (checked), and `args` provides one
        // pointer per parameter to a value of the parameter's size (checked against the
        // layout), alive for the call.
        args.with_pointers(|pointers| unsafe { submit(self, stream, launch, pointers) })
    }

    /// Launches without any check: the driver (or the CPU device) sees the call as given.
    /// Returns the launch's receipt, whose [`Launched::token`] is its token (made only when
    /// asked for: a token takes a reference to the stream).
    ///
    /// # Safety
    /// `stream` is on the kernel's device, and `args` has exactly one value per kernel
    /// parameter, of the parameter's size, in order. An invalid configuration is reported by
    /// the backend without naming the limit.
    #[inline]
    pub unsafe fn launch_unchecked<'s>(
        &self,
        stream: &'s Stream,
        config: LaunchConfig,
        args: impl KernelArgs,
    ) -> Result<Launched<'s>> {
        let launch = Submission {
            config: &config,
            cluster: None,
            cooperative: false,
            deps: &[],
        };
        // SAFETY: forwarded from the caller.
        let sequence = args
            .with_pointers(|pointers| unsafe { submit_counted(self, stream, launch, pointers) })?;
        Ok(Launched::new(stream, sequence))
    }

    /// Launches with an array of pointers to argument values (the `cuLaunchKernel` convention)
    /// without any check, like [`Kernel::launch_unchecked`] (and like it returns a receipt). For callers that checked the same
    /// stream, configuration and argument sizes before (C ABIs remember what passed).
    ///
    /// # Safety
    /// As [`Kernel::launch_unchecked`]: `stream` is on the kernel's device, and `args` holds one
    /// pointer per parameter to a readable value of the parameter's size, valid for the call.
    #[inline]
    pub unsafe fn launch_raw_unchecked<'s>(
        &self,
        stream: &'s Stream,
        config: LaunchConfig,
        args: &[*mut c_void],
    ) -> Result<Launched<'s>> {
        let launch = Submission {
            config: &config,
            cluster: None,
            cooperative: false,
            deps: &[],
        };
        // SAFETY: forwarded from the caller.
        let sequence = unsafe { submit_counted(self, stream, launch, args) }?;
        Ok(Launched::new(stream, sequence))
    }

    /// Launches with an array of pointers to argument values (the `cuLaunchKernel` convention),
    /// checking the device, the configuration, the argument count and NULL pointers (not the
    /// sizes; [`Kernel::launch_raw_args`] checks sizes given with the pointers).
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
        // SAFETY: forwarded from the caller.
        unsafe { self.launch_raw_args(stream, config, None, RawArgs::new(args), deps) }
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
        let args = RawArgs::new(args);
        // SAFETY: forwarded from the caller.
        unsafe { self.launch_raw_args(stream, config, Some(cluster), args, deps) }
    }

    /// Launches with raw arguments (pointers, and sizes when `args` has them), in clusters when
    /// `cluster` is given, after `deps`: every check of [`Kernel::check_raw`] first.
    ///
    /// # Safety
    /// Each pointer points to a readable value of its parameter's size (of the size given in
    /// `args`, when given), valid for the call.
    pub unsafe fn launch_raw_args(
        &self,
        stream: &Stream,
        config: LaunchConfig,
        cluster: Option<[u32; 3]>,
        args: RawArgs<'_>,
        deps: &[&Token],
    ) -> Result<Token> {
        self.check_raw(stream, &config, cluster, &args)?;
        let launch = Submission::after(stream, &config, cluster, deps)?;
        // SAFETY: device, configuration, count and sizes (where given) checked; the values
        // are guaranteed by the caller.
        unsafe { submit(self, stream, launch, args.pointers()) }
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
