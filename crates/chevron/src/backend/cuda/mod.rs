//! The CUDA backend: the driver API, loaded at run time through the table in `sys.rs`.

use std::sync::Arc;

use crate::backend::Device;
use crate::error::{Error, Result};

/// Discovers CUDA devices. A missing driver library or symbol is [`Error::Unavailable`].
pub fn discover() -> Result<Vec<Arc<dyn Device>>> {
    Err(Error::Unavailable {
        backend: "cuda",
        reason: "the CUDA backend is not built yet".into(),
    })
}
