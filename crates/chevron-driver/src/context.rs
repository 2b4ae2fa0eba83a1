//! Initialisation and contexts: `cuInit`, primary and created contexts, and the calling
//! thread's current-context stack.
//!
//! A context names a device of the runtime's state (`cudart::state`): contexts of one device
//! share its allocations, streams and modules, as the runtime's primary context does in CUDA.
//! Making a context current also makes its device the runtime's current device, so runtime
//! calls that follow go where the driver's context points. A thread with an empty stack that
//! uses the runtime sees the primary context of the runtime's current device, as CUDA's runtime
//! binds it on that thread. A `CUcontext` is the address of a registered entry: an unknown
//! or destroyed one is `CUDA_ERROR_INVALID_CONTEXT`, never dereferenced.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{c_int, c_uint, c_void};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use cudart::state::{self, lock};

use crate::result::{
    entry, runtime, store, CUresult, DriverError, DriverResult, INVALID_CONTEXT, INVALID_DEVICE,
    INVALID_VALUE, NOT_INITIALIZED,
};

/// One context: a device and its flags.
pub struct Context {
    /// The device ordinal.
    pub ordinal: usize,
    /// A device's primary context (retained and released, never destroyed).
    pub primary: bool,
    flags: AtomicU32,
    retained: AtomicUsize,
}

/// The driver API version chevron reports (`cuDriverGetVersion`).
pub const DRIVER_VERSION: c_int = 13000;

static INITIALISED: AtomicBool = AtomicBool::new(false);
static CONTEXTS: Mutex<Option<HashMap<usize, Arc<Context>>>> = Mutex::new(None);
static PRIMARIES: OnceLock<Vec<Arc<Context>>> = OnceLock::new();
/// Created contexts destroyed so far: while none was, every handle on a thread's stack is
/// live, and the current one is read without looking it up.
static DESTROYED: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static STACK: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// Whether `cuInit` was called (or the runtime was used, which initialises the driver).
#[inline]
pub fn initialised() -> bool {
    INITIALISED.load(Ordering::Acquire) || state::initialised()
}

/// Fails with `CUDA_ERROR_NOT_INITIALIZED` before `cuInit` (or the runtime's first use).
pub fn check_initialised() -> DriverResult {
    if initialised() {
        Ok(())
    } else {
        Err(DriverError::new(
            NOT_INITIALIZED,
            "cuInit has not been called",
        ))
    }
}

/// The number of devices, after the initialisation check.
pub fn device_count() -> DriverResult<usize> {
    check_initialised()?;
    Ok(state::devices().map_or(0, <[_]>::len))
}

/// Device `ordinal` as a `CUdevice`, checked.
pub fn checked_device(device: c_int) -> DriverResult<usize> {
    let count = device_count()?;
    usize::try_from(device)
        .ok()
        .filter(|&d| d < count)
        .ok_or_else(|| {
            DriverError::new(
                INVALID_DEVICE,
                format!("device {device} does not exist ({count} present)"),
            )
        })
}

fn primaries() -> DriverResult<&'static [Arc<Context>]> {
    let count = device_count()?;
    let primaries = PRIMARIES.get_or_init(|| {
        let made: Vec<_> = (0..count)
            .map(|ordinal| {
                Arc::new(Context {
                    ordinal,
                    primary: true,
                    flags: AtomicU32::new(0),
                    retained: AtomicUsize::new(0),
                })
            })
            .collect();
        let mut contexts = lock(&CONTEXTS);
        let contexts = contexts.get_or_insert_with(HashMap::new);
        for context in &made {
            contexts.insert(handle_of(context) as usize, Arc::clone(context));
        }
        made
    });
    Ok(primaries)
}

/// The `CUcontext` of `context`.
pub fn handle_of(context: &Arc<Context>) -> *mut c_void {
    Arc::as_ptr(context) as *mut c_void
}

/// The live context `handle`.
pub fn lookup(handle: *mut c_void) -> DriverResult<Arc<Context>> {
    lock(&CONTEXTS)
        .as_ref()
        .and_then(|c| c.get(&(handle as usize)).cloned())
        .ok_or_else(|| {
            DriverError::new(
                INVALID_CONTEXT,
                format!("{handle:p} is not a live CUcontext"),
            )
        })
}

/// The calling thread's current context: its stack's top, else (once the runtime was used on
/// this thread) the primary context of the runtime's current device.
pub fn current() -> DriverResult<Option<Arc<Context>>> {
    check_initialised()?;
    match STACK.with(|s| s.borrow().last().copied()) {
        Some(handle) => lookup(handle as *mut c_void).map(Some),
        None if state::bound_here() => {
            let primaries = primaries()?;
            Ok(primaries.get(state::current_ordinal()).cloned())
        }
        None => Ok(None),
    }
}

