//! A CUDA device: what it is (attributes read once at discovery) and the objects made on it.

use std::any::Any;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::{Arc, Mutex, Weak};

use super::context::DeviceState;
use super::event::CudaEvent;
use super::graph::CudaGraph;
use super::host_memory::HostMemory;
use super::memory::Allocations;
use super::module::CudaModule;
use super::stream::CudaStream;
use super::sys::{self, attribute, CUdevice, Driver};
use crate::backend::{self, BackendKind, DeviceInfo, DevicePtr};
use crate::code_object::{CodeObject, CodeTargets};
use crate::error::Result;

/// One CUDA GPU.
pub(crate) struct CudaDevice {
    pub(crate) state: Arc<DeviceState>,
    info: DeviceInfo,
    allocations: Allocations,
    host_memory: HostMemory,
    /// The device's streams, so that a fault a device-wide synchronization finds is reported
    /// with the kernels the streams launched since their last clean synchronization.
    streams: Mutex<Vec<Weak<CudaStream>>>,
}

impl CudaDevice {
    /// Reads the attributes of device `ordinal` (no context is created).
    pub(crate) fn open(driver: &'static Driver, ordinal: u32) -> Result<CudaDevice> {
        let label = format!("cuda:{ordinal}");
        let check = |call, code| super::error::check(driver, call, code, &label);
        let mut device: CUdevice = 0;
        // SAFETY: `device` is a valid out-pointer; the ordinal is below the device count.
        check("cuDeviceGet", unsafe {
            (driver.cuDeviceGet)(&mut device, ordinal as c_int)
        })?;
        let mut name = [0 as c_char; 256];
        // SAFETY: the buffer holds 256 bytes and the driver writes a NUL-terminated name.
        check("cuDeviceGetName", unsafe {
            (driver.cuDeviceGetName)(name.as_mut_ptr(), name.len() as c_int, device)
        })?;
        // SAFETY: the driver NUL-terminated the name within the buffer.
        let name = unsafe { CStr::from_ptr(name.as_ptr()) }
            .to_string_lossy()
            .into_owned();
        let attr = |which: c_int| -> Result<u32> {
            let mut value: c_int = 0;
            // SAFETY: `value` is a valid out-pointer and `device` a valid device.
            check("cuDeviceGetAttribute", unsafe {
                (driver.cuDeviceGetAttribute)(&mut value, which, device)
            })?;
            Ok(value.max(0) as u32)
        };
        let mut total: usize = 0;
        // SAFETY: `total` is a valid out-pointer.
        check("cuDeviceTotalMem", unsafe {
            (driver.cuDeviceTotalMem)(&mut total, device)
        })?;
        let info = DeviceInfo {
            name: name.clone(),
            backend: BackendKind::Cuda,
            ordinal,
            compute_capability: (
                attr(attribute::COMPUTE_CAPABILITY_MAJOR)?,
                attr(attribute::COMPUTE_CAPABILITY_MINOR)?,
            ),
            multiprocessors: attr(attribute::MULTIPROCESSOR_COUNT)?,
            total_memory: total as u64,
            warp_size: attr(attribute::WARP_SIZE)?,
            max_threads_per_block: attr(attribute::MAX_THREADS_PER_BLOCK)?,
            max_block_dim: [
                attr(attribute::MAX_BLOCK_DIM_X)?,
                attr(attribute::MAX_BLOCK_DIM_X + 1)?,
                attr(attribute::MAX_BLOCK_DIM_X + 2)?,
            ],
            max_grid_dim: [
                attr(attribute::MAX_GRID_DIM_X)?,
                attr(attribute::MAX_GRID_DIM_X + 1)?,
                attr(attribute::MAX_GRID_DIM_X + 2)?,
            ],
            max_shared_per_block: attr(attribute::MAX_SHARED_MEMORY_PER_BLOCK)?,
            max_shared_per_block_optin: attr(attribute::MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?,
        };
        Ok(CudaDevice {
            state: Arc::new(DeviceState::new(
                driver,
                device,
                format!("{label} ({name})"),
            )),
            info,
            allocations: Allocations::new(),
            host_memory: HostMemory::new(),
            streams: Mutex::new(Vec::new()),
        })
    }
}

impl CudaDevice {
    /// Registers a new stream of this device (dropped streams are forgotten on the way).
    fn keep(&self, stream: CudaStream) -> Arc<dyn backend::Stream> {
        let stream = Arc::new(stream);
        let mut streams = self.streams.lock().unwrap_or_else(|e| e.into_inner());
        streams.retain(|kept| kept.strong_count() > 0);
        streams.push(Arc::downgrade(&stream));
        stream
    }

