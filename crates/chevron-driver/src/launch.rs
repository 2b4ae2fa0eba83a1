//! Launches of module functions: `cuLaunchKernel` (arguments as a pointer array or as one
//! packed buffer through `extra`), `cuLaunchKernelEx` (cluster dimensions) and its `_ptsz`
//! form, cooperative launches (the other `_ptsz` forms: [`crate::per_thread`]). The path is the runtime's: the stream resolved with CUDA's
//! legacy-stream ordering, then the runtime's own end of a launch
//! (`cudart::launch::submit_shaped`: host-mirrored pointers translated, `Kernel::launch_raw`).
//! A `cuLaunchKernel` that passed that path is prepared ([`prepared_launch`]): the same launch
//! again goes straight to the stream.

use std::ffi::{c_int, c_uint, c_void};
use std::sync::Arc;

use chevron::LaunchConfig;
// `CUlaunchAttribute` is the runtime's `cudaLaunchAttribute` (an id, padding, a 64-byte value;
// the same ids, `CU_LAUNCH_ATTRIBUTE_COOPERATIVE` among them).
use cudart::abi::{
    cudaLaunchAttribute as LaunchAttribute, LAUNCH_ATTRIBUTE_COOPERATIVE as ATTRIBUTE_COOPERATIVE,
};
use cudart::launch::Shape as Placement;
use cudart::state;

use crate::function::active_blocks;
use crate::module::{function, FunctionEntry};
use crate::prepared_launch;
use crate::result::{
    entry, store, CUresult, DriverError, DriverResult, INVALID_CONTEXT, INVALID_VALUE, SUCCESS,
};

/// `CU_LAUNCH_PARAM_END`, `…_BUFFER_POINTER`, `…_BUFFER_SIZE` in `extra`.
const PARAM_END: usize = 0;
const PARAM_BUFFER_POINTER: usize = 1;
const PARAM_BUFFER_SIZE: usize = 2;

/// A launch's shape.
#[derive(Clone, Copy)]
pub struct Shape {
    /// Grid dimensions.
    pub grid: [u32; 3],
    /// Block dimensions.
    pub block: [u32; 3],
    /// Dynamic shared memory in bytes.
    pub shared: u32,
    /// Cluster dimensions (`[1, 1, 1]`: none).
    pub cluster: [u32; 3],
    /// A cooperative launch (every block resident at once: the device's cooperative path).
    pub cooperative: bool,
}

/// The packed argument buffer of `extra` (`CU_LAUNCH_PARAM_BUFFER_POINTER` and `…_SIZE`).
///
/// # Safety
/// `extra` is NULL or a list of (tag, value) pointers ending with `CU_LAUNCH_PARAM_END`.
unsafe fn packed_buffer(extra: *mut *mut c_void) -> DriverResult<Option<(*mut u8, usize)>> {
    if extra.is_null() {
        return Ok(None);
    }
    let (mut buffer, mut size) = (None, None);
    let mut at = extra;
    loop {
        // SAFETY: the list is terminated, by the caller's guarantee.
        let tag = unsafe { *at } as usize;
        match tag {
            PARAM_END => break,
            PARAM_BUFFER_POINTER => {
                // SAFETY: a value follows each tag.
                buffer = Some(unsafe { *at.add(1) }.cast::<u8>());
            }
            PARAM_BUFFER_SIZE => {
                // SAFETY: a value follows each tag; it points to a size_t.
                size = Some(unsafe { *(*at.add(1)).cast::<usize>() });
            }
            other => {
                return Err(DriverError::new(
                    INVALID_VALUE,
                    format!("unknown cuLaunchKernel extra tag {other:#x}"),
                ))
            }
        }
        // SAFETY: the next tag, before the terminator.
        at = unsafe { at.add(2) };
    }
    match (buffer, size) {
        (Some(buffer), Some(size)) if !buffer.is_null() => Ok(Some((buffer, size))),
        _ => Err(DriverError::new(
            INVALID_VALUE,
            "extra needs both CU_LAUNCH_PARAM_BUFFER_POINTER and CU_LAUNCH_PARAM_BUFFER_SIZE",
        )),
    }
}

