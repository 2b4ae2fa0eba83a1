//! CUDA streams: launches (the hot path), copies, fills, event records and waits, and fault
//! reports that name the kernels pending on the stream.
//!
//! The launch path is `cuLaunchKernel` with the pre-resolved `CUfunction` and the caller's
//! stack-built argument array: no allocation, no lock, no event, no context switch, and no
//! look into the device's state (the stream keeps the driver's entry point itself). It also
//! writes the kernel's interned name into a 4-slot ring, so that a fault reported by a later
//! synchronization names the kernels launched since the last clean one.

use std::any::Any;
use std::ffi::c_void;
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};
use std::sync::Arc;

use super::context::DeviceState;
use super::error::is_fault;
use super::event::CudaEvent;
use super::graph::CudaGraph;
use super::module::CudaFunction;
use super::sys::{self, CUresult, CUstream, LaunchKernelFn};
use crate::backend::{self, DevicePtr, LaunchConfig};
use crate::error::{Error, FaultKind, Result};

/// How many recent kernel names a stream keeps for fault reports.
const RECENT: usize = 4;

/// `args` as the driver's `kernelParams`: NULL for a kernel without parameters.
#[inline]
pub(super) fn kernel_params(args: &[*mut c_void]) -> *mut *mut c_void {
    if args.is_empty() {
        std::ptr::null_mut()
    } else {
        args.as_ptr() as *mut *mut c_void
    }
}

/// A non-blocking `CUstream` of one device.
pub(crate) struct CudaStream {
    pub(crate) state: Arc<DeviceState>,
    pub(crate) stream: CUstream,
    /// `cuLaunchKernel` of the driver table, one load away for the launch path.
    launch_kernel: LaunchKernelFn,
    recent: [AtomicPtr<String>; RECENT],
    /// Launches since the last synchronization that found no fault.
    launches_since_clean: AtomicU64,
}

// SAFETY: a CUstream is an opaque driver handle usable from any thread; the name ring holds
// pointers to interned `'static` strings only.
unsafe impl Send for CudaStream {}
// SAFETY: as above; the driver synchronizes concurrent use of the handle.
unsafe impl Sync for CudaStream {}

impl CudaStream {
    pub(crate) fn create(state: &Arc<DeviceState>) -> Result<CudaStream> {
        CudaStream::create_with_priority(state, None)
    }

    /// A stream of `priority` (`cuStreamCreateWithPriority`, which clamps it to the device's
    /// range), or of the default priority for `None`.
    pub(crate) fn create_with_priority(
        state: &Arc<DeviceState>,
        priority: Option<i32>,
    ) -> Result<CudaStream> {
        let _entered = state.enter()?;
        let mut stream: CUstream = std::ptr::null_mut();
        let flags = sys::CU_STREAM_NON_BLOCKING;
        match (priority, state.driver.cuStreamCreateWithPriority) {
            (Some(priority), Some(create)) => {
                // SAFETY: the context is current; `stream` is a valid out-pointer.
                let code = unsafe { create(&mut stream, flags, priority) };
                state.check("cuStreamCreateWithPriority", code)?;
            }
            _ => {
                // SAFETY: the context is current; `stream` is a valid out-pointer.
                let code = unsafe { (state.driver.cuStreamCreate)(&mut stream, flags) };
                state.check("cuStreamCreate", code)?;
            }
        }
        Ok(CudaStream {
            state: Arc::clone(state),
            stream,
            launch_kernel: state.driver.cuLaunchKernel,
            recent: Default::default(),
            launches_since_clean: AtomicU64::new(0),
        })
    }

