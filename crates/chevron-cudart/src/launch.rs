//! Launches and kernel queries: `cudaLaunchKernel` (clang's stubs and direct callers),
//! `cudaLaunchCooperativeKernel`, `cudaFuncGetAttributes`, `cudaFuncSetAttribute` and the
//! occupancy calculators.
//!
//! A cooperative launch (`cudaLaunchCooperativeKernel`, or `cudaLaunchKernelExC` with
//! `cudaLaunchAttributeCooperative`) goes through the device's cooperative path
//! (`cuLaunchCooperativeKernel` on GPUs), after the co-residency check. The occupancy
//! calculators answer from the driver on GPUs and estimate from the kernel's limits on the CPU
//! device.
//!
//! Every launch resolves the kernel on the stream's device (loading its fatbin there on first
//! use) and copies the `void**` arguments with the sizes of the kernel's parameter layout; the
//! configuration is checked against the device's limits, so mistakes are named errors.

use std::ffi::{c_int, c_uint, c_void};

use chevron::{BackendKind, Kernel, LaunchConfig, ParamLayout, Stream};

extern "C" {
    fn fflush(stream: *mut c_void) -> c_int;
}

use crate::abi::{
    cudaFuncAttributes, cudaLaunchAttribute, cudaLaunchConfig_t, Dim3,
    LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, LAUNCH_ATTRIBUTE_COOPERATIVE,
};
use crate::errors::{
    cudaError_t, guard, CudaError, CudaResult, COOPERATIVE_LAUNCH_TOO_LARGE, INVALID_VALUE,
};
use crate::memory::store;
use crate::registry::{self, KernelEntry};
use crate::state::{self, STREAM_PER_THREAD};
use crate::{func_attributes, managed_vars, mirror};

/// The stream a `_ptsz` entry point uses for `stream`: the per-thread default for NULL.
pub fn per_thread_default(stream: *mut c_void) -> *mut c_void {
    if stream.is_null() {
        STREAM_PER_THREAD as *mut c_void
    } else {
        stream
    }
}

/// Before a launch on the CPU device: the CPU device prints a kernel's printf output from its
/// worker thread, so the program's buffered output written before the launch goes first, as
/// on a GPU.
#[inline]
pub fn flush_before_cpu_launch(stream: &Stream) {
    if stream.device().backend() == BackendKind::Cpu {
        // SAFETY: fflush(NULL) flushes every open output stream; it takes no pointer.
        unsafe { fflush(std::ptr::null_mut()) };
    }
}

/// Whether a launch needs nothing of [`submit_shaped`] beyond the submission itself: no
/// sticky error, no `__managed__` variable to push and no host-mirrored memory whose pointers
/// need translating. A front door that checked a launch once (and sees no stream capturing:
/// `graphs::any_capturing`) may then repeat it with [`Kernel::launch_raw_unchecked`].
#[inline]
pub fn nothing_extra() -> bool {
    crate::errors::no_sticky_error() && !managed_vars::in_use() && !mirror::translating()
}

/// The configuration of a launch with `grid`, `block` and `shared` bytes of dynamic shared
/// memory.
pub fn launch_config(grid: Dim3, block: Dim3, shared: usize) -> CudaResult<LaunchConfig> {
    Ok(LaunchConfig {
        grid: [grid.x, grid.y, grid.z],
        block: [block.x, block.y, block.z],
        shared_bytes: u32::try_from(shared).map_err(|_| {
            CudaError::new(
                INVALID_VALUE,
                format!("{shared} bytes of dynamic shared memory"),
            )
        })?,
    })
}

/// The argument pointers of a launch of `kernel` with `params`, checked before any is read: a
/// NULL array, or a NULL pointer for a parameter, is `cudaErrorInvalidValue` naming it.
///
/// # Safety
/// `args` is NULL or holds one pointer per parameter (CUDA's contract for `kernelParams`).
pub unsafe fn argument_pointers<'a>(
    kernel: &str,
    params: &[ParamLayout],
    args: *mut *mut c_void,
) -> CudaResult<&'a [*mut c_void]> {
    if params.is_empty() {
        return Ok(&[]);
    }
    if args.is_null() {
        return Err(CudaError::new(
            INVALID_VALUE,
            format!(
                "kernel `{kernel}` takes {} arguments, got a NULL argument array",
                params.len()
            ),
        ));
    }
    // SAFETY: one pointer per parameter (the caller's guarantee).
    let pointers = unsafe { std::slice::from_raw_parts(args, params.len()) };
    let missing = params
        .iter()
        .zip(pointers)
        .position(|(param, pointer)| param.size > 0 && pointer.is_null());
    if let Some(index) = missing {
        return Err(CudaError::new(
            INVALID_VALUE,
            format!("kernel `{kernel}`: the pointer to argument {index} is NULL"),
        ));
    }
    Ok(pointers)
}

