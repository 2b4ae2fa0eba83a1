//! `__device__`/`__constant__` variables by their host shadow (`cudaMemcpyToSymbol`,
//! `cudaMemcpyFromSymbol`, `cudaGetSymbolAddress`, `cudaGetSymbolSize`) and
//! `cudaPointerGetAttributes`.

use std::ffi::{c_int, c_void};

use crate::abi::{
    cudaPointerAttributes, MEMORY_TYPE_DEVICE, MEMORY_TYPE_HOST, MEMORY_TYPE_MANAGED,
    MEMORY_TYPE_UNREGISTERED,
};
use crate::copy::copy_between;
use crate::errors::{cudaError_t, guard, CudaError, CudaResult, INVALID_VALUE};
use crate::memory::{live_owner, store, Place};
use crate::mirror::{self, MirrorKind};
use crate::registry;
use crate::state;

/// The device address of `symbol` on the current device, checked to hold `offset + bytes`.
pub(crate) fn symbol_address(
    symbol: *const c_void,
    offset: usize,
    bytes: usize,
) -> CudaResult<u64> {
    let entry = registry::var_entry(symbol)?;
    state::current()?;
    let global = entry.global(state::current_ordinal())?;
    let size = global.size.max(entry.size as u64);
    if (offset as u64).saturating_add(bytes as u64) > size {
        return Err(CudaError::new(
            INVALID_VALUE,
            format!(
                "{bytes} bytes at offset {offset} exceed `{}` ({size} bytes)",
                entry.name
            ),
        ));
    }
    Ok(global.ptr + offset as u64)
}

fn copy_symbol(
    to_symbol: bool,
    symbol: *const c_void,
    host: u64,
    bytes: usize,
    offset: usize,
    stream: *mut c_void,
    sync: bool,
) -> CudaResult {
    let address = symbol_address(symbol, offset, bytes)?;
    let (_, stream) = state::submit_stream(stream)?;
    // The variable is memory of the current device even where no allocation holds it (a
    // GPU module's variables): classifying it by address would take it for host memory.
    let variable = (address, Some(Place::Device(state::current_ordinal())));
    let other = (host, None);
    if to_symbol {
        copy_between(&stream, variable, other, bytes)?;
    } else {
        copy_between(&stream, other, variable, bytes)?;
    }
    if sync {
        stream.synchronize()?;
    }
    Ok(())
}

/// Copies to a `__device__`/`__constant__` variable.
#[no_mangle]
pub extern "C" fn cudaMemcpyToSymbol(
    symbol: *const c_void,
    src: *const c_void,
    bytes: usize,
    offset: usize,
    kind: c_int,
) -> cudaError_t {
    let _ = kind;
    guard("cudaMemcpyToSymbol", || {
        copy_symbol(
            true,
            symbol,
            src as u64,
            bytes,
            offset,
            std::ptr::null_mut(),
            true,
        )
    })
}

/// Copies from a `__device__`/`__constant__` variable.
#[no_mangle]
pub extern "C" fn cudaMemcpyFromSymbol(
    dst: *mut c_void,
    symbol: *const c_void,
    bytes: usize,
    offset: usize,
    kind: c_int,
) -> cudaError_t {
    let _ = kind;
    guard("cudaMemcpyFromSymbol", || {
        copy_symbol(
            false,
            symbol,
            dst as u64,
            bytes,
            offset,
            std::ptr::null_mut(),
            true,
        )
    })
}

/// [`cudaMemcpyToSymbol`] ordered on `stream`.
#[no_mangle]
pub extern "C" fn cudaMemcpyToSymbolAsync(
    symbol: *const c_void,
    src: *const c_void,
    bytes: usize,
    offset: usize,
    kind: c_int,
    stream: *mut c_void,
) -> cudaError_t {
    let _ = kind;
    guard("cudaMemcpyToSymbolAsync", || {
        copy_symbol(true, symbol, src as u64, bytes, offset, stream, false)
    })
}

/// [`cudaMemcpyFromSymbol`] ordered on `stream`.
#[no_mangle]
pub extern "C" fn cudaMemcpyFromSymbolAsync(
    dst: *mut c_void,
    symbol: *const c_void,
    bytes: usize,
    offset: usize,
    kind: c_int,
    stream: *mut c_void,
) -> cudaError_t {
    let _ = kind;
    guard("cudaMemcpyFromSymbolAsync", || {
        copy_symbol(false, symbol, dst as u64, bytes, offset, stream, false)
    })
}

/// The device address of a variable on the current device.
#[no_mangle]
pub extern "C" fn cudaGetSymbolAddress(
    address: *mut *mut c_void,
    symbol: *const c_void,
) -> cudaError_t {
    guard("cudaGetSymbolAddress", || {
        let ptr = symbol_address(symbol, 0, 0)?;
        store(address, ptr as usize as *mut c_void, "devPtr")
    })
}

/// The size of a variable.
#[no_mangle]
pub extern "C" fn cudaGetSymbolSize(size: *mut usize, symbol: *const c_void) -> cudaError_t {
    guard("cudaGetSymbolSize", || {
        let entry = registry::var_entry(symbol)?;
        state::current()?;
        let global = entry.global(state::current_ordinal())?;
        store(size, global.size as usize, "size")
    })
}

/// What `ptr` points to: device, pinned, managed or unregistered host memory.
#[no_mangle]
pub extern "C" fn cudaPointerGetAttributes(
    attributes: *mut cudaPointerAttributes,
    ptr: *const c_void,
) -> cudaError_t {
    guard("cudaPointerGetAttributes", || {
        let address = ptr as u64;
        // Only live memory is device memory: a freed pointer is unknown to CUDA, which
        // reports it as unregistered.
        let (kind, device, device_ptr, host_ptr) =
            // Managed memory first: a GPU's driver also counts it as device memory.
            match (live_owner(address), mirror::find(ptr as usize)) {
                (_, Some((_, MirrorKind::Managed, ordinal))) => {
                    (MEMORY_TYPE_MANAGED, ordinal as c_int, ptr, ptr)
                }
                (Some(ordinal), _) => (MEMORY_TYPE_DEVICE, ordinal as c_int, ptr, std::ptr::null()),
                (None, Some((_, _, ordinal))) => (MEMORY_TYPE_HOST, ordinal as c_int, ptr, ptr),
                (None, None) => (MEMORY_TYPE_UNREGISTERED, -2, std::ptr::null(), ptr),
            };
        store(
            attributes,
            cudaPointerAttributes {
                r#type: kind,
                device,
                devicePointer: device_ptr as *mut c_void,
                hostPointer: host_ptr as *mut c_void,
                reserved: [0; 8],
            },
            "attributes",
        )
    })
}