    /// The kernels launched since the last clean synchronization, most recent first.
    fn pending_kernels(&self) -> Vec<&'static str> {
        let count = self.launches_since_clean.load(Ordering::Acquire);
        let mut names: Vec<&'static str> = Vec::new();
        for back in 0..count.min(RECENT as u64) {
            let slot = ((count - 1 - back) % RECENT as u64) as usize;
            let ptr = self.recent[slot].load(Ordering::Acquire);
            if ptr.is_null() {
                continue;
            }
            // SAFETY: the ring only ever holds pointers to interned, leaked `'static` strings.
            let name: &'static String = unsafe { &*ptr };
            if !names.contains(&name.as_str()) {
                names.push(name.as_str());
            }
        }
        names
    }

    /// Turns the result of a synchronizing call into chevron's: a fault names the kernels.
    fn finish_sync(&self, call: &'static str, code: CUresult) -> Result<()> {
        if code == sys::CUDA_SUCCESS {
            self.launches_since_clean.store(0, Ordering::Release);
            return Ok(());
        }
        if !is_fault(code) {
            return Err(self.state.error(call, code, String::new()));
        }
        let (name, text) = super::error::describe(self.state.driver, code);
        let kernels = self.pending_kernels();
        let (kernel, pending) = match kernels.as_slice() {
            [] => ("(none recorded on this stream)".to_string(), String::new()),
            [only] => (only.to_string(), String::new()),
            [last, ..] => (
                last.to_string(),
                format!(
                    "; kernels launched since the stream's last clean synchronization, newest \
                     first (the fault is in one of them): `{}`",
                    kernels.join("`, `")
                ),
            ),
        };
        Err(Error::Fault {
            kernel,
            device: self.state.label.clone(),
            kind: FaultKind::from_driver_code(code),
            message: format!(
                "{name}: {text} (reported by {call}; the device's context is unusable now){pending}"
            ),
        })
    }

    /// Whether kernels were launched since the last clean synchronization.
    pub(super) fn has_pending_kernels(&self) -> bool {
        self.launches_since_clean.load(Ordering::Acquire) > 0
    }

    /// A fault `code` found by `call` elsewhere (a device-wide synchronization) as this
    /// stream reports it: naming its kernels since the last clean synchronization. `None` when
    /// `code` is no kernel fault.
    pub(super) fn report_fault(&self, call: &'static str, code: CUresult) -> Option<Error> {
        if code == sys::CUDA_SUCCESS || !is_fault(code) {
            return None;
        }
        self.finish_sync(call, code).err()
    }

    /// Notes a launch of `name` in the ring of recent kernels (for fault reports). A plain load
    /// and store, not a read-modify-write: concurrent launches on one stream may overwrite each
    /// other's slot, which only blurs which names a fault report lists.
    #[inline]
    pub(super) fn remember_launch(&self, name: &'static String) {
        let count = self.launches_since_clean.load(Ordering::Relaxed);
        self.launches_since_clean
            .store(count + 1, Ordering::Relaxed);
        self.recent[count as usize % RECENT]
            .store(name as *const String as *mut String, Ordering::Release);
    }

    fn copy_error(&self, call: &'static str, code: CUresult, what: String) -> Error {
        if is_fault(code) {
            match self.finish_sync(call, code) {
                Err(err) => err,
                Ok(()) => self.state.error(call, code, what),
            }
        } else {
            self.state.error(call, code, what)
        }
    }
}

impl backend::Stream for CudaStream {
    #[inline]
    unsafe fn launch(
        &self,
        function: &dyn backend::Function,
        config: &LaunchConfig,
        args: &[*mut c_void],
    ) -> Result<()> {
        debug_assert!(
            function.as_any().is::<CudaFunction>(),
            "kernel `{}` is not a CUDA kernel",
            function.name()
        );
        // SAFETY: the caller guarantees that `function` belongs to this stream's device and
        // backend (the contract of `backend::Stream::launch`; the public layer checks the
        // device), and every function the CUDA backend hands out is a `CudaFunction`, so the
        // trait object's data pointer points to one. This spares the launch path the two
        // dynamic calls of a downcast (`as_any`, then `type_id`).
        let function =
            unsafe { &*(function as *const dyn backend::Function as *const CudaFunction) };
        if config.shared_bytes > 0 {
            function.allow_dynamic_shared(config.shared_bytes)?;
        }
        let params = kernel_params(args);
        let [gx, gy, gz] = config.grid;
        let [bx, by, bz] = config.block;
        // SAFETY: the caller guarantees that the function belongs to this stream's device and
        // that `args` holds one pointer per parameter to a value of its size; the driver copies
        // the values before returning.
        let launch = || unsafe {
            (self.launch_kernel)(
                function.function,
                gx,
                gy,
                gz,
                bx,
                by,
                bz,
                config.shared_bytes,
                self.stream,
                params,
                std::ptr::null_mut(),
            )
        };
        let code = self.state.anywhere(launch);
        if code != sys::CUDA_SUCCESS {
            return Err(self.state.error(
                "cuLaunchKernel",
                code,
                format!("kernel `{}`, {config}", function.name),
            ));
        }
        self.remember_launch(function.name);
        Ok(())
    }

