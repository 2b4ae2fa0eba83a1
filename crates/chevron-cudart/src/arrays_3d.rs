//! 3D and layered CUDA arrays: `cudaMalloc3DArray`, `cudaArrayGetInfo`, pitched 3D memory
//! (`cudaMalloc3D`), and the copies of `cudaMemcpy3DParms` between arrays, device and host
//! memory (`cudaMemcpy3D`, `cudaMemcpy3DAsync` and their per-thread forms). Cubemap arrays
//! (`cudaArrayCubemap`, layered or not) are layered 2D arrays of square faces to every copy;
//! mipmapped arrays are `mipmapped.rs`.
//!
//! `extent` is in elements where an array takes part (bytes otherwise), positions on an array
//! side in elements, on a pointer side in bytes (x) and rows (y, z), as CUDA defines them; the
//! box is copied by [`copy_box`] (row by row on the CPU device, `cuMemcpy3DAsync` on GPUs).

use std::ffi::{c_uint, c_void};

use chevron::texture::{Array, ArrayDesc};
use chevron::Stream;

use crate::array_copy::{copy_box, End};
use crate::errors::{cudaError_t, guard, CudaError, CudaResult, INVALID_VALUE};
use crate::graphs::nodes::{cudaMemcpy3DParms, cudaPitchedPtr};
use crate::memory::store;
use crate::state;
use crate::textures::{channel_desc, format, keep_array, with_array, ChannelFormatDesc};

/// `cudaArrayLayered`, `cudaArraySurfaceLoadStore`, `cudaArrayCubemap`,
/// `cudaArrayTextureGather`.
const LAYERED: c_uint = 0x01;
const SURFACE: c_uint = 0x02;
const CUBEMAP: c_uint = 0x04;
const GATHER: c_uint = 0x08;

/// `struct cudaExtent`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(missing_docs)]
pub struct Extent {
    pub width: usize,
    pub height: usize,
    pub depth: usize,
}

/// Allocates a 1D, 2D or 3D array, a layered 1D or 2D one (`cudaArrayLayered`: `depth`
/// counts the layers), or a cubemap (`cudaArrayCubemap`: square faces, `depth` 6, or a
/// multiple of 6 layered).
///
/// # Safety
/// `array` is NULL or valid for a write; `desc` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn cudaMalloc3DArray(
    array: *mut *mut c_void,
    desc: *const ChannelFormatDesc,
    extent: Extent,
    flags: c_uint,
) -> cudaError_t {
    guard("cudaMalloc3DArray", || {
        // SAFETY: NULL or valid (caller).
        let desc = unsafe { desc.as_ref() }
            .ok_or_else(|| CudaError::new(INVALID_VALUE, "desc is NULL"))?;
        let desc = array_desc(desc, extent, flags, 0)?;
        let created = Array::new(&state::current()?.device, desc)?;
        store(array, keep_array(created) as *mut c_void, "array")
    })
}

/// The description of an array of `desc`'s format, `extent` and `flags` (`cudaArrayLayered`,
/// `…SurfaceLoadStore`, `…Cubemap`, `…TextureGather`), with `levels` mipmap levels (0: not
/// mipmapped). `cudaErrorInvalidValue` for other flags or an extent the flags do not allow.
pub(crate) fn array_desc(
    desc: &ChannelFormatDesc,
    extent: Extent,
    flags: c_uint,
    levels: u32,
) -> CudaResult<ArrayDesc> {
    let format = format(desc)?;
    if flags & !(LAYERED | SURFACE | CUBEMAP | GATHER) != 0 || extent.width == 0 {
        return Err(CudaError::new(
            INVALID_VALUE,
            format!("flags {flags:#x} or a width of 0"),
        ));
    }
    if flags & LAYERED != 0 && extent.depth == 0 {
        return Err(CudaError::new(
            INVALID_VALUE,
            "a layered array needs a depth (its layer count)",
        ));
    }
    let desc = ArrayDesc {
        format,
        extent: [extent.width, extent.height, extent.depth].map(|e| e as u64),
        layered: flags & LAYERED != 0,
        surface: flags & SURFACE != 0,
        gather: flags & GATHER != 0,
        cubemap: flags & CUBEMAP != 0,
        levels,
    };
    desc.check().map_err(|m| CudaError::new(INVALID_VALUE, m))?;
    Ok(desc)
}

