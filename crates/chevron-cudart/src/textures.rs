//! CUDA arrays, texture objects and surface objects over [`chevron::texture`]: channel
//! descriptors, `cudaMallocArray`, `cudaFreeArray`, and creating and destroying texture and
//! surface objects. Arrays and objects are named by their handles ([`Array::handle`]: a device
//! address on the CPU device, the driver's `CUarray`/`CUtexObject` on GPUs) and kept here
//! until freed or destroyed; copies to and from arrays are `array_memcpy.rs`, queries
//! `texture_queries.rs`.

use std::collections::HashMap;
use std::ffi::{c_int, c_uint, c_void};
use std::sync::Mutex;

use chevron::texture::{
    AddressMode, Array, ArrayDesc, ChannelFormat, ChannelKind, MipmapFilter, Resource, Sampler,
    SurfaceObject, TextureObject,
};

use crate::errors::{
    cudaError_t, guard, CudaError, CudaResult, INVALID_RESOURCE_HANDLE, INVALID_VALUE,
    NOT_SUPPORTED,
};
use crate::memory::store;
use crate::state::{self, lock};

/// `cudaErrorInvalidChannelDescriptor`.
const INVALID_CHANNEL_DESCRIPTOR: cudaError_t = 20;

/// `struct cudaChannelFormatDesc`. Fields as CUDA's header has them.
#[allow(missing_docs)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ChannelFormatDesc {
    pub x: c_int,
    pub y: c_int,
    pub z: c_int,
    pub w: c_int,
    pub f: c_int,
}

/// `struct cudaResourceDesc` (the union as its largest member, `pitch2D`, padded to the
/// header's 32 ints). Fields as CUDA's header has them.
#[allow(missing_docs)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ResourceDesc {
    pub res_type: c_int,
    pub ptr: u64,
    pub desc: ChannelFormatDesc,
    pub a: usize,
    pub b: usize,
    pub c: usize,
    pub reserved: [u8; 128 - 56],
    pub flags: c_uint,
}

/// `struct cudaTextureDesc`. Fields as CUDA's header has them.
#[allow(missing_docs)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TextureDesc {
    pub address_mode: [c_int; 3],
    pub filter_mode: c_int,
    pub read_mode: c_int,
    pub srgb: c_int,
    pub border_color: [f32; 4],
    pub normalized_coords: c_int,
    pub max_anisotropy: c_uint,
    pub mipmap_filter_mode: c_int,
    pub mipmap_level_bias: f32,
    pub min_mipmap_level_clamp: f32,
    pub max_mipmap_level_clamp: f32,
    pub disable_trilinear_optimization: c_int,
    pub seamless_cubemap: c_int,
}

static ARRAYS: Mutex<Option<HashMap<u64, Array>>> = Mutex::new(None);
/// Mipmapped arrays by handle (`cudaMipmappedArray_t`, `CUmipmappedArray`), apart from
/// [`ARRAYS`]: on the CPU device a mipmapped array and its level 0 share an address.
pub(crate) static MIPMAPS: Mutex<Option<HashMap<u64, Mipmapped>>> = Mutex::new(None);

/// A mipmapped array and the handles of the levels handed out (freed with it).
pub(crate) struct Mipmapped {
    /// The array, with its levels.
    pub array: Array,
    /// Handles of its levels kept in [`ARRAYS`].
    pub levels: Vec<u64>,
}
static TEXTURES: Mutex<Option<HashMap<u64, TextureObject>>> = Mutex::new(None);
static SURFACES: Mutex<Option<HashMap<u64, SurfaceObject>>> = Mutex::new(None);

/// Returns a channel descriptor of the given bits and kind.
#[no_mangle]
pub extern "C" fn cudaCreateChannelDesc(
    x: c_int,
    y: c_int,
    z: c_int,
    w: c_int,
    f: c_int,
) -> ChannelFormatDesc {
    ChannelFormatDesc { x, y, z, w, f }
}

/// Keeps `array`, named by its device address (the `cudaArray_t` handed out; the driver's
/// `cuArray3DCreate` keeps its arrays here too, so both APIs share one set).
pub fn keep_array(array: Array) -> u64 {
    let handle = array.handle();
    lock(&ARRAYS)
        .get_or_insert_with(HashMap::new)
        .insert(handle, array);
    handle
}

