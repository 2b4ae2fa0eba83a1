//! Copies to, from and between arrays the driver made (GPUs): a box of `slices × rows × bytes`
//! between an array window and pitched device or host memory (or another array), in stream
//! order (CUDA: `cuMemcpy3DAsync`). Arrays of plain memory (the CPU device) are copied as the
//! memory they are ([`super::Array::memory`]).

use super::Array;
use crate::backend::texture::CopySide;
use crate::backend::ArrayCopy;
use crate::stream::traced::Submission;
use crate::{Error, Result, Stream, Token};

/// One side of [`copy_array`].
#[derive(Debug, Clone, Copy)]
pub enum Side<'a> {
    /// An array, from (x in bytes, y, z).
    Array {
        /// The array.
        array: &'a Array,
        /// (x in bytes, y, z) of the window's first byte.
        at: [u64; 3],
    },
    /// Pitched memory of the stream's device: the window's first byte, bytes per row, rows
    /// per slice.
    Device {
        /// Address of the window's first byte.
        ptr: u64,
        /// Bytes from one row to the next.
        pitch: u64,
        /// Rows from one slice to the next.
        height: u64,
    },
    /// Pitched host memory, as [`Side::Device`].
    Host {
        /// Address of the window's first byte.
        ptr: *mut u8,
        /// Bytes from one row to the next.
        pitch: u64,
        /// Rows from one slice to the next.
        height: u64,
    },
}

const CALL: &str = "copy_array";

fn invalid(message: String) -> Error {
    Error::InvalidValue {
        call: CALL,
        message,
    }
}

/// The backend's side for `side`, checking an array window of `extent` fits the array and a
/// pitched side's rows fit its pitch.
fn side<'a>(stream: &Stream, side: &Side<'a>, extent: [u64; 3]) -> Result<CopySide<'a>> {
    let [width, rows, slices] = extent;
    Ok(match *side {
        Side::Array { array, at } => {
            if !array.device().same_device(stream.device()) {
                return Err(invalid(format!(
                    "the array lives on {}, the stream on {}",
                    array.device().label(),
                    stream.device().label()
                )));
            }
            let native = array.native().ok_or_else(|| {
                invalid("the array is plain device memory: copy it as memory".into())
            })?;
            let d = array.desc();
            let size = [d.row_bytes(), d.extent[1].max(1), d.extent[2].max(1)];
            let fits = at
                .iter()
                .zip([width, rows, slices])
                .zip(size)
                .all(|((&p, e), s)| p.checked_add(e).is_some_and(|end| end <= s));
            if !fits {
                return Err(invalid(format!(
                    "a {width}-byte × {rows} × {slices} copy at {at:?} runs outside the array \
                     ({} bytes × {} × {})",
                    size[0], size[1], size[2]
                )));
            }
            CopySide::Array { array: native, at }
        }
        Side::Device { ptr, pitch, height } => {
            let (pitch, height) = pitched(ptr, pitch, height, extent)?;
            CopySide::Device { ptr, pitch, height }
        }
        Side::Host { ptr, pitch, height } => {
            let (pitch, height) = pitched(ptr as u64, pitch, height, extent)?;
            CopySide::Host { ptr, pitch, height }
        }
    })
}

/// Checks a pitched side at `ptr`: not NULL, rows that fit the pitch and slices that fit
/// `height` rows where there is more than one; returns the pitch and height the copy uses
/// (a single row or slice needs none).
fn pitched(
    ptr: u64,
    pitch: u64,
    height: u64,
    [width, rows, slices]: [u64; 3],
) -> Result<(u64, u64)> {
    if ptr == 0 {
        return Err(invalid("a NULL pointer".into()));
    }
    if (rows > 1 && pitch < width) || (slices > 1 && height < rows) {
        return Err(invalid(format!(
            "rows of {width} bytes × {rows} do not fit a pitch of {pitch} bytes and slices of \
             {height} rows"
        )));
    }
    Ok((pitch.max(width), height.max(rows)))
}

/// Enqueues a copy of `extent` (bytes per row, rows, slices) from `src` to `dst` on `stream`,
/// at least one side an array the driver made. A zero extent copies nothing.
///
/// # Safety
/// A [`Side::Host`] spans the window it describes (readable as a source, writable as a
/// destination) until the copy completes (synchronize the stream before reading or reusing
/// it).
pub unsafe fn copy_array(
    stream: &Stream,
    dst: &Side<'_>,
    src: &Side<'_>,
    extent: [u64; 3],
) -> Result<Token> {
    let started = crate::trace::clock();
    if !matches!(dst, Side::Array { .. }) && !matches!(src, Side::Array { .. }) {
        return Err(invalid("neither side is an array".into()));
    }
    let copy = ArrayCopy {
        dst: side(stream, dst, extent)?,
        src: side(stream, src, extent)?,
        extent,
    };
    if extent.contains(&0) {
        return Ok(stream.token());
    }
    // SAFETY: host sides span their windows (the caller's guarantee), arrays were checked to
    // belong to the stream's device and to hold the window.
    unsafe { stream.backend_stream().copy_array(&copy) }?;
    let bytes = extent.iter().product();
    let direction = match (dst, src) {
        (Side::Host { .. }, _) => "device to host",
        (_, Side::Host { .. }) => "host to device",
        _ => "device to device",
    };
    Ok(stream.submitted_traced(started, || Submission::Copy { direction, bytes }))
}

/// Enqueues a pitched copy of `extent` between two sides of linear memory (device memory of
/// the stream's device, or host memory) as one copy, where the backend copies pitched windows
/// itself (CUDA: one `cuMemcpy3DAsync` for every row and slice, as `cudaMemcpy2D` is on
/// NVIDIA's runtime, instead of a call per row); `Ok(None)` where it does not (the CPU device:
/// the caller copies row by row, which costs it no more). A zero extent copies nothing.
///
/// # Safety
/// As [`copy_array`]: a [`Side::Host`] spans its window until the copy completes.
pub unsafe fn copy_pitched(
    stream: &Stream,
    dst: &Side<'_>,
    src: &Side<'_>,
    extent: [u64; 3],
) -> Result<Option<Token>> {
    if !stream.device().core().backend.native_textures() {
        return Ok(None);
    }
    if matches!(dst, Side::Array { .. }) || matches!(src, Side::Array { .. }) {
        return Err(invalid(
            "copy_pitched copies linear memory; use copy_array".into(),
        ));
    }
    let started = crate::trace::clock();
    let copy = ArrayCopy {
        dst: side(stream, dst, extent)?,
        src: side(stream, src, extent)?,
        extent,
    };
    if extent.contains(&0) {
        return Ok(Some(stream.token()));
    }
    // SAFETY: host sides span their windows (the caller's guarantee); device sides were
    // checked by the caller to lie in this device's memory.
    unsafe { stream.backend_stream().copy_array(&copy) }?;
    let bytes = extent.iter().product();
    let direction = match (dst, src) {
        (Side::Host { .. }, _) => "device to host",
        (_, Side::Host { .. }) => "host to device",
        _ => "device to device",
    };
    Ok(Some(stream.submitted_traced(started, || {
        Submission::Copy { direction, bytes }
    })))
}
