//! Pitched fills: `cudaMemset2D`, `cudaMemset3D`, their `Async` forms and the per-thread
//! default stream's (`_ptds`, `_ptsz`). A fill of `width` bytes in each of `height` rows
//! `pitch` bytes apart (and, in 3D, `depth` slices `pitch × ysize` bytes apart) is one fill
//! per row, or one fill where the rows touch (`pitch == width`); on a capturing stream each
//! becomes a memset node, in order.

use std::ffi::{c_int, c_void};

use crate::arrays_3d::Extent;
use crate::errors::{cudaError_t, guard, CudaError, CudaResult, INVALID_VALUE};
use crate::graphs::nodes::cudaPitchedPtr;
use crate::launch::per_thread_default as pt;
use crate::memory::fill;
use crate::{capturing, state};

/// Fills `width` bytes of each of `rows` rows starting at `base`, `pitch` bytes apart, with
/// `value`, ordered on `stream`; waits for the fill when `sync`.
fn fill_rows(
    base: u64,
    pitch: usize,
    value: c_int,
    (width, rows): (usize, usize),
    stream: *mut c_void,
    sync: bool,
) -> CudaResult {
    // The stream first: a handle that is no stream is that, even for an empty fill.
    state::ordinal_of(stream)?;
    if width == 0 || rows == 0 {
        return Ok(());
    }
    let span = (rows - 1)
        .checked_mul(pitch)
        .and_then(|offset| offset.checked_add(width))
        .and_then(|span| base.checked_add(span as u64));
    if span.is_none() {
        return Err(CudaError::new(
            INVALID_VALUE,
            format!("{rows} rows of {width} bytes, {pitch} apart, from {base:#x} pass the end of the address space"),
        ));
    }
    if rows > 1 && pitch < width {
        return Err(CudaError::new(
            INVALID_VALUE,
            format!("pitch {pitch} is smaller than the width of {width} bytes"),
        ));
    }
    let (runs, run_bytes) = if pitch == width {
        (1, width * rows)
    } else {
        (rows, width)
    };
    let at = |run: usize| base + (run * pitch) as u64;
    if !sync {
        if let Some(first) = capturing::memset(stream, at(0), value, run_bytes) {
            first?;
            for run in 1..runs {
                capturing::memset(stream, at(run), value, run_bytes).unwrap_or(Ok(()))?;
            }
            return Ok(());
        }
    }
    let (_, target) = state::submit_stream(stream)?;
    for run in 0..runs {
        fill(&target, at(run) as *mut c_void, value, run_bytes)?;
    }
    if sync {
        target.synchronize()?;
    }
    Ok(())
}

/// The rows of a 3D fill: `depth` slices of `height` rows, each slice `pitch × ysize` bytes.
fn fill_3d(
    ptr: cudaPitchedPtr,
    value: c_int,
    extent: Extent,
    stream: *mut c_void,
    sync: bool,
) -> CudaResult {
    state::ordinal_of(stream)?;
    if extent.width == 0 || extent.height == 0 || extent.depth == 0 {
        return Ok(());
    }
    // Every slice's offset, and the rows of all slices, fit the address space.
    let slices = ptr
        .pitch
        .checked_mul(ptr.ysize)
        .and_then(|slice| slice.checked_mul(extent.depth - 1))
        .and_then(|offset| (ptr.ptr as usize).checked_add(offset));
    if slices.is_none() || extent.height.checked_mul(extent.depth).is_none() {
        return Err(CudaError::new(
            INVALID_VALUE,
            format!(
                "{} slices of {} × {} bytes pass the end of the address space",
                extent.depth, ptr.ysize, ptr.pitch
            ),
        ));
    }
    if extent.depth > 1 && ptr.ysize < extent.height {
        return Err(CudaError::new(
            INVALID_VALUE,
            format!(
                "the pitched pointer's slices hold {} rows, the extent {}",
                ptr.ysize, extent.height
            ),
        ));
    }
    let slice = ptr.pitch * ptr.ysize;
    if ptr.pitch == extent.width && extent.depth > 1 && ptr.ysize == extent.height {
        // Every slice touches the next: one run.
        let rows = extent.height * extent.depth;
        return fill_rows(
            ptr.ptr as u64,
            ptr.pitch,
            value,
            (extent.width, rows),
            stream,
            sync,
        );
    }
    for z in 0..extent.depth {
        let base = ptr.ptr as u64 + (z * slice) as u64;
        let last = z + 1 == extent.depth;
        fill_rows(
            base,
            ptr.pitch,
            value,
            (extent.width, extent.height),
            stream,
            sync && last,
        )?;
    }
    Ok(())
}

