//! The baseline: `cuLaunchKernel` and `cuStreamSynchronize` called straight through the same
//! driver table chevron uses, on the same function and stream handles
//! (`chevron::backend::cuda::raw`).

use std::ffi::c_void;

use chevron::backend::cuda::raw::{self, Driver};
use chevron::{Error, Kernel, LaunchConfig, Result, Stream};

use crate::raw_graph::{CUfunction, CUresult, CUstream, CUDA_SUCCESS};

/// A raw driver launcher for one kernel on one stream.
pub(crate) struct RawLauncher {
    driver: &'static Driver,
    function: CUfunction,
    stream: CUstream,
    config: LaunchConfig,
}

impl RawLauncher {
    /// The raw handles behind a chevron kernel and stream; `None` unless both are CUDA.
    pub(crate) fn new(
        kernel: &Kernel,
        stream: &Stream,
        config: LaunchConfig,
    ) -> Option<RawLauncher> {
        Some(RawLauncher {
            function: raw::function(kernel.backend_function())?,
            stream: raw::stream(stream.backend_stream())?,
            driver: raw::driver().ok()?,
            config,
        })
    }

    /// One `cuLaunchKernel`.
    ///
    /// # Safety
    /// `args` holds one pointer per kernel parameter to a value of its size.
    #[inline]
    pub(crate) unsafe fn launch(&self, args: &[*mut c_void]) -> Result<()> {
        let [gx, gy, gz] = self.config.grid;
        let [bx, by, bz] = self.config.block;
        let params = if args.is_empty() {
            std::ptr::null_mut()
        } else {
            args.as_ptr() as *mut *mut c_void
        };
        // SAFETY: the handles come from live chevron objects the caller keeps alive; the
        // argument pointers are guaranteed by the caller.
        let code = unsafe {
            (self.driver.cuLaunchKernel)(
                self.function,
                gx,
                gy,
                gz,
                bx,
                by,
                bz,
                self.config.shared_bytes,
                self.stream,
                params,
                std::ptr::null_mut(),
            )
        };
        self.check("cuLaunchKernel", code)
    }

    /// One `cuStreamSynchronize`.
    pub(crate) fn synchronize(&self) -> Result<()> {
        // SAFETY: the stream is live.
        let code = unsafe { (self.driver.cuStreamSynchronize)(self.stream) };
        self.check("cuStreamSynchronize", code)
    }

    fn check(&self, call: &'static str, code: CUresult) -> Result<()> {
        if code == CUDA_SUCCESS {
            Ok(())
        } else {
            Err(Error::InvalidValue {
                call: "bench",
                message: format!("raw {call} returned {code}"),
            })
        }
    }
}
