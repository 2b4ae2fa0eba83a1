//! Buffers: device memory allocated, freed (once pending work is done), and copied or filled
//! in byte ranges, ordered on a stream after any number of tokens.

use std::ffi::c_void;
use std::sync::Arc;

use chevron::{Buffer, Stream, Token};

use super::{
    chevron_buffer, chevron_device, chevron_stream, chevron_token, give_token, handle_of, lookup,
    read_tokens, release, stream_or_default, write_out, BUFFERS, DEVICES,
};
use crate::error::{entry, CapiError, CapiResult};
use crate::status::chevron_status;

/// Allocates `bytes` of device memory on `device` (0 gives an empty buffer at address 0).
///
/// # Safety
/// `buffer` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn chevron_buffer_alloc(
    device: chevron_device,
    bytes: usize,
    buffer: *mut chevron_buffer,
) -> chevron_status {
    entry("chevron_buffer_alloc", || {
        let device = lookup(&DEVICES, device)?;
        let allocated = Arc::new(Buffer::<u8>::new(&device, bytes)?);
        // SAFETY: forwarded from the caller.
        unsafe { write_out(buffer, "buffer", handle_of(&BUFFERS, allocated))? };
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Frees a buffer: the memory is released once every stream of its device has passed the
/// work submitted so far.
#[no_mangle]
pub extern "C" fn chevron_buffer_free(buffer: chevron_buffer) -> chevron_status {
    entry("chevron_buffer_free", || {
        release(&BUFFERS, buffer)?;
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Stores the device address of `buffer` in `*address` (the value to pass as a pointer
/// argument of a kernel).
///
/// # Safety
/// `address` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn chevron_buffer_address(
    buffer: chevron_buffer,
    address: *mut u64,
) -> chevron_status {
    entry("chevron_buffer_address", || {
        let buffer = lookup(&BUFFERS, buffer)?;
        // SAFETY: forwarded from the caller.
        unsafe { write_out(address, "address", buffer.device_ptr())? };
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Stores the size of `buffer` in bytes in `*bytes`.
///
/// # Safety
/// `bytes` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn chevron_buffer_size(
    buffer: chevron_buffer,
    bytes: *mut usize,
) -> chevron_status {
    entry("chevron_buffer_size", || {
        let buffer = lookup(&BUFFERS, buffer)?;
        // SAFETY: forwarded from the caller.
        unsafe { write_out(bytes, "bytes", buffer.len())? };
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// The stream to use, after it waits for the dependencies.
///
/// # Safety
/// As [`read_tokens`].
unsafe fn ordered_stream(
    buffer: &Buffer<u8>,
    stream: chevron_stream,
    deps: *const chevron_token,
    ndeps: usize,
) -> CapiResult<Stream> {
    let stream = stream_or_default(stream, buffer.device())?;
    if !stream.device().same_device(buffer.device()) {
        return Err(CapiError::invalid(format!(
            "the buffer is on {}, the stream on {}",
            buffer.device().label(),
            stream.device().label()
        )));
    }
    // SAFETY: forwarded from the caller.
    let tokens = unsafe { read_tokens(deps, ndeps)? };
    let refs: Vec<&Token> = tokens.iter().collect();
    stream.wait_for(&refs)?;
    Ok(stream)
}

/// The device address of `[offset, offset + bytes)` of `buffer`, checked to lie inside it.
fn range(buffer: &Buffer<u8>, offset: usize, bytes: usize) -> CapiResult<u64> {
    match offset.checked_add(bytes) {
        Some(end) if end <= buffer.len() => Ok(buffer.device_ptr() + offset as u64),
        _ => Err(CapiError::invalid(format!(
            "{bytes} bytes at offset {offset} exceed the buffer's {} bytes",
            buffer.len()
        ))),
    }
}

/// Enqueues a copy of `bytes` bytes from host memory `src` to `buffer` at `offset`, on
/// `stream` (NULL: the device's default stream) after `deps`. `src` may be reused as soon as
/// the call returns. `token` (may be NULL) receives the copy's token.
///
/// # Safety
/// `src` points to `bytes` readable bytes; `deps` to `ndeps` handles; `token` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn chevron_buffer_write(
    buffer: chevron_buffer,
    offset: usize,
    src: *const c_void,
    bytes: usize,
    stream: chevron_stream,
    deps: *const chevron_token,
    ndeps: usize,
    token: *mut chevron_token,
) -> chevron_status {
    entry("chevron_buffer_write", || {
        let buffer = lookup(&BUFFERS, buffer)?;
        let dst = range(&buffer, offset, bytes)?;
        if src.is_null() && bytes > 0 {
            return Err(CapiError::invalid("`src` is NULL"));
        }
        // SAFETY: forwarded from the caller.
        let stream = unsafe { ordered_stream(&buffer, stream, deps, ndeps)? };
        let data: &[u8] = if bytes == 0 {
            &[]
        } else {
            // SAFETY: `bytes` readable bytes by the caller's contract.
            unsafe { std::slice::from_raw_parts(src as *const u8, bytes) }
        };
        let done = stream.copy_to_device_at(dst, data)?;
        // SAFETY: forwarded from the caller.
        unsafe { give_token(token, done) };
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Copies `bytes` bytes of `buffer` at `offset` into host memory `dst`, after the work on
/// `stream` (NULL: the device's default stream) and `deps`; returns when `dst` is filled.
///
/// # Safety
/// `dst` points to `bytes` writable bytes; `deps` to `ndeps` handles.
#[no_mangle]
pub unsafe extern "C" fn chevron_buffer_read(
    buffer: chevron_buffer,
    offset: usize,
    dst: *mut c_void,
    bytes: usize,
    stream: chevron_stream,
    deps: *const chevron_token,
    ndeps: usize,
) -> chevron_status {
    entry("chevron_buffer_read", || {
        let buffer = lookup(&BUFFERS, buffer)?;
        let src = range(&buffer, offset, bytes)?;
        if dst.is_null() && bytes > 0 {
            return Err(CapiError::invalid("`dst` is NULL"));
        }
        // SAFETY: forwarded from the caller.
        let stream = unsafe { ordered_stream(&buffer, stream, deps, ndeps)? };
        if bytes > 0 {
            // SAFETY: `bytes` writable bytes by the caller's contract.
            let out = unsafe { std::slice::from_raw_parts_mut(dst as *mut u8, bytes) };
            stream.copy_to_host_at(out, src)?;
        }
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Enqueues a fill of `count` elements of `element_bytes` (1, 2 or 4) bytes with `value` (its
/// low `element_bytes` bytes), from `offset` of `buffer`.
///
/// # Safety
/// `deps` points to `ndeps` handles; `token` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn chevron_buffer_memset(
    buffer: chevron_buffer,
    offset: usize,
    value: u32,
    element_bytes: u32,
    count: usize,
    stream: chevron_stream,
    deps: *const chevron_token,
    ndeps: usize,
    token: *mut chevron_token,
) -> chevron_status {
    entry("chevron_buffer_memset", || {
        let buffer = lookup(&BUFFERS, buffer)?;
        let bytes = count
            .checked_mul(element_bytes as usize)
            .ok_or_else(|| CapiError::invalid("the fill size overflows"))?;
        let dst = range(&buffer, offset, bytes)?;
        // SAFETY: forwarded from the caller.
        let stream = unsafe { ordered_stream(&buffer, stream, deps, ndeps)? };
        let done = stream.memset_at(dst, value, element_bytes, count as u64)?;
        // SAFETY: forwarded from the caller.
        unsafe { give_token(token, done) };
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Enqueues a copy of `bytes` bytes from `src` at `src_offset` to `dst` at `dst_offset` (two
/// buffers of the same device).
///
/// # Safety
/// `deps` points to `ndeps` handles; `token` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn chevron_buffer_copy(
    dst: chevron_buffer,
    dst_offset: usize,
    src: chevron_buffer,
    src_offset: usize,
    bytes: usize,
    stream: chevron_stream,
    deps: *const chevron_token,
    ndeps: usize,
    token: *mut chevron_token,
) -> chevron_status {
    entry("chevron_buffer_copy", || {
        let dst = lookup(&BUFFERS, dst)?;
        let src = lookup(&BUFFERS, src)?;
        if !dst.device().same_device(src.device()) {
            return Err(CapiError::invalid(format!(
                "`dst` is on {}, `src` on {}",
                dst.device().label(),
                src.device().label()
            )));
        }
        let to = range(&dst, dst_offset, bytes)?;
        let from = range(&src, src_offset, bytes)?;
        // SAFETY: forwarded from the caller.
        let stream = unsafe { ordered_stream(&dst, stream, deps, ndeps)? };
        let done = stream.copy_on_device_at(to, from, bytes as u64)?;
        // SAFETY: forwarded from the caller.
        unsafe { give_token(token, done) };
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}
