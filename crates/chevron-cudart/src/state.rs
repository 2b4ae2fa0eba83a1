//! The runtime's process state: the devices a CUDA program sees, the calling thread's current
//! device, and how `cudaStream_t` values resolve to chevron streams.
//!
//! Devices are chevron's (`CHEVRON_DEVICES` selects them as everywhere); without that variable
//! the program sees the CUDA GPUs, or the CPU device where there are none. A `cudaStream_t` is
//! NULL or `cudaStreamLegacy` (the device's legacy stream), `cudaStreamPerThread` (one stream
//! per thread and device), or a handle made by `cudaStreamCreate`. The legacy stream keeps
//! CUDA's implicit ordering: work on it waits for the device's blocking streams and theirs for it.
//! A per-thread default stream is one of those blocking streams (CUDA: it "will synchronize
//! with the legacy default stream"), registered while its thread lives; it is never ordered
//! with another thread's per-thread stream.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use chevron::{BackendKind, Device, Runtime, Stream};

use crate::errors::{
    check_sticky, CudaError, CudaResult, INVALID_DEVICE, INVALID_RESOURCE_HANDLE, NO_DEVICE,
};

/// `cudaStreamLegacy`.
pub const STREAM_LEGACY: usize = 1;
/// `cudaStreamPerThread`.
pub const STREAM_PER_THREAD: usize = 2;

/// A stream made by `cudaStreamCreate*`; `cudaStream_t` points to one.
pub struct StreamHandle {
    /// The device ordinal.
    pub device: usize,
    /// The chevron stream.
    pub stream: Stream,
    /// Not `cudaStreamNonBlocking`: ordered with the legacy stream.
    pub blocking: bool,
    /// The stream's priority (0, the default, unless made by `cudaStreamCreateWithPriority`).
    pub priority: i32,
    /// The stream's id (`cudaStreamGetId`): unique for the program's life.
    pub id: u64,
    /// The values set by `cudaStreamSetAttribute`, by `cudaStreamAttrID` (the 64 bytes of a
    /// `cudaStreamAttrValue`); see `stream_attributes`.
    pub attributes: Mutex<BTreeMap<c_int, [u8; 64]>>,
    /// The legacy stream's submissions this stream has already waited for.
    legacy_seen: AtomicU64,
}

/// One device as the CUDA program sees it.
pub struct DeviceState {
    /// The chevron device.
    pub device: Device,
    /// CUDA's legacy default stream of the device (replaced by `cudaDeviceReset`: a stream
    /// that faulted stays faulted).
    legacy: Mutex<Stream>,
    /// Blocking streams of this device.
    blocking: Mutex<Vec<Arc<StreamHandle>>>,
    /// How many there are (read without the lock on the launch path).
    blocking_count: AtomicUsize,
}

impl DeviceState {
    /// CUDA's legacy default stream of the device.
    pub fn legacy(&self) -> Stream {
        lock(&self.legacy).clone()
    }

    /// Whether blocking streams exist on the device (work on the legacy stream then waits for
    /// them first).
    #[inline]
    pub fn has_blocking_streams(&self) -> bool {
        self.blocking_count.load(Ordering::Acquire) > 0
    }
}

impl StreamHandle {
    fn new(device: usize, stream: Stream, blocking: bool, priority: i32) -> StreamHandle {
        StreamHandle {
            device,
            stream,
            blocking,
            priority,
            id: next_stream_id(),
            attributes: Mutex::new(BTreeMap::new()),
            legacy_seen: AtomicU64::new(0),
        }
    }

    /// Whether this blocking stream has been ordered after every submission of `legacy` (its
    /// device's legacy stream) so far: work on it then needs no new wait.
    #[inline]
    pub fn follows(&self, legacy: &Stream) -> bool {
        self.legacy_seen.load(Ordering::Relaxed) == legacy.submissions()
    }

    /// Orders this blocking stream's later work after the legacy stream's work so far (one
    /// wait, made only when the legacy stream had work since the last one).
    fn order_after_legacy(&self) -> CudaResult {
        let legacy = device(self.device)?.legacy();
        let submitted = legacy.submissions();
        if self.legacy_seen.swap(submitted, Ordering::Relaxed) != submitted {
            self.stream.wait_for(&[&legacy.token()])?;
        }
        Ok(())
    }
}

