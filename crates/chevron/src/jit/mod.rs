//! Incremental CUDA C++: compile only what is new, call earlier snippets, redefine, never leak.
//!
//! A [`Session`] compiles one snippet at a time with NVRTC (loaded at run time, see
//! [`nvrtc`]) into relocatable PTX, and keeps what each snippet declared as a
//! prelude for the next ones, so a later snippet calls earlier `__device__` functions and uses
//! earlier globals without redeclaring them. Each snippet is compiled once, after only the
//! declarations it can need (types, templates, and the prototypes and globals it names), so its
//! cost does not grow with the number of snippets before it.
//!
//! - **Globals** get one device address for the life of the session: they are placed once and
//!   code reaches them through that address (see [`globals`]), so their values
//!   persist and pointers to them stay valid.
//! - **Kernels** are linked on request from the newest definition of every function they call
//!   ([`Session::kernel`]); redefining a function or a kernel makes the next request re-link
//!   (no recompilation of unchanged C++). Replaced code is unloaded once the `Kernel`s and
//!   launches using it are gone.
//! - **Redefinitions** of inline functions, templates and types replace their earlier
//!   declarations (see `prelude`); a template kernel named with its arguments
//!   (`scale<float>`) is instantiated on request.
//! - **CUDA headers** (`cuda_fp16.h`, `cuda/std/…`) are found beside NVRTC or in a toolkit
//!   (see `headers`).
//! - **A compile cannot hang the session**: `#include`s of FIFOs and devices are refused, and
//!   each compile has a deadline (`CHEVRON_COMPILE_TIMEOUT`, default 300 s) and may be
//!   interrupted ([`Session::set_interrupt`]); see [`compile_guard`]. An abandoned compile
//!   keeps its NVRTC busy, so later ones use a fresh copy of the library ([`nvrtc::abandon`]).
//! - **Compiled snippets** are cached on disk, keyed by the compiled text, the options, the
//!   compiler version and the target (see [`cache`]).
//!
//! ```no_run
//! # fn main() -> chevron::Result<()> {
//! use chevron::jit::Session;
//! use chevron::{Buffer, LaunchConfig, Runtime};
//!
//! let runtime = Runtime::new()?;
//! let device = runtime.default_device()?;
//! let mut session = Session::new(device)?;
//! session.add("__device__ int offset = 10;")?;
//! session.add("__device__ int shift(int x) { return x + offset; }")?;
//! session.add("__global__ void fill(int *out) { out[threadIdx.x] = shift(threadIdx.x); }")?;
//! let out = Buffer::<i32>::zeroed(device, 32)?;
//! let stream = device.default_stream()?;
//! session.kernel("fill")?.launch(&stream, LaunchConfig::for_elements(32, 32), (&out,))?.wait()?;
//! assert_eq!(out.to_vec()?[3], 13);
//! # Ok(()) }
//! ```

pub mod cache;
pub mod compile_guard;
mod declarations;
pub mod globals;
mod headers;
mod kernel_index;
mod link;
pub mod nvrtc;
mod prelude;
mod session;
mod snippet;
mod storage;
mod unit_names;

pub use cache::Cache;
pub use session::{Added, JitSymbol, LinkStats, Session};
