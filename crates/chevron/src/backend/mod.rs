//! The backend contract: what every device backend implements, written once.
//!
//! chevron's public types ([`crate::Device`], [`crate::Stream`], [`crate::Module`], …) hold
//! `Arc<dyn …>` of the traits below, so nothing above this file is generic over the backend.
//! Each backend lives in a folder with the same file names (`mod.rs` discovery, `device.rs`,
//! `memory.rs`, `module.rs`, `stream.rs`, `event.rs`; CUDA adds `sys.rs`, its curated driver
//! table, `context.rs` for primary contexts and `error.rs` for driver error names):
//!
//! | backend | loaded how | devices |
//! |---|---|---|
//! | [`cuda`] | `libcuda.so.1` opened at run time (never linked) | every CUDA GPU |
//! | [`cpu`]  | built in | `CHEVRON_CPU_DEVICES` CPU devices (default 1) running PTX in the interpreter |
//! | [`noop`] | built in, only when `CHEVRON_DEVICES` names it | one device: real memory, checked launches, no kernel run |
//!
//! # Promises every backend keeps
//! - **No panics** for anything a caller or the driver can cause: errors are [`crate::Error`],
//!   driver errors carry the call, the driver's error name and text, and the device.
//! - **The caller's thread state is untouched.** After any method returns, the calling thread's
//!   current CUDA context is what it was before. CUDA methods that need a context push the
//!   device's primary context and pop it before returning (64 ns), or need none at all
//!   (launches, stream waits, event records: measured to work from any current context).
//! - **Thread safety.** Every object is `Send + Sync` and every method may be called from any
//!   thread concurrently.
//! - **The launch path** ([`Stream::launch`]) allocates nothing, takes no lock, records no event
//!   and switches no context on CUDA.
//! - **Cluster launches** ([`Stream::launch_cluster`]) are a separate method: backends without
//!   thread-block clusters run clusters of one block as plain launches and report larger ones;
//!   CUDA uses `cuLaunchKernelEx` on compute capability ≥ 9.0.
//! - **Streams are in order.** Work submitted to one stream runs in submission order. Work on
//!   different streams may run concurrently (truly: two kernels that spin-wait on each other on
//!   two streams finish on every backend).
//! - **Faults.** A kernel fault (CUDA: sticky context error; CPU: a checked fault) is reported by
//!   the next synchronizing call on that stream as [`crate::Error::Fault`] naming the kernel, and
//!   later work on the stream is cancelled.
//!
//! # What callers (the public layer) guarantee
//! - Device memory is freed only once no pending work uses it (the public layer defers frees
//!   until every stream of the device has passed the point at which the buffer was dropped).
//! - Objects passed to a method (functions, events, device pointers) belong to the same backend,
//!   and functions and streams to the same device; events may belong to another device of the
//!   same backend (cross-device waits).

#[cfg(test)]
pub(crate) mod scripted;

pub(crate) mod cluster;
pub mod cpu;
pub mod cuda;
pub mod graph;
pub(crate) mod kernel_limits;
pub mod noop;
pub mod tensor_map;
pub mod texture;

pub use graph::{ExecGraph, GraphStep, KernelNodeAttribute};
pub use tensor_map::{TiledTensorMap, MAX_TENSOR_MAP_RANK};
pub use texture::{
    ArrayCopy, ArrayDesc, MipmapFilter, NativeArray, NativeObject, NativeResource, Sampler,
};

use std::any::Any;
use std::ffi::c_void;
use std::sync::Arc;

use crate::code_object::{CodeObject, CodeTargets};
use crate::error::Result;

/// A device address. On CUDA a `CUdeviceptr`; on the CPU device an address in that device's
/// allocation table. Never 0 for a live allocation; addresses of different devices never overlap.
pub type DevicePtr = u64;

/// A function of the host program queued on a stream ([`Stream::launch_host_function`]): called
/// once, with `Ok(())`, or with the stream's fault if earlier work on it faulted.
pub type HostFunction = Box<dyn FnOnce(Result<()>) + Send>;

