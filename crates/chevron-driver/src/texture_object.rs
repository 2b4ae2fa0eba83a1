//! `cuTexObjectCreate`, `cuTexObjectDestroy`, `cuTexObjectGetResourceDesc`,
//! `cuSurfObjectCreate` and `cuSurfObjectDestroy`: texture and surface objects over
//! [`chevron::texture`], kept in the runtime's tables ([`cudart::textures`]) so objects made
//! through either API are the same objects. The driver's descriptors (`CUDA_RESOURCE_DESC`,
//! `CUDA_TEXTURE_DESC`) are read into chevron's [`Resource`] and [`Sampler`]; the interpreter's
//! descriptor (CPU device) or the driver's object (GPUs, through chevron's CUDA backend) is
//! made by [`TextureObject::new`] as for the runtime.

use std::collections::HashMap;
use std::ffi::{c_uint, c_void};
use std::sync::Mutex;

pub use chevron::backend::cuda::texture_types::{
    ResourceUnion, CUDA_RESOURCE_DESC, CUDA_TEXTURE_DESC,
};
use chevron::texture::{
    AddressMode, Array, ChannelKind, MipmapFilter, Resource, Sampler, SurfaceObject, TextureObject,
};
use cudart::state::{self, lock};
use cudart::textures;

use crate::array::{channel_format, dead};
use crate::memory::enter;
use crate::result::{
    entry, store, CUresult, DriverError, DriverResult, INVALID_HANDLE, INVALID_VALUE, NOT_SUPPORTED,
};

/// `CUresourcetype`.
const RESOURCE_ARRAY: c_uint = 0;
const RESOURCE_MIPMAPPED_ARRAY: c_uint = 1;
const RESOURCE_LINEAR: c_uint = 2;
const RESOURCE_PITCH2D: c_uint = 3;

/// `CU_TRSF_READ_AS_INTEGER`, `CU_TRSF_NORMALIZED_COORDINATES`, `CU_TRSF_SEAMLESS_CUBEMAP`.
const READ_AS_INTEGER: c_uint = 0x01;
const NORMALIZED_COORDINATES: c_uint = 0x02;
const SEAMLESS_CUBEMAP: c_uint = 0x40;

/// The resource each live texture object was made from (for `cuTexObjectGetResourceDesc`).
static RESOURCES: Mutex<Option<HashMap<u64, CUDA_RESOURCE_DESC>>> = Mutex::new(None);

/// The sampler `tex` describes for a resource of channel kind `kind`.
fn sampler(tex: &CUDA_TEXTURE_DESC, kind: ChannelKind) -> DriverResult<Sampler> {
    let mut address = [AddressMode::Clamp; 3];
    for (slot, &m) in address.iter_mut().zip(&tex.addressMode) {
        *slot = AddressMode::from_index(u64::from(m))
            .ok_or_else(|| DriverError::new(INVALID_VALUE, format!("address mode {m}")))?;
    }
    if tex.flags & SEAMLESS_CUBEMAP != 0 {
        return Err(DriverError::new(
            NOT_SUPPORTED,
            "seamless cubemap filtering (CU_TRSF_SEAMLESS_CUBEMAP) is not provided",
        ));
    }
    Ok(Sampler {
        address,
        linear_filter: tex.filterMode == 1,
        normalized_read: tex.flags & READ_AS_INTEGER == 0 && kind != ChannelKind::Float,
        normalized_coords: tex.flags & NORMALIZED_COORDINATES != 0,
        border: tex.borderColor,
        mipmap: MipmapFilter {
            linear: tex.mipmapFilterMode == 1,
            bias: tex.mipmapLevelBias,
            clamp: [tex.minMipmapLevelClamp, tex.maxMipmapLevelClamp],
            max_anisotropy: tex.maxAnisotropy,
        },
    })
}

/// Makes a texture object of `res` sampled as `tex`.
fn create_texture(res: &CUDA_RESOURCE_DESC, tex: &CUDA_TEXTURE_DESC) -> DriverResult<u64> {
    enter()?;
    let state = state::current()?;
    let u = &res.res;
    let object = match res.resType {
        RESOURCE_ARRAY | RESOURCE_MIPMAPPED_ARRAY => {
            let make = |a: &Array| -> DriverResult<TextureObject> {
                let sampler = sampler(tex, a.desc().format.kind)?;
                Ok(TextureObject::new(
                    &state.device,
                    &Resource::Array(a),
                    &sampler,
                )?)
            };
            let made = if res.resType == RESOURCE_ARRAY {
                textures::with_live_array(u.handle, make)
            } else {
                cudart::mipmapped::with_mipmapped(u.handle, make)
            };
            made.ok_or_else(|| dead(u.handle as *mut c_void))??
        }
        RESOURCE_LINEAR | RESOURCE_PITCH2D => {
            let format = channel_format(u.format, u.numChannels)?;
            let resource = if res.resType == RESOURCE_LINEAR {
                Resource::Linear {
                    ptr: u.handle,
                    format,
                    bytes: u.size_or_width as u64,
                }
            } else {
                Resource::Pitch2D {
                    ptr: u.handle,
                    format,
                    extent: [u.size_or_width as u64, u.height as u64],
                    pitch: u.pitchInBytes as u64,
                }
            };
            TextureObject::new(&state.device, &resource, &sampler(tex, format.kind)?)?
        }
        t => {
            return Err(DriverError::new(
                INVALID_VALUE,
                format!("resource type {t} (mipmapped arrays) is not provided"),
            ))
        }
    };
    let handle = textures::keep_texture(object);
    lock(&RESOURCES)
        .get_or_insert_with(HashMap::new)
        .insert(handle, *res);
    Ok(handle)
}

