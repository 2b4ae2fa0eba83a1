//! The driver's structures for arrays and texture/surface objects (`CUDA_ARRAY3D_DESCRIPTOR`,
//! `CUDA_RESOURCE_DESC`, `CUDA_TEXTURE_DESC`, laid out as CUDA 13.0's `cuda.h` has them) and
//! their translation from the contract's descriptions ([`ArrayDesc`], [`NativeResource`],
//! [`Sampler`], [`ArrayCopy`]). Pure: nothing here calls the driver, so the tests below check
//! the layouts and translations without a GPU.

#![allow(non_camel_case_types, non_snake_case)]

use std::ffi::c_uint;

use super::graph_types::{CUDA_MEMCPY3D, CU_MEMORYTYPE_HOST};
use super::sys::CUdeviceptr;
use crate::backend::texture::{
    ArrayCopy, ArrayDesc, ChannelFormat, ChannelKind, CopySide, NativeResource, Sampler,
};

/// A CUDA array (opaque).
pub type CUarray = *mut std::ffi::c_void;

/// `CU_MEMORYTYPE_DEVICE`, `CU_MEMORYTYPE_ARRAY`.
const MEMORYTYPE_DEVICE: c_uint = 2;
const MEMORYTYPE_ARRAY: c_uint = 3;

/// `CUDA_ARRAY3D_LAYERED`.
pub const ARRAY3D_LAYERED: c_uint = 0x01;
/// `CUDA_ARRAY3D_SURFACE_LDST`.
pub const ARRAY3D_SURFACE_LDST: c_uint = 0x02;
/// `CUDA_ARRAY3D_CUBEMAP`.
pub const ARRAY3D_CUBEMAP: c_uint = 0x04;
/// `CUDA_ARRAY3D_TEXTURE_GATHER`.
pub const ARRAY3D_TEXTURE_GATHER: c_uint = 0x08;

/// `CU_RESOURCE_TYPE_ARRAY`, `_MIPMAPPED_ARRAY`, `_LINEAR`, `_PITCH2D`.
const RESOURCE_TYPE_ARRAY: c_uint = 0x00;
const RESOURCE_TYPE_MIPMAPPED_ARRAY: c_uint = 0x01;
const RESOURCE_TYPE_LINEAR: c_uint = 0x02;
const RESOURCE_TYPE_PITCH2D: c_uint = 0x03;

/// `CU_TRSF_READ_AS_INTEGER`, `CU_TRSF_NORMALIZED_COORDINATES`.
const TRSF_READ_AS_INTEGER: c_uint = 0x01;
const TRSF_NORMALIZED_COORDINATES: c_uint = 0x02;

/// `CUDA_ARRAY3D_DESCRIPTOR`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CUDA_ARRAY3D_DESCRIPTOR {
    /// Width in elements.
    pub Width: usize,
    /// Height (0: one-dimensional).
    pub Height: usize,
    /// Depth or layers (0: two-dimensional).
    pub Depth: usize,
    /// The `CUarray_format`.
    pub Format: c_uint,
    /// Channels per element (1, 2 or 4).
    pub NumChannels: c_uint,
    /// `CUDA_ARRAY3D_*` flags.
    pub Flags: c_uint,
}

/// The union of `CUDA_RESOURCE_DESC` as its widest member, `pitch2D` (`array` uses the first
/// word, `linear` the first four), padded to the header's 32 ints.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceUnion {
    /// `hArray` or `devPtr`.
    pub handle: CUdeviceptr,
    /// The `CUarray_format` (linear and pitch2D).
    pub format: c_uint,
    /// Channels per element (linear and pitch2D).
    pub numChannels: c_uint,
    /// `sizeInBytes` (linear) or `width` in elements (pitch2D).
    pub size_or_width: usize,
    /// `height` (pitch2D).
    pub height: usize,
    /// `pitchInBytes` (pitch2D).
    pub pitchInBytes: usize,
    /// The rest of the union.
    pub reserved: [u32; 32 - 10],
}

/// `CUDA_RESOURCE_DESC`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CUDA_RESOURCE_DESC {
    /// The `CUresourcetype`.
    pub resType: c_uint,
    /// What the resource is.
    pub res: ResourceUnion,
    /// Must be zero.
    pub flags: c_uint,
}