/// What [`Device::alloc_host_visible`] allocates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostVisibleKind {
    /// Page-locked host memory mapped into the device (CUDA's `cudaHostAlloc`), optionally
    /// write-combined.
    Pinned {
        /// `cudaHostAllocWriteCombined`: fast for the device to read, slow for the host.
        write_combined: bool,
    },
    /// Memory that migrates between host and device on demand (`cudaMallocManaged`).
    Managed,
}

/// Which backend a device belongs to (each has one line in `crate::runtime::registry::BACKENDS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BackendKind {
    /// NVIDIA GPUs through the CUDA driver API.
    Cuda,
    /// The CPU device: PTX run by chevron-ptx's interpreter.
    Cpu,
    /// The no-op device (`noop/`): real memory, checked launches, no kernel run.
    Noop,
    /// The scripted test backend (`scripted.rs`), in unit tests only.
    #[cfg(test)]
    Scripted,
}

impl BackendKind {
    /// `cuda`, `cpu` or `noop`, as in `CHEVRON_DEVICES`.
    pub fn as_str(self) -> &'static str {
        match self {
            BackendKind::Cuda => "cuda",
            BackendKind::Cpu => "cpu",
            BackendKind::Noop => "noop",
            #[cfg(test)]
            BackendKind::Scripted => "scripted",
        }
    }

    /// Whether the backend runs kernels in software (the CPU device): launches cost far more
    /// than on a GPU, so benchmarks and long tests shorten. The no-op device runs none.
    pub fn runs_in_software(self) -> bool {
        match self {
            BackendKind::Cuda | BackendKind::Noop => false,
            BackendKind::Cpu => true,
            #[cfg(test)]
            BackendKind::Scripted => true,
        }
    }
}

/// A device's identity as its driver gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriverIdentity {
    /// The device's UUID.
    pub uuid: [u8; 16],
    /// Its PCI bus id as the driver writes it (`domain:bus:device.function`).
    pub pci_bus_id: String,
}

/// What a device is and what it can run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Marketing name, e.g. `NVIDIA H200`, or `chevron CPU device`.
    pub name: String,
    /// The backend.
    pub backend: BackendKind,
    /// Ordinal within its backend.
    pub ordinal: u32,
    /// Compute capability (major, minor); the CPU device reports the highest PTX target it runs.
    pub compute_capability: (u32, u32),
    /// Streaming multiprocessors (CPU: worker threads).
    pub multiprocessors: u32,
    /// Total device memory in bytes.
    pub total_memory: u64,
    /// Threads per warp (32).
    pub warp_size: u32,
    /// Maximum threads per block.
    pub max_threads_per_block: u32,
    /// Maximum block dimensions.
    pub max_block_dim: [u32; 3],
    /// Maximum grid dimensions.
    pub max_grid_dim: [u32; 3],
    /// Shared memory per block without opt-in, in bytes.
    pub max_shared_per_block: u32,
    /// Shared memory per block with opt-in (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`).
    pub max_shared_per_block_optin: u32,
}

/// Launch geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in x, y, z.
    pub grid: [u32; 3],
    /// Threads per block in x, y, z.
    pub block: [u32; 3],
    /// Dynamic shared memory in bytes.
    pub shared_bytes: u32,
}

