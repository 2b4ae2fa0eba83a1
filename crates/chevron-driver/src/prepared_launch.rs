//! Prepared launches: a thread's recent `cuLaunchKernel` calls that passed every check, kept so
//! that the same launch again (same function, stream, grid, block and dynamic shared memory)
//! goes straight to the stream ([`chevron::Kernel::launch_raw_unchecked`]) instead of resolving
//! and checking everything anew. A launch loop then costs what the `chevron` crate's unchecked
//! launch does, plus a few loads.
//!
//! A prepared launch is used only while what its checks saw still holds:
//! - the handles name what they named: no module unloaded, no stream destroyed, no device
//!   reset since ([`epoch`]);
//! - the launch needs nothing of the runtime's launch path but the submission
//!   ([`cudart::launch::nothing_extra`]: no sticky error, no `__managed__` variable, no
//!   mirrored host memory), no stream captures, the legacy stream has no blocking stream
//!   to wait for, and a per-thread default stream was ordered after the legacy stream's work
//!   so far;
//! - its dynamic shared memory is within the function's limit as set now;
//! - every argument pointer is non-NULL (the check the crate's checked launch makes).
//!
//! Anything else takes the full path ([`crate::launch::launch`]), which prepares the launch
//! again when it succeeds. Each thread keeps its last [`SLOTS`] distinct launches, so a loop
//! alternating a few kernels stays prepared.

use std::cell::RefCell;
use std::ffi::c_void;
use std::sync::Arc;

use chevron::{BackendKind, LaunchConfig, Stream};
use cudart::state::{self, DeviceState, ReusableStream, StreamHandle};

use crate::launch::Shape;
use crate::module::{self, FunctionEntry};
use crate::result::{DriverError, DriverResult};

/// Launches kept per thread.
const SLOTS: usize = 8;

/// One launch that passed every check.
struct Prepared {
    /// The `CUfunction` and `CUstream` handles, as given.
    func: usize,
    stream: usize,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    /// [`epoch`] when it was prepared.
    epoch: u64,
    function: Arc<FunctionEntry>,
    target: Stream,
    /// The device of the legacy stream, when `target` is one (its blocking streams are
    /// checked at each launch).
    legacy: Option<&'static DeviceState>,
    /// The per-thread default stream's handle and its device's legacy stream, when `target`
    /// is one (whether it follows the legacy stream's work is checked at each launch).
    after_legacy: Option<(Arc<StreamHandle>, Stream)>,
    /// The target is the CPU device (the program's output is flushed before each launch).
    cpu: bool,
}

struct Slots {
    kept: Vec<Prepared>,
    /// The slot the next launch prepared replaces once all are taken.
    next: usize,
}

thread_local! {
    static PREPARED: RefCell<Slots> = const {
        RefCell::new(Slots {
            kept: Vec::new(),
            next: 0,
        })
    };
}

/// Moves whenever a prepared launch's handles may name something else.
fn epoch() -> u64 {
    state::launch_epoch().wrapping_add(module::unloads())
}

/// Launches again a launch this thread prepared, when it is one and still valid: `None`
/// means the caller takes the full path.
///
/// # Safety
/// `params` is NULL or holds one readable pointer per kernel parameter, each to a value of
/// the parameter's size.
#[inline]
pub unsafe fn launch_again(
    func: *mut c_void,
    shape: &Shape,
    stream: *mut c_void,
    params: *mut *mut c_void,
) -> Option<DriverResult> {
    if params.is_null()
        || shape.cluster != [1, 1, 1]
        || shape.cooperative
        || crate::fork::in_forked_child()
        || !cudart::launch::nothing_extra()
        || cudart::graphs::any_capturing()
    {
        return None;
    }
    let epoch = epoch();
    PREPARED.with(|slots| {
        let slots = slots.try_borrow().ok()?;
        let prepared = slots.kept.iter().find(|p| {
            p.func == func as usize
                && p.stream == stream as usize
                && p.grid == shape.grid
                && p.block == shape.block
                && p.shared == shape.shared
        })?;
        if prepared.epoch != epoch
            || prepared
                .legacy
                .is_some_and(DeviceState::has_blocking_streams)
            || prepared
                .after_legacy
                .as_ref()
                .is_some_and(|(handle, legacy)| !handle.follows(legacy))
            || (shape.shared > 0
                && shape.shared > crate::function::dynamic_shared_limit(&prepared.function))
        {
            return None;
        }
        let kernel = &prepared.function.kernel;
        let count = kernel.params().map_or(0, <[_]>::len);
        // SAFETY: one pointer per parameter, by the caller's guarantee.
        let args = unsafe { std::slice::from_raw_parts(params, count) };
        if args.iter().any(|arg| arg.is_null()) {
            return None;
        }
        state::set_current_known(prepared.function.ordinal);
        if prepared.cpu {
            cudart::launch::flush_before_cpu_launch(&prepared.target);
        }
        let config = LaunchConfig {
            grid: shape.grid,
            block: shape.block,
            shared_bytes: shape.shared,
        };
        // SAFETY: the same function, stream (on the function's device) and configuration
        // passed every check of the full path before, and nothing they depend on has changed
        // (the epoch, the limits above); the pointers are non-NULL and read values of the
        // parameters' sizes, by the caller's guarantee.
        let launched = unsafe { kernel.launch_raw_unchecked(&prepared.target, config, args) };
        Some(launched.map(drop).map_err(DriverError::from))
    })
}

/// Keeps a launch that passed the full path so that the same launch again takes
/// [`launch_again`]. A launch on a blocking stream is not kept (its work is ordered after the
/// legacy stream's at each launch).
pub fn prepare(
    func: *mut c_void,
    shape: &Shape,
    stream: *mut c_void,
    function: &Arc<FunctionEntry>,
) {
    if shape.cluster != [1, 1, 1] || shape.cooperative || cudart::graphs::any_capturing() {
        return;
    }
    let epoch = epoch();
    let (target, legacy, after_legacy) = match state::reusable_stream(stream) {
        Some(ReusableStream::Plain(target)) => (target, None, None),
        Some(ReusableStream::Legacy(device, target)) => (target, Some(device), None),
        Some(ReusableStream::PerThread(handle, legacy)) => {
            (handle.stream.clone(), None, Some((handle, legacy)))
        }
        None => return,
    };
    let prepared = Prepared {
        func: func as usize,
        stream: stream as usize,
        grid: shape.grid,
        block: shape.block,
        shared: shape.shared,
        epoch,
        function: Arc::clone(function),
        cpu: target.device().backend() == BackendKind::Cpu,
        target,
        legacy,
        after_legacy,
    };
    PREPARED.with(|slots| {
        let Ok(mut slots) = slots.try_borrow_mut() else {
            return;
        };
        let slots = &mut *slots;
        slots.kept.retain(|p| p.epoch == epoch);
        if slots.kept.len() < SLOTS {
            slots.kept.push(prepared);
        } else {
            let at = slots.next % SLOTS;
            slots.kept[at] = prepared;
            slots.next = at + 1;
        }
    });
}
