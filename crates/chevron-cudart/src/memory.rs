//! Memory: device allocations, pinned/managed/registered host memory, copies and fills.
//!
//! Device allocations are chevron buffers kept by address (a free is deferred until the work
//! submitted so far is done). Copies classify both pointers by address, as CUDA's unified
//! addressing does for `cudaMemcpyDefault`, so every `cudaMemcpyKind` takes the same path.

use std::collections::HashMap;
use std::ffi::{c_int, c_uint, c_void};
use std::sync::Mutex;

use chevron::{Buffer, Stream};

use crate::errors::{
    cudaError_t, guard, CudaError, CudaResult, INVALID_DEVICE_POINTER, INVALID_MEMCPY_DIRECTION,
    INVALID_VALUE,
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

/// Writes `value` through an out-pointer, refusing NULL.
pub(crate) fn store<T>(out: *mut T, value: T, what: &str) -> CudaResult {
    if out.is_null() {
        return Err(CudaError::new(INVALID_VALUE, format!("{what} is NULL")));
    }
    // SAFETY: non-NULL; writable by the API's contract.
    unsafe { out.write(value) };
    Ok(())
}

/// Allocates device memory on the current device.
#[no_mangle]
pub extern "C" fn cudaMalloc(ptr: *mut *mut c_void, size: usize) -> cudaError_t {
    guard("cudaMalloc", || {
        let state = state::current()?;
        let buffer = Buffer::<u8>::new(&state.device, size.max(1))?;
        let address = buffer.device_ptr();
        lock(&ALLOCATIONS)
            .get_or_insert_with(HashMap::new)
            .insert(address, buffer);
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

fn alloc_mirrored(ptr: *mut *mut c_void, size: usize, kind: MirrorKind) -> CudaResult {
    state::current()?;
    if let Some(host) = mirror::alloc_zero_copy(size, kind)? {
        return store(ptr, host, "ptr");
    }
    let host = mirror::host_alloc(size)?;
    if let Err(error) = mirror::add(host, size, kind) {
        // SAFETY: just allocated with this size.
        unsafe { mirror::host_free(host, size) }?;
        return Err(error);
    }
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

/// [`cudaMallocHost`] with flags (portable, mapped and write-combined are all provided).
#[no_mangle]
pub extern "C" fn cudaHostAlloc(ptr: *mut *mut c_void, size: usize, flags: c_uint) -> cudaError_t {
    let _ = flags;
    guard("cudaHostAlloc", || {
        alloc_mirrored(ptr, size, MirrorKind::Pinned)
    })
}

/// Managed memory: host memory mirrored on the current device (see [`crate::mirror`]).
#[no_mangle]
pub extern "C" fn cudaMallocManaged(
    ptr: *mut *mut c_void,
    size: usize,
    flags: c_uint,
) -> cudaError_t {
    let _ = flags;
    guard("cudaMallocManaged", || {
        alloc_mirrored(ptr, size, MirrorKind::Managed)
    })
}

/// Frees memory from [`cudaMallocHost`] or [`cudaHostAlloc`].
#[no_mangle]
pub extern "C" fn cudaFreeHost(ptr: *mut c_void) -> cudaError_t {
    guard("cudaFreeHost", || match mirror::find(ptr as usize) {
        Some((start, MirrorKind::Pinned, _)) if start == ptr as usize => free_host(ptr),
        _ => Err(CudaError::new(
            INVALID_VALUE,
            format!("{ptr:p} was not returned by cudaMallocHost"),
        )),
    })
}

/// Makes the program's host memory addressable by kernels.
#[no_mangle]
pub extern "C" fn cudaHostRegister(ptr: *mut c_void, size: usize, flags: c_uint) -> cudaError_t {
    let _ = flags;
    guard("cudaHostRegister", || {
        if mirror::find(ptr as usize).is_some() {
            return Err(CudaError::new(
                crate::errors::HOST_MEMORY_ALREADY_REGISTERED,
                format!("{ptr:p} is already registered"),
            ));
        }
        mirror::add(ptr, size, MirrorKind::Registered)
    })
}

/// Undoes [`cudaHostRegister`].
#[no_mangle]
pub extern "C" fn cudaHostUnregister(ptr: *mut c_void) -> cudaError_t {
    guard("cudaHostUnregister", || {
        mirror::pull_all()?;
        mirror::remove(ptr).map(drop)
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

/// Copies `bytes` from `src` to `dst` on `stream`, whatever each side is.
pub fn copy(stream: &Stream, dst: u64, src: u64, bytes: usize) -> CudaResult {
    copy_between(stream, (dst, None), (src, None), bytes)
}

/// [`copy`] with either side's place given by the caller (`None`: classified by address).
///
/// A caller that knows a side's place (a module variable's mirror, say) passes it, which saves
/// the classification.
pub fn copy_between(
    stream: &Stream,
    (dst, dst_place): (u64, Option<Place>),
    (src, src_place): (u64, Option<Place>),
    bytes: usize,
) -> CudaResult {
    if bytes == 0 {
        return Ok(());
    }
    if dst == 0 || src == 0 {
        return Err(CudaError::new(INVALID_VALUE, "a NULL pointer"));
    }
    mirror::pull_all()?;
    let dst_place = dst_place.unwrap_or_else(|| place_of(dst));
    let src_place = src_place.unwrap_or_else(|| place_of(src));
    match (dst_place, src_place) {
        (Place::Host, Place::Host) => {
            stream.synchronize()?;
            // SAFETY: both are host ranges of `bytes` bytes (the caller's contract).
            unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, bytes) };
        }
        (Place::Device(_), Place::Host) => {
            // SAFETY: as above, for the source.
            let host = unsafe { std::slice::from_raw_parts(src as *const u8, bytes) };
            stream.copy_to_device_at(dst, host)?;
        }
        (Place::Host, Place::Device(_)) => {
            // SAFETY: as above, for the destination.
            let host = unsafe { std::slice::from_raw_parts_mut(dst as *mut u8, bytes) };
            stream.copy_to_host_at(host, src)?;
        }
        (Place::Device(to), Place::Device(from)) if to == from => {
            stream.copy_on_device_at(dst, src, bytes as u64)?;
        }
        (Place::Device(_), Place::Device(_)) => {
            let mut staging = vec![0u8; bytes];
            stream.copy_to_host_at(&mut staging, src)?;
            stream.copy_to_device_at(dst, &staging)?;
        }
    }
    Ok(())
}

fn check_kind(kind: c_int) -> CudaResult {
    if (0..=4).contains(&kind) {
        Ok(())
    } else {
        Err(CudaError::new(
            INVALID_MEMCPY_DIRECTION,
            format!("cudaMemcpyKind {kind}"),
        ))
    }
}

/// Synchronous copy (every `cudaMemcpyKind`).
#[no_mangle]
pub extern "C" fn cudaMemcpy(
    dst: *mut c_void,
    src: *const c_void,
    bytes: usize,
    kind: c_int,
) -> cudaError_t {
    guard("cudaMemcpy", || {
        check_kind(kind)?;
        let (_, stream) = state::submit_stream(std::ptr::null_mut())?;
        copy(&stream, dst as u64, src as u64, bytes)?;
        stream.synchronize()?;
        mirror::pull_all()
    })
}

/// Copy ordered on `stream`.
#[no_mangle]
pub extern "C" fn cudaMemcpyAsync(
    dst: *mut c_void,
    src: *const c_void,
    bytes: usize,
    kind: c_int,
    stream: *mut c_void,
) -> cudaError_t {
    guard("cudaMemcpyAsync", || {
        check_kind(kind)?;
        let (_, stream) = state::submit_stream(stream)?;
        copy(&stream, dst as u64, src as u64, bytes)
    })
}

/// Copies `height` rows of `width` bytes between pitched buffers.
#[no_mangle]
pub extern "C" fn cudaMemcpy2D(
    dst: *mut c_void,
    dst_pitch: usize,
    src: *const c_void,
    src_pitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
) -> cudaError_t {
    guard("cudaMemcpy2D", || {
        check_kind(kind)?;
        if width > dst_pitch || width > src_pitch {
            return Err(CudaError::new(
                crate::errors::INVALID_VALUE,
                format!("width {width} exceeds a pitch ({dst_pitch}, {src_pitch})"),
            ));
        }
        let (_, stream) = state::submit_stream(std::ptr::null_mut())?;
        for row in 0..height {
            let (d, s) = (
                (dst as usize + row * dst_pitch) as u64,
                (src as usize + row * src_pitch) as u64,
            );
            copy(&stream, d, s, width)?;
        }
        stream.synchronize()?;
        Ok(())
    })
}

fn fill(stream: &Stream, ptr: *mut c_void, value: c_int, bytes: usize) -> CudaResult {
    if bytes == 0 {
        return Ok(());
    }
    match place_of(ptr as u64) {
        Place::Device(_) => {
            stream.memset_at(ptr as u64, (value & 0xff) as u32, 1, bytes as u64)?;
        }
        Place::Host if mirror::find(ptr as usize).is_some() => {
            mirror::pull_all()?;
            stream.synchronize()?;
            // SAFETY: a mirrored host range of at least `bytes` bytes (the caller's contract).
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
        if let Some(captured) = crate::graphs::capture_memset(stream, ptr as u64, value, bytes) {
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
