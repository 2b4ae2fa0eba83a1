//! `libcuda.so.1` as chevron serves it: a thin ELF filter, no code of its own.
//!
//! The CUDA driver API lives in `chevron-driver`, linked into the shared object that also
//! serves `libcudart.so.13`, so a program using both APIs sees one state (contexts, streams,
//! allocations, modules). This library only carries the soname `libcuda.so.1` and names that
//! object as its filtee (`DT_FILTER libcudart.so.13`, see `build.rs`): `dlopen("libcuda.so.1")`
//! by name returns it once `chevron exec` has preloaded it, and every symbol looked up through
//! it resolves in the filtee. ARCHITECTURE.md says why a filter and not a second copy.
#![forbid(unsafe_code)]
