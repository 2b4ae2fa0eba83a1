//! `cuMemsetD2D8/16/32` and their `Async` forms: a pitched fill, row by row through the 1D
//! fill of [`crate::memory`], synchronous ones on the legacy default stream.

use std::ffi::c_void;

use crate::memory::{fill, CUdeviceptr};
use crate::result::{entry, CUresult, DriverResult};

/// Fills `height` rows of `width` elements, `pitch` bytes apart, then waits if `sync`.
fn fill_rows(
    dst: CUdeviceptr,
    pitch: usize,
    value: u32,
    element_bytes: u32,
    (width, height): (usize, usize),
    stream: *mut c_void,
    sync: bool,
) -> DriverResult {
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
