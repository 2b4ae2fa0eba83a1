//! `mgpuMemAlloc`, `mgpuMemFree`, `mgpuMemcpy`, `mgpuMemset32/16`,
//! `mgpuMemHostRegisterMemRef`, `mgpuMemHostUnregisterMemRef`.
//!
//! Device allocations are chevron buffers kept by address; freeing one is deferred until every
//! stream of the device has passed the free (so `mgpuMemFree` enqueued before the final
//! synchronization is safe). `mgpuMemcpy` has no direction: each pointer is looked up
//! ([`super::pointers`]) as an address of some device, host-shared or registered host memory
//! (in its mirror while the device owns it, see [`super::host_memory`]), or readable host
//! memory; anything else is an error.

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::Mutex;

use chevron::host_range::Access;
use chevron::{Buffer, Device, Stream, Token};

use super::host_memory;
use super::pointers::{classify, Resolved};
use super::{default_device, guard, stream_or_default};
use crate::error::{CapiError, CapiResult};

/// Device allocations made by `mgpuMemAlloc`, by address.
static ALLOCATIONS: Mutex<Option<HashMap<u64, Buffer<u8>>>> = Mutex::new(None);

fn allocations() -> std::sync::MutexGuard<'static, Option<HashMap<u64, Buffer<u8>>>> {
    ALLOCATIONS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Allocates `size` bytes: device memory of the default device, or host-shared memory when
/// `is_host_shared` is non-zero (an `i8`: LLVM passes the `bool` so). Returns NULL for 0 bytes
/// or on failure. The stream is ignored (allocation is synchronous, as upstream).
#[no_mangle]
pub extern "C" fn mgpuMemAlloc(size: u64, stream: *mut c_void, is_host_shared: u8) -> *mut c_void {
    let _ = stream;
    guard("mgpuMemAlloc", std::ptr::null_mut(), || {
        if size == 0 {
            return Ok(std::ptr::null_mut());
        }
        if is_host_shared != 0 {
            return Ok(host_memory::alloc_shared(size)? as *mut c_void);
        }
        let bytes =
            usize::try_from(size).map_err(|_| CapiError::invalid(format!("{size} bytes")))?;
        let buffer = Buffer::<u8>::new(&default_device()?, bytes)?;
        let address = buffer.device_ptr();
        allocations()
            .get_or_insert_with(HashMap::new)
            .insert(address, buffer);
        Ok(address as usize as *mut c_void)
    })
}

/// Frees memory from `mgpuMemAlloc`, once the work submitted so far no longer uses it.
#[no_mangle]
pub extern "C" fn mgpuMemFree(ptr: *mut c_void, stream: *mut c_void) {
    let _ = stream;
    guard("mgpuMemFree", (), || {
        let address = ptr as usize as u64;
        if address == 0 {
            return Ok(());
        }
        let removed = allocations().as_mut().and_then(|m| m.remove(&address));
        if let Some(buffer) = removed {
            // As cuMemFree (which MLIR's runtime calls here) does.
            buffer.free_now()?;
            return Ok(());
        }
        host_memory::free_shared(address).unwrap_or_else(|| {
            Err(CapiError::invalid(format!(
                "{address:#x} was not allocated by mgpuMemAlloc"
            )))
        })
    })
}

/// The stream that does work on `device`: `stream` when it is on that device, else the
/// device's default stream, made to wait for `stream`'s work so far.
fn stream_on(device: &Device, stream: &Stream, after: &[Token]) -> CapiResult<Stream> {
    let chosen = if stream.device().same_device(device) {
        stream.clone()
    } else {
        let other = device.default_stream()?;
        other.wait_for(&[&stream.token()])?;
        other
    };
    let refs: Vec<&Token> = after.iter().collect();
    chosen.wait_for(&refs)?;
    Ok(chosen)
}

