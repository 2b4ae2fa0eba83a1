//! Reading input files with a bound: a regular file's length is checked before it is read, and
//! a pipe or device (`/dev/zero`) is read no further than the bound. Code objects, CUDA C++
//! sources and traces each have their own bound. CUDA C++ source given as a code object gets a
//! message saying how to compile it.

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// The largest code object read (the largest file of the corpus is a few MiB).
pub const MAX_CODE_OBJECT_BYTES: u64 = 256 << 20;

/// The largest CUDA C++ source read (`chevron run FILE.cu`, the REPL's `:load`).
pub const MAX_SOURCE_BYTES: u64 = 16 << 20;

/// The largest trace read (`chevron trace --html`).
pub const MAX_TRACE_BYTES: u64 = 512 << 20;

/// The bytes of the code object `path`, at most [`MAX_CODE_OBJECT_BYTES`].
pub fn read_code_object(path: &Path) -> Result<Vec<u8>, String> {
    if let Some(hint) = cuda_source_hint(path) {
        return Err(hint);
    }
    read_bounded(path, MAX_CODE_OBJECT_BYTES, "a code object")
}

/// The text of the CUDA C++ source `path`, at most [`MAX_SOURCE_BYTES`]; only a regular file is
/// read (a FIFO or a device would block or never end).
pub fn read_source(path: &Path) -> Result<String, String> {
    let name = path.display();
    let metadata = std::fs::metadata(path).map_err(|e| format!("{name}: {e}"))?;
    if !metadata.is_file() {
        return Err(format!(
            "{name}: not a regular file (a source is read from a file, not a pipe or a device)"
        ));
    }
    let bytes = read_bounded(path, MAX_SOURCE_BYTES, "a source")?;
    String::from_utf8(bytes).map_err(|_| format!("{name}: not UTF-8 text"))
}

/// The bytes of `path`, at most `limit` (`what` names the kind of input in the error).
pub fn read_bounded(path: &Path, limit: u64, what: &str) -> Result<Vec<u8>, String> {
    let name = path.display();
    let file = File::open(path).map_err(|e| format!("{name}: {e}"))?;
    let metadata = file.metadata().map_err(|e| format!("{name}: {e}"))?;
    if metadata.is_dir() {
        return Err(format!("{name}: is a directory, not {what}"));
    }
    if metadata.is_file() && metadata.len() > limit {
        return Err(too_large(path, limit, what));
    }
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{name}: {e}"))?;
    if bytes.len() as u64 > limit {
        return Err(too_large(path, limit, what));
    }
    Ok(bytes)
}

fn too_large(path: &Path, limit: u64, what: &str) -> String {
    format!(
        "{}: larger than {} MiB, the most chevron reads as {what}",
        path.display(),
        limit >> 20
    )
}

/// For CUDA C++ source (`.cu`, `.cuh`): how to turn it into something chevron loads.
pub fn cuda_source_hint(path: &Path) -> Option<String> {
    let extension = path.extension()?.to_str()?;
    if !matches!(extension, "cu" | "cuh") {
        return None;
    }
    let ptx = path.with_extension("ptx");
    Some(format!(
        "{}: CUDA C++ source; chevron loads compiled code (.ptx, .cubin, .fatbin): compile it \
         first, e.g. `nvcc -ptx -arch=sm_80 {} -o {}` or `clang++ --cuda-device-only -S \
         --cuda-gpu-arch=sm_80 {} -o {}`, and pass the .ptx",
        path.display(),
        path.display(),
        ptx.display(),
        path.display(),
        ptx.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endless_files_are_read_up_to_the_bound() {
        let err = read_code_object(Path::new("/dev/zero")).unwrap_err();
        assert!(err.contains("larger than 256 MiB"), "{err}");
        let err = read_bounded(Path::new("/dev/zero"), 1 << 20, "a trace").unwrap_err();
        assert!(err.contains("larger than 1 MiB, the most chevron reads as a trace"));
        let err = read_source(Path::new("/dev/zero")).unwrap_err();
        assert!(err.contains("not a regular file"), "{err}");
    }

    #[test]
    fn directories_and_cuda_sources_are_explained() {
        let err = read_code_object(Path::new("/")).unwrap_err();
        assert!(err.contains("is a directory"), "{err}");
        let hint = cuda_source_hint(Path::new("k/saxpy.cu")).unwrap();
        assert!(
            hint.contains("nvcc -ptx") && hint.contains("k/saxpy.ptx"),
            "{hint}"
        );
        assert!(cuda_source_hint(Path::new("saxpy.ptx")).is_none());
    }
}