/// Launches `entry` on `stream`.
///
/// # Safety
/// `args` holds one readable pointer per kernel parameter, each to a value of its size.
pub unsafe fn launch(
    entry: &KernelEntry,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: *mut c_void,
) -> CudaResult {
    // SAFETY: forwarded from the caller.
    unsafe { launch_shaped(entry, grid, block, Shape::Plain, args, shared, stream) }
}

/// How a launch places its blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// An ordinary launch.
    Plain,
    /// In thread-block clusters of these dimensions.
    Clusters([u32; 3]),
    /// Cooperative: every block resident at once.
    Cooperative,
}

/// [`launch`] with the blocks placed as `shape` says.
///
/// # Safety
/// As [`launch`].
unsafe fn launch_shaped(
    entry: &KernelEntry,
    grid: Dim3,
    block: Dim3,
    shape: Shape,
    args: *mut *mut c_void,
    shared: usize,
    stream: *mut c_void,
) -> CudaResult {
    let cluster = match shape {
        Shape::Clusters(cluster) => cluster,
        Shape::Plain | Shape::Cooperative => [1, 1, 1],
    };
    // SAFETY: forwarded from the caller.
    let captured =
        unsafe { crate::capturing::launch(entry, (grid, block, shared), cluster, args, stream) };
    if let Some(captured) = captured {
        return captured;
    }
    let (ordinal, stream) = state::submit_stream(stream)?;
    let kernel = entry.kernel(ordinal)?;
    let params = kernel.params().unwrap_or(&[]);
    // SAFETY: forwarded from the caller.
    let args = unsafe { argument_pointers(&entry.name, params, args) }?;
    let config = launch_config(grid, block, shared)?;
    func_attributes::check_dynamic_shared(entry, kernel, config.shared_bytes)?;
    // SAFETY: one readable pointer per parameter (checked by `argument_pointers`).
    unsafe { submit_shaped(kernel, &stream, ordinal, config, shape, args) }
}

/// The common end of a launch made through the runtime or the driver library, once the kernel,
/// the stream (of device `ordinal`) and the configuration are known: on the CPU device the
/// program's buffered output is flushed first (its worker prints the kernel's `printf`),
/// `__managed__` variables are pushed, host pointers among the arguments translated, and the
/// blocks placed as `shape` says.
///
/// # Safety
/// `args` holds one pointer per parameter of `kernel`, each to a readable value of the
/// parameter's size.
pub unsafe fn submit_shaped(
    kernel: &Kernel,
    stream: &Stream,
    ordinal: usize,
    config: LaunchConfig,
    shape: Shape,
    args: &[*mut c_void],
) -> CudaResult {
    flush_before_cpu_launch(stream);
    managed_vars::push(ordinal, stream)?;
    let params = kernel.params().unwrap_or(&[]);
    mirror::with_translated_args(stream, params, args, |args| {
        let launched = match shape {
            // SAFETY: each pointer reads a value of its parameter's size (the caller's
            // guarantee, or a translated copy of the same size).
            Shape::Plain => unsafe { kernel.launch_raw(stream, config, args, &[]) },
            // SAFETY: as above.
            Shape::Clusters(cluster) => unsafe {
                kernel.launch_raw_cluster(stream, config, cluster, args, &[])
            },
            // SAFETY: as above.
            Shape::Cooperative => unsafe {
                kernel.launch_raw_cooperative(stream, config, args, &[])
            },
        };
        launched.map(drop).map_err(CudaError::from)
    })
}

/// Launches the kernel whose host stub is `func`.
///
/// # Safety
/// `func` is a registered kernel's host stub; `args` as for [`launch`].
#[no_mangle]
pub unsafe extern "C" fn cudaLaunchKernel(
    func: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: *mut c_void,
) -> cudaError_t {
    guard("cudaLaunchKernel", || {
        let entry = registry::kernel_entry(func)?;
        // SAFETY: forwarded from the caller.
        unsafe { launch(&entry, grid, block, args, shared, stream) }
    })
}

