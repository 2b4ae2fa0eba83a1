//! The backend registry: the one table of backends that discovery and `CHEVRON_DEVICES`
//! ([`crate::Runtime`]), the C API and the CLI read. Adding a backend is a folder in `backend/`,
//! a [`BackendKind`] variant and one line in [`BACKENDS`]. It lives above the backends (it names
//! each of them); the backend contract never reaches up to it.

use std::sync::Arc;

use crate::backend::{self, BackendKind, Device};
use crate::error::Result;

/// One backend chevron can discover.
#[derive(Debug)]
pub struct BackendEntry {
    /// Which backend.
    pub kind: BackendKind,
    /// The words `CHEVRON_DEVICES` accepts for it; the first is its name (`cuda`, `cpu`).
    pub names: &'static [&'static str],
    /// Finds its devices, or says why there are none ([`crate::Error::Unavailable`]).
    pub discover: fn() -> Result<Vec<Arc<dyn Device>>>,
    /// Whether discovery looks for it when `CHEVRON_DEVICES` does not name it.
    pub by_default: bool,
}

impl BackendEntry {
    /// Its name, as in `CHEVRON_DEVICES` and device labels.
    pub fn name(&self) -> &'static str {
        self.names[0]
    }
}

/// Every backend, in the order discovery uses them by default (GPUs first, so the default device
/// is a GPU when there is one).
pub static BACKENDS: &[BackendEntry] = &[
    BackendEntry {
        kind: BackendKind::Cuda,
        names: &["cuda", "gpu"],
        discover: backend::cuda::discover,
        by_default: true,
    },
    BackendEntry {
        kind: BackendKind::Cpu,
        names: &["cpu"],
        discover: backend::cpu::discover,
        by_default: true,
    },
    BackendEntry {
        kind: BackendKind::Noop,
        names: &["noop"],
        discover: backend::noop::discover,
        by_default: false,
    },
    #[cfg(test)]
    BackendEntry {
        kind: BackendKind::Scripted,
        names: &["scripted"],
        discover: backend::scripted::discover,
        by_default: false,
    },
];

/// The registry entry of `kind` (every kind has one: checked by a unit test).
pub fn entry(kind: BackendKind) -> Option<&'static BackendEntry> {
    BACKENDS.iter().find(|entry| entry.kind == kind)
}

/// The backend `CHEVRON_DEVICES` calls `word` (case-insensitive).
pub fn by_name(word: &str) -> Option<&'static BackendEntry> {
    BACKENDS
        .iter()
        .find(|entry| entry.names.iter().any(|n| n.eq_ignore_ascii_case(word)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_has_a_unique_kind_and_names() {
        for (i, a) in BACKENDS.iter().enumerate() {
            assert_eq!(a.name(), a.kind.as_str());
            assert!(entry(a.kind).is_some_and(|e| std::ptr::eq(e, a)));
            for b in &BACKENDS[i + 1..] {
                assert_ne!(a.kind, b.kind);
                assert!(a.names.iter().all(|n| !b.names.contains(n)), "{a:?} {b:?}");
            }
        }
        assert_eq!(by_name("GPU").map(|e| e.kind), Some(BackendKind::Cuda));
        assert!(by_name("tpu").is_none());
    }
}
