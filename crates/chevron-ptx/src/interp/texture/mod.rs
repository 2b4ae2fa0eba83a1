//! Texture and surface objects on the CPU device.
//!
//! A texture or surface object handle is the device address of a [`Descriptor`]: sixteen
//! 64-bit words in device memory that the runtime writes when it creates the object and the
//! interpreter reads when `tex`, `tld4`, `txq`, `suld`, `sust` or `suq` names the handle. The
//! texels themselves live in ordinary device memory (a CUDA array is a tightly pitched
//! allocation), so no table outside device memory is needed and a destroyed object's memory is
//! reported as a use after free like any other.
//!
//! - [`descriptor`]: the layout, written by the runtime and read here.
//! - [`sample`]: addressing (wrap, clamp, mirror, border), point and linear filtering with
//!   weights in 9-bit fixed point (8 fractional bits), as NVIDIA's hardware filters, and the
//!   conversion of texels to the instruction's result type.
//! - [`mipmap`]: mipmap levels (their layout, the level of detail, point and linear level
//!   filtering) and cube-map faces.

pub mod descriptor;
pub mod mipmap;
pub mod sample;

pub use descriptor::{AddressMode, ChannelKind, Descriptor, ObjectKind, ResourceKind};
