//! Launches in thread-block clusters: `cuLaunchKernelEx` with the cluster dimension and the
//! spread scheduling policy (as MLIR's `mgpuLaunchClusterKernel`).
//!
//! Kept out of the plain launch path: a cluster launch first checks that the device has
//! clusters (compute capability ≥ 9.0), that the cluster divides the grid and holds at most 8
//! blocks (the portable maximum), and that the driver exports `cuLaunchKernelEx` (CUDA ≥ 12.0).
//! A kernel compiled with a cluster shape (`.reqnctapercluster`, `__cluster_dims__`) is launched
//! plainly when asked for exactly that shape (the compiled shape applies to every launch) and
//! rejected for any other. Errors name the kernel and the device. The driver's occupancy
//! calculators for clusters (`cuOccupancyMaxActiveClusters`, `cuOccupancyMaxPotentialClusterSize`)
//! are asked here too.

use std::ffi::{c_int, c_void};

use super::context::DeviceState;
use super::module::CudaFunction;
use super::stream::CudaStream;
use super::sys::{self, attribute, CUlaunchAttribute, CUlaunchConfig};
use crate::backend::cluster::{check_shape, compiled_shape_differs};
use crate::backend::{self, LaunchConfig};
use crate::error::{Error, Result};

/// Launches `function` on `stream` in clusters of `cluster` blocks.
///
/// # Safety
/// As [`backend::Stream::launch`].
pub(super) unsafe fn launch(
    stream: &CudaStream,
    function: &dyn backend::Function,
    config: &LaunchConfig,
    cluster: [u32; 3],
    args: &[*mut c_void],
) -> Result<()> {
    let Some(function) = function.as_any().downcast_ref::<CudaFunction>() else {
        return Err(Error::InvalidValue {
            call: "Stream::launch_cluster",
            message: format!("kernel `{}` is not a CUDA kernel", function.name()),
        });
    };
    let state = &stream.state;
    let fail = |message: String| Error::LaunchConfig {
        kernel: function.name.clone(),
        device: state.label.clone(),
        message,
    };
    check_shape(config, cluster).map_err(fail)?;
    let required = required_cluster(stream, function);
    if let Some(required) = required.filter(|&r| r != cluster) {
        return Err(fail(compiled_shape_differs(required, cluster)));
    }
    if required.is_some() || cluster == [1, 1, 1] {
        // A compiled cluster shape applies to every launch of the kernel, and a cluster of one
        // block is what every launch has (on any compute capability).
        // SAFETY: forwarded from the caller.
        return unsafe { backend::Stream::launch(stream, function, config, args) };
    }
    let major = device_attribute(stream, attribute::COMPUTE_CAPABILITY_MAJOR)?;
    if major < 9 {
        let minor = device_attribute(stream, attribute::COMPUTE_CAPABILITY_MINOR)?;
        return Err(fail(format!(
            "thread-block clusters need compute capability 9.0 or later; this device is \
             {major}.{minor}"
        )));
    }
    let launch_ex = state
        .driver
        .cuLaunchKernelEx
        .ok_or_else(|| Error::Unavailable {
            backend: "cuda",
            reason: format!(
                "the CUDA driver has no cuLaunchKernelEx (CUDA 12.0 or later is needed to launch \
             kernel `{}` in clusters)",
                function.name
            ),
        })?;
    if config.shared_bytes > 0 {
        function.allow_dynamic_shared(config.shared_bytes)?;
    }
    let mut attributes = [
        attribute_value(sys::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, &cluster),
        attribute_value(
            sys::CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE,
            &[sys::CU_CLUSTER_SCHEDULING_POLICY_SPREAD],
        ),
    ];
    let launch_config = launch_config(config, stream.stream, &mut attributes);
    let params = super::stream::kernel_params(args);
    // SAFETY: the caller guarantees that the function belongs to this stream's device and that
    // `args` holds one pointer per parameter to a value of its size; `launch_config` and its
    // attributes live for the call, and the driver copies the values before returning.
    let call = || unsafe {
        launch_ex(
            &launch_config,
            function.function,
            params,
            std::ptr::null_mut(),
        )
    };
    let code = state.anywhere(call);
    if code != sys::CUDA_SUCCESS {
        let [x, y, z] = cluster;
        return Err(state.error(
            "cuLaunchKernelEx",
            code,
            format!(
                "kernel `{}`, {config}, clusters of ({x}, {y}, {z}) blocks",
                function.name
            ),
        ));
    }
    stream.remember_launch(function.name);
    Ok(())
}

/// `config`'s geometry on `stream` with `attributes`, which must outlive the driver call.
fn launch_config(
    config: &LaunchConfig,
    stream: sys::CUstream,
    attributes: &mut [CUlaunchAttribute],
) -> CUlaunchConfig {
    CUlaunchConfig {
        gridDimX: config.grid[0],
        gridDimY: config.grid[1],
        gridDimZ: config.grid[2],
        blockDimX: config.block[0],
        blockDimY: config.block[1],
        blockDimZ: config.block[2],
        sharedMemBytes: config.shared_bytes,
        hStream: stream,
        attrs: attributes.as_mut_ptr(),
        numAttrs: attributes.len() as u32,
    }
}

/// A launch attribute whose value union starts with `words`.
fn attribute_value(id: u32, words: &[u32]) -> CUlaunchAttribute {
    let mut value = [0u32; 16];
    value[..words.len()].copy_from_slice(words);
    CUlaunchAttribute {
        id,
        pad: [0; 4],
        value,
    }
}

