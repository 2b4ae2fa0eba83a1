//! Arrays, texture objects and surface objects: the nouns behind CUDA's `cudaArray_t`,
//! `cudaTextureObject_t` and `cudaSurfaceObject_t` (and the driver's `CUarray`, `CUtexObject`,
//! `CUsurfObject`), shared by every front door.
//!
//! Each device makes them the way its backend says ([`crate::backend::Device::native_textures`]):
//!
//! - **The CPU device:** an [`Array`] is a tightly pitched device allocation (rows of
//!   `width × element` bytes, slices or layers of `height` rows), and a [`TextureObject`] or
//!   [`SurfaceObject`] is a small device allocation holding the interpreter's [`Descriptor`]:
//!   its handle is that allocation's address, which kernels receive as a 64-bit argument and
//!   the interpreter reads when `tex` or `suld` names it. Copies to and from an array are
//!   copies of its memory ([`Array::memory`]). A mipmapped array is one allocation holding
//!   its levels one after another ([`ArrayDesc::level_span`]); a level ([`Array::level`]) is
//!   an array over its part of that memory.
//! - **GPUs:** the driver makes them (`cuArray3DCreate`, `cuMipmappedArrayCreate`,
//!   `cuTexObjectCreate`, `cuSurfObjectCreate`): an array's handle is its `CUarray` (or
//!   `CUmipmappedArray`), an object's the driver's 64-bit handle, and copies go through
//!   [`copy_array`] (`cuMemcpy3DAsync`).
//!
//! A mipmapped array is an [`Array`] whose description has levels (`ArrayDesc::levels`); it
//! is read by texture objects, and written and copied through its levels.

mod copy;
mod object;

pub use chevron_ptx::interp::texture::{AddressMode, ChannelKind, Descriptor, ResourceKind};
pub use copy::{copy_array, Side};
pub use object::{ArrayInfo, Resource, SurfaceObject, TextureObject};

pub use crate::backend::texture::{ArrayDesc, ChannelFormat, MipmapFilter, Sampler};
use std::sync::Arc;

use crate::backend::NativeArray;
use crate::{Buffer, Device, Error, Result};

/// Where an array's elements live.
enum Storage {
    /// Plain device memory, tightly pitched (backends whose kernels read chevron's
    /// descriptors), from this byte offset (a level of a mipmapped array shares its array's
    /// allocation).
    Memory(Arc<Buffer<u8>>, u64),
    /// An array the backend made (CUDA's `CUarray`), and for a level the mipmapped array it
    /// belongs to, only kept alive while the level is (dropped after it: fields drop in
    /// order).
    Native(
        Arc<dyn NativeArray>,
        #[allow(dead_code)] Option<Arc<dyn NativeArray>>,
    ),
}

/// A CUDA array on a device.
pub struct Array {
    storage: Storage,
    desc: ArrayDesc,
    device: Device,
}

impl std::fmt::Debug for Array {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Array")
            .field("handle", &format_args!("{:#x}", self.handle()))
            .field("desc", &self.desc)
            .field("device", &self.device.label())
            .finish()
    }
}

impl Array {
    /// Allocates an array of `desc` on `device` (contents undefined, as CUDA's).
    pub fn new(device: &Device, desc: ArrayDesc) -> Result<Array> {
        let bytes = desc.check().map_err(|message| Error::InvalidValue {
            call: "Array::new",
            message,
        })?;
        let backend = &device.core().backend;
        let storage = if backend.native_textures() {
            Storage::Native(Arc::from(backend.create_array(&desc)?), None)
        } else {
            Storage::Memory(Arc::new(Buffer::<u8>::new(device, bytes as usize)?), 0)
        };
        Ok(Array {
            storage,
            desc,
            device: device.clone(),
        })
    }

