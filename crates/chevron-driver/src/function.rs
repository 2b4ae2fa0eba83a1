//! Function attributes and occupancy: `cuFuncGetAttribute`, `cuFuncSetAttribute`,
//! `cuFuncSetCacheConfig`, and the occupancy calculators, from the kernel's limits and the
//! device's (the same figures as the runtime's `cudaFuncGetAttributes` and occupancy calls).

use std::ffi::{c_int, c_uint, c_void};
use std::sync::atomic::Ordering;

use cudart::state;

use crate::module::{function, FunctionEntry};
use crate::result::{entry, store, CUresult, DriverError, DriverResult, INVALID_VALUE, SUCCESS};

/// The registers per thread reported for a kernel whose PTX chevron does not see (a GPU
/// binary); occupancy answers do not depend on it.
const REGISTERS_OF_BINARIES: u32 = 32;

fn attribute_of(function: &FunctionEntry, attribute: c_int) -> DriverResult<c_int> {
    let kernel = &function.kernel;
    state::device(function.ordinal)?;
    let shared = kernel.static_shared_bytes();
    Ok(match attribute {
        0 => kernel.max_threads_per_block() as c_int,
        1 => shared as c_int,
        2 => function.resources.const_bytes as c_int,
        3 => function.resources.local_bytes as c_int,
        7 | 10..=15 => 0,
        4 => match function.resources.registers {
            0 => REGISTERS_OF_BINARIES as c_int,
            known => known as c_int,
        },
        5 => function.versions.0,
        6 => function.versions.1,
        8 => dynamic_shared_limit(function) as c_int,
        9 => -1,
        other => {
            return Err(DriverError::new(
                INVALID_VALUE,
                format!("{other} is not a CUfunction_attribute"),
            ))
        }
    })
}

/// One attribute of a function (`CUfunction_attribute`).
#[no_mangle]
pub extern "C" fn cuFuncGetAttribute(
    value: *mut c_int,
    attribute: c_int,
    func: *mut c_void,
) -> CUresult {
    entry("cuFuncGetAttribute", || {
        let function = function(func)?;
        store(value, attribute_of(&function, attribute)?, "pi")
    })
}

/// The dynamic shared memory a launch of `function` may use: the default (the device's shared
/// memory per block less the kernel's static shared memory, 48 KiB on NVIDIA's GPUs) until
/// `cuFuncSetAttribute` raised it.
#[inline]
pub fn dynamic_shared_limit(function: &FunctionEntry) -> u32 {
    match function.max_dynamic_shared.load(Ordering::Acquire) {
        -1 => cudart::func_attributes::default_max_dynamic_shared(&function.kernel),
        set => set.max(0) as u32,
    }
}

/// Sets an attribute: the dynamic shared memory limit is recorded (and checked against the
/// device); the others are hints.
#[no_mangle]
pub extern "C" fn cuFuncSetAttribute(
    func: *mut c_void,
    attribute: c_int,
    value: c_int,
) -> CUresult {
    entry("cuFuncSetAttribute", || {
        let function = function(func)?;
        // The attributes CUDA lets a program set: the dynamic shared memory limit, the
        // carveout and the cluster ones (`cudaFuncAttribute`'s 8 to 15); the others are
        // read-only.
        if !(8..=15).contains(&attribute) {
            return Err(DriverError::new(
                INVALID_VALUE,
                format!("function attribute {attribute} is read-only or unknown"),
            ));
        }
        if attribute == 9 && !(-1..=100).contains(&value) {
            return Err(DriverError::new(
                INVALID_VALUE,
                format!("a carveout of {value}% (-1 or 0..=100)"),
            ));
        }
        if attribute == 8 {
            let device = &state::device(function.ordinal)?.device;
            let room = device
                .limits()
                .max_shared_per_block_optin
                .saturating_sub(function.kernel.static_shared_bytes());
            if value < 0 || value as u32 > room {
                return Err(DriverError::new(
                    INVALID_VALUE,
                    format!("{value} bytes of dynamic shared memory (at most {room})"),
                ));
            }
            function.max_dynamic_shared.store(value, Ordering::Release);
        }
        attribute_of(&function, attribute).map(drop)
    })
}

