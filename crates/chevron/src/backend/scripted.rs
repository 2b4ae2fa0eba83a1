//! A test double of the backend contract whose streams finish work only when a test says so,
//! and which counts every call. It lets the unit tests of tokens and deferred frees observe
//! exactly which events are recorded, which waits are made and when memory is freed.

use std::any::Any;
use std::collections::HashSet;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use crate::backend::{self, BackendKind, DeviceInfo, DevicePtr, LaunchConfig};
use crate::code_object::{CodeObject, CodeTargets};
use crate::error::{Error, Result};

/// Calls counted by a scripted device.
#[derive(Default)]
pub(crate) struct Counters {
    pub(crate) events_created: AtomicUsize,
    pub(crate) records: AtomicUsize,
    pub(crate) waits: AtomicUsize,
    pub(crate) launches: AtomicUsize,
    pub(crate) frees: AtomicUsize,
    /// Native arrays and texture/surface objects alive, and array copies made.
    pub(crate) arrays: AtomicUsize,
    pub(crate) objects: AtomicUsize,
    pub(crate) array_copies: AtomicUsize,
}

impl Counters {
    pub(crate) fn get(counter: &AtomicUsize) -> usize {
        counter.load(Ordering::SeqCst)
    }
}

pub(crate) struct ScriptedDevice {
    info: DeviceInfo,
    pub(crate) counters: Arc<Counters>,
    live: Mutex<HashSet<DevicePtr>>,
    next: AtomicU64,
    /// Streams created, so a test can finish their work.
    pub(crate) streams: Mutex<Vec<Arc<ScriptedStream>>>,
    /// While true, `free` blocks (as `cuMemFree` does while a kernel runs on the device).
    frees_blocked: Mutex<bool>,
    frees_unblocked: Condvar,
}

impl ScriptedDevice {
    pub(crate) fn new(ordinal: u32) -> ScriptedDevice {
        ScriptedDevice {
            info: DeviceInfo {
                name: "scripted".into(),
                backend: BackendKind::Scripted,
                ordinal,
                compute_capability: (9, 0),
                multiprocessors: 1,
                total_memory: 1 << 30,
                warp_size: 32,
                max_threads_per_block: 1024,
                max_block_dim: [1024, 1024, 64],
                max_grid_dim: [u32::MAX, 65535, 65535],
                max_shared_per_block: 48 * 1024,
                max_shared_per_block_optin: 96 * 1024,
            },
            counters: Arc::default(),
            live: Mutex::default(),
            next: AtomicU64::new((u64::from(ordinal) + 1) << 40),
            streams: Mutex::default(),
            frees_blocked: Mutex::new(false),
            frees_unblocked: Condvar::new(),
        }
    }

    /// Makes `free` block until [`ScriptedDevice::unblock_frees`].
    pub(crate) fn block_frees(&self) {
        *self.frees_blocked.lock().unwrap() = true;
    }

    /// Lets blocked and later frees proceed.
    pub(crate) fn unblock_frees(&self) {
        *self.frees_blocked.lock().unwrap() = false;
        self.frees_unblocked.notify_all();
    }

