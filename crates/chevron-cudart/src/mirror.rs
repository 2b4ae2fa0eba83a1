//! Host memory that kernels may address: managed memory (`cudaMallocManaged`), pinned memory
//! (`cudaMallocHost`, `cudaHostAlloc`) and registered memory (`cudaHostRegister`).
//!
//! Each such range is host memory the program reads and writes directly, mirrored by a device
//! allocation. A launch argument pointing into a mirrored range is rewritten to the mirror's
//! device address, and the range is copied to the device before the launch; synchronizing calls
//! copy mirrors that kernels may have written back to the host. This is the coherence of
//! managed memory on devices without page faulting: the host must not touch a range while a
//! kernel that uses it runs. Pointers stored inside device data structures are not rewritten.

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use chevron::{Buffer, ParamLayout, Stream};

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
    buffer: Buffer<u8>,
    /// A kernel may have written the device copy since it was last copied back.
    device_dirty: bool,
}

static MIRRORS: Mutex<BTreeMap<usize, Mirror>> = Mutex::new(BTreeMap::new());
static ANY: AtomicBool = AtomicBool::new(false);

/// Mirrors `len` bytes of host memory at `host` on the current device.
pub fn add(host: *mut c_void, len: usize, kind: MirrorKind) -> CudaResult {
    let ordinal = state::current_ordinal();
    let buffer = Buffer::<u8>::new(&state::current()?.device, len.max(1))?;
    let mirror = Mirror {
        len,
        kind,
        device: ordinal,
        buffer,
        device_dirty: false,
    };
    lock(&MIRRORS).insert(host as usize, mirror);
    ANY.store(true, Ordering::Release);
    Ok(())
}

/// Stops mirroring the range starting at `host`; returns its length and kind.
pub fn remove(host: *mut c_void) -> CudaResult<(usize, MirrorKind)> {
    let mut mirrors = lock(&MIRRORS);
    let mirror = mirrors.remove(&(host as usize)).ok_or_else(|| {
        CudaError::new(
            HOST_MEMORY_NOT_REGISTERED,
            format!("{host:p} is not the start of pinned, managed or registered memory"),
        )
    })?;
    ANY.store(!mirrors.is_empty(), Ordering::Release);
    Ok((mirror.len, mirror.kind))
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

/// Runs `launch` with `args`, where every 8-byte argument pointing into a mirrored range is
/// replaced by the device address (after copying the range to the device on `stream`).
pub fn with_translated_args(
    stream: &Stream,
    params: &[ParamLayout],
    args: &[*mut c_void],
    launch: impl FnOnce(&[*mut c_void]) -> CudaResult,
) -> CudaResult {
    if !ANY.load(Ordering::Acquire) {
        return launch(args);
    }
    let mut values: Vec<u64> = Vec::with_capacity(args.len());
    let mut translated = false;
    {
        let mut mirrors = lock(&MIRRORS);
        for (param, &arg) in params.iter().zip(args) {
            let mut value = 0u64;
            if param.size == 8 {
                // SAFETY: an 8-byte parameter's argument points to 8 readable bytes.
                value = unsafe { (arg as *const u64).read_unaligned() };
                let address = value as usize;
                if let Some((start, mirror)) = mirrors.range_mut(..=address).next_back() {
                    if address < start + mirror.len.max(1) {
                        push(stream, *start, mirror)?;
                        value = mirror.buffer.device_ptr() + (address - start) as u64;
                        translated = true;
                    }
                }
            }
            values.push(value);
        }
    }
    if !translated {
        return launch(args);
    }
    let pointers: Vec<*mut c_void> = params
        .iter()
        .zip(args)
        .zip(values.iter_mut())
        .map(|((param, &arg), value)| {
            if param.size == 8 {
                value as *mut u64 as *mut c_void
            } else {
                arg
            }
        })
        .collect();
    launch(&pointers)
}

/// Copies a mirrored range to its device copy on `stream` and marks it as kernel-written.
fn push(stream: &Stream, start: usize, mirror: &mut Mirror) -> CudaResult {
    if mirror.len > 0 {
        // SAFETY: the range is host memory of `len` bytes owned by the program.
        let host = unsafe { std::slice::from_raw_parts(start as *const u8, mirror.len) };
        stream.copy_to_device_at(mirror.buffer.device_ptr(), host)?;
    }
    mirror.device_dirty = true;
    Ok(())
}

/// Copies every mirror that kernels may have written back to the host (after their work).
pub fn pull_all() -> CudaResult {
    crate::managed_vars::pull()?;
    if !ANY.load(Ordering::Acquire) {
        return Ok(());
    }
    let mut mirrors = lock(&MIRRORS);
    for (&start, mirror) in mirrors.iter_mut().filter(|(_, m)| m.device_dirty) {
        // Kernels writing the mirror may run on any stream of its device.
        mirror.buffer.device().synchronize()?;
        // SAFETY: the range is host memory of `len` bytes owned by the program.
        let host = unsafe { std::slice::from_raw_parts_mut(start as *mut u8, mirror.len) };
        let stream = state::device(mirror.device)?.legacy();
        stream.copy_to_host_at(host, mirror.buffer.device_ptr())?;
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
