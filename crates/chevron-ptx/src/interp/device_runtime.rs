//! CUDA's device runtime on the CPU device: kernels launching kernels (dynamic parallelism).
//!
//! nvcc lowers `child<<<grid, block, shared, stream>>>(args)` in device code to
//! `cudaGetParameterBufferV2(child, grid, block, shared)` (a buffer in global memory the
//! caller fills with the child's parameters, laid out as for a host launch) and
//! `cudaLaunchDeviceV2(buffer, stream)` (CUDA 12+: `__cudaCDP2…`, resolved by `libcudadevrt`).
//! The interpreter provides these functions itself (`exec/device_calls.rs`); this file holds
//! what a grid's launches share:
//!
//! - [`ChildGrids`]: one grid's parameter buffers handed out and not yet launched, the child
//!   grids it launched, and the streams its threads created;
//! - [`LaunchTree`]: what a host launch and all its descendants share: the count of grids
//!   launched from device code and not yet complete, against [`pending_launch_limit`] (a grid
//!   completes only once its children have, as CUDA defines it);
//! - the order children run in. CUDA 12's semantics (CDP2) let a child grid run any time after
//!   its launch, with work in one stream in order and the parent complete only once all its
//!   children are; the CPU device runs each grid's children after the grid itself, depth
//!   first, in launch order: NULL-stream, created-stream and fire-and-forget launches first,
//!   then tail launches (`cudaStreamTailLaunch`), which CUDA starts only after the parent and
//!   its other work are done. A host launch returns once its whole tree has run.
//!
//! Errors are CUDA's codes, returned by the launch call and kept as the calling thread's last
//! error (`cudaGetLastError`): more than [`pending_launch_limit`] grids launched and not
//! complete (`cudaErrorLaunchPendingCountExceeded`), an invalid configuration, function or
//! stream. There is no limit of 24 levels of nesting: on an H200 (driver 580, CUDA 13.0) a
//! grid launching one child from each level went 2048 levels deep, and the launch from the
//! 2048th failed with `cudaErrorLaunchPendingCountExceeded` (the default limit: every level
//! still waits for its child), which is what the CPU device does too.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Mutex;

use super::fault::Fault;
use super::grid::{LaunchConfig, LaunchHooks, LaunchReport};
use super::inst::{Builtin, CallTarget, DeviceCall, Op};
use super::program::{KernelHandle, Program};

/// `cudaLimitDevRuntimePendingLaunchCount`'s default.
pub const DEFAULT_PENDING_LAUNCH_LIMIT: u32 = 2048;

static PENDING_LAUNCH_LIMIT: AtomicU32 = AtomicU32::new(DEFAULT_PENDING_LAUNCH_LIMIT);

/// Most device-side launches of one host launch's tree that may wait to start
/// (`cudaLimitDevRuntimePendingLaunchCount`, for every CPU device of the process).
pub fn pending_launch_limit() -> u32 {
    PENDING_LAUNCH_LIMIT.load(Ordering::Relaxed)
}

/// Sets [`pending_launch_limit`] (at least 1).
pub fn set_pending_launch_limit(limit: u32) {
    PENDING_LAUNCH_LIMIT.store(limit.max(1), Ordering::Relaxed);
}

/// Runs child grids outside the interpreter (the CPU device's compiled code): offered only
/// kernels that make no device-side launch of their own, so a child run there has no children.
pub trait ChildGridRunner: Sync {
    /// Runs the grid of `kernel` (a kernel of `program`) and returns its report or fault, or
    /// `None` to leave it to the interpreter.
    #[allow(clippy::result_large_err)]
    fn run(
        &self,
        program: &Program,
        kernel: &KernelHandle,
        config: &LaunchConfig,
        params: &[u8],
        hooks: &LaunchHooks<'_>,
    ) -> Option<Result<LaunchReport, Fault>>;
}

impl Program {
    /// Whether kernel `index` (or a function it calls) makes device-side launches or uses
    /// device-side streams.
    pub(crate) fn launches_grids(&self, index: u32) -> bool {
        self.find_reachable(index, |function| {
            // Indirect calls may reach anything: count them as launching.
            let indirect = |op: &Op| {
                matches!(op, Op::Call(call) if matches!(call.target, CallTarget::Indirect(_)))
            };
            let launches = matches!(function.builtin, Some(Builtin::Device(_)))
                || function.insts.iter().any(|inst| indirect(&inst.op));
            launches.then_some(())
        })
        .is_some()
    }
}

/// CUDA's error codes the device runtime returns.
pub(crate) mod code {
    pub const SUCCESS: u32 = 0;
    pub const INVALID_VALUE: u32 = 1;
    pub const MEMORY_ALLOCATION: u32 = 2;
    pub const INVALID_CONFIGURATION: u32 = 9;
    pub const LAUNCH_PENDING_COUNT_EXCEEDED: u32 = 69;
    pub const INVALID_DEVICE_FUNCTION: u32 = 98;
    pub const INVALID_RESOURCE_HANDLE: u32 = 400;
}