/// # Safety
/// Host pointers among `dst`/`src` are valid for `bytes`.
unsafe fn copy(
    dst: &Resolved,
    src: &Resolved,
    bytes: u64,
    stream: &Stream,
) -> CapiResult<Option<Token>> {
    let len = usize::try_from(bytes).map_err(|_| CapiError::invalid(format!("{bytes} bytes")))?;
    match (dst, src) {
        (Resolved::Host(d), Resolved::Host(s)) => {
            // Host-to-host copies run now; earlier copies to the host were synchronous.
            // SAFETY: both ranges are valid host memory by the caller's contract; `copy`
            // handles overlap.
            unsafe { std::ptr::copy(*s as *const u8, *d as *mut u8, len) };
            Ok(None)
        }
        (
            Resolved::Device {
                device,
                address,
                after,
                ..
            },
            Resolved::Host(s),
        ) => {
            // SAFETY: valid host memory by the caller's contract.
            let data = unsafe { std::slice::from_raw_parts(*s as *const u8, len) };
            Ok(Some(
                stream_on(device, stream, after)?.copy_to_device_at(*address, data)?,
            ))
        }
        (
            Resolved::Host(d),
            Resolved::Device {
                device,
                address,
                after,
                ..
            },
        ) => {
            // SAFETY: valid host memory by the caller's contract.
            let out = unsafe { std::slice::from_raw_parts_mut(*d as *mut u8, len) };
            stream_on(device, stream, after)?.copy_to_host_at(out, *address)?;
            Ok(None)
        }
        (
            Resolved::Device {
                device: dd,
                address: da,
                after: dafter,
                ..
            },
            Resolved::Device {
                device: sd,
                address: sa,
                after: safter,
                ..
            },
        ) => {
            if dd.same_device(sd) {
                let mut after = dafter.clone();
                after.extend(safter.iter().cloned());
                return Ok(Some(
                    stream_on(dd, stream, &after)?.copy_on_device_at(*da, *sa, bytes)?,
                ));
            }
            // Between devices: through the host.
            let mut staging = vec![0u8; len];
            stream_on(sd, stream, safter)?.copy_to_host_at(&mut staging, *sa)?;
            Ok(Some(
                stream_on(dd, stream, dafter)?.copy_to_device_at(*da, &staging)?,
            ))
        }
    }
}

/// Copies `size_bytes` from `src` to `dst`, ordered on `stream`; the direction is found from
/// the pointers.
///
/// # Safety
/// Host pointers among `dst` and `src` are valid for `size_bytes`.
#[no_mangle]
pub unsafe extern "C" fn mgpuMemcpy(
    dst: *mut c_void,
    src: *mut c_void,
    size_bytes: usize,
    stream: *mut c_void,
) {
    guard("mgpuMemcpy", (), || {
        if size_bytes == 0 {
            return Ok(());
        }
        if dst.is_null() || src.is_null() {
            return Err(CapiError::invalid(format!(
                "NULL pointer (dst {dst:?}, src {src:?})"
            )));
        }
        let stream = stream_or_default(stream)?;
        host_memory::reconcile();
        let bytes = size_bytes as u64;
        let to = classify("dst", dst as usize as u64, bytes, Access::Write)?;
        let from = classify("src", src as usize as u64, bytes, Access::Read)?;
        let bases: Vec<u64> = [to.mirror_base(), from.mirror_base()]
            .into_iter()
            .flatten()
            .collect();
        // SAFETY: forwarded from the caller.
        let result = unsafe { copy(&to, &from, bytes, &stream) };
        let token = result
            .as_ref()
            .ok()
            .cloned()
            .flatten()
            .or_else(|| Some(stream.token()));
        host_memory::finish(&bases, token.as_ref().filter(|_| result.is_ok()));
        result.map(|_| ())
    })
}

/// Fills `count` elements of `width` bytes at `dst` with `value`.
///
/// # Safety
/// If `dst` is host memory, it is valid for `count * width` bytes.
unsafe fn fill(
    call: &str,
    dst: *mut c_void,
    value: u32,
    width: u32,
    count: usize,
    stream: *mut c_void,
) {
    guard(call, (), || {
        if count == 0 {
            return Ok(());
        }
        let stream = stream_or_default(stream)?;
        if dst.is_null() {
            return Err(CapiError::invalid("NULL destination"));
        }
        let bytes = (count as u64)
            .checked_mul(u64::from(width))
            .ok_or_else(|| CapiError::invalid(format!("{count} elements overflow")))?;
        match classify("dst", dst as usize as u64, bytes, Access::Write)? {
            Resolved::Host(address) => {
                for i in 0..count {
                    // SAFETY: host memory valid for `count` elements by the caller's contract.
                    unsafe {
                        if width == 2 {
                            (address as *mut u16).add(i).write_unaligned(value as u16);
                        } else {
                            (address as *mut u32).add(i).write_unaligned(value);
                        }
                    }
                }
                Ok(())
            }
            Resolved::Device {
                device,
                address,
                after,
                mirror_base,
            } => {
                let result = stream_on(&device, &stream, &after)
                    .and_then(|s| Ok(s.memset_at(address, value, width, count as u64)?));
                let bases: Vec<u64> = mirror_base.into_iter().collect();
                host_memory::finish(&bases, result.as_ref().ok());
                result.map(|_| ())
            }
        }
    })
}

