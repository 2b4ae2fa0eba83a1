//! `cuArrayCreate`, `cuArray3DCreate`, `cuArrayDestroy` and their descriptor queries: CUDA
//! arrays over [`chevron::texture::Array`], kept in the runtime's table
//! ([`cudart::textures`]) so arrays made through either API are the same arrays. A `CUarray`
//! is the array's handle, as a `cudaArray_t` is: its device address on the CPU device, the
//! driver's own `CUarray` on GPUs (made by `cuArray3DCreate` through chevron's CUDA backend).

use std::ffi::{c_uint, c_void};

use chevron::texture::{Array, ArrayDesc, ChannelFormat};
use cudart::{state, textures};

use crate::memory::enter;
use crate::result::{
    entry, store, CUresult, DriverError, DriverResult, INVALID_HANDLE, INVALID_VALUE,
};

/// `CUDA_ARRAY_DESCRIPTOR`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
#[allow(non_snake_case, missing_docs)]
pub struct CUDA_ARRAY_DESCRIPTOR {
    pub Width: usize,
    pub Height: usize,
    pub Format: c_uint,
    pub NumChannels: c_uint,
}

pub use chevron::backend::cuda::texture_types::CUDA_ARRAY3D_DESCRIPTOR;
use chevron::backend::cuda::texture_types::{format_code, FORMATS};

use chevron::backend::cuda::texture_types::{
    ARRAY3D_CUBEMAP as CUBEMAP, ARRAY3D_LAYERED as LAYERED, ARRAY3D_SURFACE_LDST as SURFACE_LDST,
    ARRAY3D_TEXTURE_GATHER as TEXTURE_GATHER,
};

/// The element format `channels` channels of `CUarray_format` `format` describe.
pub(crate) fn channel_format(format: c_uint, channels: c_uint) -> DriverResult<ChannelFormat> {
    let &(_, kind, bits) = FORMATS
        .iter()
        .find(|(code, _, _)| *code == format)
        .ok_or_else(|| {
            DriverError::new(
                INVALID_VALUE,
                format!("{format:#x} is not a CUarray_format chevron reads"),
            )
        })?;
    if !matches!(channels, 1 | 2 | 4) {
        return Err(DriverError::new(
            INVALID_VALUE,
            format!("{channels} channels (1, 2 or 4 are allowed)"),
        ));
    }
    let mut all = [0; 4];
    all[..channels as usize].fill(bits);
    Ok(ChannelFormat { bits: all, kind })
}

/// The description `desc` gives, with `levels` mipmap levels (0: not mipmapped).
pub(crate) fn array_desc(desc: &CUDA_ARRAY3D_DESCRIPTOR, levels: u32) -> DriverResult<ArrayDesc> {
    if desc.Flags & !(LAYERED | SURFACE_LDST | CUBEMAP | TEXTURE_GATHER) != 0 {
        return Err(DriverError::new(
            INVALID_VALUE,
            format!(
                "array flags {:#x} (sparse, deferred-mapping and other arrays are not provided)",
                desc.Flags
            ),
        ));
    }
    let format = channel_format(desc.Format, desc.NumChannels)?;
    let desc = ArrayDesc {
        format,
        extent: [desc.Width as u64, desc.Height as u64, desc.Depth as u64],
        layered: desc.Flags & LAYERED != 0,
        surface: desc.Flags & SURFACE_LDST != 0,
        gather: desc.Flags & TEXTURE_GATHER != 0,
        cubemap: desc.Flags & CUBEMAP != 0,
        levels,
    };
    desc.check()
        .map_err(|m| DriverError::new(INVALID_VALUE, m))?;
    Ok(desc)
}

/// Creates an array of `desc` and returns its handle.
fn create(desc: &CUDA_ARRAY3D_DESCRIPTOR) -> DriverResult<u64> {
    enter()?;
    let desc = array_desc(desc, 0)?;
    let state = state::current()?;
    let array = Array::new(&state.device, desc)?;
    Ok(textures::keep_array(array))
}

/// The error for a `CUarray` that names no live array.
pub(crate) fn dead(array: *mut c_void) -> DriverError {
    DriverError::new(
        INVALID_HANDLE,
        format!("{array:p} is not a live CUDA array"),
    )
}