    /// Waits up to 10 s for `ptr` to be freed; whether it was.
    pub(crate) fn freed_soon(&self, ptr: DevicePtr) -> bool {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while self.is_live(ptr) {
            if std::time::Instant::now() > deadline {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        true
    }

    pub(crate) fn is_live(&self, ptr: DevicePtr) -> bool {
        self.live.lock().unwrap().contains(&ptr)
    }

    /// Finishes all work submitted so far on every stream.
    pub(crate) fn finish_all(&self) {
        for stream in self.streams.lock().unwrap().iter() {
            stream.finish();
        }
    }
}

/// Discovery of the scripted backend (its registry line): two devices.
pub(crate) fn discover() -> Result<Vec<Arc<dyn backend::Device>>> {
    Ok(vec![
        Arc::new(ScriptedDevice::new(0)),
        Arc::new(ScriptedDevice::new(1)),
    ])
}

impl backend::Device for ScriptedDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }
    fn alloc(&self, bytes: u64) -> Result<DevicePtr> {
        let ptr = self
            .next
            .fetch_add(bytes.next_multiple_of(256), Ordering::SeqCst);
        self.live.lock().unwrap().insert(ptr);
        Ok(ptr)
    }
    fn free(&self, ptr: DevicePtr) -> Result<()> {
        let mut blocked = self.frees_blocked.lock().unwrap();
        while *blocked {
            blocked = self.frees_unblocked.wait(blocked).unwrap();
        }
        drop(blocked);
        self.counters.frees.fetch_add(1, Ordering::SeqCst);
        if self.live.lock().unwrap().remove(&ptr) {
            Ok(())
        } else {
            Err(Error::InvalidValue {
                call: "free",
                message: "double free".into(),
            })
        }
    }
    fn allocation_of(&self, _ptr: DevicePtr) -> Option<(DevicePtr, u64)> {
        None
    }
    fn create_stream(&self) -> Result<Arc<dyn backend::Stream>> {
        let stream = Arc::new(ScriptedStream {
            counters: Arc::clone(&self.counters),
            work: Arc::default(),
        });
        self.streams.lock().unwrap().push(Arc::clone(&stream));
        Ok(stream)
    }
    fn create_event(&self) -> Result<Arc<dyn backend::Event>> {
        self.counters.events_created.fetch_add(1, Ordering::SeqCst);
        Ok(Arc::new(ScriptedEvent {
            at: Mutex::new(None),
        }))
    }
    fn code_targets(&self) -> CodeTargets {
        CodeTargets::ptx_only(90)
    }
    fn load_module(&self, _code: &CodeObject) -> Result<Arc<dyn backend::Module>> {
        Ok(Arc::new(ScriptedModule))
    }
    fn synchronize(&self) -> Result<()> {
        self.finish_all();
        Ok(())
    }
    fn native_textures(&self) -> bool {
        true
    }
    fn create_array(&self, desc: &backend::ArrayDesc) -> Result<Box<dyn backend::NativeArray>> {
        desc.check().map_err(|message| Error::InvalidValue {
            call: "create_array",
            message,
        })?;
        Ok(Box::new(ScriptedNative::new(
            &self.counters,
            &self.next,
            Kind::Array,
        )))
    }
    fn array_level(
        &self,
        _array: &dyn backend::NativeArray,
        _level: u32,
    ) -> Result<Box<dyn backend::NativeArray>> {
        Ok(Box::new(ScriptedNative::new(
            &self.counters,
            &self.next,
            Kind::Array,
        )))
    }
    fn create_texture_object(
        &self,
        _resource: &backend::NativeResource<'_>,
        _sampler: &backend::Sampler,
    ) -> Result<Box<dyn backend::NativeObject>> {
        Ok(Box::new(ScriptedNative::new(
            &self.counters,
            &self.next,
            Kind::Object,
        )))
    }
    fn create_surface_object(
        &self,
        _array: &dyn backend::NativeArray,
    ) -> Result<Box<dyn backend::NativeObject>> {
        Ok(Box::new(ScriptedNative::new(
            &self.counters,
            &self.next,
            Kind::Object,
        )))
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Whether a [`ScriptedNative`] stands for an array or an object.
#[derive(Clone, Copy)]
enum Kind {
    Array,
    Object,
}

/// A native array or texture/surface object: a handle, counted while alive.
struct ScriptedNative {
    handle: u64,
    kind: Kind,
    counters: Arc<Counters>,
}

impl ScriptedNative {
    fn new(counters: &Arc<Counters>, next: &AtomicU64, kind: Kind) -> ScriptedNative {
        let counter = match kind {
            Kind::Array => &counters.arrays,
            Kind::Object => &counters.objects,
        };
        counter.fetch_add(1, Ordering::SeqCst);
        ScriptedNative {
            handle: next.fetch_add(256, Ordering::SeqCst),
            kind,
            counters: Arc::clone(counters),
        }
    }
}

impl Drop for ScriptedNative {
    fn drop(&mut self) {
        let counter = match self.kind {
            Kind::Array => &self.counters.arrays,
            Kind::Object => &self.counters.objects,
        };
        counter.fetch_sub(1, Ordering::SeqCst);
    }
}

impl backend::NativeArray for ScriptedNative {
    fn handle(&self) -> u64 {
        self.handle
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl backend::NativeObject for ScriptedNative {
    fn handle(&self) -> u64 {
        self.handle
    }
}

/// Submitted and finished work of one scripted stream.
#[derive(Default)]
pub(crate) struct Work {
    submitted: AtomicU64,
    done: AtomicU64,
}

impl Work {
    fn finish(&self) {
        self.done
            .store(self.submitted.load(Ordering::SeqCst), Ordering::SeqCst);
    }
}

pub(crate) struct ScriptedStream {
    counters: Arc<Counters>,
    work: Arc<Work>,
}

impl ScriptedStream {
    pub(crate) fn finish(&self) {
        self.work.finish();
    }
    fn submit(&self) {
        self.work.submitted.fetch_add(1, Ordering::SeqCst);
    }
}

impl backend::Stream for ScriptedStream {
    unsafe fn launch(
        &self,
        _: &dyn backend::Function,
        _: &LaunchConfig,
        _: &[*mut c_void],
    ) -> Result<()> {
        self.counters.launches.fetch_add(1, Ordering::SeqCst);
        self.submit();
        Ok(())
    }
    fn copy_to_device(&self, _dst: DevicePtr, _src: &[u8]) -> Result<()> {
        self.submit();
        Ok(())
    }
    fn copy_to_host(&self, _dst: &mut [u8], _src: DevicePtr) -> Result<()> {
        self.finish();
        Ok(())
    }
    fn copy_on_device(&self, _dst: DevicePtr, _src: DevicePtr, _bytes: u64) -> Result<()> {
        self.submit();
        Ok(())
    }
    fn memset(&self, _dst: DevicePtr, _value: u32, _width: u32, _count: u64) -> Result<()> {
        self.submit();
        Ok(())
    }
    unsafe fn copy_array(&self, _copy: &backend::ArrayCopy<'_>) -> Result<()> {
        self.counters.array_copies.fetch_add(1, Ordering::SeqCst);
        self.submit();
        Ok(())
    }
    fn record(&self, event: &dyn backend::Event) -> Result<()> {
        self.counters.records.fetch_add(1, Ordering::SeqCst);
        let event = event.as_any().downcast_ref::<ScriptedEvent>().unwrap();
        // The event fires when this stream's `done` reaches the current submission count.
        let at = self.work.submitted.load(Ordering::SeqCst);
        *event.at.lock().unwrap() = Some((Arc::clone(&self.work), at));
        Ok(())
    }
    fn wait(&self, _event: &dyn backend::Event) -> Result<()> {
        self.counters.waits.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }
    fn synchronize(&self) -> Result<()> {
        self.finish();
        Ok(())
    }
    fn query(&self) -> Result<bool> {
        Ok(self.work.done.load(Ordering::SeqCst) == self.work.submitted.load(Ordering::SeqCst))
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

struct ScriptedEvent {
    /// (the recording stream's work, submission count it waits for).
    at: Mutex<Option<(Arc<Work>, u64)>>,
}

impl backend::Event for ScriptedEvent {
    fn query(&self) -> Result<bool> {
        Ok(match &*self.at.lock().unwrap() {
            None => true,
            Some((work, n)) => work.done.load(Ordering::SeqCst) >= *n,
        })
    }
    fn synchronize(&self) -> Result<()> {
        if let Some((work, _)) = &*self.at.lock().unwrap() {
            work.finish();
        }
        Ok(())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

struct ScriptedModule;

impl backend::Module for ScriptedModule {
    fn function(&self, name: &str) -> Result<Arc<dyn backend::Function>> {
        Ok(Arc::new(ScriptedFunction(name.to_string())))
    }
    fn global(&self, name: &str) -> Result<(DevicePtr, u64)> {
        Err(Error::NotFound {
            what: "global",
            name: name.into(),
            scope: String::new(),
            candidates: vec![],
        })
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

struct ScriptedFunction(String);

impl backend::Function for ScriptedFunction {
    fn name(&self) -> &str {
        &self.0
    }
    fn max_threads_per_block(&self) -> u32 {
        512
    }
    fn static_shared_bytes(&self) -> u32 {
        0
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
