//! Arrays, texture objects and surface objects through the driver: `cuArray3DCreate`,
//! `cuMipmappedArrayCreate` and `cuMipmappedArrayGetLevel`, `cuTexObjectCreate`,
//! `cuSurfObjectCreate` (and their destroys, on drop) and copies to and from arrays with
//! `cuMemcpy3DAsync`: the contract's native textures (`backend/texture.rs`).
//! The structures are built in `texture_types.rs`. Every driver entry point here is optional
//! in the table (`sys.rs`): a driver without one answers [`Error::Unavailable`] naming it.

use std::any::Any;
use std::sync::Arc;

use super::context::DeviceState;
use super::device::CudaDevice;
use super::stream::CudaStream;
use super::sys::{self, CUarray, CUresult};
use super::texture_types::{array_descriptor, memcpy_3d, resource_desc, texture_desc};
use crate::backend::texture::{
    ArrayCopy, ArrayDesc, NativeArray, NativeObject, NativeResource, Sampler,
};
use crate::error::{Error, Result};

/// The entry point `name` of the table, or [`Error::Unavailable`] naming it.
fn entry<T: Copy>(entry: Option<T>, name: &str) -> Result<T> {
    entry.ok_or_else(|| Error::Unavailable {
        backend: "cuda",
        reason: format!("the CUDA driver has no {name}"),
    })
}

/// What a [`CudaArray`]'s handle is, which says how it is destroyed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ArrayKind {
    /// A `CUarray` (`cuArrayDestroy`).
    Plain,
    /// A `CUmipmappedArray` (`cuMipmappedArrayDestroy`).
    Mipmapped,
    /// A level of a mipmapped array: the driver destroys it with its array.
    Level,
}

/// A `CUarray` or `CUmipmappedArray` of one device, destroyed on drop.
pub(crate) struct CudaArray {
    state: Arc<DeviceState>,
    array: CUarray,
    desc: ArrayDesc,
    kind: ArrayKind,
}

// SAFETY: a CUarray is an opaque driver handle usable from any thread.
unsafe impl Send for CudaArray {}
// SAFETY: as above; the driver synchronizes concurrent use of the handle.
unsafe impl Sync for CudaArray {}

