//! The export tables NVIDIA's CUDA runtime is known to request, by UUID, with the names
//! other projects that stand in for the driver use for them (reports only: none is served).
//!
//! Verified by logging [`super::cuGetExportTable`] under CUDA 13.0's `libcudart_static.a`
//! (nvcc 13.0's default build of `tests/install/square.cu`, run with the driver library
//! preloaded): it asks for `{f8cff951-…}` first, then for CUDART_INTERFACE, and gives up
//! (`cudaMalloc` fails) once both are refused. The other names come from other projects'
//! descriptions and are listed so a later runtime's request is reported by name.

use super::Uuid;

/// Known tables: UUID bytes (memory order) and name.
pub const TABLES: &[([u8; 16], &str)] = &[
    // {f8cff951-2146-8b4e-b9e2-fb469e7c0dd9}: the first request of CUDA 13.0's runtime
    (
        [
            0xf8, 0xcf, 0xf9, 0x51, 0x21, 0x46, 0x8b, 0x4e, 0xb9, 0xe2, 0xfb, 0x46, 0x9e, 0x7c,
            0x0d, 0xd9,
        ],
        "unnamed: CUDA 13's runtime asks for it first",
    ),
    // {6bd5fb6c-5bf4-e74a-8987-d93912fd9df9}
    (
        [
            0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd,
            0x9d, 0xf9,
        ],
        "CUDART_INTERFACE: module-from-fatbin helpers, primary context",
    ),
    // {a094798c-2e74-2e74-93f2-0800200c0a66}
    (
        [
            0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c,
            0x0a, 0x66,
        ],
        "TOOLS_RUNTIME_CALLBACK_HOOKS",
    ),
    // {42d85a81-23f6-cb47-8298-f6e78a3aecdc}
    (
        [
            0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a,
            0xec, 0xdc,
        ],
        "TOOLS_TLS",
    ),
    // {c693336e-1121-df11-a8c3-68f355d89593}
    (
        [
            0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8,
            0x95, 0x93,
        ],
        "CONTEXT_LOCAL_STORAGE_INTERFACE",
    ),
    // {d4082055-bde6-704b-8d34-ba123c66e1f2}
    (
        [
            0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66,
            0xe1, 0xf2,
        ],
        "INTEGRITY_CHECK",
    ),
    // {263e8860-7cd2-6143-92f6-bbd5006dfa7e}
    (
        [
            0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d,
            0xfa, 0x7e,
        ],
        "CONTEXT_CHECKS",
    ),
    // {da9151d3-3ae6-cc41-a5c0-4f26d533e328}
    (
        [
            0xda, 0x91, 0x51, 0xd3, 0x3a, 0xe6, 0xcc, 0x41, 0xa5, 0xc0, 0x4f, 0x26, 0xd5, 0x33,
            0xe3, 0x28,
        ],
        "unnamed: NVRTC 13 asks for it and compiles without it",
    ),
];

/// The name of the table `uuid`, where known.
pub fn name(uuid: &Uuid) -> Option<&'static str> {
    TABLES
        .iter()
        .find(|(bytes, _)| *bytes == uuid.0)
        .map(|(_, name)| *name)
}
