//! Copies of a box (`slices × rows × bytes`) between CUDA arrays and pitched memory, for every
//! front door that copies to or from arrays (`cudaMemcpy2DToArray`, `cudaMemcpyToArray`,
//! `cudaMemcpy3D`, the driver's `cuMemcpy2D`/`cuMemcpy3D` with a `CU_MEMORYTYPE_ARRAY` side).
//!
//! An array of plain device memory (the CPU device) becomes its tightly pitched memory and the
//! box is copied row by row through [`crate::copy::copy`]; an array the driver made (GPUs) is
//! copied by [`chevron::texture::copy_array`] (`cuMemcpy3DAsync`), the other side classified
//! by address as host or device memory. Either way the array window is checked to lie inside
//! the array first (`cudaErrorInvalidValue`).

use std::ffi::c_void;

use chevron::host_range::Access;
use chevron::texture::{copy_array, Array, Side};
use chevron::Stream;

use crate::copy::{check_host, copy};
use crate::errors::{CudaError, CudaResult, INVALID_VALUE};
use crate::memory::{place_of, Place};
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
    Memory(u64, u64, u64),
}

fn resolve<'a>(
    arrays: &'a std::collections::HashMap<u64, Array>,
    end: End,
    [width, rows, slices]: [usize; 3],
) -> CudaResult<Resolved<'a>> {
    let (array, at) = match end {
        End::Memory { ptr, pitch, height } => {
            return Ok(Resolved::Memory(ptr, pitch as u64, height as u64))
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
            Resolved::Memory(start, a.row_pitch(), size[1])
        }
        None => Resolved::Native(a, at),
    })
}

/// The side of `end` for [`copy_array`]: memory is host or device memory by address; a host
/// window is checked to be mapped (readable for a source, writable for a destination).
fn side<'a>(end: &Resolved<'a>, extent: [usize; 3], access: Access) -> CudaResult<Side<'a>> {
    Ok(match *end {
        Resolved::Native(array, at) => Side::Array { array, at },
        Resolved::Memory(ptr, pitch, height) => {
            let [width, rows, slices] = extent.map(|e| e as u64);
            let span = (slices - 1) * height * pitch + (rows - 1) * pitch + width;
            match place_of(ptr) {
                Place::Device(_) => Side::Device { ptr, pitch, height },
                Place::Host => {
                    check_host(ptr, span, access)?;
                    Side::Host {
                        ptr: ptr as *mut u8,
                        pitch,
                        height,
                    }
                }
            }
        }
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
        match (&dst, &src) {
            (&Resolved::Memory(d, dp, dh), &Resolved::Memory(s, sp, sh)) => {
                if (rows > 1 || slices > 1) && (width as u64 > dp || width as u64 > sp) {
                    return Err(CudaError::new(INVALID_VALUE, "width exceeds a pitch"));
                }
                for z in 0..slices as u64 {
                    for y in 0..rows as u64 {
                        let (to, from) = (d + z * dh * dp + y * dp, s + z * sh * sp + y * sp);
                        copy(stream, to, from, width)?;
                    }
                }
                Ok(())
            }
            _ => {
                let dst = side(&dst, extent, Access::Write)?;
                let src = side(&src, extent, Access::Read)?;
                let extent = extent.map(|e| e as u64);
                // SAFETY: host windows were checked to be mapped memory of the right access;
                // the caller synchronizes before the host reads or reuses them.
                unsafe { copy_array(stream, &dst, &src, extent) }?;
                Ok(())
            }
        }
    })
}
