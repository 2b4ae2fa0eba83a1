//! chevron's CUDA driver API: the `libcuda.so.1` functions that driver-API programs, NVRTC
//! users, cudarc and `cuda-bindings` (Numba, CuPy) call, over the CUDA runtime's state
//! (`chevron-cudart`), so a program using both APIs sees one set of devices, contexts,
//! streams, events, allocations and modules.
//!
//! This crate's cdylib is the one shared object holding that state: it links `chevron-cudart`
//! and carries its soname, `libcudart.so.13`, exporting both APIs; `chevron-libcuda` is the
//! thin `libcuda.so.1` that forwards to it (an ELF filter). `chevron exec` preloads both.
//!
//! | file | entry points |
//! |---|---|
//! | [`context`] | `cuInit`, `cuDriverGetVersion`, primary and created contexts, the per-thread stack |
//! | [`device`] | `cuDeviceGet*`, attributes, compute capability, UUID, memory size |
//! | [`module`] | `cuModuleLoad*`, `cuModuleGetFunction/Global`, `cuLibrary*`, `cuKernelGetFunction` ([`image`]: a bare image's length) |
//! | [`relocatable`] | `-rdc=true` images from the device link (the units' PTX linked on devices that run PTX only) |
//! | [`link`] | `cuLinkCreate/AddData/AddFile/Complete/Destroy` for PTX |
//! | [`function`] | `cuFuncGet/SetAttribute`, `cuFuncSetCacheConfig`, occupancy ([`kernel_resources`]: local, constant and register figures from the PTX) |
//! | [`launch`] | `cuLaunchKernel`, `cuLaunchKernelEx` (and `_ptsz`), `cuLaunchCooperativeKernel`; [`prepared_launch`]: a launch that passed, repeated without resolving and checking again |
//! | [`memory`] | `cuMemAlloc*`, pinned/managed/registered memory, `cuMemcpy*`, `cuMemset*` ([`memset_2d`]: `cuMemsetD2D*`; [`memcpy_2d`]: `cuMemcpy2D*`, `cuMemcpy3D*`) |
//! | [`array`] | `cuArrayCreate`, `cuArray3DCreate`, `cuArrayDestroy`, `cuArray(3D)GetDescriptor` (arrays shared with the runtime) |
//! | [`mipmapped`] | `cuMipmappedArrayCreate`, `cuMipmappedArrayGetLevel`, `cuMipmappedArrayDestroy` |
//! | [`texture_object`] | `cuTexObjectCreate/Destroy/GetResourceDesc`, `cuSurfObjectCreate/Destroy` |
//! | [`stream`] | streams, events, `cuStreamAddCallback`, `cuLaunchHostFunc`; [`stream_queries`]: a stream's flags, id and attributes |
//! | [`graph`] | `cuGraphCreate`, kernel/copy/fill/host/empty nodes, `cuGraphInstantiate*`, `cuGraphLaunch`, stream capture (over the runtime's graphs); [`graph_nodes`]: child graph and event nodes, edges, node queries and parameters, clones, `cuGraphExecUpdate` |
//! | [`per_thread`] | the `_ptsz`/`_ptds` forms of the stream-ordered functions above (the calling thread's default stream for NULL; synchronous ones on it), each forwarded to its base |
//! | [`user_object`] | `cuUserObjectCreate/Retain/Release`, `cuGraphRetain/ReleaseUserObject` |
//! | [`context_limits`] | `cuCtxGetLimit`/`SetLimit`, cache and shared-memory preferences |
//! | [`managed_hints`] | `cuMemAdvise`, `cuMemPrefetchAsync` (checked hints) |
//! | [`mem_pool`] | `cuMemAllocAsync`, `cuMemFreeAsync`, `cuMemPool*`, the device's default and current pools (the runtime's pools) |
//! | [`pointer`] | `cuPointerGetAttribute(s)` |
//! | [`profiler`] | `cuProfilerStart/Stop` (marks only) |
//! | [`proc_address`] | `cuGetProcAddress(_v2)` (the one list of implemented functions), `cuGetErrorName/String` ([`versions`]: base name → current ABI) |
//! | [`export_table`] | `cuGetExportTable`: the private tables a statically linked NVIDIA runtime needs, served over chevron's state; others refused in one line |
//! | [`unsupported`] | every other CUDA 13.0 driver function: `CUDA_ERROR_NOT_SUPPORTED`, named on stderr |
//! | [`result`] | `CUresult` codes, the entry wrapper ([`fork`]: a child forked after `cuInit` gets `CUDA_ERROR_NOT_INITIALIZED`) |
//! | [`runtime_functions`] | the runtime's kernels (`cudaGetFuncBySymbol`'s handles) as `CUfunction`s |

// The runtime's exported functions are part of this library: link them in.
pub use cudart;

#[macro_use]
pub mod forward;
pub mod array;
pub mod context;
pub mod context_limits;
pub mod device;
pub mod export_table;
pub mod fork;
pub mod function;
pub mod graph;
pub mod graph_add_node;
pub mod graph_nodes;
pub mod image;
pub mod kernel_resources;
pub mod launch;
pub mod linear_copies;
pub mod link;
pub mod managed_hints;
pub mod mem_pool;
pub mod memcpy_2d;
pub mod memory;
pub mod memset_2d;
pub mod mipmapped;
pub mod module;
pub mod peer;
pub mod per_thread;
pub mod pointer;
pub mod prepared_launch;
pub mod proc_address;
pub mod profiler;
pub mod relocatable;
pub mod result;
pub mod runtime_functions;
pub mod stream;
pub mod stream_queries;
pub mod tensor_map;
pub mod texture_object;
pub mod unsupported;
pub mod user_object;
pub mod versions;