/// The calling thread's current `CUcontext` (NULL when it has none): [`current`]'s handle,
/// read without a look-up while no created context was ever destroyed.
pub fn current_handle() -> DriverResult<*mut c_void> {
    check_initialised()?;
    match STACK.with(|s| s.borrow().last().copied()) {
        Some(handle) if DESTROYED.load(Ordering::Acquire) == 0 => Ok(handle as *mut c_void),
        Some(handle) => lookup(handle as *mut c_void).map(|c| handle_of(&c)),
        None if state::bound_here() => Ok(primaries()?
            .get(state::current_ordinal())
            .map_or(std::ptr::null_mut(), handle_of)),
        None => Ok(std::ptr::null_mut()),
    }
}

/// The current context, or `CUDA_ERROR_INVALID_CONTEXT` when the thread has none.
pub fn require_current() -> DriverResult<Arc<Context>> {
    current()?.ok_or_else(|| {
        DriverError::new(
            INVALID_CONTEXT,
            "no current context (cuCtxSetCurrent, cuCtxPushCurrent or cuDevicePrimaryCtxRetain)",
        )
    })
}

fn bind(context: Option<&Arc<Context>>) -> DriverResult {
    if let Some(context) = context {
        state::set_current(context.ordinal)?;
    }
    Ok(())
}

/// Initialises the driver API (flags must be 0).
#[no_mangle]
pub extern "C" fn cuInit(flags: c_uint) -> CUresult {
    entry("cuInit", || {
        if flags != 0 {
            return Err(DriverError::new(INVALID_VALUE, "cuInit flags must be 0"));
        }
        state::devices()?;
        crate::fork::watch();
        INITIALISED.store(true, Ordering::Release);
        Ok(())
    })
}

/// The driver version chevron implements: CUDA 13.0.
#[no_mangle]
pub extern "C" fn cuDriverGetVersion(version: *mut c_int) -> CUresult {
    entry("cuDriverGetVersion", || {
        store(version, DRIVER_VERSION, "driverVersion")
    })
}

/// Retains device `device`'s primary context.
#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxRetain(out: *mut *mut c_void, device: c_int) -> CUresult {
    entry("cuDevicePrimaryCtxRetain", || {
        let context = &primaries()?[checked_device(device)?];
        context.retained.fetch_add(1, Ordering::AcqRel);
        store(out, handle_of(context), "pctx")
    })
}

/// Releases a retain of `device`'s primary context.
#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxRelease_v2(device: c_int) -> CUresult {
    entry("cuDevicePrimaryCtxRelease", || {
        let context = &primaries()?[checked_device(device)?];
        let _ = context
            .retained
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1));
        Ok(())
    })
}

/// Resets `device`'s primary context: waits for its work, drops its retains.
#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxReset_v2(device: c_int) -> CUresult {
    entry("cuDevicePrimaryCtxReset", || {
        let context = &primaries()?[checked_device(device)?];
        state::device(context.ordinal)?.device.synchronize()?;
        context.retained.store(0, Ordering::Release);
        Ok(())
    })
}

/// The flags of `device`'s primary context and whether it is retained.
#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxGetState(
    device: c_int,
    flags: *mut c_uint,
    active: *mut c_int,
) -> CUresult {
    entry("cuDevicePrimaryCtxGetState", || {
        let context = &primaries()?[checked_device(device)?];
        store(flags, context.flags.load(Ordering::Acquire), "flags")?;
        let retained = context.retained.load(Ordering::Acquire) > 0;
        store(active, c_int::from(retained), "active")
    })
}

/// Fails with `CUDA_ERROR_INVALID_VALUE` unless `flags` are context flags: one scheduling
/// policy (`CU_CTX_SCHED_AUTO`, `_SPIN`, `_YIELD`, `_BLOCKING_SYNC`) and any of the others
/// within `CU_CTX_FLAGS_MASK`.
fn check_flags(flags: c_uint) -> DriverResult {
    if flags & !0xff != 0 || !matches!(flags & 0x7, 0 | 1 | 2 | 4) {
        return Err(DriverError::new(
            INVALID_VALUE,
            format!("context flags {flags:#x} are not CU_CTX_* flags"),
        ));
    }
    Ok(())
}

/// Sets the flags of `device`'s primary context (scheduling hints chevron records).
#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxSetFlags_v2(device: c_int, flags: c_uint) -> CUresult {
    entry("cuDevicePrimaryCtxSetFlags", || {
        let context = &primaries()?[checked_device(device)?];
        check_flags(flags)?;
        context.flags.store(flags, Ordering::Release);
        Ok(())
    })
}

/// Creates a context on `device` and pushes it (CUDA 13's form, with creation parameters
/// chevron does not need).
#[no_mangle]
pub extern "C" fn cuCtxCreate_v4(
    out: *mut *mut c_void,
    params: *mut c_void,
    flags: c_uint,
    device: c_int,
) -> CUresult {
    let _ = params;
    entry("cuCtxCreate", || {
        let ordinal = checked_device(device)?;
        if out.is_null() {
            return Err(DriverError::new(INVALID_VALUE, "pctx is NULL"));
        }
        check_flags(flags)?;
        let context = Arc::new(Context {
            ordinal,
            primary: false,
            flags: AtomicU32::new(flags),
            retained: AtomicUsize::new(1),
        });
        let handle = handle_of(&context);
        lock(&CONTEXTS)
            .get_or_insert_with(HashMap::new)
            .insert(handle as usize, context.clone());
        STACK.with(|s| s.borrow_mut().push(handle as usize));
        bind(Some(&context))?;
        store(out, handle, "pctx")
    })
}

