//! chevron's CUDA runtime: the ABI of NVIDIA's `libcudart.so.13` (CUDA 13.0) over chevron, so
//! that programs compiled by nvcc or clang run unchanged on every chevron device — a GPU
//! through chevron's CUDA backend, or the CPU device, which runs the fatbin's PTX with memory
//! checking and faults that name the kernel, thread and PTX line.
//!
//! | file | entry points |
//! |---|---|
//! | [`compiler`] | what compilers emit: `__cudaRegisterFatBinary`, `__cudaRegisterFunction`, `__cudaPushCallConfiguration`, `__cudaLaunchKernel`, … ([`registry`] keeps what they register, [`linked`] links `-rdc=true` code) |
//! | [`launch`] | `cudaLaunchKernel`, `cudaFuncGetAttributes`, occupancy ([`func_queries`]: a kernel's name, parameters, dynamic shared memory) |
//! | [`device`] | device management, versions, errors ([`errors`]: codes, last and sticky errors); [`device_queries`]: choosing, initialising, peer attributes |
//! | [`mem_pool`] | stream-ordered allocation and memory pools |
//! | [`memory`], [`memset_2d`], [`symbols`] | allocations, fills (pitched 2D and 3D too), variables, pointer attributes |
//! | [`copy`] | copies: 1D, 2D, between devices; every pointer checked before it is touched |
//! | [`mirror`], [`managed_vars`] | managed, pinned and registered memory, `__managed__` variables |
//! | [`graphs`] | stream capture (fork/join across streams), graphs built node by node, instantiation, launch, updates |
//! | [`streams`] | streams, host functions, events ([`state`]: devices, legacy and per-thread streams) |
//! | [`stream_queries`], [`stream_attributes`] | a stream's flags, device, id and attributes; `cudaEventRecordWithFlags` |
//! | [`per_thread`] | the `_ptsz`/`_ptds` entry points of `--default-stream per-thread` programs |
//! | [`textures`] | channel descriptors, arrays, 2D copies to and from arrays, texture and surface objects (CPU device) |
//! | [`arrays_3d`], [`mipmapped`] | 3D, layered and cubemap arrays and their copies; mipmapped arrays and their levels |
//! | [`limits`] | limits, cache preferences, pitched allocations, managed-memory hints ([`managed_hints`] keeps them, [`memory_queries`] reports them and pinned flags) |
//! | [`unsupported`] | every other export of `libcudart.so.13`: a one-line error naming it |
//!
//! Built as `libcudart.so` (soname `libcudart.so.13`) and `libcudart.a`; `chevron exec` runs a
//! program with it in place of NVIDIA's.

pub mod abi;
pub mod array_copy;
pub mod array_memcpy;
pub mod arrays_3d;
mod capturing;
pub mod cluster_occupancy;
pub mod compiler;
pub mod copy;
pub mod device;
pub mod device_queries;
pub mod driver_entry;
pub mod errors;
pub mod func_attributes;
pub mod func_queries;
pub mod graphs;
pub mod launch;
pub mod limits;
pub mod linked;
pub mod managed_hints;
pub mod managed_vars;
pub mod mem_pool;
pub mod memory;
pub mod memory_queries;
pub mod memset_2d;
pub mod mipmapped;
pub mod mirror;
pub mod per_thread;
pub mod registry;
pub mod state;
pub mod stream_attributes;
pub mod stream_queries;
pub mod streams;
pub mod symbols;
pub mod texture_queries;
pub mod textures;
pub mod unsupported;