/// One device of a backend.
pub trait Device: Send + Sync + 'static {
    /// What the device is.
    fn info(&self) -> &DeviceInfo;

    /// Allocates `bytes` of device memory (synchronously). `bytes == 0` is an error.
    fn alloc(&self, bytes: u64) -> Result<DevicePtr>;

    /// Frees an allocation made by [`Device::alloc`] or [`Device::alloc_in_stream_order`]. The
    /// caller guarantees that no pending work uses it. Freeing an unknown pointer is an error,
    /// not a crash, where the backend can tell.
    fn free(&self, ptr: DevicePtr) -> Result<()>;

    /// Allocates `bytes` (> 0) of device memory in `stream`'s order (CUDA: `cuMemAllocAsync`
    /// from the device's current pool), for a stream-ordered allocator above
    /// (`cudaMallocAsync`): usable by work submitted to `stream` after it, and by other streams
    /// once they are ordered after it. Unlike [`Device::alloc`] it orders nothing else: CUDA
    /// documents a device memory allocation as an implicit synchronization, after which no
    /// stream's work runs beside any work submitted before it, so one stream held by a host
    /// function would hold every other stream's later work. Freed by [`Device::free`]. `None`
    /// where the backend has no such allocation or `stream` is not one of this device's (the
    /// caller then uses [`Device::alloc`]); the default.
    fn alloc_in_stream_order(&self, bytes: u64, stream: &dyn Stream) -> Option<Result<DevicePtr>> {
        let _ = (bytes, stream);
        None
    }

    /// Whether freeing memory or unloading a module waits for all of the device's work (the
    /// CUDA driver's `cuMemFree` and `cuModuleUnload` do, and work submitted meanwhile waits
    /// behind them): the device's release worker then holds releases back while the device is
    /// busy. `false` by default.
    fn releases_wait_for_device(&self) -> bool {
        false
    }

    /// Whether freeing memory is cheap and never waits (the CPU device): the release worker
    /// then keeps only a short queue, and a thread that drops buffers faster than it frees them
    /// frees the rest itself. `false` by default.
    fn releases_are_cheap(&self) -> bool {
        false
    }

    /// Allocates `bytes` (> 0) of memory that the host and this device's kernels address at
    /// the same address, zero-copy, of `kind` (CUDA: `cuMemHostAlloc` or `cuMemAllocManaged`;
    /// the CPU device: host memory in its allocation table): `Ok(None)` where the backend has no
    /// such memory (the caller then mirrors host memory).
    fn alloc_host_visible(&self, bytes: u64, kind: HostVisibleKind) -> Result<Option<DevicePtr>> {
        let _ = (bytes, kind);
        Ok(None)
    }

    /// Frees memory from [`Device::alloc_host_visible`].
    fn free_host_visible(&self, ptr: DevicePtr) -> Result<()> {
        let _ = ptr;
        Err(unsupported(
            self.info(),
            "Device::free_host_visible",
            "host-visible allocations",
        ))
    }

    /// Whether `ptr` lies inside a live allocation of this device; returns (base, size).
    /// Used to classify pointers (e.g. MLIR's direction-less memcpy).
    fn allocation_of(&self, ptr: DevicePtr) -> Option<(DevicePtr, u64)>;

    /// Whether `ptr` is an address of this device rather than of the host, live or not, as far
    /// as the backend can tell: the CPU device asks its allocation table (live allocations and
    /// the freed ranges it remembers), CUDA asks the driver (any live device allocation of the
    /// process). Pointers for which this holds must never be dereferenced on the host.
    fn is_device_address(&self, ptr: DevicePtr) -> bool {
        self.allocation_of(ptr).is_some()
    }

    /// Creates a stream (CUDA: non-blocking with respect to the legacy stream).
    fn create_stream(&self) -> Result<Arc<dyn Stream>>;

    /// Creates a stream whose work the device schedules with `priority` (lower numbers are
    /// higher priorities, within [`Device::stream_priority_range`]; CUDA clamps values outside
    /// it, and so does the public layer). Backends without priorities keep this default, an
    /// ordinary [`Device::create_stream`].
    fn create_stream_with_priority(&self, priority: i32) -> Result<Arc<dyn Stream>> {
        let _ = priority;
        self.create_stream()
    }

    /// Creates an event for [`Stream::record`] (timing disabled). The public layer pools them.
    fn create_event(&self) -> Result<Arc<dyn Event>>;

    /// Creates an event that records when it completes, for [`Event::elapsed_ns_since`];
    /// `None` on backends whose events keep no time (the trace then times work otherwise).
    fn create_timing_event(&self) -> Result<Option<Arc<dyn Event>>> {
        Ok(None)
    }

    /// The code objects this device runs: cubins of which architectures, PTX of which targets,
    /// whether it takes fatbins whole. Module loading hands [`Device::load_module`] what
    /// [`CodeObject::for_targets`] gives for these, and every "this device runs PTX only"
    /// decision comes from here.
    fn code_targets(&self) -> CodeTargets;

    /// Loads a code object for this device. The public layer passes what
    /// [`CodeObject::for_targets`] gives for [`Device::code_targets`]; a backend handed anything
    /// else calls it itself (it returns the object unchanged when the device takes it).
    fn load_module(&self, code: &CodeObject) -> Result<Arc<dyn Module>>;

    /// Waits until all work on all streams of this device is done.
    fn synchronize(&self) -> Result<()>;

    /// Instantiates `steps` as a graph, launched later by [`Stream::launch_graph`]. Backends
    /// without graphs keep this default error.
    ///
    /// # Safety
    /// Launch steps as [`Stream::launch`]: functions of this device, one valid argument pointer
    /// per parameter (valid for the call).
    unsafe fn instantiate_graph(&self, steps: &[GraphStep<'_>]) -> Result<Arc<dyn ExecGraph>> {
        let _ = steps;
        Err(graph::graphs_unsupported(self.info()))
    }

    /// Whether the device has TMA descriptors (tensor maps): `Ok` where it does, else the
    /// error [`Device::encode_tensor_map`] would give. Backends without them keep this default.
    fn tensor_maps(&self) -> Result<()> {
        Err(unsupported(
            self.info(),
            "encode_tensor_map",
            "TMA descriptors (tensor maps)",
        ))
    }

    /// Encodes a TMA descriptor (CUDA's `CUtensorMap`) for `map` into 128 bytes of fresh device
    /// memory (never freed) and returns their address. Backends without tensor maps keep this
    /// default: the error of [`Device::tensor_maps`].
    fn encode_tensor_map(&self, map: &TiledTensorMap) -> Result<DevicePtr> {
        self.tensor_maps()?;
        map.check()?;
        Err(unsupported(
            self.info(),
            "encode_tensor_map",
            "TMA descriptors (tensor maps)",
        ))
    }

    /// The 128 bytes of the TMA descriptor of `map` (what `cuTensorMapEncodeTiled` writes into
    /// a host `CUtensorMap`; CUDA: the driver's encoding, the CPU device: the interpreter's).
    /// Backends without tensor maps keep this default: the error of [`Device::tensor_maps`].
    fn tensor_map_descriptor(&self, map: &TiledTensorMap) -> Result<[u8; 128]> {
        self.tensor_maps()?;
        map.check()?;
        Err(unsupported(
            self.info(),
            "tensor_map_descriptor",
            "TMA descriptors (tensor maps)",
        ))
    }

    /// Maps `bytes` of host memory at `host` into the device's address space (CUDA:
    /// `cuMemHostRegister` with `PORTABLE | DEVICEMAP`), so kernels access it in place; returns
    /// the device address. CUDA maps; the CPU device keeps this default error (its callers
    /// mirror the range instead).
    ///
    /// # Safety
    /// `host..host + bytes` is host memory the caller owns and keeps alive until
    /// [`Device::unmap_host_memory`].
    unsafe fn map_host_memory(&self, host: *mut c_void, bytes: u64) -> Result<DevicePtr> {
        let _ = (host, bytes);
        Err(unsupported(
            self.info(),
            "map_host_memory",
            "host-mapped memory",
        ))
    }

    /// Undoes [`Device::map_host_memory`] for the mapping at `host`. The default error as there.
    fn unmap_host_memory(&self, host: *mut c_void) -> Result<()> {
        let _ = host;
        Err(unsupported(
            self.info(),
            "unmap_host_memory",
            "host-mapped memory",
        ))
    }

    /// Whether the backend makes arrays, texture and surface objects itself (CUDA: the
    /// driver's `CUarray`, `CUtexObject`, `CUsurfObject`) through [`Device::create_array`],
    /// [`Device::create_texture_object`], [`Device::create_surface_object`] and
    /// [`Stream::copy_array`]. Backends whose kernels read chevron's descriptors from device
    /// memory (the CPU device's interpreter) keep this default, false: the public layer then
    /// lays arrays out in plain device memory and objects as descriptors (`texture.rs`).
    fn native_textures(&self) -> bool {
        false
    }

    /// Creates an array of `desc` (checked by the caller with [`ArrayDesc::check`]; contents
    /// undefined). Backends without native textures keep this default error.
    fn create_array(&self, desc: &ArrayDesc) -> Result<Box<dyn NativeArray>> {
        let _ = desc;
        Err(unsupported(
            self.info(),
            "create_array",
            "native CUDA arrays",
        ))
    }

    /// Level `level` of the mipmapped array `array` (made by [`Device::create_array`] with
    /// levels), as an array of its own that is destroyed with `array` (CUDA:
    /// `cuMipmappedArrayGetLevel`); the caller keeps `array` alive while the level is used.
    /// Backends without native textures keep this default error.
    fn array_level(&self, array: &dyn NativeArray, level: u32) -> Result<Box<dyn NativeArray>> {
        let _ = (array, level);
        Err(unsupported(
            self.info(),
            "array_level",
            "native mipmapped arrays",
        ))
    }

    /// Creates a texture object reading `resource` (arrays of this device) with `sampler`.
    /// Backends without native textures keep this default error.
    fn create_texture_object(
        &self,
        resource: &NativeResource<'_>,
        sampler: &Sampler,
    ) -> Result<Box<dyn NativeObject>> {
        let _ = (resource, sampler);
        Err(unsupported(
            self.info(),
            "create_texture_object",
            "native texture objects",
        ))
    }

    /// Creates a surface object over `array` (made for surfaces). Backends without native
    /// textures keep this default error.
    fn create_surface_object(&self, array: &dyn NativeArray) -> Result<Box<dyn NativeObject>> {
        let _ = array;
        Err(unsupported(
            self.info(),
            "create_surface_object",
            "native surface objects",
        ))
    }

    /// The driver's answer to a device attribute query (CUDA: `cuDeviceGetAttribute` with a
    /// `CUdevice_attribute`), so runtime ABIs report a GPU's properties as its driver does;
    /// `None` on devices without a driver (the CPU device), which answer from [`DeviceInfo`].
    fn driver_attribute(&self, attribute: i32) -> Option<Result<i32>> {
        let _ = attribute;
        None
    }

    /// The driver's identity of the device (CUDA: `cuDeviceGetUuid_v2`, `cuDeviceGetPCIBusId`),
    /// so runtime ABIs hand out a GPU's real UUID and bus id; `None` on devices without a
    /// driver (the CPU device), whose identity [`crate::Device`] makes up.
    fn driver_identity(&self) -> Option<Result<DriverIdentity>> {
        None
    }

    /// The driver's value of a context limit (CUDA: `cuCtxGetLimit` with a `CUlimit`, whose
    /// values are `cudaLimit`'s), so a GPU's stack, printf FIFO and heap sizes are its driver's;
    /// `None` on devices without a driver (the CPU device), whose limits the runtime keeps.
    fn driver_limit(&self, limit: i32) -> Option<Result<usize>> {
        let _ = limit;
        None
    }

    /// Sets a context limit through the driver (CUDA: `cuCtxSetLimit`): a kernel that needs a
    /// deeper stack or a bigger device heap gets it; `None` on devices without a driver.
    fn set_driver_limit(&self, limit: i32, value: usize) -> Option<Result<()>> {
        let _ = (limit, value);
        None
    }

    /// Returns the L2 cache lines held as persisting (by streams' access-policy windows) to
    /// normal through the driver (CUDA: `cuCtxResetPersistingL2Cache`); `None` on devices
    /// without a driver (the CPU device), which hold no lines so.
    fn reset_persisting_l2(&self) -> Option<Result<()>> {
        None
    }

    /// Stream priorities as (least, greatest) (CUDA: `cuCtxGetStreamPriorityRange`, where
    /// numerically lower is greater). Backends whose streams all run alike keep this default:
    /// one level, `(0, 0)`.
    fn stream_priority_range(&self) -> Result<(i32, i32)> {
        Ok((0, 0))
    }

    /// For downcasting within the backend.
    fn as_any(&self) -> &dyn Any;
}