/// The cluster shape the kernel was compiled for (`CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_*`), if
/// any. A driver that does not know the attributes has none.
fn required_cluster(stream: &CudaStream, function: &CudaFunction) -> Option<[u32; 3]> {
    let mut required = [0u32; 3];
    for (axis, which) in [
        REQUIRED_CLUSTER_WIDTH,
        REQUIRED_CLUSTER_HEIGHT,
        REQUIRED_CLUSTER_DEPTH,
    ]
    .into_iter()
    .enumerate()
    {
        let mut value: c_int = 0;
        // SAFETY: `function` is live and `value` a valid out-pointer.
        let code = unsafe {
            (stream.state.driver.cuFuncGetAttribute)(&mut value, which, function.function)
        };
        if code != sys::CUDA_SUCCESS || value <= 0 {
            return None;
        }
        required[axis] = value as u32;
    }
    Some(required)
}

/// `CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH`.
const REQUIRED_CLUSTER_WIDTH: c_int = 11;
/// `CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT`.
const REQUIRED_CLUSTER_HEIGHT: c_int = 12;
/// `CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH`.
const REQUIRED_CLUSTER_DEPTH: c_int = 13;

fn device_attribute(stream: &CudaStream, which: c_int) -> Result<i32> {
    let state = &stream.state;
    let mut value: c_int = 0;
    // SAFETY: `value` is a valid out-pointer and `device` a valid device handle.
    let code = unsafe { (state.driver.cuDeviceGetAttribute)(&mut value, which, state.device) };
    state.check("cuDeviceGetAttribute", code)?;
    Ok(value)
}

/// Clusters of `cluster` blocks of `config`'s shape resident at once, the driver's answer
/// (`cuOccupancyMaxActiveClusters`); `None` where the driver has no such calculator.
pub(super) fn max_active_clusters(
    state: &DeviceState,
    function: &CudaFunction,
    config: &LaunchConfig,
    cluster: [u32; 3],
) -> Result<Option<u32>> {
    let Some(occupancy) = state.driver.cuOccupancyMaxActiveClusters else {
        return Ok(None);
    };
    let mut attributes = [attribute_value(
        sys::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
        &cluster,
    )];
    let launch_config = launch_config(config, std::ptr::null_mut(), &mut attributes);
    let clusters = std::cell::Cell::new(0 as c_int);
    // SAFETY: `function` is live, `clusters` a valid out-pointer, and `launch_config` with its
    // attribute lives for the call, which only reads it.
    let ask = || unsafe { occupancy(clusters.as_ptr(), function.function, &launch_config) };
    let code = state.anywhere(ask);
    if code != sys::CUDA_SUCCESS {
        let [x, y, z] = cluster;
        return Err(state.error(
            "cuOccupancyMaxActiveClusters",
            code,
            format!(
                "kernel `{}`, {config}, clusters of ({x}, {y}, {z}) blocks",
                function.name
            ),
        ));
    }
    Ok(Some(clusters.get().max(0) as u32))
}

/// The largest cluster `config`'s shape can be launched in, the driver's answer
/// (`cuOccupancyMaxPotentialClusterSize`); `None` where the driver has no such calculator.
pub(super) fn max_potential_cluster_size(
    state: &DeviceState,
    function: &CudaFunction,
    config: &LaunchConfig,
) -> Result<Option<u32>> {
    let Some(occupancy) = state.driver.cuOccupancyMaxPotentialClusterSize else {
        return Ok(None);
    };
    let launch_config = launch_config(config, std::ptr::null_mut(), &mut []);
    let blocks = std::cell::Cell::new(0 as c_int);
    // SAFETY: `function` is live, `blocks` a valid out-pointer, and `launch_config` (without
    // attributes) lives for the call, which only reads it.
    let ask = || unsafe { occupancy(blocks.as_ptr(), function.function, &launch_config) };
    let code = state.anywhere(ask);
    if code != sys::CUDA_SUCCESS {
        return Err(state.error(
            "cuOccupancyMaxPotentialClusterSize",
            code,
            format!("kernel `{}`, {config}", function.name),
        ));
    }
    Ok(Some(blocks.get().max(0) as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(grid: [u32; 3]) -> LaunchConfig {
        LaunchConfig {
            grid,
            block: [32, 1, 1],
            shared_bytes: 0,
        }
    }

    #[test]
    fn launch_structures_have_the_driver_layout() {
        assert_eq!(std::mem::size_of::<CUlaunchAttribute>(), 72);
        assert_eq!(std::mem::align_of::<CUlaunchAttribute>(), 8);
        assert_eq!(std::mem::size_of::<CUlaunchConfig>(), 56);
        assert_eq!(std::mem::size_of::<sys::CUtensorMap>(), 128);
        assert_eq!(std::mem::align_of::<sys::CUtensorMap>(), 64);
        let attr = attribute_value(sys::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, &[2, 3, 1]);
        assert_eq!(&attr.value[..4], &[2, 3, 1, 0]);
    }

    #[test]
    fn cluster_shapes_are_checked_against_the_grid() {
        assert_eq!(check_shape(&grid([8, 2, 1]), [2, 2, 1]), Ok(()));
        let odd = check_shape(&grid([3, 1, 1]), [2, 1, 1]).unwrap_err();
        assert!(
            odd.contains("grid x = 3 is not a multiple of the cluster's x = 2"),
            "{odd}"
        );
        let big = check_shape(&grid([16, 1, 1]), [16, 1, 1]).unwrap_err();
        assert!(
            big.contains("16 blocks exceed the portable maximum of 8"),
            "{big}"
        );
        let empty = check_shape(&grid([4, 1, 1]), [0, 1, 1]).unwrap_err();
        assert!(empty.contains("empty dimension"), "{empty}");
    }
}