    unsafe fn launch_cluster(
        &self,
        function: &dyn backend::Function,
        config: &LaunchConfig,
        cluster: [u32; 3],
        args: &[*mut c_void],
    ) -> Result<()> {
        // SAFETY: forwarded from the caller.
        unsafe { super::cluster::launch(self, function, config, cluster, args) }
    }

    unsafe fn launch_cooperative(
        &self,
        function: &dyn backend::Function,
        config: &LaunchConfig,
        args: &[*mut c_void],
    ) -> Result<()> {
        // SAFETY: forwarded from the caller.
        unsafe { super::cooperative::launch(self, function, config, args) }
    }

    fn launch_host_function(&self, function: backend::HostFunction) -> Result<()> {
        super::host_function::launch(self, function)
    }

    fn set_driver_attribute(&self, attribute: i32, value: &[u8; 64]) -> Option<Result<()>> {
        let set_attribute = self.state.driver.cuStreamSetAttribute?;
        // SAFETY: the stream is live; `value` is the 64 bytes of a `CUstreamAttrValue`, which
        // the driver only reads.
        let call = || unsafe { set_attribute(self.stream, attribute, value.as_ptr().cast()) };
        let code = self.state.anywhere(call);
        Some(self.state.check("cuStreamSetAttribute", code))
    }

    fn copy_to_device(&self, dst: DevicePtr, src: &[u8]) -> Result<()> {
        let _entered = self.state.enter()?;
        // SAFETY: `src` is readable for its length; for pageable memory the driver stages the
        // data before returning, so `src` may be reused afterwards.
        let code = unsafe {
            (self.state.driver.cuMemcpyHtoDAsync)(dst, src.as_ptr().cast(), src.len(), self.stream)
        };
        if code != sys::CUDA_SUCCESS {
            return Err(self.copy_error(
                "cuMemcpyHtoDAsync",
                code,
                format!("{} bytes to {dst:#x}", src.len()),
            ));
        }
        Ok(())
    }

    fn copy_to_host(&self, dst: &mut [u8], src: DevicePtr) -> Result<()> {
        let _entered = self.state.enter()?;
        // SAFETY: `dst` is writable for its length and stays borrowed until the stream is
        // synchronized below.
        let code = unsafe {
            (self.state.driver.cuMemcpyDtoHAsync)(
                dst.as_mut_ptr().cast(),
                src,
                dst.len(),
                self.stream,
            )
        };
        if code != sys::CUDA_SUCCESS {
            // The copy may still be queued: wait for the stream before giving `dst` back.
            // SAFETY: `stream` is live.
            let _ = unsafe { (self.state.driver.cuStreamSynchronize)(self.stream) };
            return Err(self.copy_error(
                "cuMemcpyDtoHAsync",
                code,
                format!("{} bytes from {src:#x}", dst.len()),
            ));
        }
        // SAFETY: `stream` is live.
        let code = unsafe { (self.state.driver.cuStreamSynchronize)(self.stream) };
        self.finish_sync("cuStreamSynchronize", code)
    }

    fn copy_on_device(&self, dst: DevicePtr, src: DevicePtr, bytes: u64) -> Result<()> {
        let _entered = self.state.enter()?;
        // SAFETY: both ranges are memory this device addresses (the public layer checks):
        // device memory, or the driver's pinned or managed memory, whose unified addresses
        // `cuMemcpyAsync` resolves itself.
        let code =
            unsafe { (self.state.driver.cuMemcpyAsync)(dst, src, bytes as usize, self.stream) };
        if code != sys::CUDA_SUCCESS {
            return Err(self.copy_error(
                "cuMemcpyAsync",
                code,
                format!("{bytes} bytes {src:#x} -> {dst:#x}"),
            ));
        }
        Ok(())
    }