/// A stream as [`submit_stream`] resolves it, for a caller that keeps it to submit to again
/// without resolving (a front door's prepared launch): valid while [`launch_epoch`] has not
/// moved.
pub enum ReusableStream {
    /// A non-blocking stream: nothing is ordered before work on it.
    Plain(Stream),
    /// The device's legacy stream: nothing is ordered before work on it while the device has
    /// no blocking stream.
    Legacy(&'static DeviceState, Stream),
    /// The calling thread's per-thread default stream (its handle's stream) and its device's
    /// legacy stream: nothing is ordered before work on it while the handle
    /// [`follows`](StreamHandle::follows) the legacy stream.
    PerThread(Arc<StreamHandle>, Stream),
}

/// `stream` (a `cudaStream_t`), resolved to submit to again, when submitting to it orders
/// nothing or only what [`ReusableStream::Legacy`] checks; `None` for a blocking stream (whose
/// work waits for the legacy stream's) or a handle that is not live.
pub fn reusable_stream(stream: *mut c_void) -> Option<ReusableStream> {
    match stream as usize {
        0 | STREAM_LEGACY => {
            let state = device(current_ordinal()).ok()?;
            Some(ReusableStream::Legacy(state, state.legacy()))
        }
        STREAM_PER_THREAD => {
            let handle = per_thread_handle(current_ordinal()).ok()?;
            let legacy = device(handle.device).ok()?.legacy();
            Some(ReusableStream::PerThread(handle, legacy))
        }
        key => {
            let handle = lookup(key).ok()?;
            (!handle.blocking).then(|| ReusableStream::Plain(handle.stream.clone()))
        }
    }
}

/// Moves whenever a resolved stream may stop being the one its handle names (a stream
/// destroyed, a device reset): what [`reusable_stream`] returned is valid while this is
/// unchanged.
#[inline]
pub fn launch_epoch() -> u64 {
    UNREGISTERED
        .load(Ordering::Acquire)
        .wrapping_add(GENERATION.load(Ordering::Acquire))
}

static DEVICES: OnceLock<Result<Vec<DeviceState>, String>> = OnceLock::new();
static HANDLES: Mutex<Option<HashMap<usize, Arc<StreamHandle>>>> = Mutex::new(None);
/// Streams unregistered so far: a thread's cached stream ([`LAST_STREAM`]) is valid while this
/// has not moved.
static UNREGISTERED: AtomicU64 = AtomicU64::new(0);
/// How many times `cudaDeviceReset` ran: per-thread streams of an earlier generation are
/// replaced on their next use.
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// The id the next stream gets (`cudaStreamGetId`); ids below it are the legacy streams'.
static NEXT_STREAM_ID: AtomicU64 = AtomicU64::new(FIRST_STREAM_ID);
/// The first id of a created or per-thread stream; the legacy stream of device `d` has id `d`.
pub const FIRST_STREAM_ID: u64 = 1 << 16;

/// A new stream id, never handed out before.
pub fn next_stream_id() -> u64 {
    NEXT_STREAM_ID.fetch_add(1, Ordering::Relaxed)
}

thread_local! {
    /// The current device: at first the default device (`cudaSetValidDevices`' first).
    static CURRENT: Cell<usize> = Cell::new(DEFAULT_DEVICE.load(Ordering::Relaxed));
    /// The per-thread default streams, by device.
    static PER_THREAD: RefCell<HashMap<usize, PerThreadStream>> = RefCell::new(HashMap::new());
    static BOUND: Cell<bool> = const { Cell::new(false) };
    /// Whether the thread chose its device (`cudaSetDevice`, a driver context made current)
    /// rather than being bound implicitly by its first runtime call.
    static CHOSEN: Cell<bool> = const { Cell::new(false) };
    /// The stream this thread resolved last, with the unregistration count it was resolved at:
    /// a launch loop resolves its stream without the registry's lock or a map look-up.
    static LAST_STREAM: RefCell<Option<(usize, u64, Weak<StreamHandle>)>> =
        const { RefCell::new(None) };
}

/// Whether the runtime was used on the calling thread (its current device read or set): CUDA's
/// runtime then binds the device's primary context to the thread, which the driver library's
/// `cuCtxGetCurrent` reports.
pub fn bound_here() -> bool {
    BOUND.with(Cell::get)
}

/// Sets what [`bound_here`] reports (the driver library restores it around its own use of
/// the runtime's functions).
pub fn set_bound_here(bound: bool) {
    BOUND.with(|b| b.set(bound));
}

/// Whether the calling thread chose its device ([`set_current`]) rather than having it bound
/// by its first runtime call.
pub fn chosen_here() -> bool {
    CHOSEN.with(Cell::get)
}

fn discover() -> Result<Vec<DeviceState>, String> {
    let runtime = Runtime::global().map_err(|e| e.to_string())?;
    let explicit = std::env::var("CHEVRON_DEVICES").is_ok_and(|v| !v.trim().is_empty());
    let has_gpu = runtime
        .devices()
        .iter()
        .any(|d| d.backend() == BackendKind::Cuda);
    runtime
        .devices()
        .iter()
        .filter(|d| explicit || !has_gpu || d.backend() == BackendKind::Cuda)
        .map(|device| {
            Ok(DeviceState {
                device: device.clone(),
                legacy: Mutex::new(device.create_stream().map_err(|e| e.to_string())?),
                blocking: Mutex::new(Vec::new()),
                blocking_count: AtomicUsize::new(0),
            })
        })
        .collect()
}

/// Every device the program sees.
pub fn devices() -> CudaResult<&'static [DeviceState]> {
    match DEVICES.get_or_init(discover) {
        Ok(devices) if devices.is_empty() => Err(CudaError::new(NO_DEVICE, "no chevron device")),
        Ok(devices) => Ok(devices),
        Err(message) => Err(CudaError::new(NO_DEVICE, message.clone())),
    }
}