/// `cuTexObjectCreate` (resource views are not provided: `pResViewDesc` must be NULL).
///
/// # Safety
/// Pointer arguments are NULL or valid for the access CUDA's API documents.
#[no_mangle]
pub unsafe extern "C" fn cuTexObjectCreate(
    out: *mut u64,
    res: *const CUDA_RESOURCE_DESC,
    tex: *const CUDA_TEXTURE_DESC,
    view: *const c_void,
) -> CUresult {
    entry("cuTexObjectCreate", || {
        // SAFETY: NULL or readable (caller's guarantee).
        let (Some(res), Some(tex)) = (unsafe { res.as_ref() }, unsafe { tex.as_ref() }) else {
            return Err(DriverError::new(
                INVALID_VALUE,
                "pResDesc or pTexDesc is NULL",
            ));
        };
        if !view.is_null() {
            return Err(DriverError::new(
                INVALID_VALUE,
                "resource views (pResViewDesc) are not provided",
            ));
        }
        if out.is_null() {
            return Err(DriverError::new(INVALID_VALUE, "pTexObject is NULL"));
        }
        store(out, create_texture(res, tex)?, "pTexObject")
    })
}

/// `cuTexObjectDestroy`.
#[no_mangle]
pub extern "C" fn cuTexObjectDestroy(object: u64) -> CUresult {
    entry("cuTexObjectDestroy", || {
        lock(&RESOURCES).as_mut().map(|m| m.remove(&object));
        if textures::destroy_texture(object) {
            Ok(())
        } else {
            Err(DriverError::new(
                INVALID_HANDLE,
                format!("{object:#x} is not a live texture object"),
            ))
        }
    })
}

/// `cuTexObjectGetResourceDesc`: the resource a texture object made here reads.
///
/// # Safety
/// `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn cuTexObjectGetResourceDesc(
    out: *mut CUDA_RESOURCE_DESC,
    object: u64,
) -> CUresult {
    entry("cuTexObjectGetResourceDesc", || {
        let res = lock(&RESOURCES)
            .as_ref()
            .and_then(|m| m.get(&object).copied())
            .ok_or_else(|| {
                DriverError::new(
                    INVALID_HANDLE,
                    format!("{object:#x} is not a live texture object of the driver API"),
                )
            })?;
        store(out, res, "pResDesc")
    })
}

/// `cuSurfObjectCreate`: a surface over an array made with `CUDA_ARRAY3D_SURFACE_LDST`.
///
/// # Safety
/// Pointer arguments are NULL or valid for the access CUDA's API documents.
#[no_mangle]
pub unsafe extern "C" fn cuSurfObjectCreate(
    out: *mut u64,
    res: *const CUDA_RESOURCE_DESC,
) -> CUresult {
    entry("cuSurfObjectCreate", || {
        enter()?;
        // SAFETY: NULL or readable (caller's guarantee).
        let res = unsafe { res.as_ref() }
            .ok_or_else(|| DriverError::new(INVALID_VALUE, "pResDesc is NULL"))?;
        if res.resType != RESOURCE_ARRAY {
            return Err(DriverError::new(
                INVALID_VALUE,
                "surfaces need an array resource",
            ));
        }
        if out.is_null() {
            return Err(DriverError::new(INVALID_VALUE, "pSurfObject is NULL"));
        }
        let array = res.res.handle;
        let object = textures::with_live_array(array, SurfaceObject::new)
            .ok_or_else(|| dead(array as *mut c_void))??;
        store(out, textures::keep_surface(object), "pSurfObject")
    })
}

/// `cuSurfObjectDestroy`.
#[no_mangle]
pub extern "C" fn cuSurfObjectDestroy(object: u64) -> CUresult {
    entry("cuSurfObjectDestroy", || {
        if textures::destroy_surface(object) {
            Ok(())
        } else {
            Err(DriverError::new(
                INVALID_HANDLE,
                format!("{object:#x} is not a live surface object"),
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_have_the_headers_sizes() {
        assert_eq!(std::mem::size_of::<CUDA_RESOURCE_DESC>(), 144);
        assert_eq!(std::mem::size_of::<CUDA_TEXTURE_DESC>(), 104);
    }
}
