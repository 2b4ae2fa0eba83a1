//! Arrays, texture objects and surface objects: the nouns behind CUDA's `cudaArray_t`,
//! `cudaTextureObject_t` and `cudaSurfaceObject_t` (and the driver's `CUarray`, `CUtexObject`,
//! `CUsurfObject`), shared by every front door.
//!
//! On the CPU device an [`Array`] is a tightly pitched device allocation (rows of
//! `width × element` bytes, slices or layers of `height` rows), and a [`TextureObject`] or
//! [`SurfaceObject`] is a small device allocation holding the interpreter's
//! [`Descriptor`]: its handle is that allocation's address, which kernels receive as a
//! 64-bit argument and the interpreter reads when `tex` or `suld` names it. On GPUs these
//! nouns are not provided yet (`cuArrayCreate`, `cuTexObjectCreate`, `cuSurfObjectCreate`):
//! creating one there is an error naming the driver call.

use chevron_ptx::interp::texture::ObjectKind;
pub use chevron_ptx::interp::texture::{AddressMode, ChannelKind, Descriptor, ResourceKind};

use crate::{BackendKind, Buffer, Device, Error, Result};

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
}

impl ArrayDesc {
    /// Dimensions of one layer (1, 2 or 3).
    pub fn dims(&self) -> u8 {
        match self.extent {
            [_, 0, _] => 1,
            [_, _, 0] => 2,
            _ if self.layered => 2,
            _ => 3,
        }
    }

    /// Layers (0 if not layered).
    pub fn layers(&self) -> u64 {
        if self.layered {
            self.extent[2]
        } else {
            0
        }
    }
}

/// A CUDA array on a device.
#[derive(Debug)]
pub struct Array {
    buffer: Buffer<u8>,
    desc: ArrayDesc,
}

/// The error for a texture noun on a device that does not provide it.
fn not_on(device: &Device, call: &'static str, what: &str, driver: &str) -> Error {
    Error::InvalidValue {
        call,
        message: format!(
            "{what} are not supported on {} ({}); on GPUs they need `{driver}`, which chevron \
             does not call yet",
            device.label(),
            device.name()
        ),
    }
}

impl Array {
    /// Allocates an array of `desc` on `device` (contents undefined, as CUDA's).
    pub fn new(device: &Device, desc: ArrayDesc) -> Result<Array> {
        if device.backend() != BackendKind::Cpu {
            return Err(not_on(
                device,
                "Array::new",
                "CUDA arrays",
                "cuArray3DCreate",
            ));
        }
        let invalid = |message: String| Error::InvalidValue {
            call: "Array::new",
            message,
        };
        desc.format.check().map_err(invalid)?;
        let [w, h, d] = desc.extent;
        if w == 0 || (d != 0 && h == 0 && !desc.layered) {
            return Err(invalid(format!("extent {:?} is not an array", desc.extent)));
        }
        let bytes = [w, h.max(1), d.max(1), desc.format.element_bytes()]
            .iter()
            .try_fold(1u64, |acc, &x| acc.checked_mul(x))
            .filter(|&b| b <= 1 << 40)
            .ok_or_else(|| invalid(format!("extent {:?} is too large", desc.extent)))?;
        let buffer = Buffer::<u8>::new(device, bytes as usize)?;
        Ok(Array { buffer, desc })
    }

    /// What the array holds.
    pub fn desc(&self) -> &ArrayDesc {
        &self.desc
    }

    /// The device address of element (0, 0, 0).
    pub fn device_ptr(&self) -> u64 {
        self.buffer.device_ptr()
    }

    /// Bytes from one row to the next.
    pub fn row_pitch(&self) -> u64 {
        self.desc.extent[0] * self.desc.format.element_bytes()
    }

    /// Bytes from one slice (or layer) to the next.
    pub fn slice_pitch(&self) -> u64 {
        self.row_pitch() * self.desc.extent[1].max(1)
    }

    /// Bytes of the whole array.
    pub fn size_bytes(&self) -> u64 {
        self.slice_pitch() * self.desc.extent[2].max(1)
    }

    /// The device the array lives on.
    pub fn device(&self) -> &Device {
        self.buffer.device()
    }
}

/// The memory a texture reads.
#[derive(Debug, Clone, Copy)]
pub enum Resource<'a> {
    /// An array.
    Array(&'a Array),
    /// Linear memory of `bytes` bytes at `ptr` (`tex1Dfetch`).
    Linear {
        /// Device address.
        ptr: u64,
        /// Element format.
        format: ChannelFormat,
        /// Size in bytes.
        bytes: u64,
    },
    /// Pitched 2D memory.
    Pitch2D {
        /// Device address.
        ptr: u64,
        /// Element format.
        format: ChannelFormat,
        /// Width and height in elements.
        extent: [u64; 2],
        /// Bytes from one row to the next.
        pitch: u64,
    },
}