/// Launches `func` with `shape` on `stream`; returns the function it resolved.
///
/// # Safety
/// `params` holds one readable pointer per kernel parameter, or `extra` describes a packed
/// buffer holding them all at their offsets.
pub unsafe fn launch(
    func: *mut c_void,
    shape: Shape,
    stream: *mut c_void,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> DriverResult<Arc<FunctionEntry>> {
    let function = function(func)?;
    state::set_current(function.ordinal)?;
    let kernel = &function.kernel;
    let layout = kernel.params().unwrap_or(&[]);
    let packed: Vec<*mut c_void>;
    let args: &[*mut c_void] = if !params.is_null() {
        // SAFETY: one pointer per parameter, by the caller's guarantee.
        unsafe { std::slice::from_raw_parts(params, layout.len()) }
    // SAFETY: forwarded from the caller.
    } else if let Some((buffer, size)) = unsafe { packed_buffer(extra) }? {
        let needed = layout.iter().map(|p| (p.offset + p.size) as usize).max();
        if needed.unwrap_or(0) > size {
            return Err(DriverError::new(
                INVALID_VALUE,
                format!(
                    "the argument buffer holds {size} bytes; `{}` takes {}",
                    function.name.to_string_lossy(),
                    needed.unwrap_or(0)
                ),
            ));
        }
        // SAFETY: every offset is inside the buffer (checked above).
        packed = layout
            .iter()
            .map(|p| unsafe { buffer.add(p.offset as usize) }.cast())
            .collect();
        &packed
    } else if layout.is_empty() {
        &[]
    } else {
        return Err(DriverError::new(
            INVALID_VALUE,
            format!(
                "`{}` takes {} arguments, got neither kernelParams nor extra",
                function.name.to_string_lossy(),
                layout.len()
            ),
        ));
    };
    let config = LaunchConfig {
        grid: shape.grid,
        block: shape.block,
        shared_bytes: shape.shared,
    };
    if shape.shared > 0 {
        let limit = crate::function::dynamic_shared_limit(&function);
        if shape.shared > limit {
            // NVIDIA's driver refuses it so until the limit is raised (an H200, driver 580).
            return Err(DriverError::new(
                INVALID_VALUE,
                format!(
                    "`{}`: {} bytes of dynamic shared memory exceed its limit of {limit} (raise \
                     it with cuFuncSetAttribute(…, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, …))",
                    function.name.to_string_lossy(),
                    shape.shared,
                ),
            ));
        }
    }
    if shape.cluster == [1, 1, 1] && !shape.cooperative {
        // SAFETY: one readable pointer per parameter (the caller's guarantee, or the packed
        // buffer's, checked above); the capture copies the values.
        let captured = unsafe {
            cudart::graphs::capture_direct_launch(
                kernel,
                func as usize,
                config,
                args.as_ptr().cast_mut(),
                stream,
            )
        };
        if let Some(captured) = captured {
            return captured.map(|()| function).map_err(Into::into);
        }
    }
    // A capturing stream refuses other work here (a cluster launch is not captured).
    let (ordinal, stream) = state::submit_stream(stream)?;
    if ordinal != function.ordinal {
        return Err(DriverError::new(
            INVALID_CONTEXT,
            format!(
                "`{}` was loaded on device {} and launched on a stream of device {ordinal}",
                function.name.to_string_lossy(),
                function.ordinal
            ),
        ));
    }
    let placement = match (shape.cooperative, shape.cluster) {
        (true, _) => Placement::Cooperative,
        (false, [1, 1, 1]) => Placement::Plain,
        (false, cluster) => Placement::Clusters(cluster),
    };
    // SAFETY: one readable pointer per parameter (the caller's guarantee, or the packed
    // buffer's, checked above).
    unsafe { cudart::launch::submit_shaped(kernel, &stream, ordinal, config, placement, args) }?;
    Ok(function)
}

/// Launches a function.
///
/// # Safety
/// As [`launch`].
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cuLaunchKernel(
    func: *mut c_void,
    grid_x: c_uint,
    grid_y: c_uint,
    grid_z: c_uint,
    block_x: c_uint,
    block_y: c_uint,
    block_z: c_uint,
    shared: c_uint,
    stream: *mut c_void,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    let shape = Shape {
        grid: [grid_x, grid_y, grid_z],
        block: [block_x, block_y, block_z],
        shared,
        cluster: [1, 1, 1],
        cooperative: false,
    };
    // SAFETY: forwarded from the caller.
    let again = chevron::ffi::entry("cuLaunchKernel", || {
        // SAFETY: forwarded from the caller.
        match unsafe { prepared_launch::launch_again(func, &shape, stream, params) } {
            Some(launched) => launched.map(|()| true),
            None => Ok(false),
        }
    });
    match again {
        Ok(true) => SUCCESS,
        Err(code) => code,
        Ok(false) => entry("cuLaunchKernel", || {
            // SAFETY: forwarded from the caller.
            let function = unsafe { launch(func, shape, stream, params, extra) }?;
            if !params.is_null() {
                prepared_launch::prepare(func, &shape, stream, &function);
            }
            Ok(())
        }),
    }
}

/// A cooperative launch: every block resident at once, through the device's cooperative path
/// (`cuLaunchCooperativeKernel` on GPUs, which refuses a grid that cannot be resident).
///
/// # Safety
/// As [`launch`].
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cuLaunchCooperativeKernel(
    func: *mut c_void,
    grid_x: c_uint,
    grid_y: c_uint,
    grid_z: c_uint,
    block_x: c_uint,
    block_y: c_uint,
    block_z: c_uint,
    shared: c_uint,
    stream: *mut c_void,
    params: *mut *mut c_void,
) -> CUresult {
    let shape = Shape {
        grid: [grid_x, grid_y, grid_z],
        block: [block_x, block_y, block_z],
        shared,
        cluster: [1, 1, 1],
        cooperative: true,
    };
    entry("cuLaunchCooperativeKernel", || {
        // SAFETY: forwarded from the caller.
        unsafe { launch(func, shape, stream, params, std::ptr::null_mut()) }.map(drop)
    })
}

/// `CUlaunchConfig`.
#[repr(C)]
pub struct LaunchConfigEx {
    grid: [c_uint; 3],
    block: [c_uint; 3],
    shared: c_uint,
    stream: *mut c_void,
    attrs: *mut LaunchAttribute,
    count: c_uint,
}

impl LaunchConfigEx {
    /// The geometry as chevron's launch configuration.
    fn shape(&self) -> LaunchConfig {
        LaunchConfig {
            grid: self.grid,
            block: self.block,
            shared_bytes: self.shared,
        }
    }

    /// The configuration's attributes.
    ///
    /// # Safety
    /// `attrs` holds `count` attributes (or `count` is 0 or `attrs` NULL).
    unsafe fn attributes(&self) -> &[LaunchAttribute] {
        if self.attrs.is_null() || self.count == 0 {
            &[]
        } else {
            // SAFETY: `count` attributes, by the caller's guarantee.
            unsafe { std::slice::from_raw_parts(self.attrs, self.count as usize) }
        }
    }
}

/// Clusters of the configuration's cluster-dimension attribute (required) resident at once:
/// the runtime's answer (`cudart::cluster_occupancy`), the GPU driver's calculator on GPUs.
///
/// # Safety
/// `config` is NULL or a configuration whose `attrs` holds `count` attributes.
#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxActiveClusters(
    num_clusters: *mut c_int,
    func: *mut c_void,
    config: *const LaunchConfigEx,
) -> CUresult {
    entry("cuOccupancyMaxActiveClusters", || {
        // The function first: a handle that is none is CUDA_ERROR_INVALID_HANDLE whatever
        // the configuration (the sweep's forged and destroyed handles).
        let function = function(func)?;
        // SAFETY: NULL or a configuration, by contract.
        let config = unsafe { config.as_ref() }
            .ok_or_else(|| DriverError::new(INVALID_VALUE, "config is NULL"))?;
        // SAFETY: `count` attributes, by contract.
        let cluster = cudart::launch::cluster_attribute(unsafe { config.attributes() })
            .ok_or_else(|| {
                DriverError::new(
                    INVALID_VALUE,
                    "the configuration names no cluster dimension",
                )
            })?;
        let threads = config.block.iter().map(|&d| u64::from(d)).product::<u64>();
        let threads = c_int::try_from(threads).unwrap_or(c_int::MAX);
        let per_sm = active_blocks(&function, threads, config.shared as usize)?;
        let shape = config.shape();
        let device = &state::device(function.ordinal)?.device;
        let clusters = cudart::cluster_occupancy::max_active_clusters(
            &function.kernel,
            device,
            per_sm,
            shape,
            cluster,
        )?;
        store(num_clusters, clusters, "numClusters")
    })
}

