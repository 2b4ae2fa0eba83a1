//! The on-disk cache of compiled snippets: PTX keyed by everything that determines it.
//!
//! The key hashes the full compiled text (the prelude of earlier declarations and the snippet),
//! the compiler options, the compiler's version and the target. Entries live in
//! `$XDG_CACHE_HOME/chevron/jit` (else `~/.cache/chevron/jit`), one file per key, written to a
//! temporary name and renamed into place so readers never see half an entry.
//! `CHEVRON_CACHE=off` disables the cache; `CHEVRON_CACHE=DIR` puts it in `DIR`.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

/// Where compiled snippets are kept (or nowhere).
#[derive(Debug, Clone)]
pub struct Cache {
    dir: Option<PathBuf>,
}

/// The key format's version: bump it when what is stored changes.
const FORMAT: &str = "chevron-jit-1";

impl Cache {
    /// The cache the environment asks for (see the module documentation).
    pub fn from_env() -> Cache {
        let dir = match std::env::var_os("CHEVRON_CACHE") {
            Some(value) if value == "off" => None,
            Some(value) if !value.is_empty() => Some(PathBuf::from(value)),
            _ => default_dir(),
        };
        Cache { dir }
    }

    /// A cache in `dir`, or none.
    pub fn at(dir: Option<PathBuf>) -> Cache {
        Cache { dir }
    }

    /// The directory, when the cache is on.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The key of one compilation.
    pub fn key(source: &str, options: &[String], compiler: (i32, i32)) -> String {
        let digest = |salt: u64| {
            let mut hasher = std::hash::DefaultHasher::new();
            salt.hash(&mut hasher);
            FORMAT.hash(&mut hasher);
            source.hash(&mut hasher);
            options.hash(&mut hasher);
            compiler.hash(&mut hasher);
            hasher.finish()
        };
        format!("{:016x}{:016x}", digest(1), digest(2))
    }

    /// The PTX stored under `key`, if any.
    pub fn get(&self, key: &str) -> Option<String> {
        let dir = self.dir.as_ref()?;
        std::fs::read_to_string(dir.join(format!("{key}.ptx"))).ok()
    }

    /// Stores `ptx` under `key`. A cache that cannot be written is skipped: it only costs time.
    pub fn put(&self, key: &str, ptx: &str) {
        let Some(dir) = self.dir.as_ref() else {
            return;
        };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let temporary = dir.join(format!("{key}.{}.tmp", std::process::id()));
        if std::fs::write(&temporary, ptx).is_ok()
            && std::fs::rename(&temporary, dir.join(format!("{key}.ptx"))).is_err()
        {
            let _ = std::fs::remove_file(&temporary);
        }
    }
}

fn default_dir() -> Option<PathBuf> {
    let base = match std::env::var_os("XDG_CACHE_HOME") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(std::env::var_os("HOME")?).join(".cache"),
    };
    Some(base.join("chevron/jit"))
}
