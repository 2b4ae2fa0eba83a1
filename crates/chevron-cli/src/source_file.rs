//! Reading a code object file with a bound: a regular file's length is checked before it is
//! read, and a pipe or device (`/dev/zero`) is read no further than the bound. CUDA C++ source
//! gets a message saying how to compile it.

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// The largest code object read (the largest file of the corpus is a few MiB).
pub const MAX_CODE_OBJECT_BYTES: u64 = 256 << 20;

/// The bytes of the code object `path`, at most [`MAX_CODE_OBJECT_BYTES`].
pub fn read_code_object(path: &Path) -> Result<Vec<u8>, String> {
    if let Some(hint) = cuda_source_hint(path) {
        return Err(hint);
    }
    let name = path.display();
    let file = File::open(path).map_err(|e| format!("{name}: {e}"))?;
    let metadata = file.metadata().map_err(|e| format!("{name}: {e}"))?;
    if metadata.is_dir() {
        return Err(format!("{name}: is a directory, not a code object"));
    }
    if metadata.is_file() && metadata.len() > MAX_CODE_OBJECT_BYTES {
        return Err(too_large(path));
    }
    let mut bytes = Vec::new();
    file.take(MAX_CODE_OBJECT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{name}: {e}"))?;
    if bytes.len() as u64 > MAX_CODE_OBJECT_BYTES {
        return Err(too_large(path));
    }
    Ok(bytes)
}

fn too_large(path: &Path) -> String {
    format!(
        "{}: larger than {} MiB, the most chevron reads as a code object",
        path.display(),
        MAX_CODE_OBJECT_BYTES >> 20
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