/// The largest cluster the configuration can be launched in (its attributes ignored): the
/// runtime's answer (`cudart::cluster_occupancy`), the GPU driver's calculator on GPUs.
///
/// # Safety
/// `config` is NULL or a configuration.
#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxPotentialClusterSize(
    cluster_size: *mut c_int,
    func: *mut c_void,
    config: *const LaunchConfigEx,
) -> CUresult {
    entry("cuOccupancyMaxPotentialClusterSize", || {
        // SAFETY: NULL or a configuration, by contract.
        let config = unsafe { config.as_ref() }
            .ok_or_else(|| DriverError::new(INVALID_VALUE, "config is NULL"))?;
        let function = function(func)?;
        let blocks = cudart::cluster_occupancy::max_potential_cluster_size(
            &function.kernel,
            config.shape(),
        )?;
        store(cluster_size, blocks, "clusterSize")
    })
}

/// The extensible launch: the cluster-dimension attribute launches in clusters; the other
/// attributes are hints chevron's devices do not need.
///
/// # Safety
/// `config` points to a configuration whose `attrs` holds `numAttrs` attributes; the rest as
/// [`launch`].
#[no_mangle]
pub unsafe extern "C" fn cuLaunchKernelEx(
    config: *const LaunchConfigEx,
    func: *mut c_void,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    entry("cuLaunchKernelEx", || {
        // SAFETY: NULL or a configuration, by contract.
        let config = unsafe { config.as_ref() }
            .ok_or_else(|| DriverError::new(INVALID_VALUE, "config is NULL"))?;
        // SAFETY: `count` attributes, by contract.
        let attributes = unsafe { config.attributes() };
        let cluster = cudart::launch::cluster_attribute(attributes).unwrap_or([1, 1, 1]);
        let cooperative = attributes
            .iter()
            .rev()
            .find(|attribute| attribute.id == ATTRIBUTE_COOPERATIVE)
            .is_some_and(|attribute| attribute.val[0] as u32 != 0);
        if cooperative && cluster != [1, 1, 1] {
            return Err(DriverError::new(
                crate::result::NOT_SUPPORTED,
                "a cooperative launch in thread-block clusters",
            ));
        }
        let shape = Shape {
            grid: config.grid,
            block: config.block,
            shared: config.shared,
            cluster,
            cooperative,
        };
        // SAFETY: forwarded from the caller.
        unsafe { launch(func, shape, config.stream, params, extra) }.map(drop)
    })
}

/// [`cuLaunchKernelEx`], NULL meaning the per-thread default stream.
///
/// # Safety
/// As [`cuLaunchKernelEx`].
#[no_mangle]
pub unsafe extern "C" fn cuLaunchKernelEx_ptsz(
    config: *const LaunchConfigEx,
    func: *mut c_void,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    if config.is_null() {
        // SAFETY: reports the NULL configuration.
        return unsafe { cuLaunchKernelEx(config, func, params, extra) };
    }
    // SAFETY: non-NULL, by contract; copied field by field.
    let local = unsafe {
        LaunchConfigEx {
            grid: (*config).grid,
            block: (*config).block,
            shared: (*config).shared,
            stream: cudart::launch::per_thread_default((*config).stream),
            attrs: (*config).attrs,
            count: (*config).count,
        }
    };
    // SAFETY: forwarded from the caller, with a local copy of the configuration.
    unsafe { cuLaunchKernelEx(&local, func, params, extra) }
}