    unsafe fn copy_array(&self, copy: &backend::ArrayCopy<'_>) -> Result<()> {
        // SAFETY: forwarded from the caller.
        unsafe { super::texture::copy_array(self, copy) }
    }

    fn memset(&self, dst: DevicePtr, value: u32, element_bytes: u32, count: u64) -> Result<()> {
        let _entered = self.state.enter()?;
        let count = count as usize;
        // SAFETY: the range is device memory of this device (the public layer checks).
        let (call, code) = unsafe {
            match element_bytes {
                1 => (
                    "cuMemsetD8Async",
                    (self.state.driver.cuMemsetD8Async)(dst, value as u8, count, self.stream),
                ),
                2 => (
                    "cuMemsetD16Async",
                    (self.state.driver.cuMemsetD16Async)(dst, value as u16, count, self.stream),
                ),
                4 => (
                    "cuMemsetD32Async",
                    (self.state.driver.cuMemsetD32Async)(dst, value, count, self.stream),
                ),
                other => {
                    return Err(Error::InvalidValue {
                        call: "Stream::memset",
                        message: format!("element size {other} is not 1, 2 or 4"),
                    })
                }
            }
        };
        if code != sys::CUDA_SUCCESS {
            return Err(self.copy_error(call, code, format!("{count} elements at {dst:#x}")));
        }
        Ok(())
    }

    fn record(&self, event: &dyn backend::Event) -> Result<()> {
        let event = cuda_event(event)?;
        // SAFETY: both handles are live.
        let record = || unsafe { (self.state.driver.cuEventRecord)(event.event, self.stream) };
        let code = self.state.anywhere(record);
        self.state.check("cuEventRecord", code)
    }

    fn wait(&self, event: &dyn backend::Event) -> Result<()> {
        let event = cuda_event(event)?;
        // SAFETY: both handles are live (the event may belong to another device).
        let wait = || unsafe { (self.state.driver.cuStreamWaitEvent)(self.stream, event.event, 0) };
        let code = self.state.anywhere(wait);
        self.state.check("cuStreamWaitEvent", code)
    }

    fn synchronize(&self) -> Result<()> {
        // SAFETY: `stream` is live.
        let sync = || unsafe { (self.state.driver.cuStreamSynchronize)(self.stream) };
        let code = self.state.anywhere(sync);
        self.finish_sync("cuStreamSynchronize", code)
    }

    fn query(&self) -> Result<bool> {
        // SAFETY: `stream` is live.
        let query = || unsafe { (self.state.driver.cuStreamQuery)(self.stream) };
        match self.state.anywhere(query) {
            sys::CUDA_ERROR_NOT_READY => Ok(false),
            code => self.finish_sync("cuStreamQuery", code).map(|()| true),
        }
    }

    fn launch_graph(&self, graph: &dyn backend::ExecGraph) -> Result<()> {
        let graph = graph
            .as_any()
            .downcast_ref::<CudaGraph>()
            .filter(|graph| graph.belongs_to(&self.state))
            .ok_or_else(|| Error::InvalidValue {
                call: "Graph::launch",
                message: format!(
                    "the graph was not instantiated on this stream's device ({})",
                    self.state.label
                ),
            })?;
        graph.launch(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

fn cuda_event(event: &dyn backend::Event) -> Result<&CudaEvent> {
    event
        .as_any()
        .downcast_ref::<CudaEvent>()
        .ok_or_else(|| Error::InvalidValue {
            call: "Stream::wait",
            message: "the event is not a CUDA event".into(),
        })
}

impl Drop for CudaStream {
    fn drop(&mut self) {
        if let Ok(_entered) = self.state.enter() {
            // SAFETY: `stream` is live and destroyed once; queued work still completes.
            unsafe { (self.state.driver.cuStreamDestroy)(self.stream) };
        }
    }
}
