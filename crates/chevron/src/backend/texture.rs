//! The contract's part for CUDA arrays, texture objects and surface objects.
//!
//! Two kinds of backend exist. One whose kernels read chevron's own descriptors (the CPU
//! device: the interpreter reads a texture object's descriptor from device memory when `tex`
//! names it) keeps [`crate::backend::Device::native_textures`] false; arrays are then plain
//! device allocations and objects descriptors in device memory, both made by the public layer
//! (`crate::texture`). One whose hardware samples (CUDA) answers true and makes arrays
//! ([`NativeArray`], the driver's `CUarray`), objects ([`NativeObject`], `CUtexObject` and
//! `CUsurfObject`) and copies to and from arrays ([`ArrayCopy`], `cuMemcpy3DAsync`) itself.
//!
//! The descriptions here ([`ChannelFormat`], [`ArrayDesc`], [`Sampler`]) are what every front
//! door (the runtime's `cudaMallocArray`, the driver's `cuArray3DCreate`) reads its own
//! structures into.

use std::any::Any;

use chevron_ptx::interp::texture::mipmap;
pub use chevron_ptx::interp::texture::{AddressMode, ChannelKind};

use super::DevicePtr;

/// The format of one element: bits of each of up to four channels and how they are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChannelFormat {
    /// Bits of x, y, z, w (0 for channels the format lacks).
    pub bits: [u32; 4],
    /// How every channel is read.
    pub kind: ChannelKind,
}

impl ChannelFormat {
    /// Checks the format is one textures can read: 1, 2 or 4 leading channels of the same
    /// width, 8, 16 or 32 bits (floats 16 or 32); returns (channels, bits per channel).
    pub fn check(&self) -> std::result::Result<(u8, u8), String> {
        let channels = self.bits.iter().take_while(|&&b| b != 0).count();
        let bits = self.bits[0];
        let same = self.bits[..channels].iter().all(|&b| b == bits)
            && self.bits[channels..].iter().all(|&b| b == 0);
        let width_ok = match self.kind {
            ChannelKind::Float => matches!(bits, 16 | 32),
            _ => matches!(bits, 8 | 16 | 32),
        };
        if !matches!(channels, 1 | 2 | 4) || !same || !width_ok {
            return Err(format!(
                "channel format {:?} of {:?} is not 1, 2 or 4 channels of 8, 16 or 32 bits",
                self.bits, self.kind
            ));
        }
        Ok((channels as u8, bits as u8))
    }

    /// Bytes of one element (0 if the format is invalid).
    pub fn element_bytes(&self) -> u64 {
        self.check()
            .map(|(c, b)| u64::from(c) * u64::from(b) / 8)
            .unwrap_or(0)
    }
}

/// What an array holds: its format, extent and uses (CUDA's array flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArrayDesc {
    /// The element format.
    pub format: ChannelFormat,
    /// Width, height (0: one-dimensional) and depth (0: two-dimensional; layers if layered).
    pub extent: [u64; 3],
    /// A layered array: `extent[2]` layers of 1D (height 0) or 2D arrays.
    pub layered: bool,
    /// Surfaces may be bound to it (`cudaArraySurfaceLoadStore`).
    pub surface: bool,
    /// `tld4` may read it (`cudaArrayTextureGather`).
    pub gather: bool,
    /// A cubemap (`cudaArrayCubemap`): `extent[2]` faces of `width × width`, 6 (or, layered,
    /// a multiple of 6: face `f` of cube `c` is layer `6c + f`).
    pub cubemap: bool,
    /// Mipmap levels of a mipmapped array (`cudaMallocMipmappedArray`); 0 for an array that
    /// is not mipmapped. `extent` is level 0's.
    pub levels: u32,
}

impl ArrayDesc {
    /// Dimensions of one layer (1, 2 or 3).
    pub fn dims(&self) -> u8 {
        match self.extent {
            [_, 0, _] => 1,
            [_, _, 0] => 2,
            _ if self.layered || self.cubemap => 2,
            _ => 3,
        }
    }

    /// Layers (0 if not layered); a cubemap's faces are layers.
    pub fn layers(&self) -> u64 {
        if self.layered || self.cubemap {
            self.extent[2]
        } else {
            0
        }
    }

    /// The description of level `l` of a mipmapped array (each dimension `max(1, e >> l)`,
    /// layers kept), an array of its own that is not mipmapped.
    pub fn level(&self, l: u32) -> ArrayDesc {
        let dims = usize::from(self.dims());
        let mut extent = self.extent;
        for e in extent.iter_mut().take(dims) {
            *e = (e.checked_shr(l).unwrap_or(0)).max(1);
        }
        ArrayDesc {
            extent,
            levels: 0,
            ..*self
        }
    }

