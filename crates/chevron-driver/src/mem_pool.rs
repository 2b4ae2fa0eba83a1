//! Stream-ordered allocation and memory pools through the driver API: `cuMemAllocAsync`,
//! `cuMemAllocFromPoolAsync`, `cuMemFreeAsync`, `cuMemPoolCreate/Destroy`,
//! `cuMemPoolSet/GetAttribute`, `cuMemPoolTrimTo` and the device's default and current pools.
//! One pool model serves both APIs: these are the runtime's functions (`cudart::mem_pool`),
//! whose `CUmemoryPool`, `CUmemPoolProps` and attribute numbers the driver's share; a
//! `CUdeviceptr` is the runtime's pointer.

use std::ffi::{c_int, c_void};

use cudart::mem_pool;

use crate::memory::CUdeviceptr;

forward! {
    /// Allocates `bytes` from the stream's device's current pool, ordered on `stream`.
    cuMemAllocAsync => alloc_async, (out: *mut CUdeviceptr, bytes: usize, stream: *mut c_void);
    /// Allocates `bytes` from `pool`, ordered on `stream`.
    cuMemAllocFromPoolAsync => alloc_from_pool_async,
        (out: *mut CUdeviceptr, bytes: usize, pool: *mut c_void, stream: *mut c_void);
    /// Frees an allocation of a pool, ordered on `stream`.
    cuMemFreeAsync => free_async, (ptr: CUdeviceptr, stream: *mut c_void);
    /// The device's default pool.
    cuDeviceGetDefaultMemPool => mem_pool::cudaDeviceGetDefaultMemPool,
        (pool: *mut *mut c_void, device: c_int);
    /// The device's current pool.
    cuDeviceGetMemPool => mem_pool::cudaDeviceGetMemPool, (pool: *mut *mut c_void, device: c_int);
    /// Makes `pool` the device's current pool.
    cuDeviceSetMemPool => mem_pool::cudaDeviceSetMemPool, (device: c_int, pool: *mut c_void);
    /// Creates a pool (`CUmemPoolProps` has the runtime's layout).
    cuMemPoolCreate => mem_pool::cudaMemPoolCreate, (pool: *mut *mut c_void, props: *const c_void);
    /// Destroys a pool.
    cuMemPoolDestroy => mem_pool::cudaMemPoolDestroy, (pool: *mut c_void);
    /// Sets a pool attribute (`CUmemPool_attribute` numbers them as the runtime does).
    cuMemPoolSetAttribute => mem_pool::cudaMemPoolSetAttribute,
        (pool: *mut c_void, attribute: c_int, value: *mut c_void);
    /// Reads a pool attribute.
    cuMemPoolGetAttribute => mem_pool::cudaMemPoolGetAttribute,
        (pool: *mut c_void, attribute: c_int, value: *mut c_void);
    /// Releases the pool's unused memory down to `min_bytes` held.
    cuMemPoolTrimTo => mem_pool::cudaMemPoolTrimTo, (pool: *mut c_void, min_bytes: usize);
}

fn alloc_async(out: *mut CUdeviceptr, bytes: usize, stream: *mut c_void) -> c_int {
    mem_pool::cudaMallocAsync(out.cast(), bytes, stream)
}

fn alloc_from_pool_async(
    out: *mut CUdeviceptr,
    bytes: usize,
    pool: *mut c_void,
    stream: *mut c_void,
) -> c_int {
    mem_pool::cudaMallocFromPoolAsync(out.cast(), bytes, pool, stream)
}

fn free_async(ptr: CUdeviceptr, stream: *mut c_void) -> c_int {
    mem_pool::cudaFreeAsync(ptr as *mut c_void, stream)
}
