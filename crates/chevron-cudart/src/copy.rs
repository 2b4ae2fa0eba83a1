//! Copies: `cudaMemcpy`, `cudaMemcpyAsync`, the 2D forms, and copies between devices
//! (`cudaMemcpyPeer`, `cudaMemcpyPeerAsync`, or a peer pointer with `cudaMemcpyDefault`).
//!
//! Both pointers are classified by address, as CUDA's unified addressing does for
//! `cudaMemcpyDefault`, so every `cudaMemcpyKind` takes the same path. Nothing is touched
//! before it is checked: a host range must be mapped host memory (readable, and writable for
//! a destination; [`chevron::host_range`]), a device range must lie in a live allocation of
//! its device, and a 2D copy's rows must neither overlap their pitch nor wrap the address
//! space. A bad pointer is `cudaErrorInvalidValue`, never a crash. Between two devices the
//! bytes go through a host staging buffer of at most [`STAGING_BYTES`], after both ranges
//! were checked.

use std::ffi::{c_int, c_void};

use chevron::host_range::{check_host_range, Access};
use chevron::texture::Side;
use chevron::Stream;

use crate::errors::{
    cudaError_t, guard, CudaError, CudaResult, INVALID_MEMCPY_DIRECTION, INVALID_PITCH_VALUE,
    INVALID_VALUE,
};
use crate::memory::{place_of, Place};
use crate::{mirror, state};

/// The largest pitch of a 2D copy, as NVIDIA's devices report it (`memPitch`).
pub const MAX_PITCH: usize = i32::MAX as usize;
/// The most bytes a copy between two devices stages on the host at a time.
pub const STAGING_BYTES: usize = 16 << 20;

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
    let len = bytes as u64;
    if let Place::Host = src_place {
        check_host(src, len, Access::Read)?;
    }
    if let Place::Host = dst_place {
        check_host(dst, len, Access::Write)?;
    }
    match (dst_place, src_place) {
        (Place::Host, Place::Host) => {
            stream.synchronize()?;
            // SAFETY: both ranges were checked to be mapped host memory of `bytes` bytes
            // (the source readable, the destination writable).
            unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, bytes) };
        }
        (Place::Device(to), Place::Host) => {
            // SAFETY: checked to be readable host memory of `bytes` bytes.
            let host = unsafe { std::slice::from_raw_parts(src as *const u8, bytes) };
            let (on, other) = stream_of(stream, to)?;
            let token = on.copy_to_device_at(dst, host)?;
            if other {
                stream.wait_for(&[&token])?;
            }
        }
        (Place::Host, Place::Device(from)) if gpu_addresses(dst, bytes, from) => {
            // The device writes the driver's pinned memory itself, in stream order, without
            // the host waiting: CUDA's asynchronous copy to page-locked memory.
            let (on, other) = stream_of(stream, from)?;
            let token = on.copy_on_device_at(dst, src, len)?;
            if other {
                stream.wait_for(&[&token])?;
            }
        }
        (Place::Host, Place::Device(from)) => {
            // SAFETY: checked to be writable host memory of `bytes` bytes.
            let host = unsafe { std::slice::from_raw_parts_mut(dst as *mut u8, bytes) };
            stream_of(stream, from)?.0.copy_to_host_at(host, src)?;
        }
        (Place::Device(to), Place::Device(from)) if to == from => {
            let (on, other) = stream_of(stream, to)?;
            let token = on.copy_on_device_at(dst, src, len)?;
            if other {
                stream.wait_for(&[&token])?;
            }
        }
        (Place::Device(to), Place::Device(from)) => copy_peer(stream, (dst, to), (src, from), len)?,
    }
    Ok(())
}

/// Whether GPU `ordinal` addresses host range `[ptr, ptr + bytes)` in place: the driver's pinned,
/// managed or registered memory of that device.
fn gpu_addresses(ptr: u64, bytes: usize, ordinal: usize) -> bool {
    mirror::zero_copy_device(ptr as usize, bytes) == Some(ordinal)
        && state::device(ordinal)
            .is_ok_and(|owner| owner.device.backend() == chevron::BackendKind::Cuda)
}

/// Checks a host side of a copy: pinned and managed memory this runtime allocated needs no
/// probing (large copies from pinned memory cost nothing extra); any other range is probed.
pub(crate) fn check_host(ptr: u64, bytes: u64, access: Access) -> CudaResult {
    if mirror::allocated_here(ptr as usize, bytes as usize) {
        return Ok(());
    }
    let what = match access {
        Access::Read => "src",
        Access::Write => "dst",
    };
    check_host_range("cudaMemcpy", what, ptr, bytes, access)?;
    Ok(())
}

