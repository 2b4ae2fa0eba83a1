//! Memory: device allocations, pinned/managed/registered host memory and fills (copies are in
//! [`crate::copy`]).
//!
//! Device allocations are chevron buffers kept by address (a free is deferred until the work
//! submitted so far is done).

use std::collections::HashMap;
use std::ffi::{c_int, c_uint, c_void};
use std::sync::Mutex;

use chevron::host_range::{check_host_range, Access};
use chevron::{Buffer, Stream};

use crate::errors::{
    cudaError_t, guard, CudaError, CudaResult, INVALID_DEVICE_POINTER, INVALID_VALUE,
};
use crate::mirror::{self, MirrorKind};
use crate::state::{self, lock};

static ALLOCATIONS: Mutex<Option<HashMap<u64, Buffer<u8>>>> = Mutex::new(None);

/// Where a pointer points.
#[derive(Clone, Copy)]
pub enum Place {
    /// Device memory of device `.0`.
    Device(usize),
    /// Host memory (plain, pinned, managed or registered).
    Host,
}

/// Classifies `ptr` by address: an allocation of a device, else any address a device owns
/// (a module variable, memory from another API, a freed allocation), else host memory.
pub fn place_of(ptr: u64) -> Place {
    if let Ok(devices) = state::devices() {
        let owner = devices
            .iter()
            .position(|state| state.device.allocation_of(ptr).is_some())
            .or_else(|| {
                devices
                    .iter()
                    .position(|state| state.device.is_device_address(ptr))
            });
        if let Some(ordinal) = owner {
            return Place::Device(ordinal);
        }
    }
    Place::Host
}

/// The device owning live memory at `ptr` (an allocation or a module variable); freed memory
/// belongs to no one. The CPU device's allocation table holds its variables too; a GPU's
/// driver answers for memory chevron did not allocate, and knows freed memory is gone.
pub fn live_owner(ptr: u64) -> Option<usize> {
    let devices = state::devices().ok()?;
    devices.iter().position(|state| {
        state.device.allocation_of(ptr).is_some()
            || (state.device.backend() == chevron::BackendKind::Cuda
                && state.device.is_device_address(ptr))
    })
}

/// Frees every allocation of device `ordinal` (`cudaDeviceReset`, which then synchronizes
/// the device).
pub fn free_device_allocations(ordinal: usize) {
    let Ok(device) = state::device(ordinal) else {
        return;
    };
    let freed: Vec<Buffer<u8>> = match lock(&ALLOCATIONS).as_mut() {
        Some(allocations) => {
            let addresses: Vec<u64> = allocations
                .iter()
                .filter(|(_, buffer)| buffer.device().same_device(&device.device))
                .map(|(&address, _)| address)
                .collect();
            addresses
                .iter()
                .filter_map(|address| allocations.remove(address))
                .collect()
        }
        None => Vec::new(),
    };
    // Released once the device's streams pass this point (the reset synchronizes next).
    drop(freed);
}

/// Writes `value` through an out-pointer, refusing NULL.
pub(crate) fn store<T>(out: *mut T, value: T, what: &str) -> CudaResult {
    if out.is_null() {
        return Err(CudaError::new(INVALID_VALUE, format!("{what} is NULL")));
    }
    // SAFETY: non-NULL; writable by the API's contract.
    unsafe { out.write(value) };
    Ok(())
}

/// Makes `buffer` a live allocation (for `cudaFree`, copies and pointer queries), made by
/// `call`; returns its address.
pub(crate) fn adopt(buffer: Buffer<u8>, size: usize, call: &'static str) -> u64 {
    let address = buffer.device_ptr();
    lock(&ALLOCATIONS)
        .get_or_insert_with(HashMap::new)
        .insert(address, buffer);
    chevron::check::track_allocation(address, size as u64, call);
    address
}

/// Takes allocation `ptr` out of the live allocations.
pub(crate) fn release(ptr: u64) -> Option<Buffer<u8>> {
    let removed = lock(&ALLOCATIONS).as_mut().and_then(|a| a.remove(&ptr));
    if removed.is_some() {
        chevron::check::forget_allocation(ptr);
    }
    removed
}

/// Allocates device memory on the current device.
#[no_mangle]
pub extern "C" fn cudaMalloc(ptr: *mut *mut c_void, size: usize) -> cudaError_t {
    guard("cudaMalloc", || {
        if ptr.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "devPtr is NULL"));
        }
        let state = state::current()?;
        let buffer = Buffer::<u8>::new(&state.device, size.max(1))?;
        let address = buffer.device_ptr();
        lock(&ALLOCATIONS)
            .get_or_insert_with(HashMap::new)
            .insert(address, buffer);
        chevron::check::track_allocation(address, size as u64, "cudaMalloc");
        store(ptr, address as usize as *mut c_void, "devPtr")
    })
}