/// Fails with `CUDA_ERROR_INVALID_VALUE` unless `value` is one of an enumeration's `count`
/// values, 0 to `count - 1`.
fn check_enum(value: c_int, count: c_int, what: &str) -> DriverResult {
    if (0..count).contains(&value) {
        Ok(())
    } else {
        Err(DriverError::new(
            INVALID_VALUE,
            format!("{what} {value} is not one of CUDA's {count}"),
        ))
    }
}

/// Accepts a cache preference (`CUfunc_cache`; chevron's devices have one configuration).
#[no_mangle]
pub extern "C" fn cuFuncSetCacheConfig(func: *mut c_void, config: c_int) -> CUresult {
    entry("cuFuncSetCacheConfig", || {
        function(func)?;
        check_enum(config, 4, "cache configuration")
    })
}

/// Accepts a shared memory bank configuration (`CUsharedconfig`).
#[no_mangle]
pub extern "C" fn cuFuncSetSharedMemConfig(func: *mut c_void, config: c_int) -> CUresult {
    entry("cuFuncSetSharedMemConfig", || {
        function(func)?;
        check_enum(config, 3, "shared memory configuration")
    })
}

/// Blocks of `block` threads resident per multiprocessor.
pub(crate) fn active_blocks(
    function: &FunctionEntry,
    block: c_int,
    dynamic_shared: usize,
) -> DriverResult<c_int> {
    let device = &state::device(function.ordinal)?.device;
    let kernel = &function.kernel;
    let block = u32::try_from(block).unwrap_or(0);
    if block == 0 || block > kernel.max_threads_per_block() {
        return Ok(0);
    }
    let by_threads = 2048 / block;
    let shared = u64::from(kernel.static_shared_bytes()) + dynamic_shared as u64;
    let by_shared = u64::from(device.limits().max_shared_per_block_optin)
        .checked_div(shared)
        .map_or(u32::MAX, |blocks| blocks as u32);
    Ok(by_threads.min(by_shared).min(32) as c_int)
}

/// Occupancy: resident blocks per multiprocessor.
#[no_mangle]
pub extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessor(
    blocks: *mut c_int,
    func: *mut c_void,
    block: c_int,
    dynamic_shared: usize,
) -> CUresult {
    entry("cuOccupancyMaxActiveBlocksPerMultiprocessor", || {
        let function = function(func)?;
        store(
            blocks,
            active_blocks(&function, block, dynamic_shared)?,
            "numBlocks",
        )
    })
}

/// As [`cuOccupancyMaxActiveBlocksPerMultiprocessor`]; the flags change nothing here.
#[no_mangle]
pub extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    blocks: *mut c_int,
    func: *mut c_void,
    block: c_int,
    dynamic_shared: usize,
    flags: c_uint,
) -> CUresult {
    let _ = flags;
    cuOccupancyMaxActiveBlocksPerMultiprocessor(blocks, func, block, dynamic_shared)
}

/// `CUoccupancyB2DSize`: dynamic shared memory for a block size.
type BlockToShared = Option<unsafe extern "C" fn(c_int) -> usize>;

/// The block size with the best occupancy (the largest the kernel allows, within `limit`) and
/// the smallest grid that fills the device with it.
///
/// # Safety
/// `to_shared` is NULL or callable.
#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxPotentialBlockSize(
    min_grid: *mut c_int,
    block: *mut c_int,
    func: *mut c_void,
    to_shared: BlockToShared,
    dynamic_shared: usize,
    limit: c_int,
) -> CUresult {
    entry("cuOccupancyMaxPotentialBlockSize", || {
        let function = function(func)?;
        let mut size = function.kernel.max_threads_per_block() as c_int;
        if limit > 0 {
            size = size.min(limit);
        }
        size = (size / 32).max(1) * 32;
        // SAFETY: callable by the caller's guarantee.
        let shared = to_shared.map_or(dynamic_shared, |f| unsafe { f(size) });
        let per_sm = active_blocks(&function, size, shared)?;
        let sms = state::device(function.ordinal)?
            .device
            .multiprocessor_count() as c_int;
        store(min_grid, per_sm * sms, "minGridSize")?;
        store(block, size, "blockSize")
    })
}