/// Destroys a created context (waiting for its device's work) and takes it off this thread's
/// stack.
#[no_mangle]
pub extern "C" fn cuCtxDestroy_v2(handle: *mut c_void) -> CUresult {
    entry("cuCtxDestroy", || {
        let context = lookup(handle)?;
        if context.primary {
            return Err(DriverError::new(
                INVALID_CONTEXT,
                "a primary context is released (cuDevicePrimaryCtxRelease), not destroyed",
            ));
        }
        state::device(context.ordinal)?.device.synchronize()?;
        lock(&CONTEXTS)
            .as_mut()
            .and_then(|c| c.remove(&(handle as usize)));
        DESTROYED.fetch_add(1, Ordering::AcqRel);
        STACK.with(|s| s.borrow_mut().retain(|&h| h != handle as usize));
        Ok(())
    })
}

/// Pushes `handle` onto the calling thread's stack.
#[no_mangle]
pub extern "C" fn cuCtxPushCurrent_v2(handle: *mut c_void) -> CUresult {
    entry("cuCtxPushCurrent", || {
        check_initialised()?;
        let context = lookup(handle)?;
        STACK.with(|s| s.borrow_mut().push(handle as usize));
        bind(Some(&context))
    })
}

/// Pops the calling thread's current context.
#[no_mangle]
pub extern "C" fn cuCtxPopCurrent_v2(out: *mut *mut c_void) -> CUresult {
    entry("cuCtxPopCurrent", || {
        check_initialised()?;
        let popped = STACK
            .with(|s| s.borrow_mut().pop())
            .ok_or_else(|| DriverError::new(INVALID_CONTEXT, "the context stack is empty"))?;
        if !out.is_null() {
            store(out, popped as *mut c_void, "pctx")?;
        }
        bind(current()?.as_ref())
    })
}

/// Replaces the top of the calling thread's stack (NULL pops it).
#[no_mangle]
pub extern "C" fn cuCtxSetCurrent(handle: *mut c_void) -> CUresult {
    entry("cuCtxSetCurrent", || {
        check_initialised()?;
        if handle.is_null() {
            STACK.with(|s| s.borrow_mut().pop());
            return Ok(());
        }
        let context = lookup(handle)?;
        STACK.with(|s| {
            let mut stack = s.borrow_mut();
            stack.pop();
            stack.push(handle as usize);
        });
        bind(Some(&context))
    })
}

/// The calling thread's current context (NULL when it has none).
#[no_mangle]
pub extern "C" fn cuCtxGetCurrent(out: *mut *mut c_void) -> CUresult {
    entry("cuCtxGetCurrent", || store(out, current_handle()?, "pctx"))
}

/// The current context's device. Without one it is `CUDA_ERROR_INVALID_CONTEXT` and nothing
/// is printed: CUDA's runtime asks this to learn whether a context is bound (its
/// `cudaGetDevice` on a fresh thread), so the answer is expected, not a mistake to explain.
#[no_mangle]
pub extern "C" fn cuCtxGetDevice(out: *mut c_int) -> CUresult {
    entry("cuCtxGetDevice", || {
        let context = current()?.ok_or_else(|| DriverError::new(INVALID_CONTEXT, ""))?;
        store(out, context.ordinal as c_int, "device")
    })
}

/// The current context's flags.
#[no_mangle]
pub extern "C" fn cuCtxGetFlags(out: *mut c_uint) -> CUresult {
    entry("cuCtxGetFlags", || {
        let context = require_current()?;
        store(out, context.flags.load(Ordering::Acquire), "flags")
    })
}

/// Waits for the current context's device.
#[no_mangle]
pub extern "C" fn cuCtxSynchronize() -> CUresult {
    entry("cuCtxSynchronize", || {
        let context = require_current()?;
        state::set_current(context.ordinal)?;
        runtime(cudart::device::cudaDeviceSynchronize())
    })
}

/// The API version of `handle` (or of the current context when NULL): 13.0's.
#[no_mangle]
pub extern "C" fn cuCtxGetApiVersion(handle: *mut c_void, version: *mut c_uint) -> CUresult {
    entry("cuCtxGetApiVersion", || {
        if handle.is_null() {
            require_current()?;
        } else {
            lookup(handle)?;
        }
        store(version, 13000, "version")
    })
}

/// The handle of device `ordinal`'s primary context.
pub fn primary_handle(ordinal: usize) -> DriverResult<*mut c_void> {
    let primaries = primaries()?;
    primaries
        .get(ordinal)
        .map(handle_of)
        .ok_or_else(|| DriverError::new(INVALID_DEVICE, format!("no device {ordinal}")))
}