/// Fills `count` 32-bit elements at `dst` with `value`, ordered on `stream`.
///
/// # Safety
/// If `dst` is host memory, it is valid for `count` elements.
#[no_mangle]
pub unsafe extern "C" fn mgpuMemset32(
    dst: *mut c_void,
    value: u32,
    count: usize,
    stream: *mut c_void,
) {
    // SAFETY: forwarded from the caller.
    unsafe { fill("mgpuMemset32", dst, value, 4, count, stream) }
}

/// Fills `count` 16-bit elements at `dst` with `value`, ordered on `stream`.
///
/// # Safety
/// If `dst` is host memory, it is valid for `count` elements.
#[no_mangle]
pub unsafe extern "C" fn mgpuMemset16(
    dst: *mut c_void,
    value: u16,
    count: usize,
    stream: *mut c_void,
) {
    // SAFETY: forwarded from the caller.
    unsafe { fill("mgpuMemset16", dst, u32::from(value), 2, count, stream) }
}

/// The host range of a ranked memref descriptor `{alloc, aligned, offset, sizes[rank],
/// strides[rank]}`: (start, bytes). Strides must be dense (row-major), as upstream asserts.
///
/// # Safety
/// `desc` points to a descriptor of rank `rank`.
unsafe fn memref_range(rank: i64, desc: *const c_void, elem_bytes: i64) -> CapiResult<(u64, u64)> {
    if desc.is_null() || !(0..=64).contains(&rank) || elem_bytes <= 0 {
        return Err(CapiError::invalid(format!(
            "descriptor {desc:?} of rank {rank} with {elem_bytes}-byte elements"
        )));
    }
    let rank = rank as usize;
    let words = desc as *const i64;
    // SAFETY: a rank-`rank` descriptor is 3 + 2 * rank 8-byte words, by the caller's contract.
    let fields = unsafe { std::slice::from_raw_parts(words, 3 + 2 * rank) };
    let aligned = fields[1] as u64;
    let offset = fields[2];
    let sizes = &fields[3..3 + rank];
    let strides = &fields[3 + rank..];
    let mut expected = 1i64;
    for dim in (0..rank).rev() {
        if sizes[dim] != 1 && strides[dim] != expected {
            return Err(CapiError::invalid(format!(
                "the memref is not dense (sizes {sizes:?}, strides {strides:?})"
            )));
        }
        expected = expected.saturating_mul(sizes[dim]);
    }
    let elements = sizes.iter().try_fold(1i64, |n, &s| n.checked_mul(s));
    let bytes = elements
        .and_then(|n| n.checked_mul(elem_bytes))
        .filter(|&b| b >= 0)
        .ok_or_else(|| CapiError::invalid(format!("sizes {sizes:?} overflow")))?;
    let start = (aligned as i64).wrapping_add(offset.wrapping_mul(elem_bytes)) as u64;
    Ok((start, bytes as u64))
}

/// Registers the host memory of a memref so that kernels can use it.
///
/// # Safety
/// `desc` points to a ranked memref descriptor of rank `rank` whose memory stays valid until
/// it is unregistered.
#[no_mangle]
pub unsafe extern "C" fn mgpuMemHostRegisterMemRef(rank: i64, desc: *mut c_void, elem_bytes: i64) {
    guard("mgpuMemHostRegisterMemRef", (), || {
        // SAFETY: forwarded from the caller.
        let (start, bytes) = unsafe { memref_range(rank, desc, elem_bytes)? };
        if bytes == 0 {
            return Ok(());
        }
        host_memory::register(start, bytes)
    })
}

/// Unregisters a memref's host memory, copying back what kernels wrote.
///
/// # Safety
/// `desc` points to a ranked memref descriptor of rank `rank`.
#[no_mangle]
pub unsafe extern "C" fn mgpuMemHostUnregisterMemRef(
    rank: i64,
    desc: *mut c_void,
    elem_bytes: i64,
) {
    guard("mgpuMemHostUnregisterMemRef", (), || {
        // SAFETY: forwarded from the caller.
        let (start, bytes) = unsafe { memref_range(rank, desc, elem_bytes)? };
        if bytes == 0 {
            return Ok(());
        }
        host_memory::unregister(start)
    })
}
