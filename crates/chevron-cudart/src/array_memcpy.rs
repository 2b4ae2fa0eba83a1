//! The runtime's copies to, from and between arrays: `cudaMemcpy2DToArray`,
//! `cudaMemcpy2DFromArray`, `cudaMemcpy2DArrayToArray`, the deprecated linear forms
//! (`cudaMemcpyToArray`, `cudaMemcpyFromArray`, `cudaMemcpyArrayToArray`), their `Async` forms
//! and per-thread-default-stream forms, all through [`copy_box`]. Positions on an array side
//! are in bytes (x) and rows (y), as CUDA defines them. The linear forms copy `count` bytes in
//! the array's row-major order from (x, y): a partial first row, whole rows, a partial last
//! (between two arrays, pieces ending where either side's row ends).

use std::ffi::{c_int, c_void};

use crate::array_copy::{copy_box, End};
use crate::errors::{cudaError_t, guard, CudaError, CudaResult, INVALID_VALUE};
use crate::launch::per_thread_default;
use crate::textures::with_array;
use crate::{mirror, state};

/// Copies `extent` from `src` to `dst` in the order of `stream`, waiting for it when `sync`.
fn run(stream: *mut c_void, dst: End, src: End, extent: [usize; 3], sync: bool) -> CudaResult {
    let (_, on) = state::submit_stream(stream)?;
    copy_box(&on, dst, src, extent)?;
    if sync {
        settle(stream)?;
    }
    Ok(())
}

/// Waits for `stream`'s work and brings the host's mirrors up to date (a synchronous copy).
fn settle(stream: *mut c_void) -> CudaResult {
    let (_, on) = state::submit_stream(stream)?;
    on.synchronize()?;
    mirror::pull_all()
}

fn memory(ptr: *const c_void, pitch: usize) -> End {
    End::Memory {
        ptr: ptr as u64,
        pitch,
        height: 0,
    }
}

fn array(array: *const c_void, x: usize, y: usize) -> End {
    End::Array {
        array: array as *mut c_void,
        at: [x, y, 0],
    }
}

/// A linear copy of `count` bytes at (x, y) of `arr` (`to_array`: into it, from `ptr`;
/// else out of it, into `ptr`), as up to three boxes.
fn linear(
    arr: *const c_void,
    (x, y): (usize, usize),
    ptr: *const c_void,
    count: usize,
    to_array: bool,
    (stream, sync): (*mut c_void, bool),
) -> CudaResult {
    let row = linear_row(arr, (x, y), count)?;
    let first = count.min(row - x);
    let rows = (count - first) / row;
    let last = count - first - rows * row;
    let pieces = [
        (x, y, first, 1),
        (0, y + 1, row, rows),
        (0, y + 1 + rows, last, 1),
    ];
    let mut offset = 0;
    for (px, py, width, height) in pieces {
        if width == 0 || height == 0 {
            continue;
        }
        let at = (ptr as u64 + offset as u64) as *const c_void;
        let (a, m) = (array(arr, px, py), memory(at, row));
        let (dst, src) = if to_array { (a, m) } else { (m, a) };
        run(stream, dst, src, [width, height, 1], false)?;
        offset += width * height;
    }
    if sync {
        settle(stream)?;
    }
    Ok(())
}

/// The row length in bytes of `arr`, after checking that `count` bytes from (x, y) in its
/// row-major order lie inside it (the whole range is checked before any of it is copied).
fn linear_row(arr: *const c_void, (x, y): (usize, usize), count: usize) -> CudaResult<usize> {
    let (row, size) = with_array(arr as *mut c_void, |a| {
        Ok((a.row_pitch() as usize, a.size_bytes() as usize))
    })?;
    let end = y
        .checked_mul(row)
        .and_then(|start| start.checked_add(x)?.checked_add(count));
    if count > 0 && (x >= row || end.is_none_or(|end| end > size)) {
        return Err(CudaError::new(
            INVALID_VALUE,
            format!("{count} bytes from column {x}, row {y} run outside the array ({size} bytes in rows of {row})"),
        ));
    }
    Ok(row)
}

/// A linear copy of `count` bytes between two arrays, each read or written in its row-major
/// order from its own (x, y): pieces that end where either side's row ends, and one box for
/// the whole rows when both sides start rows of the same length together.
fn linear_between(
    (dst, mut to): (*mut c_void, (usize, usize)),
    (src, mut from): (*const c_void, (usize, usize)),
    count: usize,
) -> CudaResult {
    let dst_row = linear_row(dst, to, count)?;
    let src_row = linear_row(src, from, count)?;
    let advance = |(x, y): &mut (usize, usize), bytes: usize, row: usize| {
        *x += bytes;
        *y += *x / row;
        *x %= row;
    };
    let mut left = count;
    while left > 0 {
        let (width, height) = if to.0 == 0 && from.0 == 0 && dst_row == src_row && left >= dst_row {
            (dst_row, left / dst_row)
        } else {
            (left.min(dst_row - to.0).min(src_row - from.0), 1)
        };
        let (d, s) = (array(dst, to.0, to.1), array(src, from.0, from.1));
        run(LEGACY, d, s, [width, height, 1], false)?;
        advance(&mut to, width * height, dst_row);
        advance(&mut from, width * height, src_row);
        left -= width * height;
    }
    settle(LEGACY)
}