/// The stream that copies memory of device `ordinal` in `stream`'s order: `stream` itself when
/// it belongs to that device, else the device's legacy stream made to wait for `stream`
/// (unified addressing lets a copy name memory of any device). The flag says which: `true`
/// when `stream` must then wait for the copy.
fn stream_of(stream: &Stream, ordinal: usize) -> CudaResult<(Stream, bool)> {
    let owner = state::device(ordinal)?;
    if stream.device().same_device(&owner.device) {
        return Ok((stream.clone(), false));
    }
    let legacy = owner.legacy();
    legacy.wait_for(&[&stream.token()])?;
    Ok((legacy, true))
}

/// Checks that `[ptr, ptr + bytes)` lies in one live allocation of device `ordinal`.
fn check_device_range(what: &str, ptr: u64, bytes: u64, ordinal: usize) -> CudaResult {
    let device = &state::device(ordinal)?.device;
    let inside = device.allocation_of(ptr).is_some_and(|(base, size)| {
        ptr.checked_add(bytes)
            .is_some_and(|end| end <= base.saturating_add(size))
    });
    if inside {
        Ok(())
    } else {
        Err(CudaError::new(
            INVALID_VALUE,
            format!(
                "{what} {ptr:#x} ({bytes} bytes) is not inside one live allocation of device \
                 {ordinal} ({})",
                device.label()
            ),
        ))
    }
}

/// Copies between two devices after `stream`'s earlier work, once both ranges were checked:
/// reads on the source device into a staging buffer of at most [`STAGING_BYTES`] and writes
/// on the destination device (each through [`stream_of`]), so later work on `stream` follows.
fn copy_peer(
    stream: &Stream,
    (dst, to): (u64, usize),
    (src, from): (u64, usize),
    bytes: u64,
) -> CudaResult {
    check_device_range("src", src, bytes, from)?;
    check_device_range("dst", dst, bytes, to)?;
    let (source, _) = stream_of(stream, from)?;
    let (target, target_is_other) = stream_of(stream, to)?;
    let mut staging = vec![0u8; (bytes as usize).min(STAGING_BYTES)];
    let mut done = 0u64;
    let mut last = None;
    while done < bytes {
        let chunk = (bytes - done).min(staging.len() as u64) as usize;
        source.copy_to_host_at(&mut staging[..chunk], src + done)?;
        last = Some(target.copy_to_device_at(dst + done, &staging[..chunk])?);
        done += chunk as u64;
    }
    if let Some(token) = last.filter(|_| target_is_other) {
        stream.wait_for(&[&token])?;
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
        if let Some(captured) = crate::capturing::copy(stream, dst as u64, src as u64, bytes) {
            return captured;
        }
        let (_, stream) = state::submit_stream(stream)?;
        copy(&stream, dst as u64, src as u64, bytes)
    })
}

/// A 2D copy's shape: `height` rows of `width` bytes, `dst_pitch` and `src_pitch` apart (also
/// the driver's `cuMemcpy2D`/`cuMemcpy3D`, a slice at a time).
#[allow(missing_docs)]
pub struct Copy2d {
    pub dst: u64,
    pub dst_pitch: usize,
    pub src: u64,
    pub src_pitch: usize,
    pub width: usize,
    pub height: usize,
}

