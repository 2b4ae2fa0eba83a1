//! Where the CUDA headers a snippet may `#include` (`cuda_fp16.h`, `cooperative_groups.h`,
//! `cuda/std/…`) are found: NVRTC 13.0 builds none of them in.
//!
//! In order: `CHEVRON_CUDA_INCLUDE` (a directory, or several separated by `:`); the `include`
//! directory beside NVRTC's library, where the PyPI wheels `nvidia-cuda-runtime`,
//! `nvidia-cuda-crt` and `nvidia-cuda-cccl` put them (`scripts/deps/nvrtc.sh` installs them
//! next to NVRTC); then a CUDA toolkit (`$CUDA_PATH/include`, `/usr/local/cuda/include`). The
//! first directory holding `cuda_fp16.h` is used, with its `cccl` subdirectory where present.

use std::path::{Path, PathBuf};

/// The `--include-path` options for NVRTC loaded from `nvrtc_path` (none when no headers are
/// found: snippets without `#include`s of CUDA headers still compile).
pub fn include_options(nvrtc_path: &str) -> Vec<String> {
    if let Some(explicit) = std::env::var_os("CHEVRON_CUDA_INCLUDE") {
        return std::env::split_paths(&explicit)
            .filter(|dir| !dir.as_os_str().is_empty())
            .map(|dir| option(&dir))
            .collect();
    }
    let beside = Path::new(nvrtc_path)
        .parent()
        .and_then(Path::parent)
        .map(|prefix| prefix.join("include"));
    let toolkit = std::env::var_os("CUDA_PATH").map(|dir| PathBuf::from(dir).join("include"));
    let found = [
        beside,
        toolkit,
        Some(PathBuf::from("/usr/local/cuda/include")),
    ]
    .into_iter()
    .flatten()
    .find(|dir| dir.join("cuda_fp16.h").is_file());
    let Some(dir) = found else {
        return Vec::new();
    };
    let mut options = vec![option(&dir)];
    let cccl = dir.join("cccl");
    if cccl.is_dir() {
        options.push(option(&cccl));
    }
    options
}

fn option(dir: &Path) -> String {
    format!("--include-path={}", dir.display())
}