/// `cudaStreamPerThread`, `cudaStreamTailLaunch`, `cudaStreamFireAndForget`.
pub(crate) const STREAM_PER_THREAD: u64 = 0x2;
pub(crate) const STREAM_TAIL_LAUNCH: u64 = 0x3;
pub(crate) const STREAM_FIRE_AND_FORGET: u64 = 0x4;
/// Streams created in device code: this tag and a number.
const CREATED_STREAM_TAG: u64 = 0x5d5e_0000_0000_0000;

/// The device runtime function `name` stands for (`__cudaCDP2X`, `__cudaCDP2X_ptsz` or
/// `cudaX`), if the CPU device provides it.
pub(crate) fn call_named(name: &str) -> Option<DeviceCall> {
    let base = name.strip_prefix("__cudaCDP2").unwrap_or(name);
    let base = base.strip_suffix("_ptsz").unwrap_or(base);
    let base = base.strip_prefix("cuda").unwrap_or(base);
    Some(match base {
        "GetParameterBuffer" => DeviceCall::GetParameterBuffer,
        "GetParameterBufferV2" => DeviceCall::GetParameterBufferV2,
        "LaunchDevice" => DeviceCall::LaunchDevice,
        "LaunchDeviceV2" => DeviceCall::LaunchDeviceV2,
        "GetLastError" => DeviceCall::GetLastError,
        "PeekAtLastError" => DeviceCall::PeekAtLastError,
        "StreamCreateWithFlags" => DeviceCall::StreamCreateWithFlags,
        "StreamDestroy" => DeviceCall::StreamDestroy,
        "GetDevice" => DeviceCall::GetDevice,
        _ => return None,
    })
}

/// A parameter buffer handed out: for `cudaGetParameterBufferV2` the launch it was asked for
/// (kernel index and configuration), for `cudaGetParameterBuffer` only its size.
#[derive(Debug, Clone)]
pub(crate) struct Prepared {
    pub size: u64,
    pub launch: Option<(u32, LaunchConfig)>,
}

/// One child grid waiting to run.
#[derive(Debug, Clone)]
pub(crate) struct ChildLaunch {
    pub kernel: u32,
    pub config: LaunchConfig,
    pub params: Vec<u8>,
    /// Launched into `cudaStreamTailLaunch`: runs after the grid's other children.
    pub tail: bool,
}

/// What a host launch and every grid it leads to share.
#[derive(Debug, Default)]
pub(crate) struct LaunchTree {
    /// Grids launched from device code and not yet complete (their own children included).
    pub pending: AtomicU32,
}

/// One grid's device-runtime state.
#[derive(Debug)]
pub(crate) struct ChildGrids<'a> {
    pub tree: &'a LaunchTree,
    prepared: Mutex<HashMap<u64, Prepared>>,
    launched: Mutex<Vec<ChildLaunch>>,
    streams: Mutex<HashSet<u64>>,
    next_stream: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<'a> ChildGrids<'a> {
    /// The state of a grid of `tree`.
    pub fn new(tree: &'a LaunchTree) -> Self {
        ChildGrids {
            tree,
            prepared: Mutex::default(),
            launched: Mutex::default(),
            streams: Mutex::default(),
            next_stream: AtomicU64::new(1),
        }
    }

    /// Records a parameter buffer handed out at `addr`.
    pub fn prepare(&self, addr: u64, prepared: Prepared) {
        lock(&self.prepared).insert(addr, prepared);
    }

    /// Takes back the parameter buffer at `addr`, if this grid handed it out.
    pub fn take_prepared(&self, addr: u64) -> Option<Prepared> {
        lock(&self.prepared).remove(&addr)
    }

    /// Counts a launch against the tree's pending limit: the error code if it is refused.
    pub fn admit(&self) -> Result<(), u32> {
        let limit = pending_launch_limit();
        self.tree
            .pending
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                (n < limit).then_some(n + 1)
            })
            .map(drop)
            .map_err(|_| code::LAUNCH_PENDING_COUNT_EXCEEDED)
    }

    /// Queues an admitted child grid.
    pub fn push(&self, child: ChildLaunch) {
        lock(&self.launched).push(child);
    }

    /// A new stream handle (`cudaStreamCreateWithFlags` in device code).
    pub fn create_stream(&self) -> u64 {
        let handle = CREATED_STREAM_TAG | self.next_stream.fetch_add(1, Ordering::Relaxed);
        lock(&self.streams).insert(handle);
        handle
    }

    /// Forgets a created stream; false if `handle` is none of this grid's.
    pub fn destroy_stream(&self, handle: u64) -> bool {
        lock(&self.streams).remove(&handle)
    }

    /// Whether a launch may name `stream`, and whether it is the tail-launch stream.
    pub fn stream_kind(&self, stream: u64) -> Option<bool> {
        match stream {
            0 | STREAM_PER_THREAD | STREAM_FIRE_AND_FORGET => Some(false),
            STREAM_TAIL_LAUNCH => Some(true),
            s if lock(&self.streams).contains(&s) => Some(false),
            _ => None,
        }
    }

    /// The grid's children in the order they run (other streams, then tail launches), and
    /// the parameter buffers handed out but never launched (to free).
    pub fn finish(self) -> (Vec<ChildLaunch>, Vec<u64>) {
        let mut launched = self
            .launched
            .into_inner()
            .unwrap_or_else(|e| e.into_inner());
        // A stable sort keeps launch order within each group.
        launched.sort_by_key(|child| child.tail);
        let unused = self
            .prepared
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .into_keys()
            .collect();
        (launched, unused)
    }
}