impl Copy2d {
    /// Checks the shape as CUDA does: a pitch beyond [`MAX_PITCH`] is
    /// `cudaErrorInvalidPitchValue`; a row wider than a pitch, or rows that run past the end of
    /// the address space, `cudaErrorInvalidValue`.
    fn check(&self) -> CudaResult {
        if self.width == 0 || self.height == 0 {
            return Ok(());
        }
        for (what, pitch) in [("dpitch", self.dst_pitch), ("spitch", self.src_pitch)] {
            if pitch > MAX_PITCH {
                return Err(CudaError::new(
                    INVALID_PITCH_VALUE,
                    format!("{what} {pitch} exceeds the largest pitch ({MAX_PITCH})"),
                ));
            }
        }
        if self.width > self.dst_pitch || self.width > self.src_pitch {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!(
                    "width {} exceeds a pitch (dpitch {}, spitch {})",
                    self.width, self.dst_pitch, self.src_pitch
                ),
            ));
        }
        for (what, base, pitch) in [
            ("dst", self.dst, self.dst_pitch),
            ("src", self.src, self.src_pitch),
        ] {
            let end = (pitch as u64)
                .checked_mul(self.height as u64 - 1)
                .and_then(|rows| rows.checked_add(self.width as u64))
                .and_then(|span| base.checked_add(span));
            if end.is_none() {
                return Err(CudaError::new(
                    INVALID_VALUE,
                    format!(
                        "{what} {base:#x}: {} rows of pitch {pitch} run past the end of the \
                         address space",
                        self.height
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Copies the rows on `stream`, after checking the shape.
    pub fn run(&self, stream: &Stream) -> CudaResult {
        self.run_slices(stream, 1, [self.height, self.height])
    }

    /// Copies `slices` slices of this copy's shape as one pitched copy (one
    /// `cuMemcpy3DAsync` on GPUs): slice `z` starts `z · heights[0]` rows past the first
    /// destination row and `z · heights[1]` past the first source row.
    pub fn run_slices(&self, stream: &Stream, slices: usize, heights: [usize; 2]) -> CudaResult {
        self.check()?;
        let side = |ptr: u64, pitch: usize, height: usize| Pitched {
            ptr,
            pitch: pitch as u64,
            height: height as u64,
        };
        let extent = [self.width as u64, self.height as u64, slices as u64];
        let (dst, src) = (
            side(self.dst, self.dst_pitch, heights[0]),
            side(self.src, self.src_pitch, heights[1]),
        );
        copy_pitched(stream, &dst, &src, extent)
    }
}

/// A window of pitched memory, host or device memory by address: the first byte, `pitch`
/// bytes from one row to the next, `height` rows from one slice to the next.
#[derive(Debug, Clone, Copy)]
pub struct Pitched {
    /// Address of the window's first byte.
    pub ptr: u64,
    /// Bytes from one row to the next.
    pub pitch: u64,
    /// Rows from one slice to the next.
    pub height: u64,
}

impl Pitched {
    /// Bytes from the window's first byte to the end of its last row of `extent`.
    fn span(&self, [width, rows, slices]: [u64; 3]) -> u64 {
        ((slices - 1) * self.height + rows - 1) * self.pitch + width
    }

    /// Address of row `y` of slice `z`.
    fn row(&self, y: u64, z: u64) -> u64 {
        self.ptr + (z * self.height + y) * self.pitch
    }

    /// The window as a side of chevron's pitched copies (`chevron::texture`): device memory,
    /// or host memory checked to be mapped for `access` over the window's span. The flag says
    /// whether a host side is pageable (not pinned or managed memory of this runtime).
    pub(crate) fn side(
        &self,
        place: Place,
        extent: [u64; 3],
        access: Access,
    ) -> CudaResult<(Side<'static>, bool)> {
        let (ptr, pitch, height) = (self.ptr, self.pitch, self.height);
        Ok(match place {
            Place::Device(_) => (Side::Device { ptr, pitch, height }, false),
            Place::Host => {
                let span = self.span(extent);
                check_host(ptr, span, access)?;
                let pageable = !mirror::allocated_here(ptr as usize, span as usize);
                let ptr = ptr as *mut u8;
                (Side::Host { ptr, pitch, height }, pageable)
            }
        })
    }
}

/// Copies `extent` (bytes per row, rows, slices) between two windows of pitched memory on
/// `stream`: the one path of 2D copies ([`Copy2d`]) and of memory-to-memory boxes
/// (`array_copy::copy_box`). The caller checked the shape (rows within their pitches).
pub fn copy_pitched(stream: &Stream, dst: &Pitched, src: &Pitched, extent: [u64; 3]) -> CudaResult {
    if extent.contains(&0) || copy_whole(stream, dst, src, extent)? {
        return Ok(());
    }
    let [width, rows, slices] = extent;
    for z in 0..slices {
        for y in 0..rows {
            copy(stream, dst.row(y, z), src.row(y, z), width as usize)?;
        }
    }
    Ok(())
}

/// The copy as one pitched copy of the stream's device, where its backend copies pitched
/// windows itself (GPUs: one `cuMemcpy3DAsync`) and both sides are its memory or host memory;
/// `false` when the rows must be copied one by one. A pageable host side is waited for before
/// returning (the caller may reuse it at once, as CUDA allows).
fn copy_whole(stream: &Stream, dst: &Pitched, src: &Pitched, extent: [u64; 3]) -> CudaResult<bool> {
    if stream.device().backend() != chevron::BackendKind::Cuda {
        return Ok(false); // the CPU device copies rows as cheaply
    }
    let on = |place: Place| match place {
        Place::Device(ordinal) => {
            state::device(ordinal).is_ok_and(|owner| stream.device().same_device(&owner.device))
        }
        Place::Host => true,
    };
    let (dst_place, src_place) = (place_of(dst.ptr), place_of(src.ptr));
    if !on(dst_place)
        || !on(src_place)
        || matches!((dst_place, src_place), (Place::Host, Place::Host))
    {
        return Ok(false);
    }
    mirror::pull_all()?;
    let (dst, dst_pageable) = dst.side(dst_place, extent, Access::Write)?;
    let (src, src_pageable) = src.side(src_place, extent, Access::Read)?;
    // SAFETY: host sides were checked to be mapped memory of the window's span, readable or
    // writable; a pageable one is waited for below, pinned ones live until freed.
    let copied = unsafe { chevron::texture::copy_pitched(stream, &dst, &src, extent) }?;
    if copied.is_some() && (dst_pageable || src_pageable) {
        stream.synchronize()?;
    }
    Ok(copied.is_some())
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
        let (_, stream) = state::submit_stream(std::ptr::null_mut())?;
        let shape = Copy2d {
            dst: dst as u64,
            dst_pitch,
            src: src as u64,
            src_pitch,
            width,
            height,
        };
        shape.run(&stream)?;
        stream.synchronize()?;
        mirror::pull_all()
    })
}

/// [`cudaMemcpy2D`] ordered on `stream`.
#[allow(clippy::too_many_arguments)]
#[no_mangle]
pub extern "C" fn cudaMemcpy2DAsync(
    dst: *mut c_void,
    dst_pitch: usize,
    src: *const c_void,
    src_pitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
    stream: *mut c_void,
) -> cudaError_t {
    guard("cudaMemcpy2DAsync", || {
        check_kind(kind)?;
        let (_, stream) = state::submit_stream(stream)?;
        let shape = Copy2d {
            dst: dst as u64,
            dst_pitch,
            src: src as u64,
            src_pitch,
            width,
            height,
        };
        shape.run(&stream)
    })
}

/// Checks that `ptr` is memory of device `ordinal` (as `cudaMemcpyPeer` names it).
fn check_peer_side(what: &str, ptr: *const c_void, ordinal: c_int) -> CudaResult {
    let ordinal = usize::try_from(ordinal).unwrap_or(usize::MAX);
    state::device(ordinal)?;
    match place_of(ptr as u64) {
        Place::Device(owner) if owner == ordinal => Ok(()),
        _ => Err(CudaError::new(
            INVALID_VALUE,
            format!("{what} {ptr:p} is not memory of device {ordinal}"),
        )),
    }
}

/// A copy between devices, after the legacy stream's earlier work.
#[no_mangle]
pub extern "C" fn cudaMemcpyPeer(
    dst: *mut c_void,
    dst_device: c_int,
    src: *const c_void,
    src_device: c_int,
    bytes: usize,
) -> cudaError_t {
    guard("cudaMemcpyPeer", || {
        if bytes == 0 {
            return Ok(());
        }
        check_peer_side("dst", dst, dst_device)?;
        check_peer_side("src", src, src_device)?;
        let (_, stream) = state::submit_stream(std::ptr::null_mut())?;
        copy(&stream, dst as u64, src as u64, bytes)?;
        stream.synchronize()?;
        Ok(())
    })
}

/// [`cudaMemcpyPeer`] ordered on `stream`.
#[no_mangle]
pub extern "C" fn cudaMemcpyPeerAsync(
    dst: *mut c_void,
    dst_device: c_int,
    src: *const c_void,
    src_device: c_int,
    bytes: usize,
    stream: *mut c_void,
) -> cudaError_t {
    guard("cudaMemcpyPeerAsync", || {
        if bytes == 0 {
            return Ok(());
        }
        check_peer_side("dst", dst, dst_device)?;
        check_peer_side("src", src, src_device)?;
        let (_, stream) = state::submit_stream(stream)?;
        copy(&stream, dst as u64, src as u64, bytes)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(dst_pitch: usize, src_pitch: usize, width: usize, height: usize) -> Copy2d {
        Copy2d {
            dst: 0x1000,
            dst_pitch,
            src: 0x2000,
            src_pitch,
            width,
            height,
        }
    }

    fn code(shape: Copy2d) -> cudaError_t {
        shape.check().map_or_else(|e| e.code, |()| 0)
    }

    #[test]
    fn a_2d_shape_is_checked_as_cuda_documents() {
        assert_eq!(code(shape(256, 128, 100, 4)), 0);
        assert_eq!(
            code(shape(usize::MAX / 2, 128, 100, 4)),
            INVALID_PITCH_VALUE
        );
        assert_eq!(code(shape(256, MAX_PITCH + 1, 100, 4)), INVALID_PITCH_VALUE);
        assert_eq!(code(shape(256, 64, 100, 4)), INVALID_VALUE);
        assert_eq!(
            code(shape(1 << 30, 128, 100, usize::MAX / 1024)),
            INVALID_VALUE
        );
        // Nothing to copy: any pitch.
        assert_eq!(code(shape(usize::MAX, 0, 0, 4)), 0);
    }

    #[test]
    fn a_pitched_window_spans_its_slices_rows_and_last_row() {
        let window = Pitched {
            ptr: 0x1000,
            pitch: 64,
            height: 8,
        };
        // Slice 1 starts 8 rows of 64 bytes in; the last of 3 rows of slice 1 ends 12 bytes in.
        assert_eq!(window.row(2, 1), 0x1000 + (8 + 2) * 64);
        assert_eq!(window.span([12, 3, 2]), (8 + 2) * 64 + 12);
        assert_eq!(window.span([12, 1, 1]), 12);
    }
}
