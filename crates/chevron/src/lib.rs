//! chevron: a GPU kernel-launch runtime.
//!
//! chevron loads code objects (PTX, cubin, fatbin), lists their symbols, launches kernels by
//! name with checked arguments and almost no host overhead, orders work with dependency tokens
//! across streams and devices, and runs the same PTX on a CPU device when no GPU is present.
//!
//! The backend contract every device implements is in [`backend`].

pub mod backend;
pub mod error;

pub use error::{Error, Result};