/// The default error of a capability a backend does not have: `WHAT is not supported on
/// LABEL (NAME)`.
pub(crate) fn unsupported(info: &DeviceInfo, call: &'static str, what: &str) -> crate::Error {
    crate::Error::InvalidValue {
        call,
        message: format!(
            "{what} are not supported on {}:{} ({})",
            info.backend.as_str(),
            info.ordinal,
            info.name
        ),
    }
}

/// A loaded code object on one device.
pub trait Module: Send + Sync + 'static {
    /// Resolves a kernel by its exact (mangled) symbol name. The public layer resolves
    /// demangled signatures and plain names to symbol names first.
    fn function(&self, name: &str) -> Result<Arc<dyn Function>>;

    /// Address and size of a module-scope variable (`.global`/`.const`) by exact name.
    fn global(&self, name: &str) -> Result<(DevicePtr, u64)>;

    /// For downcasting within the backend.
    fn as_any(&self) -> &dyn Any;
}

/// A kernel of a loaded module, resolved once.
pub trait Function: Send + Sync + 'static {
    /// The exact symbol name.
    fn name(&self) -> &str;

    /// The most threads per block this kernel can be launched with on its device (registers and
    /// `.maxntid` taken into account).
    fn max_threads_per_block(&self) -> u32;

    /// Statically declared shared memory in bytes.
    fn static_shared_bytes(&self) -> u32;

    /// How many blocks of `block_threads` threads with `dynamic_shared` bytes of dynamic shared
    /// memory the device keeps resident per multiprocessor, as its driver computes it (CUDA:
    /// `cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags`, registers included); `None`
    /// (the default) where the backend has no such calculator and the caller estimates.
    fn active_blocks_per_multiprocessor(
        &self,
        block_threads: u32,
        dynamic_shared: u32,
    ) -> Result<Option<u32>> {
        let _ = (block_threads, dynamic_shared);
        Ok(None)
    }

    /// How many clusters of `cluster` blocks of `config`'s shape can be resident on the device
    /// at once, as its driver computes it (CUDA: `cuOccupancyMaxActiveClusters`); `None` (the
    /// default) where the backend has no such calculator and the caller estimates.
    fn max_active_clusters(&self, config: &LaunchConfig, cluster: [u32; 3]) -> Result<Option<u32>> {
        let _ = (config, cluster);
        Ok(None)
    }

    /// The largest cluster (in blocks) that `config`'s shape can be launched in on the device,
    /// as its driver computes it (CUDA: `cuOccupancyMaxPotentialClusterSize`); `None` (the
    /// default) where the backend has no such calculator and the caller answers.
    fn max_potential_cluster_size(&self, config: &LaunchConfig) -> Result<Option<u32>> {
        let _ = config;
        Ok(None)
    }

    /// For downcasting within the backend.
    fn as_any(&self) -> &dyn Any;
}