/// How a texture samples (CUDA's `cudaTextureDesc`, less mipmaps).
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
}

/// The descriptor of `resource` read with `sampler`, as an object of `kind`.
fn describe(
    resource: &Resource<'_>,
    sampler: &Sampler,
    kind: ObjectKind,
) -> std::result::Result<Descriptor, String> {
    let (base, format, extent, layers, row_pitch, slice_pitch, dims, res) = match *resource {
        Resource::Array(a) => {
            let d = a.desc();
            let extent = [
                d.extent[0],
                d.extent[1].max(1),
                if d.layered { 1 } else { d.extent[2].max(1) },
            ];
            let (row, slice) = (a.row_pitch(), a.slice_pitch());
            let res = ResourceKind::Array;
            (
                a.device_ptr(),
                d.format,
                extent,
                d.layers(),
                row,
                slice,
                d.dims(),
                res,
            )
        }
        Resource::Linear { ptr, format, bytes } => {
            let width = bytes / format.element_bytes().max(1);
            let res = ResourceKind::Linear;
            (ptr, format, [width, 1, 1], 0, bytes, bytes, 1, res)
        }
        Resource::Pitch2D {
            ptr,
            format,
            extent,
            pitch,
        } => {
            let res = ResourceKind::Pitch2D;
            let slice = pitch * extent[1];
            (
                ptr,
                format,
                [extent[0], extent[1], 1],
                0,
                pitch,
                slice,
                2,
                res,
            )
        }
    };
    let (channels, bits) = format.check()?;
    if extent[0] == 0 {
        return Err("the resource is empty".into());
    }
    Ok(Descriptor {
        kind,
        base,
        extent,
        layers,
        row_pitch,
        slice_pitch,
        channels,
        bits,
        channel_kind: format.kind,
        resource: res,
        dims,
        linear_filter: sampler.linear_filter,
        normalized_read: sampler.normalized_read,
        normalized_coords: sampler.normalized_coords,
        address: sampler.address,
        border: sampler.border,
    })
}

/// A descriptor in device memory; its address is the object's handle.
#[derive(Debug)]
struct ObjectMemory {
    words: Buffer<u64>,
    descriptor: Descriptor,
}

impl ObjectMemory {
    fn new(device: &Device, descriptor: Descriptor) -> Result<ObjectMemory> {
        let words = Buffer::from_slice(device, &descriptor.to_words())?;
        Ok(ObjectMemory { words, descriptor })
    }
}

/// A texture object: a resource and how it is sampled.
#[derive(Debug)]
pub struct TextureObject {
    memory: ObjectMemory,
}

impl TextureObject {
    /// Creates a texture object reading `resource` with `sampler` on `device`.
    pub fn new(device: &Device, resource: &Resource<'_>, sampler: &Sampler) -> Result<Self> {
        if device.backend() != BackendKind::Cpu {
            let call = "TextureObject::new";
            return Err(not_on(device, call, "texture objects", "cuTexObjectCreate"));
        }
        let descriptor = describe(resource, sampler, ObjectKind::Texture).map_err(|message| {
            Error::InvalidValue {
                call: "TextureObject::new",
                message,
            }
        })?;
        Ok(TextureObject {
            memory: ObjectMemory::new(device, descriptor)?,
        })
    }

    /// The handle kernels receive (`cudaTextureObject_t`).
    pub fn handle(&self) -> u64 {
        self.memory.words.device_ptr()
    }

    /// What the object reads and how.
    pub fn descriptor(&self) -> &Descriptor {
        &self.memory.descriptor
    }
}

/// A surface object: an array read and written by `suld` and `sust`.
#[derive(Debug)]
pub struct SurfaceObject {
    memory: ObjectMemory,
}

impl SurfaceObject {
    /// Creates a surface object over `array` (which must allow surfaces).
    pub fn new(array: &Array) -> Result<Self> {
        let device = array.device();
        if device.backend() != BackendKind::Cpu {
            let call = "SurfaceObject::new";
            return Err(not_on(
                device,
                call,
                "surface objects",
                "cuSurfObjectCreate",
            ));
        }
        let invalid = |message: String| Error::InvalidValue {
            call: "SurfaceObject::new",
            message,
        };
        if !array.desc().surface {
            return Err(invalid(
                "the array was not created for surfaces (cudaArraySurfaceLoadStore)".into(),
            ));
        }
        let sampler = Sampler {
            address: [AddressMode::Clamp; 3],
            linear_filter: false,
            normalized_read: false,
            normalized_coords: false,
            border: [0.0; 4],
        };
        let descriptor =
            describe(&Resource::Array(array), &sampler, ObjectKind::Surface).map_err(invalid)?;
        Ok(SurfaceObject {
            memory: ObjectMemory::new(device, descriptor)?,
        })
    }

    /// The handle kernels receive (`cudaSurfaceObject_t`).
    pub fn handle(&self) -> u64 {
        self.memory.words.device_ptr()
    }
}
