//! `CHEVRON_DEVICES`: which devices the [`crate::Runtime`] uses, and in what order.
//!
//! The value is a comma-separated list of `BACKEND` (every device of that backend, in ordinal
//! order) or `BACKEND:ORDINAL` (one device), e.g. `cuda`, `cpu`, `cuda:1,cpu:0`. Devices are used
//! in the order written; a device named twice is used once. The first device is the default.
//! Without the variable, every CUDA device comes first, then every CPU device.

use super::registry::{self, BACKENDS};
use crate::backend::BackendKind;
use crate::error::{Error, Result};

/// The environment variable read by [`crate::Runtime::new`].
pub const DEVICES_VARIABLE: &str = "CHEVRON_DEVICES";

/// One item of a device selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SelectionItem {
    /// The backend.
    pub backend: BackendKind,
    /// One device, or every device of the backend when `None`.
    pub ordinal: Option<u32>,
}

/// A parsed device selection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// The items in order.
    pub items: Vec<SelectionItem>,
}

impl Selection {
    /// Every device of every backend the registry looks for by default, in registry order
    /// (every CUDA device, then every CPU device).
    pub fn all() -> Selection {
        Selection {
            items: BACKENDS
                .iter()
                .filter(|entry| entry.by_default)
                .map(|entry| SelectionItem {
                    backend: entry.kind,
                    ordinal: None,
                })
                .collect(),
        }
    }

    /// Parses a selection such as `cuda:1,cpu:0`.
    pub fn parse(text: &str) -> Result<Selection> {
        let mut items = Vec::new();
        for word in text.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            let (backend_word, ordinal) = match word.split_once(':') {
                Some((b, o)) => {
                    let ordinal = o.trim().parse::<u32>().map_err(|_| invalid(word, text))?;
                    (b.trim(), Some(ordinal))
                }
                None => (word, None),
            };
            let backend = registry::by_name(backend_word)
                .ok_or_else(|| invalid(word, text))?
                .kind;
            items.push(SelectionItem { backend, ordinal });
        }
        if items.is_empty() {
            return Err(Error::InvalidValue {
                call: "Runtime::new",
                message: format!("{DEVICES_VARIABLE}=`{text}` names no device"),
            });
        }
        Ok(Selection { items })
    }

    /// Whether any item names `backend`.
    pub fn mentions(&self, backend: BackendKind) -> bool {
        self.items.iter().any(|i| i.backend == backend)
    }
}

fn invalid(word: &str, text: &str) -> Error {
    let names: Vec<String> = BACKENDS
        .iter()
        .flat_map(|entry| entry.names)
        .map(|name| format!("`{name}`"))
        .collect();
    Error::InvalidValue {
        call: "Runtime::new",
        message: format!(
            "{DEVICES_VARIABLE}=`{text}`: `{word}` is not a backend ({}), alone or with `:N`",
            names.join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_backends_and_ordinals_in_order() {
        let s = Selection::parse("cuda:1, cpu:0,cpu").unwrap();
        assert_eq!(
            s.items,
            vec![
                SelectionItem {
                    backend: BackendKind::Cuda,
                    ordinal: Some(1)
                },
                SelectionItem {
                    backend: BackendKind::Cpu,
                    ordinal: Some(0)
                },
                SelectionItem {
                    backend: BackendKind::Cpu,
                    ordinal: None
                },
            ]
        );
        assert!(s.mentions(BackendKind::Cuda));
    }

    #[test]
    fn rejects_unknown_words_with_the_variable_named() {
        let err = Selection::parse("cuda,tpu").unwrap_err().to_string();
        assert!(
            err.contains("CHEVRON_DEVICES") && err.contains("`tpu`"),
            "{err}"
        );
        assert!(Selection::parse("cpu:x").is_err());
        assert!(Selection::parse(" , ").is_err());
    }
}