    /// A device-wide synchronization's fault `code` as the first stream with kernels since its
    /// last clean synchronization reports it (naming them), if any stream has such kernels.
    fn fault_of_a_stream(&self, code: sys::CUresult) -> Option<crate::error::Error> {
        let streams = self.streams.lock().unwrap_or_else(|e| e.into_inner());
        streams
            .iter()
            .filter_map(Weak::upgrade)
            .find(|stream| stream.has_pending_kernels())
            .and_then(|stream| stream.report_fault("cuCtxSynchronize", code))
    }
}

impl backend::Device for CudaDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn alloc(&self, bytes: u64) -> Result<DevicePtr> {
        self.allocations.alloc(&self.state, bytes)
    }

    fn free(&self, ptr: DevicePtr) -> Result<()> {
        self.allocations.free(&self.state, ptr)
    }

    fn alloc_in_stream_order(
        &self,
        bytes: u64,
        stream: &dyn backend::Stream,
    ) -> Option<Result<DevicePtr>> {
        let stream = stream.as_any().downcast_ref::<CudaStream>()?;
        if !Arc::ptr_eq(&stream.state, &self.state) {
            return None;
        }
        self.allocations
            .alloc_in_stream_order(&self.state, bytes, stream.stream)
    }

    fn releases_wait_for_device(&self) -> bool {
        true
    }

    fn alloc_host_visible(
        &self,
        bytes: u64,
        kind: backend::HostVisibleKind,
    ) -> Result<Option<DevicePtr>> {
        self.host_memory.alloc(&self.state, bytes, kind)
    }

    fn free_host_visible(&self, ptr: DevicePtr) -> Result<()> {
        self.host_memory.free(&self.state, ptr)
    }

    unsafe fn map_host_memory(&self, host: *mut c_void, bytes: u64) -> Result<DevicePtr> {
        // SAFETY: forwarded from the caller.
        unsafe { self.host_memory.map(&self.state, host, bytes) }
    }

    fn unmap_host_memory(&self, host: *mut c_void) -> Result<()> {
        self.host_memory.unmap(&self.state, host)
    }

    fn allocation_of(&self, ptr: DevicePtr) -> Option<(DevicePtr, u64)> {
        self.allocations.containing(ptr)
    }

    fn is_device_address(&self, ptr: DevicePtr) -> bool {
        self.allocations.containing(ptr).is_some()
            || self
                .allocations
                .is_device_address(&self.state, self.info.ordinal, ptr)
    }

    fn driver_identity(&self) -> Option<Result<backend::DriverIdentity>> {
        let driver = &self.state.driver;
        let mut uuid = [0u8; 16];
        let mut bus_id: [c_char; 32] = [0; 32];
        // SAFETY: `uuid` is a 16-byte out-buffer and `device` a valid device handle.
        let code = unsafe { (driver.cuDeviceGetUuid)(&mut uuid, self.state.device) };
        if let Err(err) = self.state.check("cuDeviceGetUuid", code) {
            return Some(Err(err));
        }
        // SAFETY: `bus_id` holds 32 bytes, as its length says; the driver NUL-terminates it.
        let code = unsafe {
            (driver.cuDeviceGetPCIBusId)(
                bus_id.as_mut_ptr(),
                bus_id.len() as c_int,
                self.state.device,
            )
        };
        if let Err(err) = self.state.check("cuDeviceGetPCIBusId", code) {
            return Some(Err(err));
        }
        // SAFETY: NUL-terminated by the driver within the buffer (its last byte stays 0).
        let pci_bus_id = unsafe { CStr::from_ptr(bus_id.as_ptr()) }
            .to_string_lossy()
            .into_owned();
        Some(Ok(backend::DriverIdentity { uuid, pci_bus_id }))
    }

    fn driver_limit(&self, limit: i32) -> Option<Result<usize>> {
        let entered = match self.state.enter() {
            Ok(entered) => entered,
            Err(err) => return Some(Err(err)),
        };
        let mut value = 0usize;
        // SAFETY: the device's context is current; `value` is a valid out-pointer.
        let code = unsafe { (self.state.driver.cuCtxGetLimit)(&mut value, limit) };
        drop(entered);
        Some(self.state.check("cuCtxGetLimit", code).map(|()| value))
    }

    fn set_driver_limit(&self, limit: i32, value: usize) -> Option<Result<()>> {
        let entered = match self.state.enter() {
            Ok(entered) => entered,
            Err(err) => return Some(Err(err)),
        };
        // SAFETY: the device's context is current; the driver checks the limit and value.
        let code = unsafe { (self.state.driver.cuCtxSetLimit)(limit, value) };
        drop(entered);
        Some(self.state.check("cuCtxSetLimit", code))
    }

