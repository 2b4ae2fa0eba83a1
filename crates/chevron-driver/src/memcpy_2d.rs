//! `cuMemcpy2D`, `cuMemcpy2DUnaligned`, `cuMemcpy3D` and their `Async` forms: pitched copies
//! described by `CUDA_MEMCPY2D` / `CUDA_MEMCPY3D` between host, device and unified memory,
//! through the runtime's checked 2D copy ([`cudart::copy::Copy2d`]: one `cuMemcpy3DAsync` for
//! all slices on GPUs, rows on the CPU device); synchronous ones
//! on the legacy default stream. A copy with a `CU_MEMORYTYPE_ARRAY` side goes through the
//! runtime's [`copy_box`] (the array's memory on the CPU device, `cuMemcpy3DAsync` on GPUs),
//! which checks that the array holds the copied box.
//!
//! A side's first byte is `base + Z·height·pitch + Y·pitch + XInBytes`; its base is the host
//! pointer for `CU_MEMORYTYPE_HOST` and the device pointer for `_DEVICE` and `_UNIFIED` (both
//! classified by address, as unified addressing does).

use std::ffi::{c_uint, c_void};

use cudart::array_copy::{copy_box, End};
use cudart::copy::Copy2d;
use cudart::{mirror, state};

use crate::memory::{enter, CUdeviceptr};
use crate::result::{entry, CUresult, DriverError, DriverResult, INVALID_VALUE};

/// `CUmemorytype`.
const HOST: c_uint = 1;
const DEVICE: c_uint = 2;
const ARRAY: c_uint = 3;
const UNIFIED: c_uint = 4;

/// `CUDA_MEMCPY2D`.
#[repr(C)]
#[allow(non_snake_case, missing_docs)]
pub struct CUDA_MEMCPY2D {
    pub srcXInBytes: usize,
    pub srcY: usize,
    pub srcMemoryType: c_uint,
    pub srcHost: *const c_void,
    pub srcDevice: CUdeviceptr,
    pub srcArray: *mut c_void,
    pub srcPitch: usize,
    pub dstXInBytes: usize,
    pub dstY: usize,
    pub dstMemoryType: c_uint,
    pub dstHost: *mut c_void,
    pub dstDevice: CUdeviceptr,
    pub dstArray: *mut c_void,
    pub dstPitch: usize,
    pub WidthInBytes: usize,
    pub Height: usize,
}

/// `CUDA_MEMCPY3D`.
#[repr(C)]
#[allow(non_snake_case, missing_docs)]
pub struct CUDA_MEMCPY3D {
    pub srcXInBytes: usize,
    pub srcY: usize,
    pub srcZ: usize,
    pub srcLOD: usize,
    pub srcMemoryType: c_uint,
    pub srcHost: *const c_void,
    pub srcDevice: CUdeviceptr,
    pub srcArray: *mut c_void,
    pub reserved0: *mut c_void,
    pub srcPitch: usize,
    pub srcHeight: usize,
    pub dstXInBytes: usize,
    pub dstY: usize,
    pub dstZ: usize,
    pub dstLOD: usize,
    pub dstMemoryType: c_uint,
    pub dstHost: *mut c_void,
    pub dstDevice: CUdeviceptr,
    pub dstArray: *mut c_void,
    pub reserved1: *mut c_void,
    pub dstPitch: usize,
    pub dstHeight: usize,
    pub WidthInBytes: usize,
    pub Height: usize,
    pub Depth: usize,
}

/// One side of a copy as the structs describe it.
struct Side {
    what: &'static str,
    kind: c_uint,
    host: *const c_void,
    device: CUdeviceptr,
    array: *mut c_void,
    /// (x in bytes, y, z)
    position: (usize, usize, usize),
    pitch: usize,
    /// Rows per slice (3D only).
    height: usize,
}

impl Side {
    /// The side as an end of [`copy_box`] for a copy of `rows` rows × `depth`.
    fn end(&self, width: usize, rows: usize, depth: usize) -> DriverResult<End> {
        if self.kind == ARRAY {
            let (x, y, z) = self.position;
            return Ok(End::Array {
                array: self.array,
                at: [x, y, z],
            });
        }
        let (start, _) = self.start(rows, depth)?;
        Ok(End::Memory {
            ptr: start,
            pitch: self.pitch(width, rows),
            height: self.height,
        })
    }