/// Runs `f` on the live array `array`; `cudaErrorInvalidValue` for anything else (as CUDA
/// documents for `cudaArrayGetInfo`, `cudaGetChannelDesc` and the copies).
pub(crate) fn with_array<T>(
    array: *mut c_void,
    f: impl FnOnce(&Array) -> CudaResult<T>,
) -> CudaResult<T> {
    let arrays = lock(&ARRAYS);
    let a = arrays
        .as_ref()
        .and_then(|m| m.get(&(array as u64)))
        .ok_or_else(|| {
            CudaError::new(INVALID_VALUE, format!("{array:p} is not a live CUDA array"))
        })?;
    f(a)
}

/// Runs `f` on the table of live arrays, by handle (locked for the call).
pub(crate) fn with_arrays<T>(f: impl FnOnce(&HashMap<u64, Array>) -> T) -> T {
    let mut arrays = lock(&ARRAYS);
    f(arrays.get_or_insert_with(HashMap::new))
}

/// The channel descriptor of `format` (the inverse of [`format`]).
pub(crate) fn channel_desc(format: &ChannelFormat) -> ChannelFormatDesc {
    let [x, y, z, w] = format.bits.map(|b| b as c_int);
    let f = match format.kind {
        ChannelKind::Signed => 0,
        ChannelKind::Unsigned => 1,
        ChannelKind::Float => 2,
    };
    ChannelFormatDesc { x, y, z, w, f }
}

pub(crate) fn format(desc: &ChannelFormatDesc) -> CudaResult<ChannelFormat> {
    let kind = match desc.f {
        0 => ChannelKind::Signed,
        1 => ChannelKind::Unsigned,
        2 => ChannelKind::Float,
        _ => {
            return Err(CudaError::new(
                INVALID_CHANNEL_DESCRIPTOR,
                format!("channel kind {} is not signed, unsigned or float", desc.f),
            ))
        }
    };
    let bits = [desc.x, desc.y, desc.z, desc.w].map(|b| b.max(0) as u32);
    let format = ChannelFormat { bits, kind };
    format
        .check()
        .map_err(|m| CudaError::new(INVALID_CHANNEL_DESCRIPTOR, m))?;
    Ok(format)
}

/// Allocates a 1D or 2D array.
///
/// # Safety
/// Pointer arguments are NULL or valid for the access CUDA's API documents.
#[no_mangle]
pub unsafe extern "C" fn cudaMallocArray(
    array: *mut *mut c_void,
    desc: *const ChannelFormatDesc,
    width: usize,
    height: usize,
    flags: c_uint,
) -> cudaError_t {
    guard("cudaMallocArray", || {
        if array.is_null() || desc.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "array or desc is NULL"));
        }
        // SAFETY: non-NULL; readable by the API's contract.
        let format = format(unsafe { &*desc })?;
        if width == 0 || flags & !0x0a != 0 {
            return Err(CudaError::new(
                INVALID_VALUE,
                "width 0 or unsupported flags",
            ));
        }
        let state = state::current()?;
        let desc = ArrayDesc {
            format,
            extent: [width as u64, height as u64, 0],
            layered: false,
            surface: flags & 0x02 != 0,
            gather: flags & 0x08 != 0,
            cubemap: false,
            levels: 0,
        };
        let handle = keep_array(Array::new(&state.device, desc)?);
        store(array, handle as usize as *mut c_void, "array")
    })
}

/// Frees an array (NULL is a no-op).
#[no_mangle]
pub extern "C" fn cudaFreeArray(array: *mut c_void) -> cudaError_t {
    guard("cudaFreeArray", || {
        if array.is_null() {
            return Ok(());
        }
        match lock(&ARRAYS)
            .as_mut()
            .and_then(|a| a.remove(&(array as u64)))
        {
            Some(_) => Ok(()),
            None => Err(CudaError::new(
                INVALID_VALUE,
                format!("{array:p} is not a live CUDA array"),
            )),
        }
    })
}

fn sampler(t: &TextureDesc) -> CudaResult<Sampler> {
    let mut address = [AddressMode::Clamp; 3];
    for (slot, &m) in address.iter_mut().zip(&t.address_mode) {
        *slot = AddressMode::from_index(m as u64)
            .ok_or_else(|| CudaError::new(INVALID_VALUE, format!("address mode {m}")))?;
    }
    if t.seamless_cubemap != 0 {
        return Err(CudaError::new(
            NOT_SUPPORTED,
            "seamless cubemap filtering (seamlessCubemap) is not provided",
        ));
    }
    Ok(Sampler {
        address,
        linear_filter: t.filter_mode == 1,
        normalized_read: t.read_mode == 1,
        normalized_coords: t.normalized_coords != 0,
        border: t.border_color,
        mipmap: MipmapFilter {
            linear: t.mipmap_filter_mode == 1,
            bias: t.mipmap_level_bias,
            clamp: [t.min_mipmap_level_clamp, t.max_mipmap_level_clamp],
            max_anisotropy: t.max_anisotropy,
        },
    })
}