/// An in-order queue of work on one device.
pub trait Stream: Send + Sync + 'static {
    /// Enqueues a kernel launch. Validation of the configuration and the arguments is the
    /// public layer's job; this is the hot path. `config.shared_bytes` may exceed the default
    /// dynamic shared memory limit up to the device's opt-in maximum: the backend raises the
    /// function's limit itself (CUDA: `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`, once).
    ///
    /// # Safety
    /// `function` belongs to this stream's device and backend. `args` holds exactly one pointer
    /// per kernel parameter, in order, each pointing to a readable value of that parameter's
    /// size; the pointers need only stay valid for the duration of the call (the backend copies
    /// the values). Device pointers among the values must be valid for the kernel's accesses
    /// (the CPU device checks this; a GPU faults).
    unsafe fn launch(
        &self,
        function: &dyn Function,
        config: &LaunchConfig,
        args: &[*mut c_void],
    ) -> Result<()>;

    /// Enqueues a launch in thread-block clusters of `cluster` blocks (x, y, z). The public
    /// layer has checked that the cluster is non-empty and divides the grid. Backends without
    /// clusters keep this default: a cluster of one block is an ordinary [`Stream::launch`]
    /// (a kernel reading `%cluster_*` sees a one-block cluster), anything larger is
    /// [`crate::Error::LaunchConfig`] ("clusters … are not supported on this device"). CUDA
    /// launches with `cuLaunchKernelEx` (compute capability ≥ 9.0, at most 8 blocks per
    /// cluster). Kept apart from [`Stream::launch`] so the plain launch path is unchanged.
    ///
    /// # Safety
    /// As [`Stream::launch`].
    unsafe fn launch_cluster(
        &self,
        function: &dyn Function,
        config: &LaunchConfig,
        cluster: [u32; 3],
        args: &[*mut c_void],
    ) -> Result<()> {
        if cluster == [1, 1, 1] {
            // SAFETY: forwarded from the caller.
            return unsafe { self.launch(function, config, args) };
        }
        Err(clusters_unsupported(function, cluster))
    }

    /// Enqueues a cooperative launch: every block of the grid is resident at once, so blocks
    /// may synchronize grid-wide (`cg::this_grid().sync()`). The caller has checked that the
    /// grid fits the device at once. Backends that run every grid co-resident (the CPU device
    /// runs a grid's blocks together) keep this default, an ordinary [`Stream::launch`]; CUDA
    /// launches with `cuLaunchCooperativeKernel`.
    ///
    /// # Safety
    /// As [`Stream::launch`].
    unsafe fn launch_cooperative(
        &self,
        function: &dyn Function,
        config: &LaunchConfig,
        args: &[*mut c_void],
    ) -> Result<()> {
        // SAFETY: forwarded from the caller.
        unsafe { self.launch(function, config, args) }
    }

    /// Enqueues a host-to-device copy. `src` may be reused as soon as this returns.
    fn copy_to_device(&self, dst: DevicePtr, src: &[u8]) -> Result<()>;

    /// Copies device memory to the host after all earlier work on this stream; returns when
    /// `dst` is filled.
    fn copy_to_host(&self, dst: &mut [u8], src: DevicePtr) -> Result<()>;

    /// Enqueues a device-to-device copy (both on this device).
    fn copy_on_device(&self, dst: DevicePtr, src: DevicePtr, bytes: u64) -> Result<()>;

    /// Enqueues a copy to, from or between arrays of [`Device::create_array`] (CUDA:
    /// `cuMemcpy3DAsync`); a host side may be reused once the stream reached the copy.
    /// Backends without native textures keep this default error.
    ///
    /// # Safety
    /// A [`texture::CopySide::Host`] side spans the window the copy describes (readable for a
    /// source, writable for a destination) until the copy completes; arrays belong to this
    /// stream's device.
    unsafe fn copy_array(&self, copy: &ArrayCopy<'_>) -> Result<()> {
        let _ = copy;
        Err(crate::Error::InvalidValue {
            call: "Stream::copy_array",
            message: "copies to and from native arrays are not supported on this device".into(),
        })
    }

    /// Enqueues a fill of `count` elements of `element_bytes` (1, 2 or 4) with `value`.
    fn memset(&self, dst: DevicePtr, value: u32, element_bytes: u32, count: u64) -> Result<()>;

    /// Records `event`: it completes when all work submitted so far to this stream is done.
    fn record(&self, event: &dyn Event) -> Result<()>;

    /// Makes later work on this stream wait for `event` (possibly of another device of the same
    /// backend). The event may be recorded again or dropped right after this call without
    /// affecting the wait.
    fn wait(&self, event: &dyn Event) -> Result<()>;

    /// Waits until all work submitted so far is done; reports a fault of that work.
    fn synchronize(&self) -> Result<()>;

    /// Enqueues `function`, called on a host thread in stream order: after all earlier work on
    /// this stream is done, before any later work starts. It is called even if earlier work
    /// faulted, with that fault. It must not wait for work submitted to this stream after it.
    /// Backends that cannot run host work in order keep this default, which waits for the
    /// earlier work on the calling thread and calls `function` there before returning.
    fn launch_host_function(&self, function: HostFunction) -> Result<()> {
        function(self.synchronize());
        Ok(())
    }

    /// Whether all work submitted so far is done (a fault reports as an error).
    fn query(&self) -> Result<bool>;

    /// Sets a stream attribute through the driver (CUDA: `cuStreamSetAttribute` with a
    /// `CUstreamAttrID` and the 64 bytes of a `CUstreamAttrValue`, checked by the caller), so a
    /// GPU applies an access-policy window, synchronization policy or priority to the work
    /// submitted after it; `None` on devices without a driver (the CPU device), where the
    /// runtime keeps the attribute as a hint.
    fn set_driver_attribute(&self, attribute: i32, value: &[u8; 64]) -> Option<Result<()>> {
        let _ = (attribute, value);
        None
    }

    /// For a stream whose work runs in software and times itself (the CPU device): the
    /// identity under which its executor reports that work to traces, so a trace can put it
    /// on this stream's track. `None` (the default) for streams of hardware devices, whose
    /// work is timed with device events.
    fn executor_track(&self) -> Option<usize> {
        None
    }

    /// As [`Stream::query`], asked by the device's own bookkeeping (deferred frees, the stream
    /// registry) rather than by the stream's user: a stream that holds launches back (automatic
    /// graph replay) answers false instead of enqueueing them. Backend streams: the default.
    fn query_quietly(&self) -> Result<bool> {
        self.query()
    }

    /// Enqueues one launch of `graph` (instantiated on this stream's device), in order with
    /// the stream's other work. Backends without graphs keep this default error.
    fn launch_graph(&self, graph: &dyn ExecGraph) -> Result<()> {
        let _ = graph;
        Err(crate::Error::InvalidValue {
            call: "Stream::launch_graph",
            message: "graphs are not supported on this device".into(),
        })
    }

    /// Enqueues whatever the stream holds back (automatic graph replay buffers launches until
    /// it knows whether a sequence repeats). Backend streams enqueue at once: the default.
    fn flush(&self) -> Result<()> {
        Ok(())
    }

    /// Stops the stream's running and queued work after a host-side timeout: the running kernel
    /// ends with a fault saying where its threads were, and the stream stays faulted. Returns
    /// false where the backend cannot stop a running kernel (a GPU's driver cannot).
    fn stop(&self) -> bool {
        false
    }

    /// For downcasting within the backend.
    fn as_any(&self) -> &dyn Any;
}

