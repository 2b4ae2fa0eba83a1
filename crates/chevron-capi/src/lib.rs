//! chevron-capi: the C ABI of chevron, built as `libchevron.so` / `libchevron.a`.
//!
//! Two ABIs live here:
//! - **chevron's own API** ([`api`], declared in `include/chevron.h`): devices, modules,
//!   kernels found by plain name or demangled signature, streams, tokens with any number of
//!   dependencies, checked launches, buffers. Every function returns a
//!   [`status::chevron_status`] and leaves a message for `chevron_last_error()`.
//! - **MLIR's `mgpu*` runtime ABI** ([`mgpu`]): the functions MLIR's `gpu-to-llvm` lowering
//!   calls, with LLVM 22's caller signatures, so that an MLIR-compiled program linked against
//!   this library runs on any chevron device, the CPU device included.
//!
//! No panic crosses either ABI (every entry point catches unwinding), and no handle is ever
//! dereferenced: handles are tagged, generation-checked registry keys ([`handles`]), so NULL,
//! released or wrong-kind handles are reported, not followed.

#[cfg(not(target_pointer_width = "64"))]
compile_error!("chevron's C ABI encodes handles in 64-bit pointers");

pub mod api;
mod error;
mod fault;
pub(crate) mod handles;
pub mod mgpu;
pub mod status;

pub use error::chevron_last_error;
pub use fault::{chevron_fault_kind, chevron_last_fault_kind};
