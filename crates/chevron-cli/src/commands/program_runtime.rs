//! Which CUDA runtime a program carries, read from its ELF file before `chevron exec` runs it.
//!
//! A CUDA program holds its device code in a `.nv_fatbin` section. Built with `-cudart shared`
//! it names `libcudart.so.13` among its `DT_NEEDED` libraries, which `chevron exec` serves. Built
//! with nvcc's default (`-cudart static`) NVIDIA's runtime is inside the executable and talks to
//! the CUDA driver directly; chevron's own static library (`-cudart none` plus chevron's
//! `libcudart.a`) is inside it the same way but carries chevron's strings. Anything that is not
//! an ELF file we can read (a script, a missing file) is [`ProgramRuntime::Unknown`]: `exec`
//! runs it and lets the program speak for itself.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use object::elf::{FileHeader64, DT_NEEDED};
use object::read::elf::{Dyn, FileHeader, SectionHeader};
use object::Endianness;

/// Executables larger than this are not inspected (they still run).
const MAX_INSPECTED_BYTES: u64 = 1 << 30;

/// A string only chevron's CUDA runtime holds (the CPU device's name).
const CHEVRON_MARKER: &[u8] = b"chevron CPU device";

/// The CUDA runtime a program was linked with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgramRuntime {
    /// Needs `libcudart.so.*` (or has no device code): chevron's library serves it.
    Shared,
    /// NVIDIA's runtime linked in statically (nvcc's and CMake's default).
    StaticNvidia,
    /// chevron's `libcudart.a` linked in statically.
    StaticChevron,
    /// Not an ELF executable that could be read.
    Unknown,
}

/// The program's runtime. `program` is a path, or a name looked up on `PATH` as `exec` would.
pub fn detect(program: &OsStr) -> ProgramRuntime {
    let Some(path) = resolve(program) else {
        return ProgramRuntime::Unknown;
    };
    match std::fs::metadata(&path) {
        Ok(meta) if meta.is_file() && meta.len() <= MAX_INSPECTED_BYTES => {}
        _ => return ProgramRuntime::Unknown,
    }
    match std::fs::read(&path) {
        Ok(bytes) => classify(&bytes),
        Err(_) => ProgramRuntime::Unknown,
    }
}

/// The file `exec` would run: a path as given, or the first match on `PATH`.
fn resolve(program: &OsStr) -> Option<PathBuf> {
    let path = Path::new(program);
    if path.components().count() > 1 || path.is_absolute() {
        return Some(path.to_path_buf());
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(path))
        .find(|candidate| candidate.is_file())
}

/// Classifies an executable's bytes.
pub fn classify(bytes: &[u8]) -> ProgramRuntime {
    let Some(layout) = read_layout(bytes) else {
        return ProgramRuntime::Unknown;
    };
    if !layout.has_fatbin || layout.needs_cudart {
        return ProgramRuntime::Shared;
    }
    if contains(bytes, CHEVRON_MARKER) {
        ProgramRuntime::StaticChevron
    } else {
        ProgramRuntime::StaticNvidia
    }
}

/// What the ELF file says: whether it holds device code and whether it needs a shared cudart.
struct Layout {
    has_fatbin: bool,
    needs_cudart: bool,
}

fn read_layout(bytes: &[u8]) -> Option<Layout> {
    let header = FileHeader64::<Endianness>::parse(bytes).ok()?;
    let endian = header.endian().ok()?;
    let sections = header.sections(endian, bytes).ok()?;
    let mut has_fatbin = false;
    let mut needs_cudart = false;
    for section in sections.iter() {
        let name = sections.section_name(endian, section).unwrap_or_default();
        if name == b".nv_fatbin" || name == b".nvFatBinSegment" {
            has_fatbin = true;
        }
        if let Ok(Some((entries, link))) = section.dynamic(endian, bytes) {
            let Ok(strings) = sections.strings(endian, bytes, link) else {
                continue;
            };
            for entry in entries {
                if entry.tag(endian) != DT_NEEDED {
                    continue;
                }
                let needed = entry
                    .string(endian, strings)
                    .unwrap_or_default()
                    .starts_with(b"libcudart.so");
                needs_cudart |= needed;
            }
        }
    }
    Some(Layout {
        has_fatbin,
        needs_cudart,
    })
}

/// Whether `needle` occurs in `haystack`.
fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

/// The one-line explanation `exec` gives for a program it cannot serve.
pub fn static_runtime_message(program: &OsStr) -> String {
    format!(
        "exec: {} carries NVIDIA's CUDA runtime linked in statically (nvcc's and CMake's default, \
         -cudart static), which talks to NVIDIA's driver directly and cannot run on chevron yet; \
         rebuild it with `nvcc -cudart shared` (CMake: CUDA_RUNTIME_LIBRARY Shared)",
        Path::new(program).display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anything_but_elf_is_unknown() {
        assert_eq!(classify(b"#!/bin/sh\necho hi\n"), ProgramRuntime::Unknown);
        assert_eq!(classify(&[0x7f, b'E', b'L', b'F']), ProgramRuntime::Unknown);
    }

    #[test]
    fn a_program_without_device_code_is_served_as_it_is() {
        let me = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        assert_eq!(classify(&me), ProgramRuntime::Shared);
    }
}