/// `cudaLaunchKernelEx`'s `cudaLaunchConfig_t` and its attributes, or `cudaErrorInvalidValue` for NULL.
///
/// # Safety
/// `config` is NULL or a configuration whose `attrs` holds `numAttrs` attributes (or
/// `numAttrs` is 0 or `attrs` NULL).
pub(crate) unsafe fn ex_config<'a>(
    config: *const cudaLaunchConfig_t,
) -> CudaResult<(&'a cudaLaunchConfig_t, &'a [cudaLaunchAttribute])> {
    // SAFETY: NULL or a configuration, by the caller's guarantee.
    let config = unsafe { config.as_ref() }
        .ok_or_else(|| CudaError::new(INVALID_VALUE, "config is NULL"))?;
    let attributes = if config.attrs.is_null() || config.numAttrs == 0 {
        &[][..]
    } else {
        // SAFETY: `numAttrs` attributes, by the caller's guarantee.
        unsafe { std::slice::from_raw_parts(config.attrs, config.numAttrs as usize) }
    };
    Ok((config, attributes))
}

/// The cluster dimensions a launch attribute list names (the last cluster-dimension attribute).
pub fn cluster_attribute(attributes: &[cudaLaunchAttribute]) -> Option<[u32; 3]> {
    attributes
        .iter()
        .rev()
        .find(|attribute| attribute.id == LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
        .map(|attribute| {
            let [xy, z] = [attribute.val[0], attribute.val[1]];
            [xy as u32, (xy >> 32) as u32, z as u32]
        })
}

/// The extensible launch (`cudaLaunchKernelEx`): the cluster-dimension attribute launches in
/// thread-block clusters, the cooperative attribute (nonzero) launches cooperatively (as
/// [`cudaLaunchCooperativeKernel`]); other attributes are hints chevron's devices do not need.
///
/// # Safety
/// `config` points to a launch configuration whose `attrs` holds `numAttrs` attributes;
/// `func` and `args` as for [`cudaLaunchKernel`].
#[no_mangle]
pub unsafe extern "C" fn cudaLaunchKernelExC(
    config: *const cudaLaunchConfig_t,
    func: *const c_void,
    args: *mut *mut c_void,
) -> cudaError_t {
    guard("cudaLaunchKernelExC", || {
        // SAFETY: NULL or a configuration whose `attrs` holds `numAttrs` attributes, by contract.
        let (config, attributes) = unsafe { ex_config(config) }?;
        let cluster = cluster_attribute(attributes).unwrap_or([1, 1, 1]);
        let cooperative = attributes
            .iter()
            .rev()
            .find(|attribute| attribute.id == LAUNCH_ATTRIBUTE_COOPERATIVE)
            .is_some_and(|attribute| attribute.val[0] as u32 != 0);
        let entry = registry::kernel_entry(func)?;
        let (grid, block) = (config.gridDim, config.blockDim);
        let (shared, stream) = (config.dynamicSmemBytes, config.stream);
        let shape = match (cooperative, cluster) {
            (false, [1, 1, 1]) => Shape::Plain,
            (false, cluster) => Shape::Clusters(cluster),
            (true, [1, 1, 1]) => {
                check_co_resident(&entry, state::ordinal_of(stream)?, grid, block, shared)?;
                Shape::Cooperative
            }
            (true, _) => {
                return Err(CudaError::new(
                    crate::errors::NOT_SUPPORTED,
                    format!(
                        "kernel `{}`: a cooperative launch in thread-block clusters",
                        entry.name
                    ),
                ))
            }
        };
        // SAFETY: forwarded from the caller.
        unsafe { launch_shaped(&entry, grid, block, shape, args, shared, stream) }
    })
}

/// [`cudaLaunchKernelExC`] for `--default-stream per-thread` programs.
///
/// # Safety
/// As [`cudaLaunchKernelExC`].
#[no_mangle]
pub unsafe extern "C" fn cudaLaunchKernelExC_ptsz(
    config: *const cudaLaunchConfig_t,
    func: *const c_void,
    args: *mut *mut c_void,
) -> cudaError_t {
    if config.is_null() {
        // SAFETY: reports the NULL configuration.
        return unsafe { cudaLaunchKernelExC(config, func, args) };
    }
    // SAFETY: non-NULL configuration, by contract.
    let mut local = unsafe { *config };
    local.stream = per_thread_default(local.stream);
    // SAFETY: forwarded from the caller, with a local copy of the configuration.
    unsafe { cudaLaunchKernelExC(&local, func, args) }
}

/// [`cudaLaunchKernel`] with the per-thread default stream.
///
/// # Safety
/// As [`cudaLaunchKernel`].
#[no_mangle]
pub unsafe extern "C" fn cudaLaunchKernel_ptsz(
    func: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: *mut c_void,
) -> cudaError_t {
    // SAFETY: forwarded from the caller.
    unsafe { cudaLaunchKernel(func, grid, block, args, shared, per_thread_default(stream)) }
}

/// A cooperative launch: every block of the grid must be resident at once. A grid larger than
/// the device holds at once (resident blocks per multiprocessor, as the occupancy calculator
/// answers, times the multiprocessors) is refused with `cudaErrorCooperativeLaunchTooLarge`,
/// as CUDA refuses it.
///
/// # Safety
/// As [`cudaLaunchKernel`].
#[no_mangle]
pub unsafe extern "C" fn cudaLaunchCooperativeKernel(
    func: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: *mut c_void,
) -> cudaError_t {
    guard("cudaLaunchCooperativeKernel", || {
        let entry = registry::kernel_entry(func)?;
        let ordinal = state::ordinal_of(stream)?;
        check_co_resident(&entry, ordinal, grid, block, shared)?;
        // SAFETY: forwarded from the caller.
        unsafe {
            launch_shaped(
                &entry,
                grid,
                block,
                Shape::Cooperative,
                args,
                shared,
                stream,
            )
        }
    })
}

/// Refuses a cooperative grid whose blocks cannot all be resident on device `ordinal`.
fn check_co_resident(
    entry: &KernelEntry,
    ordinal: usize,
    grid: Dim3,
    block: Dim3,
    shared: usize,
) -> CudaResult {
    let threads = u64::from(block.x) * u64::from(block.y) * u64::from(block.z);
    let Ok(threads) = c_int::try_from(threads) else {
        return Ok(()); // The launch reports the block size.
    };
    let per_multiprocessor = active_blocks_on(entry, ordinal, threads, shared)?;
    if per_multiprocessor == 0 {
        return Ok(()); // The launch reports what does not fit.
    }
    let multiprocessors = state::device(ordinal)?.device.multiprocessor_count();
    let resident = per_multiprocessor as u64 * u64::from(multiprocessors);
    let blocks = u64::from(grid.x) * u64::from(grid.y) * u64::from(grid.z);
    if blocks > resident {
        return Err(CudaError::new(
            COOPERATIVE_LAUNCH_TOO_LARGE,
            format!(
                "cooperative launch of `{}`: {blocks} blocks, but only {resident} can be \
                 resident at once on device {ordinal} ({per_multiprocessor} blocks of \
                 {threads} threads per multiprocessor x {multiprocessors})",
                entry.name
            ),
        ));
    }
    Ok(())
}

/// The kernel's attributes on the current device.
///
/// # Safety
/// `attributes` is writable; `func` is a registered kernel's host stub.
#[no_mangle]
pub unsafe extern "C" fn cudaFuncGetAttributes(
    attributes: *mut cudaFuncAttributes,
    func: *const c_void,
) -> cudaError_t {
    guard("cudaFuncGetAttributes", || {
        if attributes.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "attributes is NULL"));
        }
        let entry = registry::kernel_entry(func)?;
        let state = state::current()?;
        let kernel = entry.kernel(state::current_ordinal())?;
        // SAFETY: every field is an integer, for which 0 is valid.
        let mut out: cudaFuncAttributes = unsafe { std::mem::zeroed() };
        out.sharedSizeBytes = kernel.static_shared_bytes() as usize;
        out.maxThreadsPerBlock = kernel.max_threads_per_block() as c_int;
        let (major, minor) = state.device.compute_capability();
        let device_arch = major * 10 + minor;
        let versions = entry.fatbin.code_versions(&state.device.code_targets());
        out.ptxVersion = versions.ptx.unwrap_or(device_arch) as c_int;
        out.binaryVersion = versions.cubin.unwrap_or(device_arch) as c_int;
        out.maxDynamicSharedSizeBytes = func_attributes::max_dynamic_shared(&entry)
            .unwrap_or(func_attributes::default_max_dynamic_shared(kernel) as c_int);
        store(attributes, out, "attr")
    })
}