/// Allocates pitched device memory for `extent` (`width` in bytes): `height × depth` rows of
/// `cudaMallocPitch`'s pitch.
///
/// # Safety
/// `out` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaMalloc3D(out: *mut cudaPitchedPtr, extent: Extent) -> cudaError_t {
    guard("cudaMalloc3D", || {
        if out.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "pitchedDevPtr is NULL"));
        }
        let rows = extent.height.max(1).checked_mul(extent.depth.max(1));
        let rows = rows.ok_or_else(|| CudaError::new(INVALID_VALUE, "the extent overflows"))?;
        let (mut ptr, mut pitch) = (std::ptr::null_mut(), 0);
        match crate::limits::cudaMallocPitch(&mut ptr, &mut pitch, extent.width, rows) {
            0 => store(
                out,
                cudaPitchedPtr {
                    ptr,
                    pitch,
                    xsize: extent.width,
                    ysize: extent.height,
                },
                "pitchedDevPtr",
            ),
            code => Err(CudaError::new(code, "")),
        }
    })
}

/// Writes an array's channel format, extent (0 for dimensions it lacks) and flags.
///
/// # Safety
/// Each out-pointer is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaArrayGetInfo(
    desc: *mut ChannelFormatDesc,
    extent: *mut Extent,
    flags: *mut c_uint,
    array: *mut c_void,
) -> cudaError_t {
    guard("cudaArrayGetInfo", || {
        let d = with_array(array, |a| Ok(*a.desc()))?;
        let bits = [
            (d.layered, LAYERED),
            (d.surface, SURFACE),
            (d.cubemap, CUBEMAP),
            (d.gather, GATHER),
        ]
        .iter()
        .filter(|(set, _)| *set)
        .fold(0, |bits, (_, bit)| bits | bit);
        let [width, height, depth] = d.extent.map(|e| e as usize);
        if !desc.is_null() {
            store(desc, channel_desc(&d.format), "desc")?;
        }
        if !extent.is_null() {
            store(
                extent,
                Extent {
                    width,
                    height,
                    depth,
                },
                "extent",
            )?;
        }
        if !flags.is_null() {
            store(flags, bits, "flags")?;
        }
        Ok(())
    })
}

/// The element size of the live array `array`.
fn element_of(array: *mut c_void) -> CudaResult<u64> {
    with_array(array, |a| Ok(a.desc().format.element_bytes()))
}

/// The end of a copy at `pos` (elements on an array, bytes in x on a pointer) of a side that is
/// `array` or `ptr`; a pointer's pitch must hold the row from `pos`.
fn end(
    array: *mut c_void,
    ptr: &cudaPitchedPtr,
    pos: [usize; 3],
    element: u64,
    row_bytes: u64,
) -> CudaResult<End> {
    if !array.is_null() {
        let x = pos[0] as u64 * element;
        return Ok(End::Array {
            array,
            at: [x as usize, pos[1], pos[2]],
        });
    }
    let pitch = ptr.pitch as u64;
    if pitch < row_bytes + pos[0] as u64 {
        return Err(CudaError::new(
            INVALID_VALUE,
            format!("a pitch of {pitch} bytes is below the copy's row"),
        ));
    }
    let height = ptr.ysize.max(1) as u64;
    let start =
        ptr.ptr as u64 + pos[2] as u64 * pitch * height + pos[1] as u64 * pitch + pos[0] as u64;
    Ok(End::Memory {
        ptr: start,
        pitch: pitch as usize,
        height: height as usize,
    })
}

