//! Hooks that features stacked above the core install, so that module loading and launching
//! call them without naming the feature: a loader that may take over a module load (the
//! built-in instrumentation of `CHEVRON_INSTRUMENT`), and the launch hook of a kernel whose
//! launches pass one more, hidden, argument (an instrumented kernel).

use std::any::Any;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, OnceLock};

use crate::backend::{self, LaunchConfig};
use crate::code_object::CodeObject;
use crate::device::Device;
use crate::error::Result;
use crate::module::Module;
use crate::stream::Stream;

/// A loader that may take over a module load: `Ok(None)` lets the plain load go on.
pub(crate) type LoadHook = fn(&Device, &CodeObject) -> Result<Option<Module>>;

static LOAD_HOOK: OnceLock<LoadHook> = OnceLock::new();

/// Installs the loader every later module load asks first (the first one installed stays).
pub(crate) fn install_load_hook(hook: LoadHook) {
    let _ = LOAD_HOOK.set(hook);
}

/// Asks the installed loader, if any, to load `code` on `device`.
pub(crate) fn load_by_hook(device: &Device, code: &CodeObject) -> Result<Option<Module>> {
    match LOAD_HOOK.get() {
        Some(hook) => hook(device, code),
        None => Ok(None),
    }
}

/// What launches of one kernel go through: it appends a hidden last argument.
pub(crate) trait LaunchHook: Send + Sync {
    /// Launches `function` (displayed as `name`) with `args` plus the hidden argument.
    ///
    /// # Safety
    /// As `backend::Stream::launch`, for the caller's arguments (`args` holds one pointer per
    /// parameter of the kernel before the hidden one was appended).
    unsafe fn launch(
        &self,
        function: &dyn backend::Function,
        name: &str,
        stream: &Stream,
        config: &LaunchConfig,
        args: &[*mut c_void],
    ) -> Result<()>;

    /// The hidden argument of one launch on `stream` (a graph replay passes it itself).
    fn prepare(&self, stream: &Stream, config: &LaunchConfig) -> Result<HiddenArg>;

    /// Notes a launch of the kernel displayed as `name`, made with `hidden`, submitted.
    fn launched(&self, name: &str, stream: &Stream, config: &LaunchConfig, hidden: HiddenArg);
}

/// The hidden argument of one launch.
pub(crate) struct HiddenArg {
    /// The value passed.
    pub value: u64,
    /// What the hook keeps until [`LaunchHook::launched`] (a record to read later).
    pub kept: Option<Box<dyn Any + Send>>,
}

/// The launch hooks of a module's kernels, by symbol name.
pub(crate) type KernelHooks = HashMap<String, Arc<dyn LaunchHook>>;