/// Sets a kernel attribute. `cudaFuncAttributeMaxDynamicSharedMemorySize` is checked against
/// the device's opt-in limit less the kernel's static shared memory and reported back by
/// [`cudaFuncGetAttributes`] (launches are checked against the device's limits either way);
/// the others are accepted.
#[no_mangle]
pub extern "C" fn cudaFuncSetAttribute(
    func: *const c_void,
    attribute: c_int,
    value: c_int,
) -> cudaError_t {
    guard("cudaFuncSetAttribute", || {
        let entry = registry::kernel_entry(func)?;
        // `cudaFuncAttribute`: the dynamic shared memory limit (8), the carveout (9, -1 or a
        // percentage) and the cluster attributes (10 to 15); nothing else can be written.
        if !(8..=15).contains(&attribute) || (attribute == 9 && !(-1..=100).contains(&value)) {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!("cudaFuncAttribute {attribute} cannot be set to {value}"),
            ));
        }
        if attribute != func_attributes::MAX_DYNAMIC_SHARED_MEMORY_SIZE {
            return Ok(());
        }
        let state = state::current()?;
        let kernel = entry.kernel(state::current_ordinal())?;
        let limit = state
            .device
            .limits()
            .max_shared_per_block_optin
            .saturating_sub(kernel.static_shared_bytes());
        if value < 0 || value as u32 > limit {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!(
                    "kernel `{}`: {value} bytes of dynamic shared memory, more than the {limit} \
                     the device allows it",
                    kernel.display_name()
                ),
            ));
        }
        func_attributes::set_max_dynamic_shared(&entry, value);
        Ok(())
    })
}

