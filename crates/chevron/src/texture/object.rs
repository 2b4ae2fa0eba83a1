//! Texture and surface objects: on the CPU device a descriptor in device memory (its address
//! is the handle), on GPUs the driver's object. Either way the object remembers what it reads
//! ([`ResourceInfo`]) and how ([`Sampler`]), which `cudaGetTextureObjectResourceDesc` and its
//! kin answer from.

use chevron_ptx::interp::texture::ObjectKind;

use super::{
    AddressMode, Array, ArrayDesc, ChannelFormat, Descriptor, MipmapFilter, ResourceKind, Sampler,
};
use crate::backend::{NativeObject, NativeResource};
use crate::{Buffer, Device, Error, Result};

/// The memory a texture reads, the array named by `A`: a borrowed [`Array`] when an object is
/// made ([`TextureObject::new`]), [`ArrayInfo`] as the object remembers it
/// ([`TextureObject::resource`]). An array with mipmap levels is a mipmapped array.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Resource<A> {
    /// An array (mipmapped or not).
    Array(A),
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

/// An array as an object made over it remembers it: its handle ([`Array::handle`]) and what
/// it holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArrayInfo {
    /// The array's handle.
    pub handle: u64,
    /// What it holds.
    pub desc: ArrayDesc,
}

impl<A> Resource<A> {
    /// The same resource with its array named by `f(array)`.
    pub fn map_array<B>(&self, f: impl FnOnce(&A) -> B) -> Resource<B> {
        match *self {
            Resource::Array(ref a) => Resource::Array(f(a)),
            Resource::Linear { ptr, format, bytes } => Resource::Linear { ptr, format, bytes },
            Resource::Pitch2D {
                ptr,
                format,
                extent,
                pitch,
            } => Resource::Pitch2D {
                ptr,
                format,
                extent,
                pitch,
            },
        }
    }
}

impl Resource<&Array> {
    fn info(&self) -> Resource<ArrayInfo> {
        self.map_array(|a| ArrayInfo {
            handle: a.handle(),
            desc: *a.desc(),
        })
    }

    /// The resource as the backend takes it (arrays the driver made).
    fn native(&self, call: &'static str) -> Result<NativeResource<'_>> {
        Ok(match *self {
            Resource::Array(a) => {
                let native = a.native().ok_or_else(|| Error::InvalidValue {
                    call,
                    message: "the array is not an array of this device's driver".into(),
                })?;
                if a.desc().levels > 0 {
                    NativeResource::Mipmapped(native)
                } else {
                    NativeResource::Array(native)
                }
            }
            Resource::Linear { ptr, format, bytes } => {
                NativeResource::Linear { ptr, format, bytes }
            }
            Resource::Pitch2D {
                ptr,
                format,
                extent,
                pitch,
            } => NativeResource::Pitch2D {
                ptr,
                format,
                extent,
                pitch,
            },
        })
    }
}

/// Checks what both kinds of device refuse alike: a bad format, an empty resource, an array
/// of another device.
fn check(device: &Device, resource: &Resource<&Array>) -> std::result::Result<(), String> {
    let (format, width) = match *resource {
        Resource::Array(a) => {
            if !a.device().same_device(device) {
                return Err(format!(
                    "the array lives on {}, not on {}",
                    a.device().label(),
                    device.label()
                ));
            }
            (a.desc().format, a.desc().extent[0])
        }
        Resource::Linear { format, bytes, .. } => (format, bytes / format.element_bytes().max(1)),
        Resource::Pitch2D { format, extent, .. } => (format, extent[0]),
    };
    format.check()?;
    if width == 0 {
        return Err("the resource is empty".into());
    }
    Ok(())
}

/// The interpreter's descriptor of `resource` read with `sampler`, as an object of `kind`
/// (arrays of plain memory only).
fn describe(
    resource: &Resource<&Array>,
    sampler: &Sampler,
    kind: ObjectKind,
) -> std::result::Result<Descriptor, String> {
    let (levels, cubemap) = match resource {
        Resource::Array(a) => (a.desc().levels.max(1), a.desc().cubemap),
        _ => (1, false),
    };
    let (base, format, extent, layers, row_pitch, slice_pitch, dims, res) = match *resource {
        Resource::Array(a) => {
            let d = a.desc();
            let extent = [
                d.extent[0],
                d.extent[1].max(1),
                if d.layers() > 0 {
                    1
                } else {
                    d.extent[2].max(1)
                },
            ];
            let base = a.memory().ok_or("the array is not plain device memory")?;
            let (row, slice) = (a.row_pitch(), a.slice_pitch());
            let res = ResourceKind::Array;
            let (layers, dims) = (d.layers(), d.dims());
            (base, d.format, extent, layers, row, slice, dims, res)
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
            let extent = [extent[0], extent[1], 1];
            (ptr, format, extent, 0, pitch, slice, 2, res)
        }
    };
    let (channels, bits) = format.check()?;
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
        levels,
        cubemap,
        mipmap_linear: sampler.mipmap.linear,
        lod_bias: sampler.mipmap.bias,
        lod_clamp: sampler.mipmap.clamp,
    })
}

