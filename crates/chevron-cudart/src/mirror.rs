//! Host memory that kernels may address: managed memory (`cudaMallocManaged`), pinned memory
//! (`cudaMallocHost`, `cudaHostAlloc`) and registered memory (`cudaHostRegister`).
//!
//! Where the device addresses host memory itself (`Device::alloc_host_visible`: a CPU device's
//! memory is the host's; on CUDA the driver's pinned and managed memory), pinned and managed
//! memory are allocated there and are zero-copy: the range is only recorded, with no device
//! copy, so kernels and the host share its bytes at one address while kernels run, and
//! pointers stored inside the data work. Registered memory is mapped in place where the device
//! can (`Device::map_host_memory`: CUDA's `cuMemHostRegister`). Otherwise (registered memory on
//! a CPU device) each range is host memory mirrored by a device allocation. A launch
//! argument word pointing into a mirrored range is rewritten to the mirror's device address,
//! and the range is copied to the device before the launch; synchronizing calls copy mirrors
//! that kernels may have written back to the host. This is the coherence of managed memory on
//! devices without page faulting: the host must not touch a range while a kernel that uses it
//! runs. Pointers stored inside device data structures are not rewritten.

use std::collections::BTreeMap;
use std::ffi::{c_uint, c_void};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

use chevron::{Buffer, HostVisibleKind, ParamLayout, Stream};

use crate::errors::{CudaError, CudaResult, HOST_MEMORY_NOT_REGISTERED, INVALID_VALUE};
use crate::state::{self, lock};

/// What kind of host memory a mirror serves.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MirrorKind {
    /// `cudaMallocManaged`.
    Managed,
    /// `cudaMallocHost`, `cudaHostAlloc`.
    Pinned,
    /// `cudaHostRegister`.
    Registered,
}

struct Mirror {
    len: usize,
    kind: MirrorKind,
    device: usize,
    /// The device copy; `None` for zero-copy memory the device addresses itself.
    buffer: Option<Buffer<u8>>,
    /// A kernel may have written the device copy since it was last copied back.
    device_dirty: bool,
}

static MIRRORS: Mutex<BTreeMap<usize, Mirror>> = Mutex::new(BTreeMap::new());
static ANY: AtomicBool = AtomicBool::new(false);

/// Mirrors `len` bytes of host memory at `host` on the current device.
pub fn add(host: *mut c_void, len: usize, kind: MirrorKind) -> CudaResult {
    let ordinal = state::current_ordinal();
    let buffer = Some(Buffer::<u8>::new(&state::current()?.device, len.max(1))?);
    insert(host, len, kind, ordinal, buffer);
    Ok(())
}

/// Allocates `len` bytes of zero-copy host memory on the current device for `kind` (pinned
/// memory write-combined if `write_combined`), if the device has such memory (`None`: mirror
/// host memory instead).
pub fn alloc_zero_copy(
    len: usize,
    kind: MirrorKind,
    write_combined: bool,
) -> CudaResult<Option<*mut c_void>> {
    let ordinal = state::current_ordinal();
    let visible = match kind {
        MirrorKind::Managed => HostVisibleKind::Managed,
        _ => HostVisibleKind::Pinned { write_combined },
    };
    let Some(host) = state::current()?
        .device
        .alloc_host_visible(len.max(1) as u64, visible)?
    else {
        return Ok(None);
    };
    let host = host as usize as *mut c_void;
    insert(host, len, kind, ordinal, None);
    Ok(Some(host))
}

/// Registers the program's `len` bytes at `host` on the current device: mapped in place where
/// the device maps host memory at the host's own address (`true`), else mirrored.
///
/// # Safety
/// `host..host + len` is the program's mapped host memory, alive until it is unregistered.
pub unsafe fn register(host: usize, len: usize) -> CudaResult<bool> {
    let host = host as *mut c_void;
    let ordinal = state::current_ordinal();
    let device = &state::current()?.device;
    // SAFETY: the caller's guarantee.
    match unsafe { device.map_host_memory(host, len as u64) } {
        Ok(address) if address == host as u64 => {
            insert(host, len, MirrorKind::Registered, ordinal, None);
            Ok(true)
        }
        Ok(_) => {
            device.unmap_host_memory(host)?;
            add(host, len, MirrorKind::Registered).map(|()| false)
        }
        Err(_) if device.backend() != chevron::BackendKind::Cuda => {
            add(host, len, MirrorKind::Registered).map(|()| false)
        }
        Err(error) => Err(error.into()),
    }
}

fn insert(
    host: *mut c_void,
    len: usize,
    kind: MirrorKind,
    device: usize,
    buffer: Option<Buffer<u8>>,
) {
    let mirror = Mirror {
        len,
        kind,
        device,
        buffer,
        device_dirty: false,
    };
    lock(&MIRRORS).insert(host as usize, mirror);
    ANY.store(true, Ordering::Release);
}

