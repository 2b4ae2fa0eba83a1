//! The PTX interpreter: executes PTX kernels on the CPU with the GPU's semantics.

pub mod numeric;