/// Submits the copy `p` describes on `stream`.
fn copy_3d(p: &cudaMemcpy3DParms, stream: &Stream) -> CudaResult {
    if !(0..=4).contains(&p.kind) {
        return Err(CudaError::new(
            crate::errors::INVALID_MEMCPY_DIRECTION,
            format!("cudaMemcpyKind {}", p.kind),
        ));
    }
    if p.srcArray.is_null() == p.srcPtr.ptr.is_null()
        || p.dstArray.is_null() == p.dstPtr.ptr.is_null()
    {
        return Err(CudaError::new(
            INVALID_VALUE,
            "each side needs an array or a pointer, not both",
        ));
    }
    let [width, rows, slices] = p.extent;
    if width == 0 || rows == 0 || slices == 0 {
        return Ok(());
    }
    let src_element = (!p.srcArray.is_null())
        .then(|| element_of(p.srcArray))
        .transpose()?;
    let dst_element = (!p.dstArray.is_null())
        .then(|| element_of(p.dstArray))
        .transpose()?;
    let element = match (src_element, dst_element) {
        (Some(s), Some(d)) if s != d => {
            return Err(CudaError::new(
                INVALID_VALUE,
                "arrays of different element sizes",
            ))
        }
        (s, d) => s.or(d).unwrap_or(1),
    };
    let row_bytes = width as u64 * element;
    let src = end(p.srcArray, &p.srcPtr, p.srcPos, element, row_bytes)?;
    let dst = end(p.dstArray, &p.dstPtr, p.dstPos, element, row_bytes)?;
    copy_box(stream, dst, src, [row_bytes as usize, rows, slices])
}

/// Copies between arrays, device and host memory, complete when it returns.
///
/// # Safety
/// `p` is NULL or valid, its pointers valid for the window it describes.
#[no_mangle]
pub unsafe extern "C" fn cudaMemcpy3D(p: *const cudaMemcpy3DParms) -> cudaError_t {
    guard("cudaMemcpy3D", || {
        // SAFETY: NULL or valid (caller).
        let p = unsafe { p.as_ref() }.ok_or_else(|| CudaError::new(INVALID_VALUE, "p is NULL"))?;
        let (_, stream) = state::submit_stream(std::ptr::null_mut())?;
        copy_3d(p, &stream)?;
        stream.synchronize()?;
        crate::mirror::pull_all()
    })
}

/// [`cudaMemcpy3D`] in the order of `stream`.
///
/// # Safety
/// As [`cudaMemcpy3D`].
#[no_mangle]
pub unsafe extern "C" fn cudaMemcpy3DAsync(
    p: *const cudaMemcpy3DParms,
    stream: *mut c_void,
) -> cudaError_t {
    guard("cudaMemcpy3DAsync", || {
        // SAFETY: NULL or valid (caller).
        let p = unsafe { p.as_ref() }.ok_or_else(|| CudaError::new(INVALID_VALUE, "p is NULL"))?;
        let (_, stream) = state::submit_stream(stream)?;
        copy_3d(p, &stream)
    })
}

/// `cudaMemcpy3D` of a per-thread-default-stream program (complete when it returns either way).
///
/// # Safety
/// As [`cudaMemcpy3D`].
#[no_mangle]
pub unsafe extern "C" fn cudaMemcpy3D_ptds(p: *const cudaMemcpy3DParms) -> cudaError_t {
    // SAFETY: forwarded from the caller.
    unsafe { cudaMemcpy3D(p) }
}

/// `cudaMemcpy3DAsync` with the per-thread default stream.
///
/// # Safety
/// As [`cudaMemcpy3D`].
#[no_mangle]
pub unsafe extern "C" fn cudaMemcpy3DAsync_ptsz(
    p: *const cudaMemcpy3DParms,
    stream: *mut c_void,
) -> cudaError_t {
    // SAFETY: forwarded from the caller.
    unsafe { cudaMemcpy3DAsync(p, crate::launch::per_thread_default(stream)) }
}