/// As [`cuOccupancyMaxPotentialBlockSize`]; the flags change nothing here.
///
/// # Safety
/// As [`cuOccupancyMaxPotentialBlockSize`].
#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxPotentialBlockSizeWithFlags(
    min_grid: *mut c_int,
    block: *mut c_int,
    func: *mut c_void,
    to_shared: BlockToShared,
    dynamic_shared: usize,
    limit: c_int,
    flags: c_uint,
) -> CUresult {
    let _ = flags;
    // SAFETY: forwarded from the caller.
    unsafe {
        cuOccupancyMaxPotentialBlockSize(min_grid, block, func, to_shared, dynamic_shared, limit)
    }
}

/// Dynamic shared memory available per block with `blocks` blocks per multiprocessor.
#[no_mangle]
pub extern "C" fn cuOccupancyAvailableDynamicSMemPerBlock(
    bytes: *mut usize,
    func: *mut c_void,
    blocks: c_int,
    block: c_int,
) -> CUresult {
    let _ = block;
    entry("cuOccupancyAvailableDynamicSMemPerBlock", || {
        let function = function(func)?;
        let device = &state::device(function.ordinal)?.device;
        let total = device.limits().max_shared_per_block_optin as usize;
        let per_block = total / blocks.max(1) as usize;
        let available = per_block.saturating_sub(function.kernel.static_shared_bytes() as usize);
        store(bytes, available, "dynamicSmemSize")
    })
}

/// [`cuFuncGetAttribute`] of a library kernel (the device changes nothing: a kernel is loaded
/// on one device).
#[no_mangle]
pub extern "C" fn cuKernelGetAttribute(
    value: *mut c_int,
    attribute: c_int,
    kernel: *mut c_void,
    device: c_int,
) -> CUresult {
    entry("cuKernelGetAttribute", || {
        crate::context::checked_device(device)?;
        let function = function(kernel)?;
        store(value, attribute_of(&function, attribute)?, "pi")
    })
}

/// [`cuFuncSetAttribute`] of a library kernel.
#[no_mangle]
pub extern "C" fn cuKernelSetAttribute(
    attribute: c_int,
    value: c_int,
    kernel: *mut c_void,
    device: c_int,
) -> CUresult {
    match entry("cuKernelSetAttribute", || {
        crate::context::checked_device(device).map(drop)
    }) {
        SUCCESS => cuFuncSetAttribute(kernel, attribute, value),
        code => code,
    }
}

/// [`cuFuncSetCacheConfig`] of a library kernel.
#[no_mangle]
pub extern "C" fn cuKernelSetCacheConfig(
    kernel: *mut c_void,
    config: c_int,
    device: c_int,
) -> CUresult {
    match entry("cuKernelSetCacheConfig", || {
        crate::context::checked_device(device).map(drop)
    }) {
        SUCCESS => cuFuncSetCacheConfig(kernel, config),
        code => code,
    }
}

/// The offset and size of parameter `index` of a function.
#[no_mangle]
pub extern "C" fn cuFuncGetParamInfo(
    func: *mut c_void,
    index: usize,
    offset: *mut usize,
    size: *mut usize,
) -> CUresult {
    entry("cuFuncGetParamInfo", || {
        let function = function(func)?;
        Ok(cudart::func_queries::param_info(
            &function.kernel,
            index,
            offset,
            size,
        )?)
    })
}

/// [`cuFuncGetParamInfo`] of a library kernel.
#[no_mangle]
pub extern "C" fn cuKernelGetParamInfo(
    kernel: *mut c_void,
    index: usize,
    offset: *mut usize,
    size: *mut usize,
) -> CUresult {
    cuFuncGetParamInfo(kernel, index, offset, size)
}
