//! Cooperative launches: `cuLaunchCooperativeKernel`, so that every block of the grid is
//! resident at once and grid-wide synchronization (`cg::this_grid().sync()`) works. A plain
//! `cuLaunchKernel` of such a kernel fails at its grid barrier (`CUDA_ERROR_LAUNCH_FAILED`).
//!
//! Kept out of the plain launch path. The driver itself refuses a grid larger than the device
//! holds at once (`CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE`); the error names the kernel and the
//! device.

use std::ffi::c_void;

use super::module::CudaFunction;
use super::stream::CudaStream;
use super::sys;
use crate::backend::{self, LaunchConfig};
use crate::error::{Error, Result};

/// Launches `function` on `stream` cooperatively.
///
/// # Safety
/// As [`backend::Stream::launch`].
pub(super) unsafe fn launch(
    stream: &CudaStream,
    function: &dyn backend::Function,
    config: &LaunchConfig,
    args: &[*mut c_void],
) -> Result<()> {
    let Some(function) = function.as_any().downcast_ref::<CudaFunction>() else {
        return Err(Error::InvalidValue {
            call: "Stream::launch_cooperative",
            message: format!("kernel `{}` is not a CUDA kernel", function.name()),
        });
    };
    let state = &stream.state;
    let cooperative = state
        .driver
        .cuLaunchCooperativeKernel
        .ok_or_else(|| Error::Unavailable {
            backend: "cuda",
            reason: format!(
                "the CUDA driver has no cuLaunchCooperativeKernel (CUDA 9.0 or later is needed \
                 to launch kernel `{}` cooperatively)",
                function.name
            ),
        })?;
    if config.shared_bytes > 0 {
        function.allow_dynamic_shared(config.shared_bytes)?;
    }
    let params = super::stream::kernel_params(args);
    let [gx, gy, gz] = config.grid;
    let [bx, by, bz] = config.block;
    // SAFETY: the caller guarantees that the function belongs to this stream's device and that
    // `args` holds one pointer per parameter to a value of its size; the driver copies the
    // values before returning.
    let call = || unsafe {
        cooperative(
            function.function,
            gx,
            gy,
            gz,
            bx,
            by,
            bz,
            config.shared_bytes,
            stream.stream,
            params,
        )
    };
    let code = state.anywhere(call);
    if code != sys::CUDA_SUCCESS {
        return Err(state.error(
            "cuLaunchCooperativeKernel",
            code,
            format!("kernel `{}`, {config}", function.name),
        ));
    }
    stream.remember_launch(function.name);
    Ok(())
}