    fn reset_persisting_l2(&self) -> Option<Result<()>> {
        let reset = self.state.driver.cuCtxResetPersistingL2Cache?;
        let entered = match self.state.enter() {
            Ok(entered) => entered,
            Err(err) => return Some(Err(err)),
        };
        // SAFETY: the device's context is current; the call takes no arguments.
        let code = unsafe { reset() };
        drop(entered);
        Some(self.state.check("cuCtxResetPersistingL2Cache", code))
    }

    fn driver_attribute(&self, attribute: i32) -> Option<Result<i32>> {
        let mut value: c_int = 0;
        // SAFETY: `value` is a valid out-pointer and `device` a valid device handle.
        let code = unsafe {
            (self.state.driver.cuDeviceGetAttribute)(&mut value, attribute, self.state.device)
        };
        Some(
            self.state
                .check("cuDeviceGetAttribute", code)
                .map(|()| value),
        )
    }

    fn stream_priority_range(&self) -> Result<(i32, i32)> {
        let _entered = self.state.enter()?;
        let (mut least, mut greatest): (c_int, c_int) = (0, 0);
        // SAFETY: both are valid out-pointers; the device's context is current.
        let code =
            unsafe { (self.state.driver.cuCtxGetStreamPriorityRange)(&mut least, &mut greatest) };
        self.state.check("cuCtxGetStreamPriorityRange", code)?;
        Ok((least, greatest))
    }

    fn create_stream(&self) -> Result<Arc<dyn backend::Stream>> {
        Ok(self.keep(CudaStream::create(&self.state)?))
    }

    fn create_stream_with_priority(&self, priority: i32) -> Result<Arc<dyn backend::Stream>> {
        Ok(self.keep(CudaStream::create_with_priority(
            &self.state,
            Some(priority),
        )?))
    }

    fn create_event(&self) -> Result<Arc<dyn backend::Event>> {
        Ok(Arc::new(CudaEvent::create(&self.state)?))
    }

    fn create_timing_event(&self) -> Result<Option<Arc<dyn backend::Event>>> {
        Ok(Some(Arc::new(CudaEvent::create_timed(&self.state)?)))
    }

    fn tensor_maps(&self) -> Result<()> {
        Ok(())
    }

    fn encode_tensor_map(&self, map: &backend::TiledTensorMap) -> Result<DevicePtr> {
        super::tensor_map::encode_tensor_map(self, map)
    }

    fn tensor_map_descriptor(&self, map: &backend::TiledTensorMap) -> Result<[u8; 128]> {
        super::tensor_map::descriptor(self, map)
    }

    fn native_textures(&self) -> bool {
        true
    }

    fn create_array(&self, desc: &backend::ArrayDesc) -> Result<Box<dyn backend::NativeArray>> {
        super::texture::create_array(self, desc)
    }

    fn array_level(
        &self,
        array: &dyn backend::NativeArray,
        level: u32,
    ) -> Result<Box<dyn backend::NativeArray>> {
        super::texture::array_level(self, array, level)
    }

    fn create_texture_object(
        &self,
        resource: &backend::NativeResource<'_>,
        sampler: &backend::Sampler,
    ) -> Result<Box<dyn backend::NativeObject>> {
        super::texture::create_texture_object(self, resource, sampler)
    }

    fn create_surface_object(
        &self,
        array: &dyn backend::NativeArray,
    ) -> Result<Box<dyn backend::NativeObject>> {
        super::texture::create_surface_object(self, array)
    }

    fn code_targets(&self) -> CodeTargets {
        let (major, minor) = self.info.compute_capability;
        CodeTargets::gpu(major, minor)
    }

    fn load_module(&self, code: &CodeObject) -> Result<Arc<dyn backend::Module>> {
        let code = code.for_targets(&self.code_targets())?;
        Ok(Arc::new(CudaModule::load(&self.state, &code)?))
    }

    unsafe fn instantiate_graph(
        &self,
        steps: &[backend::GraphStep<'_>],
    ) -> Result<Arc<dyn backend::ExecGraph>> {
        // SAFETY: forwarded from the caller.
        Ok(Arc::new(unsafe {
            CudaGraph::instantiate(&self.state, steps)
        }?))
    }

    fn synchronize(&self) -> Result<()> {
        let _entered = self.state.enter()?;
        // SAFETY: the device's context is current.
        let code = unsafe { (self.state.driver.cuCtxSynchronize)() };
        if code != sys::CUDA_SUCCESS {
            if let Some(named) = self.fault_of_a_stream(code) {
                return Err(named);
            }
            return Err(self.state.error(
                "cuCtxSynchronize",
                code,
                "synchronize the faulting kernel's stream to have it named".into(),
            ));
        }
        Ok(())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