/// Blocks of `block_size` threads resident per multiprocessor: the driver's answer on GPUs;
/// on the CPU device, bounded by the kernel's and the device's thread limits and by shared
/// memory.
pub(crate) fn active_blocks_on(
    entry: &KernelEntry,
    ordinal: usize,
    block_size: c_int,
    dynamic_shared: usize,
) -> CudaResult<c_int> {
    crate::errors::check_sticky()?;
    let state = state::device(ordinal)?;
    let kernel = entry.kernel(ordinal)?;
    let limits = state.device.limits();
    let block = u32::try_from(block_size).unwrap_or(0);
    if block == 0 || block > kernel.max_threads_per_block() {
        return Ok(0);
    }
    let dynamic = u32::try_from(dynamic_shared).unwrap_or(u32::MAX);
    if let Some(blocks) = kernel.active_blocks_per_multiprocessor(block, dynamic)? {
        return Ok(c_int::try_from(blocks).unwrap_or(c_int::MAX));
    }
    let by_threads = 2048 / block;
    let shared = u64::from(kernel.static_shared_bytes()) + dynamic_shared as u64;
    let by_shared = u64::from(limits.max_shared_per_block_optin)
        .checked_div(shared)
        .map_or(u32::MAX, |blocks| blocks as u32);
    Ok(by_threads.min(by_shared).min(32) as c_int)
}

/// Occupancy: resident blocks per multiprocessor.
///
/// # Safety
/// `blocks` is writable.
#[no_mangle]
pub unsafe extern "C" fn cudaOccupancyMaxActiveBlocksPerMultiprocessor(
    blocks: *mut c_int,
    func: *const c_void,
    block_size: c_int,
    dynamic_shared: usize,
) -> cudaError_t {
    guard("cudaOccupancyMaxActiveBlocksPerMultiprocessor", || {
        if blocks.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "numBlocks is NULL"));
        }
        let entry = registry::kernel_entry(func)?;
        let count = active_blocks_on(&entry, state::current_ordinal(), block_size, dynamic_shared)?;
        store(blocks, count, "numBlocks")
    })
}

/// As [`cudaOccupancyMaxActiveBlocksPerMultiprocessor`]; the flags change nothing here.
///
/// # Safety
/// `blocks` is writable.
#[no_mangle]
pub unsafe extern "C" fn cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    blocks: *mut c_int,
    func: *const c_void,
    block_size: c_int,
    dynamic_shared: usize,
    flags: c_uint,
) -> cudaError_t {
    let _ = flags;
    // SAFETY: forwarded from the caller.
    unsafe {
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, func, block_size, dynamic_shared)
    }
}