/// Fills a pitched 2D region and waits for it.
#[no_mangle]
pub extern "C" fn cudaMemset2D(
    ptr: *mut c_void,
    pitch: usize,
    value: c_int,
    width: usize,
    height: usize,
) -> cudaError_t {
    guard("cudaMemset2D", || {
        fill_rows(
            ptr as u64,
            pitch,
            value,
            (width, height),
            std::ptr::null_mut(),
            true,
        )
    })
}

/// Fills a pitched 2D region, ordered on `stream`.
#[no_mangle]
pub extern "C" fn cudaMemset2DAsync(
    ptr: *mut c_void,
    pitch: usize,
    value: c_int,
    width: usize,
    height: usize,
    stream: *mut c_void,
) -> cudaError_t {
    guard("cudaMemset2DAsync", || {
        fill_rows(ptr as u64, pitch, value, (width, height), stream, false)
    })
}

/// Fills a 3D region of pitched memory (`cudaMalloc3D`'s) and waits for it.
#[no_mangle]
pub extern "C" fn cudaMemset3D(ptr: cudaPitchedPtr, value: c_int, extent: Extent) -> cudaError_t {
    guard("cudaMemset3D", || {
        fill_3d(ptr, value, extent, std::ptr::null_mut(), true)
    })
}

/// Fills a 3D region of pitched memory, ordered on `stream`.
#[no_mangle]
pub extern "C" fn cudaMemset3DAsync(
    ptr: cudaPitchedPtr,
    value: c_int,
    extent: Extent,
    stream: *mut c_void,
) -> cudaError_t {
    guard("cudaMemset3DAsync", || {
        fill_3d(ptr, value, extent, stream, false)
    })
}

/// `cudaMemset2D` of a per-thread-default-stream program.
#[no_mangle]
pub extern "C" fn cudaMemset2D_ptds(
    ptr: *mut c_void,
    pitch: usize,
    value: c_int,
    width: usize,
    height: usize,
) -> cudaError_t {
    cudaMemset2D(ptr, pitch, value, width, height)
}

/// `cudaMemset2DAsync` with the per-thread default stream.
#[no_mangle]
pub extern "C" fn cudaMemset2DAsync_ptsz(
    ptr: *mut c_void,
    pitch: usize,
    value: c_int,
    width: usize,
    height: usize,
    stream: *mut c_void,
) -> cudaError_t {
    cudaMemset2DAsync(ptr, pitch, value, width, height, pt(stream))
}

/// `cudaMemset3D` of a per-thread-default-stream program.
#[no_mangle]
pub extern "C" fn cudaMemset3D_ptds(
    ptr: cudaPitchedPtr,
    value: c_int,
    extent: Extent,
) -> cudaError_t {
    cudaMemset3D(ptr, value, extent)
}

/// `cudaMemset3DAsync` with the per-thread default stream.
#[no_mangle]
pub extern "C" fn cudaMemset3DAsync_ptsz(
    ptr: cudaPitchedPtr,
    value: c_int,
    extent: Extent,
    stream: *mut c_void,
) -> cudaError_t {
    cudaMemset3DAsync(ptr, value, extent, pt(stream))
}