/// A point in a stream's work, set by [`Stream::record`].
pub trait Event: Send + Sync + 'static {
    /// Whether the recorded work is done. An event never recorded counts as done.
    fn query(&self) -> Result<bool>;

    /// Waits until the recorded work is done.
    fn synchronize(&self) -> Result<()>;

    /// Nanoseconds from `earlier` completing to this event completing (negative if this one
    /// completed first), for timing events of one device (see
    /// [`Device::create_timing_event`]); `None` while either is not complete, or for events
    /// that keep no time.
    fn elapsed_ns_since(&self, earlier: &dyn Event) -> Result<Option<i64>> {
        let _ = earlier;
        Ok(None)
    }

    /// For downcasting within the backend.
    fn as_any(&self) -> &dyn Any;
}

/// The error of a cluster launch of more than one block on a backend without clusters. The
/// public layer fills in the device.
pub(crate) fn clusters_unsupported(function: &dyn Function, cluster: [u32; 3]) -> crate::Error {
    let [x, y, z] = cluster;
    crate::Error::LaunchConfig {
        kernel: function.name().to_string(),
        device: "this device".into(),
        message: format!(
            "clusters of ({x}, {y}, {z}) blocks are not supported on this device (thread-block \
             clusters need a CUDA GPU of compute capability 9.0 or later; only clusters of one \
             block run elsewhere)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::scripted::{Counters, ScriptedDevice};

    /// A kernel of no module, for backends that never look inside it.
    struct NamedFunction;

    impl Function for NamedFunction {
        fn name(&self) -> &str {
            "exchange"
        }
        fn max_threads_per_block(&self) -> u32 {
            1024
        }
        fn static_shared_bytes(&self) -> u32 {
            0
        }
        fn as_any(&self) -> &dyn Any {
            self
        }
    }

    #[test]
    fn the_default_cluster_launch_runs_one_block_clusters_and_rejects_larger_ones() {
        let device = ScriptedDevice::new(0);
        let stream = device.create_stream().unwrap();
        let config = LaunchConfig {
            grid: [4, 1, 1],
            block: [32, 1, 1],
            shared_bytes: 0,
        };
        // SAFETY: the scripted stream reads no argument.
        unsafe { stream.launch_cluster(&NamedFunction, &config, [1, 1, 1], &[]) }.unwrap();
        assert_eq!(Counters::get(&device.counters.launches), 1);
        // SAFETY: as above.
        let err =
            unsafe { stream.launch_cluster(&NamedFunction, &config, [2, 1, 1], &[]) }.unwrap_err();
        assert_eq!(Counters::get(&device.counters.launches), 1);
        let text = err.to_string();
        assert!(text.contains("kernel `exchange`"), "{text}");
        assert!(
            text.contains("clusters of (2, 1, 1) blocks are not supported on this device"),
            "{text}"
        );
    }
}