/// An object as its device keeps it.
enum Object {
    /// A descriptor in device memory; its address is the object's handle.
    Descriptor {
        words: Buffer<u64>,
        descriptor: Descriptor,
    },
    /// The driver's object, and the device it lives on.
    Native(Box<dyn NativeObject>, Device),
}

impl Object {
    fn new(
        device: &Device,
        resource: &Resource<&Array>,
        sampler: &Sampler,
        kind: ObjectKind,
        call: &'static str,
    ) -> Result<Object> {
        let invalid = |message: String| Error::InvalidValue { call, message };
        check(device, resource).map_err(invalid)?;
        let backend = &device.core().backend;
        if backend.native_textures() {
            let native = resource.native(call)?;
            let object = match (kind, native) {
                (ObjectKind::Surface, NativeResource::Array(array)) => {
                    backend.create_surface_object(array)?
                }
                (ObjectKind::Surface, _) => {
                    return Err(invalid("surfaces need an array resource".into()))
                }
                _ => backend.create_texture_object(&native, sampler)?,
            };
            return Ok(Object::Native(object, device.clone()));
        }
        let descriptor = describe(resource, sampler, kind).map_err(invalid)?;
        let words = Buffer::from_slice(device, &descriptor.to_words())?;
        Ok(Object::Descriptor { words, descriptor })
    }

    fn handle(&self) -> u64 {
        match self {
            Object::Descriptor { words, .. } => words.device_ptr(),
            Object::Native(object, _) => object.handle(),
        }
    }
}

impl Drop for Object {
    fn drop(&mut self) {
        if let Object::Native(_, device) = self {
            // Kernels still queued may sample the object: the device finishes them first.
            let _ = device.synchronize();
        }
    }
}

impl std::fmt::Debug for Object {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#x}", self.handle())
    }
}

/// A texture object: a resource and how it is sampled.
#[derive(Debug)]
pub struct TextureObject {
    object: Object,
    resource: Resource<ArrayInfo>,
    sampler: Sampler,
}

impl TextureObject {
    /// Creates a texture object reading `resource` with `sampler` on `device`.
    pub fn new(device: &Device, resource: &Resource<&Array>, sampler: &Sampler) -> Result<Self> {
        let kind = ObjectKind::Texture;
        Ok(TextureObject {
            object: Object::new(device, resource, sampler, kind, "TextureObject::new")?,
            resource: resource.info(),
            sampler: *sampler,
        })
    }

    /// The handle kernels receive (`cudaTextureObject_t`).
    pub fn handle(&self) -> u64 {
        self.object.handle()
    }

    /// What the object reads.
    pub fn resource(&self) -> &Resource<ArrayInfo> {
        &self.resource
    }

    /// How it samples.
    pub fn sampler(&self) -> &Sampler {
        &self.sampler
    }

    /// The interpreter's descriptor, on devices whose kernels read one (the CPU device).
    pub fn descriptor(&self) -> Option<&Descriptor> {
        match &self.object {
            Object::Descriptor { descriptor, .. } => Some(descriptor),
            Object::Native(..) => None,
        }
    }
}

/// A surface object: an array read and written by `suld` and `sust`.
#[derive(Debug)]
pub struct SurfaceObject {
    object: Object,
    resource: Resource<ArrayInfo>,
}

impl SurfaceObject {
    /// Creates a surface object over `array` (which must allow surfaces).
    pub fn new(array: &Array) -> Result<Self> {
        if array.desc().levels > 0 {
            return Err(Error::InvalidValue {
                call: "SurfaceObject::new",
                message: "a surface is made over one level of a mipmapped array".into(),
            });
        }
        if !array.desc().surface {
            return Err(Error::InvalidValue {
                call: "SurfaceObject::new",
                message: "the array was not created for surfaces (cudaArraySurfaceLoadStore)"
                    .into(),
            });
        }
        let sampler = Sampler {
            address: [AddressMode::Clamp; 3],
            linear_filter: false,
            normalized_read: false,
            normalized_coords: false,
            border: [0.0; 4],
            mipmap: MipmapFilter::default(),
        };
        let resource = Resource::Array(array);
        let (kind, call) = (ObjectKind::Surface, "SurfaceObject::new");
        Ok(SurfaceObject {
            object: Object::new(array.device(), &resource, &sampler, kind, call)?,
            resource: resource.info(),
        })
    }

    /// The handle kernels receive (`cudaSurfaceObject_t`).
    pub fn handle(&self) -> u64 {
        self.object.handle()
    }

    /// The array it reads and writes.
    pub fn resource(&self) -> &Resource<ArrayInfo> {
        &self.resource
    }
}
