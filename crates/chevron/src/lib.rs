//! chevron: a GPU kernel-launch runtime.
//!
//! chevron loads code objects (PTX, cubin, fatbin), lists their symbols, launches kernels by
//! name with checked arguments and almost no host overhead, orders work with dependency tokens
//! across streams and devices, and runs the same PTX on a CPU device when no GPU is present.
//!
//! # CUDA ↔ chevron
//!
//! | CUDA driver | chevron | notes |
//! |---|---|---|
//! | `CUdevice` + primary `CUcontext` | [`Device`] | found by [`Runtime`]; the caller's current context is never changed |
//! | `CUstream` | [`Stream`] | in order; every submission returns a [`Token`] |
//! | `CUevent` | [`Token`] | (stream, sequence number); an event is recorded only when another stream or the host needs it |
//! | `CUevent` with timing | [`TimingMark`] | the driver's timing event on GPUs; the host clock read in stream order on the CPU device |
//! | `CUmodule` | [`Module`] | from PTX, cubin or fatbin; [`Module::symbols`] lists kernels, device functions, globals |
//! | `CUfunction` | [`Kernel`] | found by name, mangled name or C++ signature; arguments checked against its parameters |
//! | `CUdeviceptr` | [`Buffer<T>`] | typed; freed once every stream has passed the point of its drop |
//! | `cuLaunchKernel` | [`Kernel::launch`] | `(&x, &y, 2.0f32, n)` tuples, no allocation |
//! | `CUarray`, `CUtexObject`, `CUsurfObject` | [`texture::Array`], [`texture::TextureObject`], [`texture::SurfaceObject`] | CPU device only so far; a handle is the address of a descriptor in device memory |
//!
//! # Example
//!
//! Runs on the default device: a GPU when there is one, else the CPU device.
//!
//! ```
//! use chevron::{Buffer, LaunchConfig, Module, Runtime};
//!
//! const PTX: &str = r#"
//! .version 7.0
//! .target sm_50
//! .address_size 64
//! .visible .entry scale(.param .u64 data, .param .f32 factor, .param .u32 n)
//! {
//!     .reg .pred %p;
//!     .reg .b32 %r<5>;
//!     .reg .f32 %f<3>;
//!     .reg .b64 %rd<4>;
//!     ld.param.u64 %rd1, [data];
//!     ld.param.f32 %f1, [factor];
//!     ld.param.u32 %r1, [n];
//!     mov.u32 %r2, %ctaid.x;
//!     mov.u32 %r3, %ntid.x;
//!     mov.u32 %r4, %tid.x;
//!     mad.lo.s32 %r2, %r2, %r3, %r4;
//!     setp.ge.u32 %p, %r2, %r1;
//!     @%p bra DONE;
//!     cvta.to.global.u64 %rd1, %rd1;
//!     mul.wide.u32 %rd2, %r2, 4;
//!     add.s64 %rd3, %rd1, %rd2;
//!     ld.global.f32 %f2, [%rd3];
//!     mul.f32 %f2, %f2, %f1;
//!     st.global.f32 [%rd3], %f2;
//! DONE:
//!     ret;
//! }
//! "#;
//!
//! # fn main() -> chevron::Result<()> {
//! let runtime = Runtime::new()?;
//! let device = runtime.default_device()?;
//! let module = Module::from_ptx(device, PTX)?;
//! let scale = module.kernel("scale")?;
//! let data = Buffer::from_slice(device, &[1.0f32, 2.0, 3.0])?;
//! let stream = device.default_stream()?;
//! let done = scale.launch(&stream, LaunchConfig::for_elements(3, 128), (&data, 2.0f32, 3u32))?;
//! done.wait()?;
//! assert_eq!(data.to_vec()?, [2.0, 4.0, 6.0]);
//! # Ok(()) }
//! ```
//!
//! The backend contract every device implements is in [`backend`].

pub mod backend;
pub mod check;
pub mod code_object;
pub mod error;
pub mod ffi;
pub mod graph;
pub mod host_range;
pub mod instrument;
pub mod jit;
pub mod texture;
pub mod trace;

mod buffer;
mod device;
mod dylib;
mod launch;
mod launch_extras;
mod module;
mod runtime;
mod stream;

pub use backend::{BackendKind, DeviceInfo, DevicePtr, HostVisibleKind, LaunchConfig};
pub use buffer::Buffer;
pub use device::{Device, Limits};
pub use error::{Error, FaultKind, Result};
pub use graph::{Graph, NodeId, Recorder};
pub use instrument::{Builtin, Hooks, Instrumentation};
pub use launch::{Dim3, Kernel, KernelArg, KernelArgs, RawArgs, Value, MAX_PARAM_BYTES};
pub use module::{GlobalVar, Module};
pub use runtime::{registry, selection, BackendStatus, Runtime};
pub use stream::replay::{auto_graph_totals, AutoGraphStats};
pub use stream::{Launched, Stream, TimingMark, Token};

/// The symbol table types of code objects (from chevron-ptx).
pub use chevron_ptx::symbols::{ParamLayout, Symbol, SymbolKind, SymbolTable};