    /// The address of the side's first byte, and the bytes between its slices.
    fn start(&self, rows: usize, depth: usize) -> DriverResult<(u64, u64)> {
        let base = match self.kind {
            HOST => self.host as u64,
            DEVICE | UNIFIED => self.device,
            other => {
                return Err(DriverError::new(
                    INVALID_VALUE,
                    format!("{}: {other} is not a CUmemorytype", self.what),
                ))
            }
        };
        if base == 0 {
            return Err(DriverError::new(
                INVALID_VALUE,
                format!(
                    "{}: the {} pointer is NULL",
                    self.what,
                    kind_name(self.kind)
                ),
            ));
        }
        if depth > 1 && self.height < self.position.1 + rows {
            return Err(DriverError::new(
                INVALID_VALUE,
                format!(
                    "{}: {} rows from row {} do not fit slices of {} rows",
                    self.what, rows, self.position.1, self.height
                ),
            ));
        }
        let slice = (self.pitch as u64).saturating_mul(self.height as u64);
        let (x, y, z) = self.position;
        let offset = (z as u64)
            .checked_mul(slice)
            .and_then(|o| o.checked_add((y as u64).checked_mul(self.pitch as u64)?))
            .and_then(|o| o.checked_add(x as u64))
            .and_then(|o| base.checked_add(o))
            .ok_or_else(|| {
                DriverError::new(
                    INVALID_VALUE,
                    format!("{}: the position runs past the address space", self.what),
                )
            })?;
        Ok((offset, slice))
    }

    /// The pitch a copy of `rows` rows of `width` bytes uses: a single row needs none.
    fn pitch(&self, width: usize, rows: usize) -> usize {
        if rows <= 1 {
            self.pitch.max(width)
        } else {
            self.pitch
        }
    }
}

fn kind_name(kind: c_uint) -> &'static str {
    if kind == HOST {
        "host"
    } else {
        "device"
    }
}

/// Copies `depth` slices of `rows` rows of `width` bytes from `src` to `dst` on `stream` (NULL:
/// the legacy stream), waiting for them when `sync`.
fn copy_pitched(
    dst: Side,
    src: Side,
    (width, rows, depth): (usize, usize, usize),
    stream: *mut c_void,
    sync: bool,
) -> DriverResult {
    enter()?;
    if dst.kind == ARRAY || src.kind == ARRAY {
        let (_, on) = state::submit_stream(stream)?;
        let ends = (dst.end(width, rows, depth)?, src.end(width, rows, depth)?);
        copy_box(&on, ends.0, ends.1, [width, rows, depth])?;
        if sync {
            on.synchronize()?;
            mirror::pull_all()?;
        }
        return Ok(());
    }
    let (dst_start, dst_slice) = dst.start(rows, depth)?;
    let (src_start, src_slice) = src.start(rows, depth)?;
    let (_, stream) = state::submit_stream(stream)?;
    let (dst_pitch, src_pitch) = (dst.pitch(width, rows), src.pitch(width, rows));
    let slice_of = |pitch: usize, height: usize| (pitch as u64).checked_mul(height as u64);
    if depth > 1
        && slice_of(dst_pitch, dst.height) == Some(dst_slice)
        && slice_of(src_pitch, src.height) == Some(src_slice)
    {
        // Slices a whole number of pitched rows apart: one pitched copy of every slice.
        let copy = Copy2d {
            dst: dst_start,
            dst_pitch,
            src: src_start,
            src_pitch,
            width,
            height: rows,
        };
        copy.run_slices(&stream, depth, [dst.height, src.height])?;
    } else {
        for z in 0..depth as u64 {
            Copy2d {
                dst: dst_start + z * dst_slice,
                dst_pitch,
                src: src_start + z * src_slice,
                src_pitch,
                width,
                height: rows,
            }
            .run(&stream)?;
        }
    }
    if sync {
        stream.synchronize()?;
        mirror::pull_all()?;
    }
    Ok(())
}

/// A 2D copy as `CUDA_MEMCPY2D` at `params` describes it.
///
/// # Safety
/// `params` is NULL or points to a `CUDA_MEMCPY2D`.
unsafe fn copy_2d(params: *const CUDA_MEMCPY2D, stream: *mut c_void, sync: bool) -> DriverResult {
    // SAFETY: NULL or a valid struct (caller's guarantee).
    let p = unsafe { params.as_ref() }
        .ok_or_else(|| DriverError::new(INVALID_VALUE, "pCopy is NULL"))?;
    let src = Side {
        what: "src",
        kind: p.srcMemoryType,
        host: p.srcHost,
        device: p.srcDevice,
        array: p.srcArray,
        position: (p.srcXInBytes, p.srcY, 0),
        pitch: p.srcPitch,
        height: 0,
    };
    let dst = Side {
        what: "dst",
        kind: p.dstMemoryType,
        host: p.dstHost,
        device: p.dstDevice,
        array: p.dstArray,
        position: (p.dstXInBytes, p.dstY, 0),
        pitch: p.dstPitch,
        height: 0,
    };
    copy_pitched(dst, src, (p.WidthInBytes, p.Height, 1), stream, sync)
}