    /// Bytes of one row (`width × element`).
    pub fn row_bytes(&self) -> u64 {
        self.extent[0] * self.format.element_bytes()
    }

    /// Checks the description: a valid format, a width, and a height wherever a depth is
    /// given (unless layered); a cubemap's square faces, 6 of them (a multiple of 6 if
    /// layered); at most a full chain of levels. Returns the bytes the array holds tightly
    /// pitched, all levels one after another.
    pub fn check(&self) -> std::result::Result<u64, String> {
        self.format.check()?;
        let [w, h, d] = self.extent;
        if w == 0 || (d != 0 && h == 0 && !self.layered) || (self.layered && d == 0) {
            return Err(format!("extent {:?} is not an array", self.extent));
        }
        if self.cubemap && (w != h || d == 0 || d % 6 != 0 || (!self.layered && d != 6)) {
            return Err(format!(
                "extent {:?} is not a cubemap (square faces, a depth of 6, or a multiple of 6 \
                 if layered)",
                self.extent
            ));
        }
        let chain = self.full_chain();
        if self.levels > chain {
            return Err(format!(
                "{} levels (an extent of {:?} has {chain})",
                self.levels, self.extent
            ));
        }
        let level0 = [w, h.max(1), d.max(1), self.format.element_bytes()]
            .iter()
            .try_fold(1u64, |acc, &x| acc.checked_mul(x))
            .filter(|&b| b <= 1 << 40)
            .ok_or_else(|| format!("extent {:?} is too large", self.extent))?;
        if self.levels <= 1 {
            return Ok(level0);
        }
        let (offset, last) = self.level_span(self.levels - 1);
        Ok(offset + last)
    }

    /// The levels of a full mipmap chain of this extent: `1 + floor(log2(largest dimension))`
    /// (layers are not a dimension).
    pub fn full_chain(&self) -> u32 {
        let [w, h, d] = self.extent;
        mipmap::full_chain([w, h, if self.dims() == 3 { d } else { 1 }])
    }

    /// Byte offset of level `l` from level 0 and its bytes, levels tightly pitched one after
    /// another (the CPU device's layout of a mipmapped array).
    pub fn level_span(&self, l: u32) -> (u64, u64) {
        let extent = self.extent.map(|e| e.max(1));
        let element = self.format.element_bytes();
        mipmap::level_span(extent, self.dims(), self.layers(), element, l)
    }
}

/// How a texture reads the levels of a mipmapped array (the mipmap fields of CUDA's
/// `cudaTextureDesc`); the default is the zeroed structure's: point filtering, no bias, every
/// level clamped to 0.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MipmapFilter {
    /// Blend the two nearest levels (true) or read the nearest one.
    pub linear: bool,
    /// Added to every level of detail.
    pub bias: f32,
    /// The smallest and largest level of detail read.
    pub clamp: [f32; 2],
    /// The most anisotropy the hardware may use (kept for GPUs; the CPU device samples
    /// isotropically).
    pub max_anisotropy: u32,
}

/// How a texture samples (CUDA's `cudaTextureDesc`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sampler {
    /// Address modes of x, y, z.
    pub address: [AddressMode; 3],
    /// Linear (true) or point filtering.
    pub linear_filter: bool,
    /// 8- and 16-bit integers read as normalised floats.
    pub normalized_read: bool,
    /// Coordinates in [0, 1).
    pub normalized_coords: bool,
    /// The border colour.
    pub border: [f32; 4],
    /// How levels of a mipmapped array are read.
    pub mipmap: MipmapFilter,
}

/// An array the backend made ([`crate::backend::Device::create_array`]); dropping it destroys
/// it (CUDA: `cuArrayDestroy`, `cuMipmappedArrayDestroy`; a level of a mipmapped array
/// ([`crate::backend::Device::array_level`]) is destroyed with its array). The caller keeps it
/// alive while work uses it, and a mipmapped array alive while its levels are used.
pub trait NativeArray: Send + Sync + 'static {
    /// The backend's handle (CUDA: the `CUarray`).
    fn handle(&self) -> u64;

    /// For downcasting within the backend.
    fn as_any(&self) -> &dyn Any;
}

/// A texture or surface object the backend made; dropping it destroys it (CUDA:
/// `cuTexObjectDestroy`, `cuSurfObjectDestroy`).
pub trait NativeObject: Send + Sync + 'static {
    /// The handle kernels receive as a 64-bit parameter (CUDA: `CUtexObject`, `CUsurfObject`).
    fn handle(&self) -> u64;
}

