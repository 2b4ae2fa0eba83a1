//! The runtime's kernels as `CUfunction`s: the handle `cudaGetFuncBySymbol` hands out (a
//! kernel's registered entry in the runtime) is a function handle of this driver API too,
//! adopted on its first use as the kernel on the calling thread's device, as NVIDIA's runtime
//! and driver share one `cudaFunction_t`/`CUfunction`. It has no module (`cuFuncGetModule`
//! answers NULL) and no PTX-derived resource figures.

use std::ffi::{c_int, c_void, CString};
use std::sync::atomic::AtomicI32;
use std::sync::Arc;

use cudart::registry;
use cudart::state;

use crate::kernel_resources::KernelResources;
use crate::module::{register_function, FunctionEntry};

/// The function entry of the runtime's kernel at `handle` on the calling thread's device,
/// registered under `handle`; `None` when `handle` is no registered kernel of the runtime or
/// the kernel does not load there.
pub(crate) fn adopt(handle: *mut c_void) -> Option<Arc<FunctionEntry>> {
    let entry = registry::entry_at(handle)?;
    let ordinal = state::current_ordinal();
    let device = &state::device(ordinal).ok()?.device;
    let kernel = entry.kernel(ordinal).ok()?.clone();
    let (major, minor) = device.compute_capability();
    let device_arch = major * 10 + minor;
    let versions = entry.fatbin.code_versions(&device.code_targets());
    let function = FunctionEntry {
        ordinal,
        name: CString::new(entry.name.as_str()).unwrap_or_default(),
        module: 0,
        versions: (
            versions.ptx.unwrap_or(device_arch) as c_int,
            versions.cubin.unwrap_or(device_arch) as c_int,
        ),
        max_dynamic_shared: AtomicI32::new(-1),
        resources: KernelResources::default(),
        kernel,
    };
    Some(register_function(handle as usize, function))
}