/// `CUDA_TEXTURE_DESC`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CUDA_TEXTURE_DESC {
    /// `CUaddress_mode` of x, y, z.
    pub addressMode: [c_uint; 3],
    /// `CUfilter_mode`: 0 point, 1 linear.
    pub filterMode: c_uint,
    /// `CU_TRSF_*` flags.
    pub flags: c_uint,
    /// Maximum anisotropy.
    pub maxAnisotropy: c_uint,
    /// Mipmap filter mode.
    pub mipmapFilterMode: c_uint,
    /// Mipmap level bias.
    pub mipmapLevelBias: f32,
    /// Smallest mipmap level.
    pub minMipmapLevelClamp: f32,
    /// Largest mipmap level.
    pub maxMipmapLevelClamp: f32,
    /// The border colour.
    pub borderColor: [f32; 4],
    /// Reserved.
    pub reserved: [i32; 12],
}

/// `CUarray_format` values: (code, kind, bits per channel).
pub const FORMATS: [(c_uint, ChannelKind, u32); 8] = [
    (0x01, ChannelKind::Unsigned, 8),
    (0x02, ChannelKind::Unsigned, 16),
    (0x03, ChannelKind::Unsigned, 32),
    (0x08, ChannelKind::Signed, 8),
    (0x09, ChannelKind::Signed, 16),
    (0x0a, ChannelKind::Signed, 32),
    (0x10, ChannelKind::Float, 16),
    (0x20, ChannelKind::Float, 32),
];

/// The `CUarray_format` and channel count of `format`.
pub fn format_code(format: &ChannelFormat) -> Result<(c_uint, c_uint), String> {
    let (channels, bits) = format.check()?;
    let code = FORMATS
        .iter()
        .find(|(_, kind, b)| *kind == format.kind && *b == u32::from(bits))
        .map(|(code, _, _)| *code)
        .ok_or_else(|| format!("{format:?} has no CUarray_format"))?;
    Ok((code, c_uint::from(channels)))
}

/// The driver's descriptor of an array of `desc`.
pub fn array_descriptor(desc: &ArrayDesc) -> Result<CUDA_ARRAY3D_DESCRIPTOR, String> {
    desc.check()?;
    let (format, channels) = format_code(&desc.format)?;
    let flag = |on: bool, bit: c_uint| if on { bit } else { 0 };
    Ok(CUDA_ARRAY3D_DESCRIPTOR {
        Width: desc.extent[0] as usize,
        Height: desc.extent[1] as usize,
        Depth: desc.extent[2] as usize,
        Format: format,
        NumChannels: channels,
        Flags: flag(desc.layered, ARRAY3D_LAYERED)
            | flag(desc.surface, ARRAY3D_SURFACE_LDST)
            | flag(desc.cubemap, ARRAY3D_CUBEMAP)
            | flag(desc.gather, ARRAY3D_TEXTURE_GATHER),
    })
}

/// An empty resource of type `resType` naming `handle`.
fn resource(resType: c_uint, handle: u64) -> CUDA_RESOURCE_DESC {
    CUDA_RESOURCE_DESC {
        resType,
        res: ResourceUnion {
            handle,
            format: 0,
            numChannels: 0,
            size_or_width: 0,
            height: 0,
            pitchInBytes: 0,
            reserved: [0; 22],
        },
        flags: 0,
    }
}

/// The driver's description of `res`.
pub fn resource_desc(res: &NativeResource<'_>) -> Result<CUDA_RESOURCE_DESC, String> {
    Ok(match *res {
        NativeResource::Array(array) => resource(RESOURCE_TYPE_ARRAY, array.handle()),
        NativeResource::Mipmapped(array) => resource(RESOURCE_TYPE_MIPMAPPED_ARRAY, array.handle()),
        NativeResource::Linear { ptr, format, bytes } => {
            let mut d = resource(RESOURCE_TYPE_LINEAR, ptr);
            (d.res.format, d.res.numChannels) = format_code(&format)?;
            d.res.size_or_width = bytes as usize;
            d
        }
        NativeResource::Pitch2D {
            ptr,
            format,
            extent,
            pitch,
        } => {
            let mut d = resource(RESOURCE_TYPE_PITCH2D, ptr);
            (d.res.format, d.res.numChannels) = format_code(&format)?;
            d.res.size_or_width = extent[0] as usize;
            d.res.height = extent[1] as usize;
            d.res.pitchInBytes = pitch as usize;
            d
        }
    })
}