impl NativeArray for CudaArray {
    fn handle(&self) -> u64 {
        self.array as u64
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Drop for CudaArray {
    fn drop(&mut self) {
        let driver = &self.state.driver;
        let (destroy, name) = match self.kind {
            ArrayKind::Plain => (driver.cuArrayDestroy, "cuArrayDestroy"),
            ArrayKind::Mipmapped => (driver.cuMipmappedArrayDestroy, "cuMipmappedArrayDestroy"),
            ArrayKind::Level => return,
        };
        let Ok(destroy) = entry(destroy, name) else {
            return;
        };
        if let Ok(_entered) = self.state.enter() {
            // SAFETY: `array` is live, of the kind `destroy` takes, and destroyed once.
            let code = unsafe { destroy(self.array) };
            report_drop(name, &self.state, code);
        }
    }
}

/// A failed destroy on drop cannot be returned: it is reported on standard error once.
fn report_drop(call: &'static str, state: &DeviceState, code: CUresult) {
    if code != sys::CUDA_SUCCESS {
        let error = state.error(call, code, "while dropping".into());
        eprintln!("chevron: {error}");
    }
}

/// A `CUtexObject` or `CUsurfObject`, destroyed on drop.
pub(crate) struct CudaObject {
    state: Arc<DeviceState>,
    handle: u64,
    /// `cuTexObjectDestroy` or `cuSurfObjectDestroy`, and its name.
    destroy: (unsafe extern "C" fn(u64) -> CUresult, &'static str),
}

impl NativeObject for CudaObject {
    fn handle(&self) -> u64 {
        self.handle
    }
}

impl Drop for CudaObject {
    fn drop(&mut self) {
        let (destroy, name) = self.destroy;
        if let Ok(_entered) = self.state.enter() {
            // SAFETY: `handle` is a live object of this kind, destroyed once.
            let code = unsafe { destroy(self.handle) };
            report_drop(name, &self.state, code);
        }
    }
}

/// The CUDA array behind `array`, which must be one of this backend's.
fn cuda_array<'a>(array: &'a dyn NativeArray, call: &'static str) -> Result<&'a CudaArray> {
    array
        .as_any()
        .downcast_ref::<CudaArray>()
        .ok_or_else(|| Error::InvalidValue {
            call,
            message: "the array is not a CUDA array".into(),
        })
}

fn invalid(call: &'static str) -> impl Fn(String) -> Error {
    move |message| Error::InvalidValue { call, message }
}

/// `cuArray3DCreate` for `desc`, or `cuMipmappedArrayCreate` when it has levels.
pub(crate) fn create_array(device: &CudaDevice, desc: &ArrayDesc) -> Result<Box<dyn NativeArray>> {
    let state = &device.state;
    let descriptor = array_descriptor(desc).map_err(invalid("cuArray3DCreate"))?;
    let mut array: CUarray = std::ptr::null_mut();
    let (call, kind, code) = if desc.levels > 0 {
        const CALL: &str = "cuMipmappedArrayCreate";
        let create = entry(state.driver.cuMipmappedArrayCreate, CALL)?;
        entry(
            state.driver.cuMipmappedArrayGetLevel,
            "cuMipmappedArrayGetLevel",
        )?;
        entry(
            state.driver.cuMipmappedArrayDestroy,
            "cuMipmappedArrayDestroy",
        )?;
        let _entered = state.enter()?;
        // SAFETY: the context is current; both pointers are valid for the call.
        let code = unsafe { create(&mut array, &descriptor, desc.levels) };
        (CALL, ArrayKind::Mipmapped, code)
    } else {
        const CALL: &str = "cuArray3DCreate";
        let create = entry(state.driver.cuArray3DCreate, CALL)?;
        entry(state.driver.cuArrayDestroy, "cuArrayDestroy")?;
        let _entered = state.enter()?;
        // SAFETY: the context is current; both pointers are valid for the call.
        let code = unsafe { create(&mut array, &descriptor) };
        (CALL, ArrayKind::Plain, code)
    };
    if code != sys::CUDA_SUCCESS {
        return Err(state.error(call, code, format!("{descriptor:?} {desc:?}")));
    }
    Ok(Box::new(CudaArray {
        state: Arc::clone(state),
        array,
        desc: *desc,
        kind,
    }))
}

/// `cuMipmappedArrayGetLevel`: level `level` of the mipmapped array `array`, destroyed with
/// it (the caller keeps `array` alive while the level is used).
pub(crate) fn array_level(
    device: &CudaDevice,
    array: &dyn NativeArray,
    level: u32,
) -> Result<Box<dyn NativeArray>> {
    const CALL: &str = "cuMipmappedArrayGetLevel";
    let state = &device.state;
    let get = entry(state.driver.cuMipmappedArrayGetLevel, CALL)?;
    let mipmap = cuda_array(array, CALL)?;
    if mipmap.kind != ArrayKind::Mipmapped || level >= mipmap.desc.levels {
        return Err(Error::InvalidValue {
            call: CALL,
            message: format!("level {level} of an array of {} levels", mipmap.desc.levels),
        });
    }
    let mut out: CUarray = std::ptr::null_mut();
    let _entered = state.enter()?;
    // SAFETY: the context is current; `mipmap.array` is a live CUmipmappedArray and `out` is
    // valid for the write.
    let code = unsafe { get(&mut out, mipmap.array, level) };
    if code != sys::CUDA_SUCCESS {
        return Err(state.error(CALL, code, format!("level {level}")));
    }
    Ok(Box::new(CudaArray {
        state: Arc::clone(state),
        array: out,
        desc: mipmap.desc.level(level),
        kind: ArrayKind::Level,
    }))
}

/// `cuTexObjectCreate` reading `resource` with `sampler`.
pub(crate) fn create_texture_object(
    device: &CudaDevice,
    resource: &NativeResource<'_>,
    sampler: &Sampler,
) -> Result<Box<dyn NativeObject>> {
    const CALL: &str = "cuTexObjectCreate";
    let state = &device.state;
    let create = entry(state.driver.cuTexObjectCreate, CALL)?;
    let destroy = entry(state.driver.cuTexObjectDestroy, "cuTexObjectDestroy")?;
    let kind = match *resource {
        NativeResource::Array(array) | NativeResource::Mipmapped(array) => {
            cuda_array(array, CALL)?.desc.format.kind
        }
        NativeResource::Linear { format, .. } | NativeResource::Pitch2D { format, .. } => {
            format.kind
        }
    };
    let res = resource_desc(resource).map_err(invalid(CALL))?;
    let tex = texture_desc(sampler, kind);
    let mut handle = 0u64;
    let _entered = state.enter()?;
    // SAFETY: the context is current; the descriptors live for the call, no view is given.
    let code = unsafe { create(&mut handle, &res, &tex, std::ptr::null()) };
    if code != sys::CUDA_SUCCESS {
        return Err(state.error(CALL, code, format!("{res:?} {tex:?}")));
    }
    Ok(Box::new(CudaObject {
        state: Arc::clone(state),
        handle,
        destroy: (destroy, "cuTexObjectDestroy"),
    }))
}

/// `cuSurfObjectCreate` over `array`.
pub(crate) fn create_surface_object(
    device: &CudaDevice,
    array: &dyn NativeArray,
) -> Result<Box<dyn NativeObject>> {
    const CALL: &str = "cuSurfObjectCreate";
    let state = &device.state;
    let create = entry(state.driver.cuSurfObjectCreate, CALL)?;
    let destroy = entry(state.driver.cuSurfObjectDestroy, "cuSurfObjectDestroy")?;
    cuda_array(array, CALL)?;
    let res = resource_desc(&NativeResource::Array(array)).map_err(invalid(CALL))?;
    let mut handle = 0u64;
    let _entered = state.enter()?;
    // SAFETY: the context is current; the descriptor lives for the call.
    let code = unsafe { create(&mut handle, &res) };
    if code != sys::CUDA_SUCCESS {
        return Err(state.error(CALL, code, format!("{res:?}")));
    }
    Ok(Box::new(CudaObject {
        state: Arc::clone(state),
        handle,
        destroy: (destroy, "cuSurfObjectDestroy"),
    }))
}

/// `cuMemcpy3DAsync` of `copy` on `stream`.
///
/// # Safety
/// As [`crate::backend::Stream::copy_array`].
pub(crate) unsafe fn copy_array(stream: &CudaStream, copy: &ArrayCopy<'_>) -> Result<()> {
    const CALL: &str = "cuMemcpy3DAsync";
    let state = &stream.state;
    let memcpy = entry(state.driver.cuMemcpy3DAsync, CALL)?;
    let params = memcpy_3d(copy);
    let _entered = state.enter()?;
    // SAFETY: the context is current; arrays belong to this device and host sides span the
    // window (the caller's guarantee); the descriptor lives for the call.
    let code = unsafe { memcpy(&params, stream.stream) };
    if code != sys::CUDA_SUCCESS {
        let [w, h, d] = copy.extent;
        return Err(state.error(CALL, code, format!("a {w}-byte × {h} × {d} copy")));
    }
    Ok(())
}