/// Frees device or managed memory (NULL is a no-op).
#[no_mangle]
pub extern "C" fn cudaFree(ptr: *mut c_void) -> cudaError_t {
    guard("cudaFree", || {
        if ptr.is_null() {
            return Ok(());
        }
        let removed = lock(&ALLOCATIONS)
            .as_mut()
            .and_then(|a| a.remove(&(ptr as u64)));
        if let Some(buffer) = removed {
            chevron::check::forget_allocation(ptr as u64);
            // As CUDA's cudaFree does.
            buffer.free_now()?;
            return Ok(());
        }
        match mirror::find(ptr as usize) {
            Some((start, MirrorKind::Managed, _)) if start == ptr as usize => free_host(ptr),
            _ => Err(CudaError::new(
                INVALID_DEVICE_POINTER,
                format!("{ptr:p} was not returned by cudaMalloc or cudaMallocManaged"),
            )),
        }
    })
}

/// `cudaHostAllocWriteCombined`.
const HOST_ALLOC_WRITE_COMBINED: c_uint = 0x04;

fn alloc_mirrored(ptr: *mut *mut c_void, size: usize, kind: MirrorKind) -> CudaResult {
    alloc_host_memory(ptr, size, kind, 0)
}

fn alloc_host_memory(
    ptr: *mut *mut c_void,
    size: usize,
    kind: MirrorKind,
    flags: c_uint,
) -> CudaResult {
    if ptr.is_null() {
        return Err(CudaError::new(INVALID_VALUE, "ptr is NULL"));
    }
    state::current()?;
    let write_combined = flags & HOST_ALLOC_WRITE_COMBINED != 0;
    if let Some(host) = mirror::alloc_zero_copy(size, kind, write_combined)? {
        mirror::record_flags(host, flags);
        return store(ptr, host, "ptr");
    }
    let host = mirror::host_alloc(size)?;
    if let Err(error) = mirror::add(host, size, kind) {
        // SAFETY: just allocated with this size.
        unsafe { mirror::host_free(host, size) }?;
        return Err(error);
    }
    mirror::record_flags(host, flags);
    store(ptr, host, "ptr")
}

fn free_host(ptr: *mut c_void) -> CudaResult {
    mirror::pull_all()?;
    let (len, _, zero_copy) = mirror::remove(ptr)?;
    if let Some(ordinal) = zero_copy {
        // Kernels may still use it: as cudaFreeHost does, wait for the device first.
        let device = &state::device(ordinal)?.device;
        device.synchronize()?;
        return Ok(device.free_host_visible(ptr as u64)?);
    }
    // SAFETY: mirrored allocations made here come from `host_alloc` with this length.
    unsafe { mirror::host_free(ptr, len) }
}

/// Allocates pinned host memory that kernels may also address.
#[no_mangle]
pub extern "C" fn cudaMallocHost(ptr: *mut *mut c_void, size: usize) -> cudaError_t {
    guard("cudaMallocHost", || {
        alloc_mirrored(ptr, size, MirrorKind::Pinned)
    })
}

/// [`cudaMallocHost`] with flags: memory is always portable and mapped (as with unified
/// addressing); write-combined where asked.
#[no_mangle]
pub extern "C" fn cudaHostAlloc(ptr: *mut *mut c_void, size: usize, flags: c_uint) -> cudaError_t {
    guard("cudaHostAlloc", || {
        if flags & !0x07 != 0 {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!("cudaHostAlloc flags {flags:#x}"),
            ));
        }
        alloc_host_memory(ptr, size, MirrorKind::Pinned, flags)
    })
}

/// Managed memory: host memory mirrored on the current device (see [`crate::mirror`]).
#[no_mangle]
pub extern "C" fn cudaMallocManaged(
    ptr: *mut *mut c_void,
    size: usize,
    flags: c_uint,
) -> cudaError_t {
    guard("cudaMallocManaged", || {
        // cudaMemAttachGlobal (1) or cudaMemAttachHost (2); 0 is taken as the default.
        if flags > 2 {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!("flags {flags:#x} (cudaMemAttachGlobal or cudaMemAttachHost)"),
            ));
        }
        alloc_mirrored(ptr, size, MirrorKind::Managed)
    })
}

/// Frees memory from [`cudaMallocHost`] or [`cudaHostAlloc`]; NULL is nothing to free (as
/// `free(NULL)`, and as CUDA answers).
#[no_mangle]
pub extern "C" fn cudaFreeHost(ptr: *mut c_void) -> cudaError_t {
    guard("cudaFreeHost", || match mirror::find(ptr as usize) {
        _ if ptr.is_null() => Ok(()),
        Some((start, MirrorKind::Pinned, _)) if start == ptr as usize => free_host(ptr),
        _ => Err(CudaError::new(
            INVALID_VALUE,
            format!("{ptr:p} was not returned by cudaMallocHost"),
        )),
    })
}

/// `cudaHostRegisterReadOnly`: kernels only read the range.
const HOST_REGISTER_READ_ONLY: c_uint = 0x08;

