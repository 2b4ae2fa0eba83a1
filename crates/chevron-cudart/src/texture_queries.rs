//! What arrays and objects were made of: `cudaGetChannelDesc`,
//! `cudaGetTextureObjectResourceDesc`, `cudaGetTextureObjectTextureDesc` and
//! `cudaGetSurfaceObjectResourceDesc`, answered from what chevron's nouns keep
//! ([`chevron::texture::Resource`] of [`chevron::texture::ArrayInfo`],
//! [`chevron::texture::Sampler`]) on every device.

use std::ffi::c_void;

use chevron::texture::{ArrayInfo, Resource, Sampler};

use crate::errors::{cudaError_t, guard, CudaError, INVALID_VALUE};
use crate::memory::store;
use crate::textures::{
    channel_desc, with_array, with_surface, with_texture, ChannelFormatDesc, ResourceDesc,
    TextureDesc,
};

/// The runtime's description of `info` (`cudaResourceTypeArray`, `…MipmappedArray`,
/// `…Linear`, `…Pitch2D`).
fn resource_desc(info: &Resource<ArrayInfo>) -> ResourceDesc {
    let mut d = ResourceDesc {
        res_type: 0,
        ptr: 0,
        desc: ChannelFormatDesc {
            x: 0,
            y: 0,
            z: 0,
            w: 0,
            f: 0,
        },
        a: 0,
        b: 0,
        c: 0,
        reserved: [0; 72],
        flags: 0,
    };
    match *info {
        Resource::Array(ArrayInfo { handle, desc }) => {
            (d.res_type, d.ptr) = (if desc.levels > 0 { 1 } else { 0 }, handle);
        }
        Resource::Linear { ptr, format, bytes } => {
            (d.res_type, d.ptr, d.desc, d.a) = (2, ptr, channel_desc(&format), bytes as usize);
        }
        Resource::Pitch2D {
            ptr,
            format,
            extent,
            pitch,
        } => {
            (d.res_type, d.ptr, d.desc) = (3, ptr, channel_desc(&format));
            (d.a, d.b, d.c) = (extent[0] as usize, extent[1] as usize, pitch as usize);
        }
    }
    d
}

/// The runtime's description of `sampler`.
fn texture_desc(sampler: &Sampler) -> TextureDesc {
    TextureDesc {
        address_mode: sampler.address.map(|m| m as i32),
        filter_mode: i32::from(sampler.linear_filter),
        read_mode: i32::from(sampler.normalized_read),
        srgb: 0,
        border_color: sampler.border,
        normalized_coords: i32::from(sampler.normalized_coords),
        max_anisotropy: sampler.mipmap.max_anisotropy,
        mipmap_filter_mode: i32::from(sampler.mipmap.linear),
        mipmap_level_bias: sampler.mipmap.bias,
        min_mipmap_level_clamp: sampler.mipmap.clamp[0],
        max_mipmap_level_clamp: sampler.mipmap.clamp[1],
        disable_trilinear_optimization: 0,
        seamless_cubemap: 0,
    }
}

fn not_live(what: &str, handle: u64) -> CudaError {
    CudaError::new(
        INVALID_VALUE,
        format!("{handle:#x} is not a live {what} object"),
    )
}

/// The channel format of an array.
///
/// # Safety
/// `desc` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaGetChannelDesc(
    desc: *mut ChannelFormatDesc,
    array: *const c_void,
) -> cudaError_t {
    guard("cudaGetChannelDesc", || {
        let format = with_array(array as *mut c_void, |a| Ok(a.desc().format))?;
        store(desc, channel_desc(&format), "desc")
    })
}

/// The resource a texture object reads.
///
/// # Safety
/// `out` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaGetTextureObjectResourceDesc(
    out: *mut ResourceDesc,
    object: u64,
) -> cudaError_t {
    guard("cudaGetTextureObjectResourceDesc", || {
        let info =
            with_texture(object, |t| *t.resource()).ok_or_else(|| not_live("texture", object))?;
        store(out, resource_desc(&info), "pResDesc")
    })
}

/// How a texture object samples.
///
/// # Safety
/// `out` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaGetTextureObjectTextureDesc(
    out: *mut TextureDesc,
    object: u64,
) -> cudaError_t {
    guard("cudaGetTextureObjectTextureDesc", || {
        let sampler =
            with_texture(object, |t| *t.sampler()).ok_or_else(|| not_live("texture", object))?;
        store(out, texture_desc(&sampler), "pTexDesc")
    })
}

/// The array a surface object reads and writes.
///
/// # Safety
/// `out` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaGetSurfaceObjectResourceDesc(
    out: *mut ResourceDesc,
    object: u64,
) -> cudaError_t {
    guard("cudaGetSurfaceObjectResourceDesc", || {
        let info =
            with_surface(object, |s| *s.resource()).ok_or_else(|| not_live("surface", object))?;
        store(out, resource_desc(&info), "pResDesc")
    })
}

#[cfg(test)]
mod tests {
    use chevron::texture::{AddressMode, ChannelFormat, ChannelKind, MipmapFilter};

    use super::*;

    #[test]
    fn resources_and_samplers_read_back_as_the_runtime_wrote_them() {
        let format = ChannelFormat {
            bits: [8, 8, 8, 8],
            kind: ChannelKind::Unsigned,
        };
        let d = resource_desc(&Resource::Pitch2D {
            ptr: 0x1000,
            format,
            extent: [10, 4],
            pitch: 64,
        });
        assert_eq!((d.res_type, d.ptr, d.a, d.b, d.c), (3, 0x1000, 10, 4, 64));
        assert_eq!((d.desc.x, d.desc.w, d.desc.f), (8, 8, 1));
        let d = resource_desc(&Resource::Linear {
            ptr: 0x2000,
            format,
            bytes: 256,
        });
        assert_eq!((d.res_type, d.a), (2, 256));
        let t = texture_desc(&Sampler {
            address: [AddressMode::Mirror, AddressMode::Border, AddressMode::Wrap],
            linear_filter: true,
            normalized_read: true,
            normalized_coords: true,
            border: [0.5; 4],
            mipmap: MipmapFilter {
                linear: true,
                bias: 0.25,
                clamp: [0.0, 3.0],
                max_anisotropy: 2,
            },
        });
        assert_eq!(t.address_mode, [2, 3, 0]);
        assert_eq!((t.mipmap_filter_mode, t.max_anisotropy), (1, 2));
        assert_eq!((t.mipmap_level_bias, t.max_mipmap_level_clamp), (0.25, 3.0));
        assert_eq!((t.filter_mode, t.read_mode, t.normalized_coords), (1, 1, 1));
    }
}
