//! A context's limits and preferences through the driver API: `cuCtxGetLimit`/`cuCtxSetLimit`
//! (on a GPU the driver's own, on the CPU device chevron's) and the cache and shared-memory
//! preferences, the runtime's functions of the same meaning (`cudart::limits`) on the current
//! context's device.

use std::ffi::c_int;

use cudart::limits;

forward! {
    /// A limit of the current context (`CUlimit` has `cudaLimit`'s values).
    cuCtxGetLimit => limits::cudaDeviceGetLimit, (value: *mut usize, limit: c_int);
    /// Sets a limit of the current context.
    cuCtxSetLimit => limits::cudaDeviceSetLimit, (limit: c_int, value: usize);
    /// The current context's cache preference (`CUfunc_cache`).
    cuCtxGetCacheConfig => limits::cudaDeviceGetCacheConfig, (config: *mut c_int);
    /// Keeps the current context's cache preference.
    cuCtxSetCacheConfig => limits::cudaDeviceSetCacheConfig, (config: c_int);
    /// Returns the current context's persisting L2 lines to normal.
    cuCtxResetPersistingL2Cache => cudart::device_queries::cudaCtxResetPersistingL2Cache, ();
    /// The shared-memory bank size: four bytes.
    cuCtxGetSharedMemConfig => limits::cudaDeviceGetSharedMemConfig, (config: *mut c_int);
    /// Accepts a bank-size preference, which changes nothing.
    cuCtxSetSharedMemConfig => limits::cudaDeviceSetSharedMemConfig, (config: c_int);
}