/// A 3D copy as `CUDA_MEMCPY3D` at `params` describes it.
///
/// # Safety
/// `params` is NULL or points to a `CUDA_MEMCPY3D`.
unsafe fn copy_3d(params: *const CUDA_MEMCPY3D, stream: *mut c_void, sync: bool) -> DriverResult {
    // SAFETY: NULL or a valid struct (caller's guarantee).
    let p = unsafe { params.as_ref() }
        .ok_or_else(|| DriverError::new(INVALID_VALUE, "pCopy is NULL"))?;
    if !p.reserved0.is_null() || !p.reserved1.is_null() || p.srcLOD != 0 || p.dstLOD != 0 {
        return Err(DriverError::new(
            INVALID_VALUE,
            "reserved0/reserved1 must be NULL and srcLOD/dstLOD 0",
        ));
    }
    let src = Side {
        what: "src",
        kind: p.srcMemoryType,
        host: p.srcHost,
        device: p.srcDevice,
        array: p.srcArray,
        position: (p.srcXInBytes, p.srcY, p.srcZ),
        pitch: p.srcPitch,
        height: p.srcHeight,
    };
    let dst = Side {
        what: "dst",
        kind: p.dstMemoryType,
        host: p.dstHost,
        device: p.dstDevice,
        array: p.dstArray,
        position: (p.dstXInBytes, p.dstY, p.dstZ),
        pitch: p.dstPitch,
        height: p.dstHeight,
    };
    copy_pitched(dst, src, (p.WidthInBytes, p.Height, p.Depth), stream, sync)
}

/// `cuMemcpy2D`: a pitched copy, synchronous.
///
/// # Safety
/// `params` is NULL or points to a `CUDA_MEMCPY2D` whose pointers span what it describes.
#[no_mangle]
pub unsafe extern "C" fn cuMemcpy2D_v2(params: *const CUDA_MEMCPY2D) -> CUresult {
    // SAFETY: forwarded from the caller.
    entry("cuMemcpy2D", || unsafe {
        copy_2d(params, std::ptr::null_mut(), true)
    })
}

/// `cuMemcpy2DUnaligned`: as [`cuMemcpy2D_v2`] (chevron puts no alignment rule on pitches).
///
/// # Safety
/// As [`cuMemcpy2D_v2`].
#[no_mangle]
pub unsafe extern "C" fn cuMemcpy2DUnaligned_v2(params: *const CUDA_MEMCPY2D) -> CUresult {
    // SAFETY: forwarded from the caller.
    entry("cuMemcpy2DUnaligned", || unsafe {
        copy_2d(params, std::ptr::null_mut(), true)
    })
}

/// `cuMemcpy2DAsync`: [`cuMemcpy2D_v2`] ordered on `stream`.
///
/// # Safety
/// As [`cuMemcpy2D_v2`].
#[no_mangle]
pub unsafe extern "C" fn cuMemcpy2DAsync_v2(
    params: *const CUDA_MEMCPY2D,
    stream: *mut c_void,
) -> CUresult {
    // SAFETY: forwarded from the caller.
    entry("cuMemcpy2DAsync", || unsafe {
        copy_2d(params, stream, false)
    })
}

/// `cuMemcpy3D`: `Depth` slices of a pitched copy, synchronous.
///
/// # Safety
/// `params` is NULL or points to a `CUDA_MEMCPY3D` whose pointers span what it describes.
#[no_mangle]
pub unsafe extern "C" fn cuMemcpy3D_v2(params: *const CUDA_MEMCPY3D) -> CUresult {
    // SAFETY: forwarded from the caller.
    entry("cuMemcpy3D", || unsafe {
        copy_3d(params, std::ptr::null_mut(), true)
    })
}

/// `cuMemcpy3DAsync`: [`cuMemcpy3D_v2`] ordered on `stream`.
///
/// # Safety
/// As [`cuMemcpy3D_v2`].
#[no_mangle]
pub unsafe extern "C" fn cuMemcpy3DAsync_v2(
    params: *const CUDA_MEMCPY3D,
    stream: *mut c_void,
) -> CUresult {
    // SAFETY: forwarded from the caller.
    entry("cuMemcpy3DAsync", || unsafe {
        copy_3d(params, stream, false)
    })
}
