//! Queries about a kernel given by its host stub: `cudaFuncGetName`, `cudaFuncGetParamInfo`,
//! `cudaOccupancyAvailableDynamicSMemPerBlock`, `cudaFuncSetSharedMemConfig`, and
//! `cudaGetFuncBySymbol` (the kernel as a `cudaFunction_t`, which the driver API beside this
//! runtime takes as a `CUfunction`).
//!
//! The dynamic shared memory a block may use is the largest size at which the occupancy
//! calculation (`cudaOccupancyMaxActiveBlocksPerMultiprocessor`: the driver's on GPUs) still
//! fits the asked number of blocks on a multiprocessor, found by bisection.

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CString};
use std::sync::Mutex;

use crate::errors::{
    cudaError_t, guard, CudaError, CudaResult, INVALID_DEVICE_FUNCTION, INVALID_RESOURCE_HANDLE,
    INVALID_VALUE,
};
use crate::memory::store;
use crate::{launch, registry, state};

/// The device entry function of the kernel whose host stub is `symbol`, as a `cudaFunction_t`:
/// the kernel's registered entry (the handle `__cudaGetKernel` gives), which chevron's driver
/// API (`cuFuncGetAttribute`, `cuLaunchKernel`, ...) takes as the kernel on the calling
/// thread's device. The kernel is loaded on that device now, so that a kernel the device
/// cannot run is reported here. Not a registered kernel's stub: `cudaErrorInvalidDeviceFunction`.
///
/// # Safety
/// `function` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn cudaGetFuncBySymbol(
    function: *mut *mut c_void,
    symbol: *const c_void,
) -> cudaError_t {
    guard("cudaGetFuncBySymbol", || {
        if function.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "functionPtr is NULL"));
        }
        let entry = registry::kernel_entry(symbol)?;
        state::current()?;
        entry.kernel(state::current_ordinal())?;
        store(
            function,
            std::sync::Arc::as_ptr(&entry) as *mut c_void,
            "functionPtr",
        )
    })
}

/// The kernel of host stub `func` for the queries NVIDIA's runtime answers through a kernel
/// handle (`cudaFuncGetName`, `cudaOccupancyAvailableDynamicSMemPerBlock`): a pointer that is no
/// kernel's stub is `cudaErrorInvalidResourceHandle` there (an H200, CUDA 13.0), not
/// `cudaErrorInvalidDeviceFunction` as for `cudaFuncGetAttributes`.
fn kernel_by_handle(func: *const c_void) -> CudaResult<std::sync::Arc<registry::KernelEntry>> {
    registry::kernel_entry(func).map_err(|error| match error.code {
        INVALID_DEVICE_FUNCTION => CudaError::new(INVALID_RESOURCE_HANDLE, error.message),
        _ => error,
    })
}

/// The names handed out by `cudaFuncGetName`, kept for the program's life.
static NAMES: Mutex<Option<HashMap<String, CString>>> = Mutex::new(None);

/// The device symbol (mangled) name of the kernel whose host stub is `func`.
///
/// # Safety
/// `name` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn cudaFuncGetName(
    name: *mut *const c_char,
    func: *const c_void,
) -> cudaError_t {
    guard("cudaFuncGetName", || {
        if name.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "name is NULL"));
        }
        let entry = kernel_by_handle(func)?;
        let mut names = state::lock(&NAMES);
        let interned = names
            .get_or_insert_with(HashMap::new)
            .entry(entry.name.clone())
            .or_insert_with(|| CString::new(entry.name.as_str()).unwrap_or_default());
        store(name, interned.as_ptr(), "name")
    })
}

/// The offset and size of parameter `index` of the kernel in the device-side parameter
/// layout (either out-pointer may be NULL).
///
/// # Safety
/// `offset` and `size` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn cudaFuncGetParamInfo(
    func: *const c_void,
    index: usize,
    offset: *mut usize,
    size: *mut usize,
) -> cudaError_t {
    guard("cudaFuncGetParamInfo", || {
        let entry = registry::kernel_entry(func)?;
        state::current()?;
        let kernel = entry.kernel(state::current_ordinal())?;
        param_info(kernel, index, offset, size)
    })
}

/// Stores the offset and size of parameter `index` of `kernel` where the out-pointers are not
/// NULL (`cudaFuncGetParamInfo`, and the driver's `cuFuncGetParamInfo`).
pub fn param_info(
    kernel: &chevron::Kernel,
    index: usize,
    offset: *mut usize,
    size: *mut usize,
) -> crate::errors::CudaResult {
    let params = kernel.params().unwrap_or(&[]);
    let param = params.get(index).ok_or_else(|| {
        CudaError::new(
            INVALID_VALUE,
            format!("parameter {index} of a kernel with {}", params.len()),
        )
    })?;
    if !offset.is_null() {
        store(offset, param.offset as usize, "paramOffset")?;
    }
    if !size.is_null() {
        store(size, param.size as usize, "paramSize")?;
    }
    Ok(())
}

/// The most dynamic shared memory each block may use with `blocks` blocks of `block_size`
/// threads resident on a multiprocessor (0 when they do not fit even without any).
///
/// # Safety
/// `dynamic` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn cudaOccupancyAvailableDynamicSMemPerBlock(
    dynamic: *mut usize,
    func: *const c_void,
    blocks: c_int,
    block_size: c_int,
) -> cudaError_t {
    guard("cudaOccupancyAvailableDynamicSMemPerBlock", || {
        if dynamic.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "dynamicSmemSize is NULL"));
        }
        if blocks <= 0 || block_size <= 0 {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!("numBlocks {blocks} and blockSize {block_size} must be positive"),
            ));
        }
        let entry = kernel_by_handle(func)?;
        let ordinal = state::current_ordinal();
        state::current()?;
        let kernel = entry.kernel(ordinal)?;
        let fits = |bytes: usize| -> crate::errors::CudaResult<bool> {
            Ok(launch::active_blocks_on(&entry, ordinal, block_size, bytes)? >= blocks)
        };
        if !fits(0)? {
            return store(dynamic, 0, "dynamicSmemSize");
        }
        let limits = state::device(ordinal)?.device.limits();
        let ceiling = (limits.max_shared_per_block_optin as usize)
            .saturating_sub(kernel.static_shared_bytes() as usize);
        // The largest size that fits lies in [low, high).
        let (mut low, mut high) = (0usize, ceiling + 1);
        while high - low > 1 {
            let middle = low + (high - low) / 2;
            if fits(middle)? {
                low = middle;
            } else {
                high = middle;
            }
        }
        store(dynamic, low, "dynamicSmemSize")
    })
}

/// Accepts a kernel's bank-size preference (`cudaSharedMemBankSizeDefault`, `FourByte`,
/// `EightByte`), which changes nothing: devices since compute capability 5 have fixed
/// four-byte banks.
#[no_mangle]
pub extern "C" fn cudaFuncSetSharedMemConfig(func: *const c_void, config: c_int) -> cudaError_t {
    guard("cudaFuncSetSharedMemConfig", || {
        registry::kernel_entry(func)?;
        if !(0..=2).contains(&config) {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!("{config} is not a cudaSharedMemConfig"),
            ));
        }
        state::current().map(drop)
    })
}