/// Checks a child's configuration as a launch does: the error code if it is invalid.
pub(crate) fn check_config(config: &LaunchConfig) -> Result<(), u32> {
    let [gx, gy, gz] = config.grid;
    let [bx, by, bz] = config.block;
    let threads = u64::from(bx) * u64::from(by) * u64::from(bz);
    let valid = gx >= 1
        && gy >= 1
        && gz >= 1
        && gx <= i32::MAX as u32
        && gy <= 65535
        && gz <= 65535
        && (1..=1024).contains(&threads)
        && bx <= 1024
        && by <= 1024
        && bz <= 64;
    if valid {
        Ok(())
    } else {
        Err(code::INVALID_CONFIGURATION)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_both_generations_resolve() {
        assert_eq!(
            call_named("__cudaCDP2LaunchDeviceV2_ptsz"),
            Some(DeviceCall::LaunchDeviceV2)
        );
        assert_eq!(
            call_named("cudaGetParameterBuffer"),
            Some(DeviceCall::GetParameterBuffer)
        );
        assert_eq!(call_named("__cudaCDP2Memset2DAsync"), None);
        assert_eq!(call_named("printf"), None);
    }

    #[test]
    fn every_driver_provided_launch_function_is_served() {
        for name in crate::linker::DRIVER_PROVIDED {
            if name.starts_with("cuda") || name.starts_with("__cudaCDP2") {
                assert!(call_named(name).is_some(), "{name}");
            }
        }
    }

    #[test]
    fn tail_launches_run_last_in_launch_order() {
        let tree = LaunchTree::default();
        let grids = ChildGrids::new(&tree);
        for (kernel, tail) in [(1, true), (2, false), (3, true), (4, false)] {
            grids.admit().unwrap();
            grids.push(ChildLaunch {
                kernel,
                config: LaunchConfig::default(),
                params: Vec::new(),
                tail,
            });
        }
        let (order, unused) = grids.finish();
        let kernels: Vec<u32> = order.iter().map(|c| c.kernel).collect();
        assert_eq!(kernels, [2, 4, 1, 3]);
        assert!(unused.is_empty());
        assert_eq!(tree.pending.load(Ordering::Relaxed), 4);
    }

    #[test]
    fn the_pending_limit_refuses_with_cudas_code() {
        let tree = LaunchTree::default();
        tree.pending
            .store(DEFAULT_PENDING_LAUNCH_LIMIT, Ordering::Relaxed);
        let grids = ChildGrids::new(&tree);
        assert_eq!(grids.admit(), Err(code::LAUNCH_PENDING_COUNT_EXCEEDED));
    }

    #[test]
    fn streams_are_checked() {
        let tree = LaunchTree::default();
        let grids = ChildGrids::new(&tree);
        let s = grids.create_stream();
        assert_eq!(grids.stream_kind(s), Some(false));
        assert_eq!(grids.stream_kind(STREAM_TAIL_LAUNCH), Some(true));
        assert!(grids.destroy_stream(s));
        assert_eq!(grids.stream_kind(s), None);
        assert!(!grids.destroy_stream(s));
        assert_eq!(grids.stream_kind(0x1234), None);
    }

    #[test]
    fn configurations_are_checked() {
        let mut config = LaunchConfig {
            grid: [2, 1, 1],
            block: [1024, 1, 1],
            ..LaunchConfig::default()
        };
        assert_eq!(check_config(&config), Ok(()));
        config.block = [1024, 2, 1];
        assert_eq!(check_config(&config), Err(code::INVALID_CONFIGURATION));
        config.block = [1, 1, 1];
        config.grid = [0, 1, 1];
        assert_eq!(check_config(&config), Err(code::INVALID_CONFIGURATION));
    }
}