    /// Level `level` of this mipmapped array, as an array of its own (CUDA's
    /// `cudaGetMipmappedArrayLevel`): it shares the mipmapped array's memory and keeps it
    /// alive. `Error::InvalidValue` for an array that is not mipmapped or a level it lacks.
    pub fn level(&self, level: u32) -> Result<Array> {
        if level >= self.desc.levels {
            return Err(Error::InvalidValue {
                call: "Array::level",
                message: format!(
                    "level {level} of an array of {} mipmap levels",
                    self.desc.levels
                ),
            });
        }
        let desc = self.desc.level(level);
        let storage = match &self.storage {
            Storage::Memory(buffer, offset) => {
                let (at, _) = self.desc.level_span(level);
                Storage::Memory(Arc::clone(buffer), *offset + at)
            }
            Storage::Native(array, _) => {
                let level = self.device.core().backend.array_level(&**array, level)?;
                Storage::Native(Arc::from(level), Some(Arc::clone(array)))
            }
        };
        Ok(Array {
            storage,
            desc,
            device: self.device.clone(),
        })
    }

    /// What the array holds.
    pub fn desc(&self) -> &ArrayDesc {
        &self.desc
    }

    /// The handle front doors hand out (`cudaArray_t`, `CUarray`): the device address of
    /// element (0, 0, 0) on the CPU device, the driver's `CUarray` on GPUs.
    pub fn handle(&self) -> u64 {
        match &self.storage {
            Storage::Memory(buffer, offset) => buffer.device_ptr() + offset,
            Storage::Native(array, _) => array.handle(),
        }
    }

    /// The device address of element (0, 0, 0) where the array is plain, tightly pitched
    /// device memory (the CPU device); `None` for an array the driver made (GPUs), which is
    /// copied with [`copy_array`].
    pub fn memory(&self) -> Option<u64> {
        match &self.storage {
            Storage::Memory(buffer, offset) => Some(buffer.device_ptr() + offset),
            Storage::Native(..) => None,
        }
    }

    /// The backend's array, for arrays the driver made.
    pub(crate) fn native(&self) -> Option<&dyn NativeArray> {
        match &self.storage {
            Storage::Memory(..) => None,
            Storage::Native(array, _) => Some(&**array),
        }
    }

    /// Bytes of one row (the row pitch of the array's memory on the CPU device).
    pub fn row_pitch(&self) -> u64 {
        self.desc.row_bytes()
    }

    /// Bytes of one slice (or layer) of rows.
    pub fn slice_pitch(&self) -> u64 {
        self.row_pitch() * self.desc.extent[1].max(1)
    }

    /// Bytes of the whole array.
    pub fn size_bytes(&self) -> u64 {
        self.slice_pitch() * self.desc.extent[2].max(1)
    }

    /// The device the array lives on.
    pub fn device(&self) -> &Device {
        &self.device
    }
}