/// Makes the program's host memory addressable by kernels. The range must be mapped host
/// memory (writable, unless registered read-only): NULL, an empty range or an unmapped one is
/// `cudaErrorInvalidValue`, so no later launch or copy touches memory that is not there.
#[no_mangle]
pub extern "C" fn cudaHostRegister(ptr: *mut c_void, size: usize, flags: c_uint) -> cudaError_t {
    guard("cudaHostRegister", || {
        if ptr.is_null() || size == 0 {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!("{size} bytes at {ptr:p}: a registered range is non-NULL and non-empty"),
            ));
        }
        // Portable, mapped, I/O memory, read-only.
        if flags & !(0x1 | 0x2 | 0x4 | HOST_REGISTER_READ_ONLY) != 0 {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!("flags {flags:#x} has unknown bits"),
            ));
        }
        let access = if flags & HOST_REGISTER_READ_ONLY != 0 {
            Access::Read
        } else {
            Access::Write
        };
        check_host_range("cudaHostRegister", "ptr", ptr as u64, size as u64, access)?;
        let end = (ptr as usize).saturating_add(size - 1);
        if mirror::find(ptr as usize).is_some() || mirror::find(end).is_some() {
            return Err(CudaError::new(
                crate::errors::HOST_MEMORY_ALREADY_REGISTERED,
                format!("{ptr:p} is already registered"),
            ));
        }
        // SAFETY: checked above to be mapped host memory; cudaHostRegister's contract keeps it
        // alive until cudaHostUnregister.
        unsafe { mirror::register(ptr as usize, size) }.map(drop)
    })
}

/// Undoes [`cudaHostRegister`].
#[no_mangle]
pub extern "C" fn cudaHostUnregister(ptr: *mut c_void) -> cudaError_t {
    guard("cudaHostUnregister", || {
        if ptr.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "ptr is NULL"));
        }
        mirror::pull_all()?;
        let (_, _, mapped_on) = mirror::remove(ptr)?;
        if let Some(ordinal) = mapped_on {
            // The range's start as registered, handed back to the driver (never read here).
            let start = ptr as usize as *mut c_void;
            state::device(ordinal)?.device.unmap_host_memory(start)?;
        }
        Ok(())
    })
}

/// The device address of pinned memory: the same address (unified addressing; launches
/// translate it).
#[no_mangle]
pub extern "C" fn cudaHostGetDevicePointer(
    device: *mut *mut c_void,
    host: *mut c_void,
    flags: c_uint,
) -> cudaError_t {
    let _ = flags;
    guard("cudaHostGetDevicePointer", || {
        match mirror::find(host as usize) {
            Some(_) => store(device, host, "pDevice"),
            None => Err(CudaError::new(
                INVALID_VALUE,
                format!("{host:p} is not pinned or registered host memory"),
            )),
        }
    })
}

pub(crate) fn fill(stream: &Stream, ptr: *mut c_void, value: c_int, bytes: usize) -> CudaResult {
    if bytes == 0 {
        return Ok(());
    }
    match place_of(ptr as u64) {
        Place::Device(_) => {
            stream.memset_at(ptr as u64, (value & 0xff) as u32, 1, bytes as u64)?;
        }
        Place::Host if mirror::find(ptr as usize).is_some() => {
            check_host_range(
                "cudaMemset",
                "devPtr",
                ptr as u64,
                bytes as u64,
                Access::Write,
            )?;
            mirror::pull_all()?;
            stream.synchronize()?;
            // SAFETY: checked to be writable host memory of `bytes` bytes.
            unsafe { std::ptr::write_bytes(ptr as *mut u8, value as u8, bytes) };
        }
        Place::Host => {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!("{ptr:p} is not device memory"),
            ));
        }
    }
    Ok(())
}

/// Fills `bytes` bytes with `value`.
#[no_mangle]
pub extern "C" fn cudaMemset(ptr: *mut c_void, value: c_int, bytes: usize) -> cudaError_t {
    guard("cudaMemset", || {
        let (_, stream) = state::submit_stream(std::ptr::null_mut())?;
        fill(&stream, ptr, value, bytes)?;
        stream.synchronize()?;
        Ok(())
    })
}

/// Fill ordered on `stream`.
#[no_mangle]
pub extern "C" fn cudaMemsetAsync(
    ptr: *mut c_void,
    value: c_int,
    bytes: usize,
    stream: *mut c_void,
) -> cudaError_t {
    guard("cudaMemsetAsync", || {
        if let Some(captured) = crate::capturing::memset(stream, ptr as u64, value, bytes) {
            return captured;
        }
        let (_, stream) = state::submit_stream(stream)?;
        fill(&stream, ptr, value, bytes)
    })
}

/// Free and total memory of the current device.
#[no_mangle]
pub extern "C" fn cudaMemGetInfo(free: *mut usize, total: *mut usize) -> cudaError_t {
    guard("cudaMemGetInfo", || {
        let state = state::current()?;
        let total_bytes = state.device.total_memory() as usize;
        let used: u64 = lock(&ALLOCATIONS)
            .as_ref()
            .map_or(0, |a| a.values().map(|b| b.size_bytes()).sum());
        store(free, total_bytes.saturating_sub(used as usize), "free")?;
        store(total, total_bytes, "total")
    })
}