/// The driver's description of `sampler` for a resource of channel kind `kind`: integers are
/// read as integers unless `normalized_read` (CUDA's `cudaReadModeNormalizedFloat`), the
/// `CU_TRSF_READ_AS_INTEGER` of `cudaReadModeElementType`; floats need no flag.
pub fn texture_desc(sampler: &Sampler, kind: ChannelKind) -> CUDA_TEXTURE_DESC {
    let mut flags = 0;
    if !sampler.normalized_read && kind != ChannelKind::Float {
        flags |= TRSF_READ_AS_INTEGER;
    }
    if sampler.normalized_coords {
        flags |= TRSF_NORMALIZED_COORDINATES;
    }
    let mipmap = &sampler.mipmap;
    CUDA_TEXTURE_DESC {
        addressMode: sampler.address.map(|m| m as c_uint),
        filterMode: c_uint::from(sampler.linear_filter),
        flags,
        maxAnisotropy: mipmap.max_anisotropy,
        mipmapFilterMode: c_uint::from(mipmap.linear),
        mipmapLevelBias: mipmap.bias,
        minMipmapLevelClamp: mipmap.clamp[0],
        maxMipmapLevelClamp: mipmap.clamp[1],
        borderColor: sampler.border,
        ..CUDA_TEXTURE_DESC::default()
    }
}