/// Whether the devices were discovered (the runtime, or the driver library sharing this state,
/// was used): CUDA's runtime initialises the driver and binds the primary context then.
pub fn initialised() -> bool {
    DEVICES.get().is_some()
}

/// Device `ordinal`, or `cudaErrorInvalidDevice`.
pub fn device(ordinal: usize) -> CudaResult<&'static DeviceState> {
    let devices = devices()?;
    devices.get(ordinal).ok_or_else(|| {
        CudaError::new(
            INVALID_DEVICE,
            format!(
                "device {ordinal} does not exist ({} present)",
                devices.len()
            ),
        )
    })
}

/// The device of threads that have not chosen one (`cudaSetValidDevices`).
static DEFAULT_DEVICE: AtomicUsize = AtomicUsize::new(0);

/// Makes `ordinal`, a device known to exist, the device of threads that have not used the
/// runtime yet.
pub fn set_default_device(ordinal: usize) {
    DEFAULT_DEVICE.store(ordinal, Ordering::Relaxed);
}

/// The calling thread's current device ordinal.
pub fn current_ordinal() -> usize {
    CURRENT.with(Cell::get)
}

/// Makes `ordinal`, a device known to exist, the calling thread's current device (what
/// [`set_current`] does after its check, without marking the thread as bound).
#[inline]
pub fn set_current_known(ordinal: usize) {
    CURRENT.with(|c| c.set(ordinal));
}

/// Makes `ordinal` the calling thread's current device.
pub fn set_current(ordinal: usize) -> CudaResult {
    device(ordinal)?;
    CURRENT.with(|c| c.set(ordinal));
    set_bound_here(true);
    CHOSEN.with(|c| c.set(true));
    Ok(())
}

/// The calling thread's current device; fails with the sticky error after a fault.
pub fn current() -> CudaResult<&'static DeviceState> {
    check_sticky()?;
    set_bound_here(true);
    device(current_ordinal())
}

/// Registers a stream made by `cudaStreamCreate*` and returns its `cudaStream_t`.
pub fn add_stream(device: usize, stream: Stream, blocking: bool, priority: i32) -> *mut c_void {
    let handle = Arc::new(StreamHandle::new(device, stream, blocking, priority));
    let key = Arc::as_ptr(&handle) as usize;
    if blocking {
        register_blocking(&handle);
    }
    lock(&HANDLES)
        .get_or_insert_with(HashMap::new)
        .insert(key, handle);
    key as *mut c_void
}