/// Stops mirroring the range starting at `host`; returns its length, its kind, and for
/// zero-copy memory the device ordinal that must free it.
pub fn remove(host: *mut c_void) -> CudaResult<(usize, MirrorKind, Option<usize>)> {
    let mut mirrors = lock(&MIRRORS);
    let mirror = mirrors.remove(&(host as usize)).ok_or_else(|| {
        CudaError::new(
            HOST_MEMORY_NOT_REGISTERED,
            format!("{host:p} is not the start of pinned, managed or registered memory"),
        )
    })?;
    ANY.store(!mirrors.is_empty(), Ordering::Release);
    drop(mirrors);
    lock(&FLAGS).remove(&(host as usize));
    crate::managed_hints::forget(host as usize, host as usize + mirror.len);
    let zero_copy = mirror.buffer.is_none().then_some(mirror.device);
    Ok((mirror.len, mirror.kind, zero_copy))
}

/// The flags host allocations were made with (`cudaHostAlloc`), by start; see [`flags`].
static FLAGS: Mutex<BTreeMap<usize, c_uint>> = Mutex::new(BTreeMap::new());

/// Records the flags the host allocation at `start` was made with.
pub fn record_flags(start: *mut c_void, flags: c_uint) {
    lock(&FLAGS).insert(start as usize, flags);
}

/// The flags the host allocation at `start` was made with (0 when none were recorded).
pub fn flags(start: usize) -> c_uint {
    lock(&FLAGS).get(&start).copied().unwrap_or(0)
}

/// The mirrored range containing `ptr`: (start, kind, device ordinal).
pub fn find(ptr: usize) -> Option<(usize, MirrorKind, usize)> {
    if !ANY.load(Ordering::Acquire) {
        return None;
    }
    let mirrors = lock(&MIRRORS);
    let (start, mirror) = mirrors.range(..=ptr).next_back()?;
    (ptr < start + mirror.len.max(1)).then_some((*start, mirror.kind, mirror.device))
}

/// The mirrored range containing `ptr`: (start, length in bytes).
pub fn range_of(ptr: usize) -> Option<(usize, usize)> {
    if !ANY.load(Ordering::Acquire) {
        return None;
    }
    let mirrors = lock(&MIRRORS);
    let (start, mirror) = mirrors.range(..=ptr).next_back()?;
    (ptr < start + mirror.len.max(1)).then_some((*start, mirror.len))
}

/// The device ordinal whose zero-copy memory (the device addresses it in place: pinned,
/// managed or mapped registered memory) holds all of `[ptr, ptr + len)`.
pub fn zero_copy_device(ptr: usize, len: usize) -> Option<usize> {
    if !ANY.load(Ordering::Acquire) {
        return None;
    }
    let mirrors = lock(&MIRRORS);
    let (start, mirror) = mirrors.range(..=ptr).next_back()?;
    let inside = ptr
        .checked_add(len)
        .is_some_and(|end| end <= start + mirror.len);
    (inside && mirror.buffer.is_none()).then_some(mirror.device)
}

/// Whether `[ptr, ptr + len)` lies inside one pinned or managed range: host memory this runtime
/// allocated and still holds, so mapped and writable (registered ranges are the program's,
/// which may unmap or write-protect them).
pub fn allocated_here(ptr: usize, len: usize) -> bool {
    if !ANY.load(Ordering::Acquire) {
        return false;
    }
    let mirrors = lock(&MIRRORS);
    mirrors
        .range(..=ptr)
        .next_back()
        .is_some_and(|(start, mirror)| {
            mirror.kind != MirrorKind::Registered
                && ptr
                    .checked_add(len)
                    .is_some_and(|end| end <= start + mirror.len)
        })
}

/// Runs `launch` with `args`, where every pointer-sized argument, and every 8-byte-aligned word
/// of a by-value aggregate (MLIR's memref descriptor passes its pointers inside a 40-byte
/// `.param .b8[40]`), that points into a mirrored range is replaced by the device address,
/// after copying the range to the device on `stream`.
pub fn with_translated_args(
    stream: &Stream,
    params: &[ParamLayout],
    args: &[*mut c_void],
    launch: impl FnOnce(&[*mut c_void]) -> CudaResult,
) -> CudaResult {
    if !translating() {
        return launch(args);
    }
    // Each parameter's bytes, when one of its words was translated.
    let mut rewritten: Vec<Option<Vec<u8>>> = Vec::with_capacity(args.len());
    {
        let mut mirrors = lock(&MIRRORS);
        for (param, &arg) in params.iter().zip(args) {
            let size = param.size as usize;
            if size < 8 || arg.is_null() {
                rewritten.push(None);
                continue;
            }
            // SAFETY: a parameter's argument points to `size` readable bytes.
            let bytes = unsafe { std::slice::from_raw_parts(arg as *const u8, size) };
            let mut copy: Option<Vec<u8>> = None;
            for at in (0..size - 7).step_by(8) {
                let mut word = [0u8; 8];
                word.copy_from_slice(&bytes[at..at + 8]);
                let address = u64::from_le_bytes(word) as usize;
                let Some((start, mirror)) = mirrors.range_mut(..=address).next_back() else {
                    continue;
                };
                if address >= start + mirror.len.max(1) {
                    continue;
                }
                let Some(buffer_ptr) = mirror.buffer.as_ref().map(Buffer::device_ptr) else {
                    continue; // zero-copy: the device uses the address itself
                };
                push(stream, *start, mirror)?;
                let device = buffer_ptr + (address - start) as u64;
                copy.get_or_insert_with(|| bytes.to_vec())[at..at + 8]
                    .copy_from_slice(&device.to_le_bytes());
            }
            rewritten.push(copy);
        }
    }
    if rewritten.iter().all(Option::is_none) {
        return launch(args);
    }
    let pointers: Vec<*mut c_void> = args
        .iter()
        .zip(rewritten.iter_mut())
        .map(|(&arg, copy)| match copy {
            Some(bytes) => bytes.as_mut_ptr() as *mut c_void,
            None => arg,
        })
        .collect();
    launch(&pointers)
}