/// Creates a texture object over an array, linear or pitched memory.
///
/// # Safety
/// Pointer arguments are NULL or valid for the access CUDA's API documents.
#[no_mangle]
pub unsafe extern "C" fn cudaCreateTextureObject(
    out: *mut u64,
    res: *const ResourceDesc,
    tex: *const TextureDesc,
    _view: *const c_void,
) -> cudaError_t {
    guard("cudaCreateTextureObject", || {
        if out.is_null() || res.is_null() || tex.is_null() {
            return Err(CudaError::new(
                INVALID_VALUE,
                "pTexObject, pResDesc or pTexDesc is NULL",
            ));
        }
        // SAFETY: non-NULL; readable by the API's contract.
        let (res, tex) = unsafe { (&*res, &*tex) };
        let sampler = sampler(tex)?;
        let state = state::current()?;
        let arrays = lock(&ARRAYS);
        let mipmaps = lock(&MIPMAPS);
        let resource = match res.res_type {
            0 => Resource::Array(arrays.as_ref().and_then(|m| m.get(&res.ptr)).ok_or_else(
                || CudaError::new(INVALID_VALUE, "the resource's array is not live"),
            )?),
            1 => Resource::Array(
                mipmaps
                    .as_ref()
                    .and_then(|m| m.get(&res.ptr))
                    .map(|m| &m.array)
                    .ok_or_else(|| {
                        CudaError::new(INVALID_VALUE, "the resource's mipmapped array is not live")
                    })?,
            ),
            2 => Resource::Linear {
                ptr: res.ptr,
                format: format(&res.desc)?,
                bytes: res.a as u64,
            },
            3 => Resource::Pitch2D {
                ptr: res.ptr,
                format: format(&res.desc)?,
                extent: [res.a as u64, res.b as u64],
                pitch: res.c as u64,
            },
            t => {
                return Err(CudaError::new(
                    INVALID_VALUE,
                    format!("resource type {t} is not a cudaResourceType"),
                ))
            }
        };
        let object = TextureObject::new(&state.device, &resource, &sampler)?;
        drop((arrays, mipmaps));
        let handle = object.handle();
        lock(&TEXTURES)
            .get_or_insert_with(HashMap::new)
            .insert(handle, object);
        store(out, handle, "pTexObject")
    })
}

/// Destroys a texture object.
#[no_mangle]
pub extern "C" fn cudaDestroyTextureObject(object: u64) -> cudaError_t {
    guard("cudaDestroyTextureObject", || {
        match lock(&TEXTURES).as_mut().and_then(|m| m.remove(&object)) {
            Some(_) => Ok(()),
            None => Err(CudaError::new(
                INVALID_VALUE,
                format!("{object:#x} is not a live texture object"),
            )),
        }
    })
}

/// Creates a surface object over an array made with `cudaArraySurfaceLoadStore`.
///
/// # Safety
/// Pointer arguments are NULL or valid for the access CUDA's API documents.
#[no_mangle]
pub unsafe extern "C" fn cudaCreateSurfaceObject(
    out: *mut u64,
    res: *const ResourceDesc,
) -> cudaError_t {
    guard("cudaCreateSurfaceObject", || {
        if out.is_null() || res.is_null() {
            return Err(CudaError::new(
                INVALID_VALUE,
                "pSurfObject or pResDesc is NULL",
            ));
        }
        // SAFETY: non-NULL; readable by the API's contract.
        let res = unsafe { &*res };
        if res.res_type != 0 {
            return Err(CudaError::new(
                INVALID_VALUE,
                "surfaces need an array resource",
            ));
        }
        let object = {
            let arrays = lock(&ARRAYS);
            let array = arrays
                .as_ref()
                .and_then(|m| m.get(&res.ptr))
                .ok_or_else(|| {
                    CudaError::new(INVALID_RESOURCE_HANDLE, "the resource's array is not live")
                })?;
            SurfaceObject::new(array)?
        };
        let handle = object.handle();
        lock(&SURFACES)
            .get_or_insert_with(HashMap::new)
            .insert(handle, object);
        store(out, handle, "pSurfObject")
    })
}

