//! Copies of a box (`slices × rows × bytes`) between CUDA arrays and pitched memory, for every
//! front door that copies to or from arrays (`cudaMemcpy2DToArray`, `cudaMemcpyToArray`,
//! `cudaMemcpy3D`, the driver's `cuMemcpy2D`/`cuMemcpy3D` with a `CU_MEMORYTYPE_ARRAY` side).
//!
//! An array of plain device memory (the CPU device) becomes its tightly pitched memory and a
//! box between two such windows takes the path of every pitched copy,
//! [`crate::copy::copy_pitched`] (one `cuMemcpy3DAsync` on GPUs, rows on the CPU device); an
//! array the driver made (GPUs) is copied by [`chevron::texture::copy_array`]
//! (`cuMemcpy3DAsync`), the other side classified by address as host or device memory
//! ([`crate::copy::Pitched::side`], as a 2D copy's sides are). Either way the array window is
//! checked to lie inside the array first (`cudaErrorInvalidValue`).

use std::ffi::c_void;

use chevron::host_range::Access;
use chevron::texture::{copy_array, Array, Side};
use chevron::Stream;

use crate::copy::{copy_pitched, Pitched};
use crate::errors::{CudaError, CudaResult, INVALID_VALUE};
use crate::memory::place_of;
use crate::textures::with_arrays;

/// One end of a box copy.
#[derive(Debug, Clone, Copy)]
pub enum End {
    /// The array `array` (a `cudaArray_t`/`CUarray`) from (x in bytes, y, z).
    Array {
        /// The array's handle.
        array: *mut c_void,
        /// (x in bytes, y, z) of the window's first byte.
        at: [usize; 3],
    },
    /// Memory from `ptr`, `pitch` bytes per row, `height` rows per slice.
    Memory {
        /// The window's first byte.
        ptr: u64,
        /// Bytes per row.
        pitch: usize,
        /// Rows per slice.
        height: usize,
    },
}

/// An end resolved against the live arrays.
enum Resolved<'a> {
    /// An array the driver made.
    Native(&'a Array, [u64; 3]),
    /// Memory (an array of plain memory becomes this).
    Memory(Pitched),
}

fn resolve<'a>(
    arrays: &'a std::collections::HashMap<u64, Array>,
    end: End,
    [width, rows, slices]: [usize; 3],
) -> CudaResult<Resolved<'a>> {
    let (array, at) = match end {
        End::Memory { ptr, pitch, height } => {
            let (pitch, height) = (pitch as u64, height as u64);
            return Ok(Resolved::Memory(Pitched { ptr, pitch, height }));
        }
        End::Array { array, at } => (array, at),
    };
    let a = arrays.get(&(array as u64)).ok_or_else(|| {
        CudaError::new(INVALID_VALUE, format!("{array:p} is not a live CUDA array"))
    })?;
    let d = a.desc();
    let size = [a.row_pitch(), d.extent[1].max(1), d.extent[2].max(1)];
    let fits = at
        .iter()
        .zip([width, rows, slices])
        .zip(size)
        .all(|((&p, e), s)| (p as u64).saturating_add(e as u64) <= s);
    if !fits {
        return Err(CudaError::new(
            INVALID_VALUE,
            format!(
                "a {width}-byte × {rows} × {slices} copy at {at:?} runs outside the array ({} bytes × {} × {})",
                size[0], size[1], size[2]
            ),
        ));
    }
    let at = at.map(|v| v as u64);
    Ok(match a.memory() {
        Some(base) => {
            let start = base + at[2] * a.slice_pitch() + at[1] * a.row_pitch() + at[0];
            Resolved::Memory(Pitched {
                ptr: start,
                pitch: a.row_pitch(),
                height: size[1],
            })
        }
        None => Resolved::Native(a, at),
    })
}

/// The side of `end` for [`copy_array`]: memory is classified by [`Pitched::side`], as a 2D
/// copy's sides are.
fn side<'a>(end: &Resolved<'a>, extent: [u64; 3], access: Access) -> CudaResult<Side<'a>> {
    Ok(match *end {
        Resolved::Native(array, at) => Side::Array { array, at },
        Resolved::Memory(memory) => memory.side(place_of(memory.ptr), extent, access)?.0,
    })
}

/// Copies `extent` (bytes per row, rows, slices) from `src` to `dst` on `stream`; the caller
/// synchronizes for a synchronous copy.
pub fn copy_box(stream: &Stream, dst: End, src: End, extent: [usize; 3]) -> CudaResult {
    let [width, rows, slices] = extent;
    if width == 0 || rows == 0 || slices == 0 {
        return Ok(());
    }
    with_arrays(|arrays| {
        let dst = resolve(arrays, dst, extent)?;
        let src = resolve(arrays, src, extent)?;
        let extent = extent.map(|e| e as u64);
        match (&dst, &src) {
            (Resolved::Memory(d), Resolved::Memory(s)) => {
                if (rows > 1 || slices > 1) && (width as u64 > d.pitch || width as u64 > s.pitch) {
                    return Err(CudaError::new(INVALID_VALUE, "width exceeds a pitch"));
                }
                copy_pitched(stream, d, s, extent)
            }
            _ => {
                let dst = side(&dst, extent, Access::Write)?;
                let src = side(&src, extent, Access::Read)?;
                // SAFETY: host windows were checked to be mapped memory of the right access;
                // the caller synchronizes before the host reads or reuses them.
                unsafe { copy_array(stream, &dst, &src, extent) }?;
                Ok(())
            }
        }
    })
}