/// Copies a mirrored range to its device copy on `stream` and marks it as kernel-written.
fn push(stream: &Stream, start: usize, mirror: &mut Mirror) -> CudaResult {
    let Some(buffer) = &mirror.buffer else {
        return Ok(());
    };
    if mirror.len > 0 {
        // SAFETY: the range is host memory of `len` bytes owned by the program.
        let host = unsafe { std::slice::from_raw_parts(start as *const u8, mirror.len) };
        stream.copy_to_device_at(buffer.device_ptr(), host)?;
    }
    mirror.device_dirty = true;
    Ok(())
}

/// Host memory kept coherent like mirrors by a layer above (`__managed__` variables, see
/// `managed_vars`), which adds it with its first variable.
pub(crate) struct Coherent {
    /// Whether any of it exists.
    pub in_use: fn() -> bool,
    /// Copies what kernels may have written back to the host (after their work).
    pub pull: fn() -> CudaResult,
}

static COHERENT: OnceLock<Coherent> = OnceLock::new();

/// Adds host memory kept coherent like mirrors (the first one added stays).
pub(crate) fn add_coherent(coherent: Coherent) {
    let _ = COHERENT.set(coherent);
}

/// Whether host memory is mirrored on a device: launch arguments are then translated
/// ([`with_translated_args`]).
#[inline]
pub fn translating() -> bool {
    ANY.load(Ordering::Acquire)
}

/// Whether any host memory is mirrored (mirrors or `__managed__` variables exist): host code
/// then sees kernels' writes only through [`pull_all`].
pub fn in_use() -> bool {
    ANY.load(Ordering::Acquire) || COHERENT.get().is_some_and(|c| (c.in_use)())
}

/// Copies every mirror that kernels may have written back to the host (after their work).
pub fn pull_all() -> CudaResult {
    if let Some(coherent) = COHERENT.get() {
        (coherent.pull)()?;
    }
    if !ANY.load(Ordering::Acquire) {
        return Ok(());
    }
    let mut mirrors = lock(&MIRRORS);
    for (&start, mirror) in mirrors.iter_mut().filter(|(_, m)| m.device_dirty) {
        let Some(buffer) = &mirror.buffer else {
            continue;
        };
        // Kernels writing the mirror may run on any stream of its device.
        buffer.device().synchronize()?;
        // SAFETY: the range is host memory of `len` bytes owned by the program.
        let host = unsafe { std::slice::from_raw_parts_mut(start as *mut u8, mirror.len) };
        let stream = state::device(mirror.device)?.legacy();
        stream.copy_to_host_at(host, buffer.device_ptr())?;
        mirror.device_dirty = false;
    }
    Ok(())
}

/// Allocates `len` zeroed bytes of page-aligned host memory.
pub fn host_alloc(len: usize) -> CudaResult<*mut c_void> {
    let layout = host_layout(len)?;
    // SAFETY: the layout has a non-zero size.
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
    if ptr.is_null() {
        return Err(CudaError::new(
            crate::errors::MEMORY_ALLOCATION,
            format!("{len} bytes of host memory"),
        ));
    }
    Ok(ptr as *mut c_void)
}

/// Frees memory from [`host_alloc`].
///
/// # Safety
/// `ptr` came from [`host_alloc`] with the same `len` and is freed once.
pub unsafe fn host_free(ptr: *mut c_void, len: usize) -> CudaResult {
    let layout = host_layout(len)?;
    // SAFETY: the caller's guarantee.
    unsafe { std::alloc::dealloc(ptr as *mut u8, layout) };
    Ok(())
}

fn host_layout(len: usize) -> CudaResult<std::alloc::Layout> {
    std::alloc::Layout::from_size_align(len.max(1), 4096)
        .map_err(|_| CudaError::new(INVALID_VALUE, format!("{len} bytes of host memory")))
}