/// Destroys a surface object.
#[no_mangle]
pub extern "C" fn cudaDestroySurfaceObject(object: u64) -> cudaError_t {
    guard("cudaDestroySurfaceObject", || {
        match lock(&SURFACES).as_mut().and_then(|m| m.remove(&object)) {
            Some(_) => Ok(()),
            None => Err(CudaError::new(
                INVALID_VALUE,
                format!("{object:#x} is not a live surface object"),
            )),
        }
    })
}

/// Frees the array named `handle`; false if no live array has that name.
pub fn free_array(handle: u64) -> bool {
    lock(&ARRAYS)
        .as_mut()
        .and_then(|a| a.remove(&handle))
        .is_some()
}

/// Runs `f` on the live array named `handle` (None if there is none).
pub fn with_live_array<R>(handle: u64, f: impl FnOnce(&Array) -> R) -> Option<R> {
    lock(&ARRAYS).as_ref().and_then(|m| m.get(&handle)).map(f)
}

/// Keeps `object` live under its handle until [`destroy_texture`] (or `cudaDestroyTextureObject`).
pub fn keep_texture(object: TextureObject) -> u64 {
    let handle = object.handle();
    lock(&TEXTURES)
        .get_or_insert_with(HashMap::new)
        .insert(handle, object);
    handle
}

/// Destroys the texture object `handle`; false if it is not live.
pub fn destroy_texture(handle: u64) -> bool {
    lock(&TEXTURES)
        .as_mut()
        .and_then(|m| m.remove(&handle))
        .is_some()
}

/// Keeps `object` live under its handle until [`destroy_surface`] (or `cudaDestroySurfaceObject`).
pub fn keep_surface(object: SurfaceObject) -> u64 {
    let handle = object.handle();
    lock(&SURFACES)
        .get_or_insert_with(HashMap::new)
        .insert(handle, object);
    handle
}

/// Destroys the surface object `handle`; false if it is not live.
pub fn destroy_surface(handle: u64) -> bool {
    lock(&SURFACES)
        .as_mut()
        .and_then(|m| m.remove(&handle))
        .is_some()
}

/// Runs `f` on the live texture object `handle` (None if there is none).
pub fn with_texture<R>(handle: u64, f: impl FnOnce(&TextureObject) -> R) -> Option<R> {
    lock(&TEXTURES).as_ref().and_then(|m| m.get(&handle)).map(f)
}

/// Runs `f` on the live surface object `handle` (None if there is none).
pub fn with_surface<R>(handle: u64, f: impl FnOnce(&SurfaceObject) -> R) -> Option<R> {
    lock(&SURFACES).as_ref().and_then(|m| m.get(&handle)).map(f)
}

#[cfg(test)]
mod tests {
    use std::mem::{offset_of, size_of};

    use super::*;

    /// Offsets and sizes as CUDA 13.0's `driver_types.h` and `texture_types.h` have them.
    #[test]
    fn the_runtime_structures_have_the_headers_layout() {
        assert_eq!(size_of::<ChannelFormatDesc>(), 20);
        assert_eq!(size_of::<ResourceDesc>(), 144);
        assert_eq!(offset_of!(ResourceDesc, ptr), 8);
        assert_eq!(offset_of!(ResourceDesc, desc), 16);
        assert_eq!(offset_of!(ResourceDesc, a), 40);
        assert_eq!(offset_of!(ResourceDesc, c), 56);
        assert_eq!(offset_of!(ResourceDesc, flags), 136);
        assert_eq!(size_of::<TextureDesc>(), 72);
        assert_eq!(offset_of!(TextureDesc, border_color), 24);
        assert_eq!(offset_of!(TextureDesc, normalized_coords), 40);
        assert_eq!(offset_of!(TextureDesc, mipmap_filter_mode), 48);
        assert_eq!(offset_of!(TextureDesc, max_mipmap_level_clamp), 60);
        assert_eq!(offset_of!(TextureDesc, seamless_cubemap), 68);
    }

    #[test]
    fn channel_descriptors_round_trip() {
        let d = cudaCreateChannelDesc(16, 16, 0, 0, 2);
        let f = format(&d).unwrap();
        assert_eq!(f.bits, [16, 16, 0, 0]);
        let back = channel_desc(&f);
        assert_eq!((back.x, back.y, back.z, back.w, back.f), (16, 16, 0, 0, 2));
        assert!(format(&cudaCreateChannelDesc(8, 16, 0, 0, 1)).is_err());
        assert!(format(&cudaCreateChannelDesc(8, 0, 0, 0, 3)).is_err());
    }
}