impl Drop for Array {
    fn drop(&mut self) {
        if let Storage::Native(..) = self.storage {
            // Work queued on any stream may still read the array: the driver's destroy waits
            // for none of it, so the device finishes first (a fault stays for its stream).
            let _ = self.device.synchronize();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::backend::scripted::{Counters, ScriptedDevice};

    fn float_array(extent: [u64; 3], surface: bool) -> ArrayDesc {
        ArrayDesc {
            format: ChannelFormat {
                bits: [32, 0, 0, 0],
                kind: ChannelKind::Float,
            },
            extent,
            layered: false,
            surface,
            gather: false,
            cubemap: false,
            levels: 0,
        }
    }

    #[test]
    fn a_backend_with_native_textures_makes_arrays_objects_and_copies() {
        let scripted = Arc::new(ScriptedDevice::new(0));
        let counters = Arc::clone(&scripted.counters);
        let device = Device::from_backend(scripted);
        let array = Array::new(&device, float_array([8, 4, 0], true)).unwrap();
        assert_eq!(
            array.memory(),
            None,
            "the backend's array is not plain memory"
        );
        assert_eq!(Counters::get(&counters.arrays), 1);
        assert_eq!(array.row_pitch(), 32);

        let sampler = Sampler {
            address: [AddressMode::Mirror; 3],
            linear_filter: true,
            normalized_read: false,
            normalized_coords: true,
            border: [0.0; 4],
            mipmap: MipmapFilter::default(),
        };
        let texture = TextureObject::new(&device, &Resource::Array(&array), &sampler).unwrap();
        assert_ne!(texture.handle(), array.handle());
        assert!(texture.descriptor().is_none());
        assert_eq!(
            *texture.resource(),
            Resource::Array(ArrayInfo {
                handle: array.handle(),
                desc: *array.desc()
            })
        );
        assert_eq!(*texture.sampler(), sampler);
        let surface = SurfaceObject::new(&array).unwrap();
        assert_eq!(Counters::get(&counters.objects), 2);

        let stream = device.create_stream().unwrap();
        let mut host = [0u8; 64];
        let into = Side::Array {
            array: &array,
            at: [8, 1, 0],
        };
        let from = Side::Host {
            ptr: host.as_mut_ptr(),
            pitch: 16,
            height: 0,
        };
        // SAFETY: `host` spans 2 rows of 16 bytes; the scripted stream reads nothing.
        let token = unsafe { copy_array(&stream, &into, &from, [16, 2, 1]) }.unwrap();
        assert_eq!(token.sequence(), 1);
        assert_eq!(Counters::get(&counters.array_copies), 1);
        let outside = Side::Array {
            array: &array,
            at: [24, 3, 0],
        };
        // SAFETY: as above.
        let err = unsafe { copy_array(&stream, &outside, &from, [16, 2, 1]) }.unwrap_err();
        assert!(err.to_string().contains("runs outside the array"), "{err}");
        let narrow = Side::Host {
            ptr: host.as_mut_ptr(),
            pitch: 8,
            height: 0,
        };
        // SAFETY: as above.
        assert!(unsafe { copy_array(&stream, &into, &narrow, [16, 2, 1]) }.is_err());
        assert_eq!(
            Counters::get(&counters.array_copies),
            1,
            "refused copies reach no backend"
        );

        drop((texture, surface));
        assert_eq!(Counters::get(&counters.objects), 0);
        drop(array);
        assert_eq!(Counters::get(&counters.arrays), 0);
    }

    #[test]
    fn levels_of_a_native_mipmapped_array_keep_it_alive() {
        let scripted = Arc::new(ScriptedDevice::new(0));
        let counters = Arc::clone(&scripted.counters);
        let device = Device::from_backend(scripted);
        let desc = ArrayDesc {
            levels: 3,
            ..float_array([8, 4, 0], true)
        };
        let mip = Array::new(&device, desc).unwrap();
        let level = mip.level(2).unwrap();
        assert_eq!((level.desc().extent, level.desc().levels), ([2, 1, 0], 0));
        assert!(mip.level(3).is_err());
        let err = SurfaceObject::new(&mip).unwrap_err().to_string();
        assert!(err.contains("one level"), "{err}");
        assert!(SurfaceObject::new(&level).is_ok());
        assert_eq!(Counters::get(&counters.arrays), 2);
        drop(mip);
        assert_eq!(
            Counters::get(&counters.arrays),
            2,
            "the level keeps its mipmapped array"
        );
        drop(level);
        assert_eq!(Counters::get(&counters.arrays), 0);
        let plain = Array::new(&device, float_array([8, 4, 0], false)).unwrap();
        assert!(plain.level(0).is_err(), "an array without levels has none");
    }

    #[test]
    fn bad_descriptions_and_surfaces_without_the_flag_are_refused() {
        let device = Device::from_backend(Arc::new(ScriptedDevice::new(0)));
        assert!(Array::new(&device, float_array([0, 4, 0], false)).is_err());
        let plain = Array::new(&device, float_array([4, 4, 0], false)).unwrap();
        let err = SurfaceObject::new(&plain).unwrap_err().to_string();
        assert!(err.contains("cudaArraySurfaceLoadStore"), "{err}");
    }
}