macro_rules! to_array_2d {
    ($name:ident, $sync:expr, $($stream:ident)? => $map:expr) => {
        #[doc = concat!("`", stringify!($name), "`: `height` rows of `width` bytes into an array at byte column `w`, row `h`.")]
        #[allow(clippy::too_many_arguments)]
        #[no_mangle]
        pub extern "C" fn $name(
            dst: *mut c_void, w: usize, h: usize, src: *const c_void, spitch: usize,
            width: usize, height: usize, _kind: c_int, $($stream: *mut c_void)?
        ) -> cudaError_t {
            guard(stringify!($name), || {
                let stream: *mut c_void = $map;
                run(stream, array(dst, w, h), memory(src, spitch), [width, height, 1], $sync)
            })
        }
    };
}

macro_rules! from_array_2d {
    ($name:ident, $sync:expr, $($stream:ident)? => $map:expr) => {
        #[doc = concat!("`", stringify!($name), "`: `height` rows of `width` bytes out of an array from byte column `w`, row `h`.")]
        #[allow(clippy::too_many_arguments)]
        #[no_mangle]
        pub extern "C" fn $name(
            dst: *mut c_void, dpitch: usize, src: *const c_void, w: usize, h: usize,
            width: usize, height: usize, _kind: c_int, $($stream: *mut c_void)?
        ) -> cudaError_t {
            guard(stringify!($name), || {
                let stream: *mut c_void = $map;
                run(stream, memory(dst, dpitch), array(src, w, h), [width, height, 1], $sync)
            })
        }
    };
}

macro_rules! to_array_linear {
    ($name:ident, $sync:expr, $($stream:ident)? => $map:expr) => {
        #[doc = concat!("`", stringify!($name), "`: `count` bytes into an array from byte column `w`, row `h`, in row-major order.")]
        #[no_mangle]
        pub extern "C" fn $name(
            dst: *mut c_void, w: usize, h: usize, src: *const c_void, count: usize,
            _kind: c_int, $($stream: *mut c_void)?
        ) -> cudaError_t {
            guard(stringify!($name), || {
                let stream: *mut c_void = $map;
                linear(dst, (w, h), src, count, true, (stream, $sync))
            })
        }
    };
}

macro_rules! from_array_linear {
    ($name:ident, $sync:expr, $($stream:ident)? => $map:expr) => {
        #[doc = concat!("`", stringify!($name), "`: `count` bytes out of an array from byte column `w`, row `h`, in row-major order.")]
        #[no_mangle]
        pub extern "C" fn $name(
            dst: *mut c_void, src: *const c_void, w: usize, h: usize, count: usize,
            _kind: c_int, $($stream: *mut c_void)?
        ) -> cudaError_t {
            guard(stringify!($name), || {
                let stream: *mut c_void = $map;
                linear(src, (w, h), dst, count, false, (stream, $sync))
            })
        }
    };
}

const LEGACY: *mut c_void = std::ptr::null_mut();

to_array_2d!(cudaMemcpy2DToArray, true, => LEGACY);
to_array_2d!(cudaMemcpy2DToArray_ptds, true, => per_thread_default(LEGACY));
to_array_2d!(cudaMemcpy2DToArrayAsync, false, stream => stream);
to_array_2d!(cudaMemcpy2DToArrayAsync_ptsz, false, stream => per_thread_default(stream));
from_array_2d!(cudaMemcpy2DFromArray, true, => LEGACY);
from_array_2d!(cudaMemcpy2DFromArray_ptds, true, => per_thread_default(LEGACY));
from_array_2d!(cudaMemcpy2DFromArrayAsync, false, stream => stream);
from_array_2d!(cudaMemcpy2DFromArrayAsync_ptsz, false, stream => per_thread_default(stream));
to_array_linear!(cudaMemcpyToArray, true, => LEGACY);
to_array_linear!(cudaMemcpyToArray_ptds, true, => per_thread_default(LEGACY));
to_array_linear!(cudaMemcpyToArrayAsync, false, stream => stream);
to_array_linear!(cudaMemcpyToArrayAsync_ptsz, false, stream => per_thread_default(stream));
from_array_linear!(cudaMemcpyFromArray, true, => LEGACY);
from_array_linear!(cudaMemcpyFromArray_ptds, true, => per_thread_default(LEGACY));
from_array_linear!(cudaMemcpyFromArrayAsync, false, stream => stream);
from_array_linear!(cudaMemcpyFromArrayAsync_ptsz, false, stream => per_thread_default(stream));

/// `height` rows of `width` bytes from one array to another (byte columns, rows).
#[allow(clippy::too_many_arguments)]
#[no_mangle]
pub extern "C" fn cudaMemcpy2DArrayToArray(
    dst: *mut c_void,
    wd: usize,
    hd: usize,
    src: *const c_void,
    ws: usize,
    hs: usize,
    width: usize,
    height: usize,
    _kind: c_int,
) -> cudaError_t {
    guard("cudaMemcpy2DArrayToArray", || {
        let (d, s) = (array(dst, wd, hd), array(src, ws, hs));
        run(LEGACY, d, s, [width, height, 1], true)
    })
}

/// `count` bytes from one array to another, each in row-major order from its (x, y).
#[allow(clippy::too_many_arguments)]
#[no_mangle]
pub extern "C" fn cudaMemcpyArrayToArray(
    dst: *mut c_void,
    wd: usize,
    hd: usize,
    src: *const c_void,
    ws: usize,
    hs: usize,
    count: usize,
    _kind: c_int,
) -> cudaError_t {
    guard("cudaMemcpyArrayToArray", || {
        linear_between((dst, (wd, hd)), (src, (ws, hs)), count)
    })
}