/// Unregisters a stream made by `cudaStreamCreate*`, returning it.
pub fn remove_stream(stream: *mut c_void) -> CudaResult<Arc<StreamHandle>> {
    let key = stream as usize;
    let handle = lock(&HANDLES)
        .as_mut()
        .and_then(|h| h.remove(&key))
        .ok_or_else(|| bad_stream(key))?;
    UNREGISTERED.fetch_add(1, Ordering::AcqRel);
    unregister_blocking(&handle);
    Ok(handle)
}

/// Adds `handle` to its device's blocking streams (the legacy stream's work waits for them).
fn register_blocking(handle: &Arc<StreamHandle>) {
    if let Ok(state) = device(handle.device) {
        let mut blocking = lock(&state.blocking);
        blocking.push(Arc::clone(handle));
        state
            .blocking_count
            .store(blocking.len(), Ordering::Release);
    }
}

/// Takes `handle` out of its device's blocking streams.
fn unregister_blocking(handle: &Arc<StreamHandle>) {
    if let Ok(state) = device(handle.device) {
        let mut blocking = lock(&state.blocking);
        blocking.retain(|h| !Arc::ptr_eq(h, handle));
        state
            .blocking_count
            .store(blocking.len(), Ordering::Release);
    }
}

/// Refuses work on a capturing stream: stream capture (a layer above, see `capturing`) installs
/// it when the first capture begins; until then no stream captures.
static CAPTURE_REFUSAL: OnceLock<fn(usize) -> CudaResult> = OnceLock::new();

/// Installs the refusal of work on capturing streams (the first one installed stays).
pub(crate) fn install_capture_refusal(refuse: fn(usize) -> CudaResult) {
    let _ = CAPTURE_REFUSAL.set(refuse);
}

fn refuse_if_capturing(key: usize) -> CudaResult {
    CAPTURE_REFUSAL.get().map_or(Ok(()), |refuse| refuse(key))
}

fn bad_stream(key: usize) -> CudaError {
    CudaError::new(
        INVALID_RESOURCE_HANDLE,
        format!("stream {key:#x} is not a live cudaStream_t"),
    )
}

/// Resolves `stream` for submitting work, after ordering it with the legacy stream where
/// CUDA's implicit synchronization asks for it. Returns the device index and the stream.
pub fn submit_stream(stream: *mut c_void) -> CudaResult<(usize, Stream)> {
    check_sticky()?;
    match stream as usize {
        0 | STREAM_LEGACY => {
            let ordinal = current_ordinal();
            let state = device(ordinal)?;
            let legacy = state.legacy();
            if state.blocking_count.load(Ordering::Acquire) > 0 {
                for handle in lock(&state.blocking).iter() {
                    legacy.wait_for(&[&handle.stream.token()])?;
                }
            }
            Ok((ordinal, legacy))
        }
        STREAM_PER_THREAD => {
            let ordinal = current_ordinal();
            let handle = per_thread_handle(ordinal)?;
            handle.order_after_legacy()?;
            Ok((ordinal, handle.stream.clone()))
        }
        key => {
            refuse_if_capturing(key)?;
            let handle = lookup(key)?;
            if handle.blocking {
                handle.order_after_legacy()?;
            }
            Ok((handle.device, handle.stream.clone()))
        }
    }
}

/// Resolves `stream` without ordering anything (synchronize, query, record).
pub fn plain_stream(stream: *mut c_void) -> CudaResult<(usize, Stream)> {
    match stream as usize {
        0 | STREAM_LEGACY => {
            let ordinal = current_ordinal();
            Ok((ordinal, device(ordinal)?.legacy()))
        }
        STREAM_PER_THREAD => {
            let ordinal = current_ordinal();
            Ok((ordinal, per_thread_stream(ordinal)?))
        }
        key => {
            refuse_if_capturing(key)?;
            let handle = lookup(key)?;
            Ok((handle.device, handle.stream.clone()))
        }
    }
}

/// The device ordinal of `stream`, without ordering or refusing anything (a capturing stream
/// included).
pub fn ordinal_of(stream: *mut c_void) -> CudaResult<usize> {
    match stream as usize {
        0 | STREAM_LEGACY | STREAM_PER_THREAD => Ok(current_ordinal()),
        key => Ok(lookup(key)?.device),
    }
}

