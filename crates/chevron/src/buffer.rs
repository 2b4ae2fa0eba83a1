//! [`Buffer<T>`]: typed device memory (CUDA's `CUdeviceptr` plus its length and device).
//!
//! Dropping a buffer never races with work still using it: the memory is released once every
//! stream of the device has passed the point at which the buffer was dropped, by the device's
//! release worker, so that the dropping thread never waits for a kernel (CUDA's `cuMemFree`
//! waits for the whole device). Only while frees the worker has not made yet hold back an
//! eighth of the device's memory does a drop free on the dropping thread, waiting as
//! `cuMemFree` does.

use std::marker::PhantomData;

use bytemuck::Pod;

use crate::backend::DevicePtr;
use crate::device::state::Release;
use crate::device::Device;
use crate::error::{Error, Result};

/// `len` elements of `T` in one device's memory.
pub struct Buffer<T> {
    /// The device address; 0 for an empty buffer. Kernel arguments point at this field.
    ptr: DevicePtr,
    len: usize,
    device: Device,
    _element: PhantomData<T>,
}

// SAFETY: a Buffer owns device memory, not host memory of type T; the handle itself is a number
// and a thread-safe device handle, so moving or sharing it across threads is sound for any T.
unsafe impl<T> Send for Buffer<T> {}
// SAFETY: as above; `&Buffer` only reads the address and length.
unsafe impl<T> Sync for Buffer<T> {}

impl<T: Pod> Buffer<T> {
    /// Allocates `len` uninitialized elements on `device`.
    pub fn new(device: &Device, len: usize) -> Result<Buffer<T>> {
        let bytes = (len as u64)
            .checked_mul(std::mem::size_of::<T>() as u64)
            .ok_or_else(|| Error::InvalidValue {
                call: "Buffer::new",
                message: format!("{len} elements overflow the address space"),
            })?;
        device.core().collect();
        let started = crate::trace::clock();
        let ptr = if bytes == 0 {
            0
        } else {
            let core = device.core();
            match core.backend.alloc(bytes) {
                Ok(ptr) => ptr,
                // Memory may be on its way back: let the release worker finish, then retry.
                Err(_) => {
                    core.settle();
                    core.backend.alloc(bytes)?
                }
            }
        };
        crate::trace::alloc(started, device.label(), bytes);
        Ok(Buffer {
            ptr,
            len,
            device: device.clone(),
            _element: PhantomData,
        })
    }

    /// A buffer owning `len` elements at `ptr`, memory the device's backend allocated (freed
    /// as any buffer's when dropped).
    pub(crate) fn adopt(device: &Device, ptr: DevicePtr, len: usize) -> Buffer<T> {
        Buffer {
            ptr,
            len,
            device: device.clone(),
            _element: PhantomData,
        }
    }

    /// Allocates `len` elements set to zero.
    pub fn zeroed(device: &Device, len: usize) -> Result<Buffer<T>> {
        let buffer = Buffer::new(device, len)?;
        buffer.fill_zero()?;
        Ok(buffer)
    }

    /// Allocates a buffer holding a copy of `data`.
    pub fn from_slice(device: &Device, data: &[T]) -> Result<Buffer<T>> {
        let buffer = Buffer::new(device, data.len())?;
        buffer.copy_from_host(data)?;
        Ok(buffer)
    }

    /// Copies `data` (of equal length) into the buffer, ordered on the device's default stream,
    /// and waits for the copy.
    pub fn copy_from_host(&self, data: &[T]) -> Result<()> {
        let stream = self.device.default_stream()?;
        stream.copy_to_device(self, data)?.wait()
    }

    /// Copies the buffer into `data` (of equal length) after the work on the device's default
    /// stream.
    pub fn copy_to_host(&self, data: &mut [T]) -> Result<()> {
        self.device.default_stream()?.copy_to_host(data, self)
    }

    /// The contents, after the work on the device's default stream.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let mut data = vec![T::zeroed(); self.len];
        self.copy_to_host(&mut data)?;
        Ok(data)
    }

    /// Sets every byte to zero, ordered on the device's default stream, and waits.
    pub fn fill_zero(&self) -> Result<()> {
        let stream = self.device.default_stream()?;
        stream.check_buffer("Buffer::fill_zero", self)?;
        stream.fill_bytes(self.ptr, self.size_bytes(), 0)?.wait()
    }

    /// Sets every element to `value` (1, 2 or 4 bytes wide, or wider with a 4-byte period),
    /// ordered on the device's default stream, and waits.
    pub fn fill(&self, value: T) -> Result<()> {
        self.device.default_stream()?.fill(self, value)?.wait()
    }
}

impl<T> Buffer<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Size in bytes.
    pub fn size_bytes(&self) -> u64 {
        self.len as u64 * std::mem::size_of::<T>() as u64
    }

    /// The device address (0 for an empty buffer).
    pub fn device_ptr(&self) -> DevicePtr {
        self.ptr
    }

    /// The device address as a place kernel arguments can point at.
    pub(crate) fn device_ptr_ref(&self) -> &DevicePtr {
        &self.ptr
    }

    /// The device holding the memory.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Frees the memory now, as `cuMemFree` and `cudaFree` do: waits for the device (an error
    /// of earlier work on it is returned) and returns once the memory is released, so that a
    /// later use of the address is refused when submitted. Dropping a buffer frees it in the
    /// background instead.
    pub fn free_now(self) -> Result<()> {
        let device = self.device().clone();
        drop(self);
        device.synchronize()
    }
}

impl<T> Drop for Buffer<T> {
    fn drop(&mut self) {
        if self.ptr != 0 {
            self.device.core().release(Release::Memory {
                ptr: self.ptr,
                bytes: self.size_bytes(),
            });
        }
    }
}

impl<T> std::fmt::Debug for Buffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Buffer<{}>[{}] at {:#x} on {}",
            std::any::type_name::<T>(),
            self.len,
            self.ptr,
            self.device.label()
        )
    }
}