/// The memory a backend's texture object reads.
#[derive(Clone, Copy)]
pub enum NativeResource<'a> {
    /// An array of the same device.
    Array(&'a dyn NativeArray),
    /// A mipmapped array of the same device.
    Mipmapped(&'a dyn NativeArray),
    /// `bytes` bytes of linear device memory at `ptr` (`tex1Dfetch`).
    Linear {
        /// Device address.
        ptr: DevicePtr,
        /// Element format.
        format: ChannelFormat,
        /// Size in bytes.
        bytes: u64,
    },
    /// Pitched 2D device memory.
    Pitch2D {
        /// Device address.
        ptr: DevicePtr,
        /// Element format.
        format: ChannelFormat,
        /// Width and height in elements.
        extent: [u64; 2],
        /// Bytes from one row to the next.
        pitch: u64,
    },
}

/// One side of an [`ArrayCopy`].
#[derive(Clone, Copy)]
pub enum CopySide<'a> {
    /// An array of the stream's device, from byte `x`, row `y`, slice (or layer) `z`.
    Array {
        /// The array.
        array: &'a dyn NativeArray,
        /// (x in bytes, y, z) of the window's first byte.
        at: [u64; 3],
    },
    /// Pitched device memory: the window's first byte, bytes per row, rows per slice.
    Device {
        /// Address of the window's first byte.
        ptr: DevicePtr,
        /// Bytes from one row to the next.
        pitch: u64,
        /// Rows from one slice to the next.
        height: u64,
    },
    /// Pitched host memory, as [`CopySide::Device`].
    Host {
        /// Address of the window's first byte.
        ptr: *mut u8,
        /// Bytes from one row to the next.
        pitch: u64,
        /// Rows from one slice to the next.
        height: u64,
    },
}

/// A copy of `slices` slices of `rows` rows of `width` bytes between two sides, at least one
/// of them an array (CUDA: `CUDA_MEMCPY3D`).
#[derive(Clone, Copy)]
pub struct ArrayCopy<'a> {
    /// Where the bytes go.
    pub dst: CopySide<'a>,
    /// Where they come from.
    pub src: CopySide<'a>,
    /// Bytes per row, rows per slice, slices.
    pub extent: [u64; 3],
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(extent: [u64; 3], layered: bool) -> ArrayDesc {
        ArrayDesc {
            format: ChannelFormat {
                bits: [32, 32, 0, 0],
                kind: ChannelKind::Float,
            },
            extent,
            layered,
            surface: false,
            gather: false,
            cubemap: false,
            levels: 0,
        }
    }

    #[test]
    fn cubemaps_and_mipmaps_are_checked_and_sized() {
        let cube = ArrayDesc {
            cubemap: true,
            ..desc([4, 4, 6], false)
        };
        assert_eq!(cube.check(), Ok(4 * 4 * 6 * 8));
        assert_eq!((cube.dims(), cube.layers()), (2, 6));
        assert!(ArrayDesc {
            extent: [4, 3, 6],
            ..cube
        }
        .check()
        .is_err());
        assert!(ArrayDesc {
            extent: [4, 4, 12],
            ..cube
        }
        .check()
        .is_err());
        let layered = ArrayDesc {
            extent: [4, 4, 12],
            layered: true,
            ..cube
        };
        assert_eq!(layered.check(), Ok(4 * 4 * 12 * 8));
        // 8×4, 4×2, 2×1, 1×1 of 8-byte texels.
        let mip = ArrayDesc {
            levels: 4,
            ..desc([8, 4, 0], false)
        };
        assert_eq!(mip.check(), Ok((32 + 8 + 2 + 1) * 8));
        assert_eq!(mip.level_span(2), ((32 + 8) * 8, 2 * 8));
        assert_eq!(mip.level(2).extent, [2, 1, 0]);
        assert_eq!(mip.level(3).levels, 0);
        assert!(ArrayDesc { levels: 5, ..mip }.check().is_err());
        let mip_cube = ArrayDesc { levels: 3, ..cube };
        assert_eq!(mip_cube.check(), Ok((16 + 4 + 1) * 6 * 8));
        assert_eq!(mip_cube.level(1).extent, [2, 2, 6]);
    }

    #[test]
    fn array_descriptions_are_checked_and_sized() {
        assert_eq!(desc([8, 6, 0], false).check(), Ok(8 * 6 * 8));
        assert_eq!(desc([8, 0, 3], true).check(), Ok(8 * 3 * 8));
        assert!(desc([0, 6, 0], false).check().is_err());
        assert!(desc([8, 0, 3], false).check().is_err());
        assert!(desc([8, 4, 0], true).check().is_err());
        assert!(desc([1 << 30, 1 << 30, 0], false).check().is_err());
        assert_eq!(desc([8, 0, 3], true).dims(), 1);
        assert_eq!(desc([8, 4, 3], false).dims(), 3);
        assert_eq!(desc([8, 4, 3], true).layers(), 3);
    }
}