/// The handle of a stream made by `cudaStreamCreate*`, without refusing a capturing one.
pub fn stream_handle(stream: *mut c_void) -> CudaResult<Arc<StreamHandle>> {
    lookup(stream as usize)
}

/// The chevron stream of a stream made by `cudaStreamCreate*`, without refusing a capturing
/// one.
pub fn created_stream(stream: *mut c_void) -> CudaResult<(usize, Stream)> {
    let handle = lookup(stream as usize)?;
    Ok((handle.device, handle.stream.clone()))
}

fn lookup(key: usize) -> CudaResult<Arc<StreamHandle>> {
    let unregistered = UNREGISTERED.load(Ordering::Acquire);
    let cached = LAST_STREAM.with(|last| match &*last.borrow() {
        Some((at, seen, handle)) if *at == key && *seen == unregistered => handle.upgrade(),
        _ => None,
    });
    if let Some(handle) = cached {
        return Ok(handle);
    }
    let handle = lock(&HANDLES)
        .as_ref()
        .and_then(|h| h.get(&key).cloned())
        .ok_or_else(|| bad_stream(key))?;
    LAST_STREAM.with(|last| {
        *last.borrow_mut() = Some((key, unregistered, Arc::downgrade(&handle)));
    });
    Ok(handle)
}

/// A thread's per-thread default stream of one device, with the reset generation it belongs
/// to: a blocking stream of the device while the thread lives (or until a reset replaces it).
struct PerThreadStream {
    generation: u64,
    handle: Arc<StreamHandle>,
}

impl Drop for PerThreadStream {
    fn drop(&mut self) {
        unregister_blocking(&self.handle);
    }
}

fn per_thread_stream(ordinal: usize) -> CudaResult<Stream> {
    Ok(per_thread_handle(ordinal)?.stream.clone())
}

/// The calling thread's per-thread default stream of device `ordinal`, made (and registered as
/// a blocking stream) on first use and again after a reset.
fn per_thread_handle(ordinal: usize) -> CudaResult<Arc<StreamHandle>> {
    let generation = GENERATION.load(Ordering::Acquire);
    let known = PER_THREAD.with(|s| {
        s.borrow()
            .get(&ordinal)
            .filter(|known| known.generation == generation)
            .map(|known| Arc::clone(&known.handle))
    });
    if let Some(handle) = known {
        return Ok(handle);
    }
    let stream = device(ordinal)?.device.create_stream()?;
    let handle = Arc::new(StreamHandle::new(ordinal, stream, true, 0));
    register_blocking(&handle);
    let made = PerThreadStream {
        generation,
        handle: Arc::clone(&handle),
    };
    // The entry replaced (of an earlier generation) leaves the blocking streams as it drops.
    let replaced = PER_THREAD.with(|s| s.borrow_mut().insert(ordinal, made));
    drop(replaced);
    Ok(handle)
}

/// Restores device `ordinal` for `cudaDeviceReset`: waits for its work (a fault is dropped),
/// gives it a new legacy stream, forgets its `cudaStream_t` handles and makes every thread's
/// per-thread stream new on its next use (the calling thread's at once). A stream that faulted
/// stays faulted, so no stream of before the reset is used after it. Returns the handles
/// forgotten.
pub fn reset_device(ordinal: usize) -> CudaResult<Vec<usize>> {
    let state = device(ordinal)?;
    let _ = state.device.synchronize();
    let fresh = state.device.create_stream()?;
    drop(std::mem::replace(&mut *lock(&state.legacy), fresh));
    GENERATION.fetch_add(1, Ordering::AcqRel);
    PER_THREAD.with(|s| s.borrow_mut().remove(&ordinal));
    let mut forgotten = Vec::new();
    if let Some(handles) = lock(&HANDLES).as_mut() {
        handles.retain(|&key, handle| {
            let keep = handle.device != ordinal;
            if !keep {
                forgotten.push(key);
            }
            keep
        });
    }
    UNREGISTERED.fetch_add(1, Ordering::AcqRel);
    lock(&state.blocking).clear();
    state.blocking_count.store(0, Ordering::Release);
    Ok(forgotten)
}

/// Locks `mutex`, also after a panic elsewhere (the data stay consistent: every critical
/// section is a single insert, remove or read).
pub fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