/// The driver's description of `copy`.
pub fn memcpy_3d(copy: &ArrayCopy<'_>) -> CUDA_MEMCPY3D {
    let mut m = CUDA_MEMCPY3D {
        WidthInBytes: copy.extent[0] as usize,
        Height: copy.extent[1] as usize,
        Depth: copy.extent[2] as usize,
        ..CUDA_MEMCPY3D::default()
    };
    match copy.src {
        CopySide::Array { array, at } => {
            m.srcMemoryType = MEMORYTYPE_ARRAY;
            m.srcArray = array.handle() as usize;
            [m.srcXInBytes, m.srcY, m.srcZ] = at.map(|v| v as usize);
        }
        CopySide::Device { ptr, pitch, height } => {
            m.srcMemoryType = MEMORYTYPE_DEVICE;
            (m.srcDevice, m.srcPitch, m.srcHeight) = (ptr, pitch as usize, height as usize);
        }
        CopySide::Host { ptr, pitch, height } => {
            m.srcMemoryType = CU_MEMORYTYPE_HOST;
            (m.srcHost, m.srcPitch, m.srcHeight) = (ptr as usize, pitch as usize, height as usize);
        }
    }
    match copy.dst {
        CopySide::Array { array, at } => {
            m.dstMemoryType = MEMORYTYPE_ARRAY;
            m.dstArray = array.handle() as usize;
            [m.dstXInBytes, m.dstY, m.dstZ] = at.map(|v| v as usize);
        }
        CopySide::Device { ptr, pitch, height } => {
            m.dstMemoryType = MEMORYTYPE_DEVICE;
            (m.dstDevice, m.dstPitch, m.dstHeight) = (ptr, pitch as usize, height as usize);
        }
        CopySide::Host { ptr, pitch, height } => {
            m.dstMemoryType = CU_MEMORYTYPE_HOST;
            (m.dstHost, m.dstPitch, m.dstHeight) = (ptr as usize, pitch as usize, height as usize);
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use std::any::Any;
    use std::mem::{offset_of, size_of};

    use super::*;
    use crate::backend::texture::{AddressMode, MipmapFilter, NativeArray};

    /// Offsets and sizes as CUDA 13.0's `cuda.h` lays the structures out on LP64.
    #[test]
    fn the_structures_have_the_headers_layout() {
        assert_eq!(size_of::<CUDA_ARRAY3D_DESCRIPTOR>(), 40);
        assert_eq!(offset_of!(CUDA_ARRAY3D_DESCRIPTOR, Depth), 16);
        assert_eq!(offset_of!(CUDA_ARRAY3D_DESCRIPTOR, Format), 24);
        assert_eq!(offset_of!(CUDA_ARRAY3D_DESCRIPTOR, NumChannels), 28);
        assert_eq!(offset_of!(CUDA_ARRAY3D_DESCRIPTOR, Flags), 32);

        assert_eq!(size_of::<CUDA_RESOURCE_DESC>(), 144);
        assert_eq!(offset_of!(CUDA_RESOURCE_DESC, res), 8);
        assert_eq!(offset_of!(CUDA_RESOURCE_DESC, flags), 136);
        assert_eq!(size_of::<ResourceUnion>(), 128);
        assert_eq!(offset_of!(ResourceUnion, format), 8);
        assert_eq!(offset_of!(ResourceUnion, numChannels), 12);
        assert_eq!(offset_of!(ResourceUnion, size_or_width), 16);
        assert_eq!(offset_of!(ResourceUnion, height), 24);
        assert_eq!(offset_of!(ResourceUnion, pitchInBytes), 32);

        assert_eq!(size_of::<CUDA_TEXTURE_DESC>(), 104);
        assert_eq!(offset_of!(CUDA_TEXTURE_DESC, filterMode), 12);
        assert_eq!(offset_of!(CUDA_TEXTURE_DESC, flags), 16);
        assert_eq!(offset_of!(CUDA_TEXTURE_DESC, mipmapLevelBias), 28);
        assert_eq!(offset_of!(CUDA_TEXTURE_DESC, borderColor), 40);
        assert_eq!(offset_of!(CUDA_TEXTURE_DESC, reserved), 56);

        assert_eq!(size_of::<CUDA_MEMCPY3D>(), 200);
        assert_eq!(offset_of!(CUDA_MEMCPY3D, srcMemoryType), 32);
        assert_eq!(offset_of!(CUDA_MEMCPY3D, srcHost), 40);
        assert_eq!(offset_of!(CUDA_MEMCPY3D, srcArray), 56);
        assert_eq!(offset_of!(CUDA_MEMCPY3D, srcPitch), 72);
        assert_eq!(offset_of!(CUDA_MEMCPY3D, dstXInBytes), 88);
        assert_eq!(offset_of!(CUDA_MEMCPY3D, dstMemoryType), 120);
        assert_eq!(offset_of!(CUDA_MEMCPY3D, dstArray), 144);
        assert_eq!(offset_of!(CUDA_MEMCPY3D, WidthInBytes), 176);
        assert_eq!(offset_of!(CUDA_MEMCPY3D, Depth), 192);
    }

    fn float2() -> ChannelFormat {
        ChannelFormat {
            bits: [32, 32, 0, 0],
            kind: ChannelKind::Float,
        }
    }

    #[test]
    fn array_descriptions_translate_to_the_drivers() {
        let desc = ArrayDesc {
            format: ChannelFormat {
                bits: [8; 4],
                kind: ChannelKind::Unsigned,
            },
            extent: [16, 0, 5],
            layered: true,
            surface: true,
            gather: false,
            cubemap: false,
            levels: 0,
        };
        let d = array_descriptor(&desc).unwrap();
        let want = CUDA_ARRAY3D_DESCRIPTOR {
            Width: 16,
            Height: 0,
            Depth: 5,
            Format: 0x01,
            NumChannels: 4,
            Flags: 0x03,
        };
        assert_eq!(d, want);
        let half = ChannelFormat {
            bits: [16, 0, 0, 0],
            kind: ChannelKind::Float,
        };
        assert_eq!(format_code(&half), Ok((0x10, 1)));
        assert_eq!(format_code(&float2()), Ok((0x20, 2)));
        let three = ChannelFormat {
            bits: [32, 32, 32, 0],
            kind: ChannelKind::Float,
        };
        assert!(format_code(&three).is_err());
        let bad = ArrayDesc {
            extent: [0, 4, 0],
            ..desc
        };
        assert!(array_descriptor(&bad).is_err());
        let cube = ArrayDesc {
            extent: [8, 8, 12],
            cubemap: true,
            levels: 4,
            ..desc
        };
        assert_eq!(array_descriptor(&cube).unwrap().Flags, 0x07);
    }

    struct FakeArray;
    impl NativeArray for FakeArray {
        fn handle(&self) -> u64 {
            0xabc0
        }
        fn as_any(&self) -> &dyn Any {
            self
        }
    }

    #[test]
    fn resources_and_samplers_translate_to_the_drivers() {
        let array = FakeArray;
        let r = resource_desc(&NativeResource::Array(&array)).unwrap();
        assert_eq!((r.resType, r.res.handle, r.flags), (0, 0xabc0, 0));
        let r = resource_desc(&NativeResource::Mipmapped(&array)).unwrap();
        assert_eq!((r.resType, r.res.handle), (1, 0xabc0));
        let r = resource_desc(&NativeResource::Linear {
            ptr: 0x7000,
            format: float2(),
            bytes: 4096,
        })
        .unwrap();
        assert_eq!(
            (r.resType, r.res.handle, r.res.format, r.res.numChannels),
            (2, 0x7000, 0x20, 2)
        );
        assert_eq!(r.res.size_or_width, 4096);
        let r = resource_desc(&NativeResource::Pitch2D {
            ptr: 0x8000,
            format: float2(),
            extent: [10, 7],
            pitch: 128,
        })
        .unwrap();
        assert_eq!(r.resType, 3);
        assert_eq!(
            (r.res.size_or_width, r.res.height, r.res.pitchInBytes),
            (10, 7, 128)
        );

        let sampler = Sampler {
            address: [AddressMode::Wrap, AddressMode::Mirror, AddressMode::Border],
            linear_filter: true,
            normalized_read: false,
            normalized_coords: true,
            border: [1.0, 0.5, 0.25, 0.0],
            mipmap: MipmapFilter {
                linear: true,
                bias: -0.5,
                clamp: [1.0, 3.5],
                max_anisotropy: 4,
            },
        };
        let t = texture_desc(&sampler, ChannelKind::Signed);
        assert_eq!(t.addressMode, [0, 2, 3]);
        assert_eq!((t.mipmapFilterMode, t.maxAnisotropy), (1, 4));
        assert_eq!(
            (
                t.mipmapLevelBias,
                t.minMipmapLevelClamp,
                t.maxMipmapLevelClamp
            ),
            (-0.5, 1.0, 3.5)
        );
        assert_eq!((t.filterMode, t.flags), (1, 0x03));
        assert_eq!(t.borderColor, [1.0, 0.5, 0.25, 0.0]);
        let t = texture_desc(
            &Sampler {
                normalized_read: true,
                normalized_coords: false,
                linear_filter: false,
                ..sampler
            },
            ChannelKind::Unsigned,
        );
        assert_eq!((t.filterMode, t.flags), (0, 0));
        let t = texture_desc(&sampler, ChannelKind::Float);
        assert_eq!(
            t.flags, 0x02,
            "floats are read as they are, without READ_AS_INTEGER"
        );
    }

    #[test]
    fn copies_translate_to_the_drivers() {
        let array = FakeArray;
        let mut host = [0u8; 64];
        let m = memcpy_3d(&ArrayCopy {
            dst: CopySide::Array {
                array: &array,
                at: [8, 2, 1],
            },
            src: CopySide::Host {
                ptr: host.as_mut_ptr(),
                pitch: 32,
                height: 2,
            },
            extent: [16, 2, 1],
        });
        assert_eq!((m.dstMemoryType, m.dstArray), (3, 0xabc0));
        assert_eq!((m.dstXInBytes, m.dstY, m.dstZ), (8, 2, 1));
        assert_eq!((m.srcMemoryType, m.srcHost), (1, host.as_ptr() as usize));
        assert_eq!((m.srcPitch, m.srcHeight), (32, 2));
        assert_eq!((m.WidthInBytes, m.Height, m.Depth), (16, 2, 1));
        let m = memcpy_3d(&ArrayCopy {
            dst: CopySide::Device {
                ptr: 0x9000,
                pitch: 64,
                height: 4,
            },
            src: CopySide::Array {
                array: &array,
                at: [0, 0, 0],
            },
            extent: [64, 4, 2],
        });
        assert_eq!((m.srcMemoryType, m.dstMemoryType), (3, 2));
        assert_eq!((m.dstDevice, m.dstPitch, m.dstHeight), (0x9000, 64, 4));
    }
}
