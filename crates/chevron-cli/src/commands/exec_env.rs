//! The environment that runs a CUDA program on chevron's runtime, shared by `chevron trace`
//! (and meant for `chevron exec`): chevron's `libcudart.so` preloaded, so the program's
//! `libcudart.so.13` dependency is satisfied by it. A program that does not link
//! `libcudart.so` (one linked against chevron itself) is left as it is: preloading would put a
//! second chevron in it.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The variable naming chevron's `libcudart.so` explicitly.
const LIBRARY_VARIABLE: &str = "CHEVRON_CUDART";

/// The most read of a program to find its dynamic dependencies.
const MAX_PROGRAM_BYTES: u64 = 1 << 30;

/// Preloads chevron's `libcudart.so` into `command` when `program` links NVIDIA's runtime
/// (`libcudart.so.*` among its `DT_NEEDED` entries); says whether it did.
pub fn serve_cuda_runtime(command: &mut Command, program: &str) -> Result<bool, String> {
    let Some(path) = find_program(program) else {
        return Ok(false);
    };
    if !needs_cudart(&path) {
        return Ok(false);
    }
    let library = find_library()?;
    let mut preload = library.into_os_string();
    if let Some(existing) = std::env::var_os("LD_PRELOAD").filter(|v| !v.is_empty()) {
        preload.push(":");
        preload.push(existing);
    }
    command.env("LD_PRELOAD", preload);
    Ok(true)
}

/// `program` as `execvp` finds it.
fn find_program(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        return Some(PathBuf::from(program));
    }
    let path = std::env::var_os("PATH").unwrap_or_else(|| OsString::from("/usr/bin:/bin"));
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

/// Whether the ELF file `path` needs a `libcudart.so`.
fn needs_cudart(path: &Path) -> bool {
    let mut bytes = Vec::new();
    let read =
        std::fs::File::open(path).and_then(|f| f.take(MAX_PROGRAM_BYTES).read_to_end(&mut bytes));
    read.is_ok() && needed(&bytes).iter().any(|n| n.starts_with("libcudart.so"))
}

/// The `DT_NEEDED` names of a 64-bit little-endian ELF file (none for anything else).
fn needed(elf: &[u8]) -> Vec<String> {
    let u16_at = |at: usize| {
        elf.get(at..at + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
    };
    let u64_at = |at: usize| {
        elf.get(at..at + 8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
    };
    if elf.get(..6) != Some(b"\x7fELF\x02\x01".as_slice()) {
        return Vec::new();
    }
    let (Some(phoff), Some(phentsize), Some(phnum)) = (u64_at(0x20), u16_at(0x36), u16_at(0x38))
    else {
        return Vec::new();
    };
    // (vaddr, offset, size) of loaded segments, and the dynamic section's (offset, size).
    let mut loads = Vec::new();
    let mut dynamic = None;
    for i in 0..usize::from(phnum) {
        let at = (phoff as usize).saturating_add(i * usize::from(phentsize));
        let kind = elf
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        let (Some(offset), Some(vaddr), Some(size)) =
            (u64_at(at + 8), u64_at(at + 16), u64_at(at + 32))
        else {
            continue;
        };
        match kind {
            Some(1) => loads.push((vaddr, offset, size)),
            Some(2) => dynamic = Some((offset, size)),
            _ => {}
        }
    }
    let Some((offset, size)) = dynamic else {
        return Vec::new();
    };
    let mut names = Vec::new();
    let mut strtab = None;
    for entry in (0..size / 16).map(|i| offset.saturating_add(i * 16) as usize) {
        match (u64_at(entry), u64_at(entry + 8)) {
            (Some(0), _) | (None, _) => break,
            (Some(1), Some(name)) => names.push(name),
            (Some(5), Some(vaddr)) => strtab = Some(vaddr),
            _ => {}
        }
    }
    let Some(strtab) = strtab.and_then(|vaddr| {
        loads
            .iter()
            .find(|(start, _, size)| vaddr >= *start && vaddr - start < *size)
            .map(|(start, offset, _)| (vaddr - start + offset) as usize)
    }) else {
        return Vec::new();
    };
    names
        .into_iter()
        .filter_map(|name| {
            let text = elf.get(strtab.checked_add(name as usize)?..)?;
            let end = text.iter().position(|&b| b == 0)?;
            Some(String::from_utf8_lossy(&text[..end]).into_owned())
        })
        .collect()
}

/// chevron's `libcudart.so`: `$CHEVRON_CUDART`, else next to this executable or in `../lib`.
pub fn find_library() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os(LIBRARY_VARIABLE) {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!(
                "{LIBRARY_VARIABLE}={} is not a file",
                path.display()
            ))
        };
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot locate chevron: {e}"))?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    let candidates = [dir.join("libcudart.so"), dir.join("../lib/libcudart.so")];
    candidates
        .iter()
        .find(|p| p.is_file())
        .cloned()
        .ok_or_else(|| {
            format!(
                "chevron's libcudart.so is not next to {} nor in ../lib (looked for {} and {}): \
             build it with `cargo build -p chevron-cudart` or set {LIBRARY_VARIABLE}",
                exe.display(),
                candidates[0].display(),
                candidates[1].display()
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dependencies_are_read_from_the_dynamic_section() {
        let shell = std::fs::read("/bin/sh").unwrap();
        let names = needed(&shell);
        assert!(names.iter().any(|n| n.starts_with("libc.so")), "{names:?}");
        assert!(!needs_cudart(Path::new("/bin/sh")));
        assert!(needed(b"not an ELF file").is_empty());
        assert!(needed(&shell[..100]).is_empty());
    }
}
