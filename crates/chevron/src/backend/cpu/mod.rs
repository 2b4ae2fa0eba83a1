//! The CPU device: runs PTX through chevron-ptx's interpreter with GPU semantics.

use std::sync::Arc;

use crate::backend::Device;
use crate::error::{Error, Result};

/// Creates the configured CPU devices.
pub fn discover() -> Result<Vec<Arc<dyn Device>>> {
    Err(Error::Unavailable {
        backend: "cpu",
        reason: "the CPU backend is not built yet".into(),
    })
}
