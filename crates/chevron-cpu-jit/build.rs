//! The compiler's identity for the code cache's kernel records (`src/kernel_cache.rs`): a hash
//! of every file of this crate's `src/`, of `chevron-ptx`'s `src/` (the decoded instructions
//! it translates, and the operand tables it plans with) and of the workspace's `Cargo.lock`
//! (Cranelift's and every other dependency's versions), as `CHEVRON_CPU_JIT_SOURCES`.

use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let roots = [
        manifest.join("src"),
        manifest.join("../chevron-ptx/src"),
        manifest.join("../../Cargo.lock"),
    ];
    // Each file with its path below its root's folder (the same in every checkout).
    let mut all = Vec::new();
    for root in &roots {
        println!("cargo:rerun-if-changed={}", root.display());
        let mut found = Vec::new();
        if root.is_dir() {
            files(root, &mut found);
        } else {
            found.push(root.clone());
        }
        let base = root.parent().unwrap_or(root);
        all.extend(found.into_iter().map(|path| {
            let name = path.strip_prefix(base).unwrap_or(&path).to_path_buf();
            (name, path)
        }));
    }
    all.sort();
    // FNV-1a over each file's path (below its root) and bytes.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    for (name, path) in &all {
        eat(name.to_string_lossy().as_bytes());
        eat(&std::fs::read(path).unwrap_or_default());
    }
    println!("cargo:rustc-env=CHEVRON_CPU_JIT_SOURCES={hash:016x}");
}