/// The 3D descriptor of the live array `array`.
fn describe(array: *mut c_void) -> DriverResult<CUDA_ARRAY3D_DESCRIPTOR> {
    textures::with_live_array(array as u64, |a| {
        let d = a.desc();
        // A live array's format always has a code (it was checked when the array was made).
        let (format, channels) = format_code(&d.format).unwrap_or((0, 0));
        let flag = |on: bool, bit: c_uint| if on { bit } else { 0 };
        CUDA_ARRAY3D_DESCRIPTOR {
            Width: d.extent[0] as usize,
            Height: d.extent[1] as usize,
            Depth: d.extent[2] as usize,
            Format: format,
            NumChannels: channels,
            Flags: flag(d.layered, LAYERED)
                | flag(d.surface, SURFACE_LDST)
                | flag(d.cubemap, CUBEMAP)
                | flag(d.gather, TEXTURE_GATHER),
        }
    })
    .ok_or_else(|| dead(array))
}

/// `cuArrayCreate`: a 1D or 2D array.
///
/// # Safety
/// `out` and `desc` are NULL or valid for the access CUDA's API documents.
#[no_mangle]
pub unsafe extern "C" fn cuArrayCreate_v2(
    out: *mut *mut c_void,
    desc: *const CUDA_ARRAY_DESCRIPTOR,
) -> CUresult {
    entry("cuArrayCreate", || {
        // SAFETY: NULL or readable (caller's guarantee).
        let d = unsafe { desc.as_ref() }
            .ok_or_else(|| DriverError::new(INVALID_VALUE, "pAllocateArray is NULL"))?;
        let handle = create(&CUDA_ARRAY3D_DESCRIPTOR {
            Width: d.Width,
            Height: d.Height,
            Depth: 0,
            Format: d.Format,
            NumChannels: d.NumChannels,
            Flags: 0,
        })?;
        store(out, handle as usize as *mut c_void, "pHandle")
    })
}

/// `cuArray3DCreate`: a 1D, 2D, 3D or layered array.
///
/// # Safety
/// `out` and `desc` are NULL or valid for the access CUDA's API documents.
#[no_mangle]
pub unsafe extern "C" fn cuArray3DCreate_v2(
    out: *mut *mut c_void,
    desc: *const CUDA_ARRAY3D_DESCRIPTOR,
) -> CUresult {
    entry("cuArray3DCreate", || {
        // SAFETY: NULL or readable (caller's guarantee).
        let d = unsafe { desc.as_ref() }
            .ok_or_else(|| DriverError::new(INVALID_VALUE, "pAllocateArray is NULL"))?;
        let handle = create(d)?;
        store(out, handle as usize as *mut c_void, "pHandle")
    })
}

/// `cuArrayDestroy`.
#[no_mangle]
pub extern "C" fn cuArrayDestroy(array: *mut c_void) -> CUresult {
    entry("cuArrayDestroy", || {
        if textures::free_array(array as u64) {
            Ok(())
        } else {
            Err(dead(array))
        }
    })
}

/// `cuArrayGetDescriptor`: a 1D or 2D array's descriptor.
///
/// # Safety
/// `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn cuArrayGetDescriptor_v2(
    out: *mut CUDA_ARRAY_DESCRIPTOR,
    array: *mut c_void,
) -> CUresult {
    entry("cuArrayGetDescriptor", || {
        let d = describe(array)?;
        let two_d = CUDA_ARRAY_DESCRIPTOR {
            Width: d.Width,
            Height: d.Height,
            Format: d.Format,
            NumChannels: d.NumChannels,
        };
        store(out, two_d, "pArrayDescriptor")
    })
}

/// `cuArray3DGetDescriptor`.
///
/// # Safety
/// `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn cuArray3DGetDescriptor_v2(
    out: *mut CUDA_ARRAY3D_DESCRIPTOR,
    array: *mut c_void,
) -> CUresult {
    entry("cuArray3DGetDescriptor", || {
        store(out, describe(array)?, "pArrayDescriptor")
    })
}
