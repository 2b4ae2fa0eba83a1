//! `cuMemsetD2D8/16/32` and their `Async` forms: a pitched fill, row by row through the 1D
//! fill of [`crate::memory`], synchronous ones on the legacy default stream.

use std::ffi::c_void;

use crate::memory::{enter, fill, CUdeviceptr};
use crate::result::{entry, CUresult, DriverError, DriverResult, INVALID_VALUE};

/// Fills `height` rows of `width` elements, `pitch` bytes apart, then waits if `sync`. Rows
/// closer than their width, or a span past the end of the address space, are
/// `CUDA_ERROR_INVALID_VALUE` (so the rows are distinct and the loop ends at the first row
/// outside the allocation).
fn fill_rows(
    dst: CUdeviceptr,
    pitch: usize,
    value: u32,
    element_bytes: u32,
    (width, height): (usize, usize),
    stream: *mut c_void,
    sync: bool,
) -> DriverResult {
    enter()?;
    if width == 0 || height == 0 {
        return Ok(());
    }
    let invalid = |why: String| DriverError::new(INVALID_VALUE, why);
    let row_bytes = width
        .checked_mul(element_bytes as usize)
        .ok_or_else(|| invalid(format!("{width} elements of {element_bytes} bytes")))?;
    if height > 1 && pitch < row_bytes {
        return Err(invalid(format!(
            "pitch {pitch} is less than a row's {row_bytes} bytes"
        )));
    }
    (height - 1)
        .checked_mul(pitch)
        .and_then(|offset| offset.checked_add(row_bytes))
        .and_then(|span| dst.checked_add(span as u64))
        .ok_or_else(|| {
            invalid(format!(
                "{height} rows of {row_bytes} bytes, {pitch} apart, from {dst:#x} pass the end of the address space"
            ))
        })?;
    for row in 0..height {
        let last = sync && row + 1 == height;
        fill(
            dst + (row * pitch) as u64,
            value,
            element_bytes,
            width,
            stream,
            last,
        )?;
    }
    Ok(())
}

macro_rules! fills_2d {
    ($($name:ident, $async_name:ident, $label:literal, $ty:ty, $bytes:literal;)*) => {
        $(
            #[doc = concat!("`", $label, "`: a pitched fill of ", stringify!($bytes), "-byte elements.")]
            #[no_mangle]
            pub extern "C" fn $name(dst: CUdeviceptr, pitch: usize, value: $ty, width: usize, height: usize) -> CUresult {
                entry($label, || {
                    fill_rows(dst, pitch, u32::from(value), $bytes, (width, height), std::ptr::null_mut(), true)
                })
            }

            #[doc = concat!("`", $label, "Async`: as [`", stringify!($name), "`], on `stream`.")]
            #[no_mangle]
            pub extern "C" fn $async_name(dst: CUdeviceptr, pitch: usize, value: $ty, width: usize, height: usize, stream: *mut c_void) -> CUresult {
                entry(concat!($label, "Async"), || {
                    fill_rows(dst, pitch, u32::from(value), $bytes, (width, height), stream, false)
                })
            }
        )*
    };
}

fills_2d! {
    cuMemsetD2D8_v2, cuMemsetD2D8Async, "cuMemsetD2D8", u8, 1;
    cuMemsetD2D16_v2, cuMemsetD2D16Async, "cuMemsetD2D16", u16, 2;
    cuMemsetD2D32_v2, cuMemsetD2D32Async, "cuMemsetD2D32", u32, 4;
}
