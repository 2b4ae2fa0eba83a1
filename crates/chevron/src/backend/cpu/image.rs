//! Which PTX text the CPU device runs for a code image.
//!
//! The CPU device runs PTX only: PTX text as is, the best PTX entry of a fatbin (the highest
//! architecture not above the device's compute capability, else the lowest one), and for bytes
//! handed over as a cubin, PTX or a fatbin in disguise (callers such as MLIR's `mgpuModuleLoad`
//! do not say what they pass). A true cubin holds machine code for a GPU and is refused.

use std::borrow::Cow;

use crate::backend::CodeImage;
use crate::code_object::{self, CodeObjectKind, EntryKind};
use crate::error::{Error, Result};

use super::device::COMPUTE_CAPABILITY;

/// Name used in errors for code objects handed over in memory.
pub(crate) const IN_MEMORY: &str = "<memory>";

/// The PTX text to load for `image`.
pub(crate) fn ptx_of<'a>(image: &CodeImage<'a>) -> Result<Cow<'a, str>> {
    match *image {
        CodeImage::Ptx(text) => Ok(Cow::Borrowed(text)),
        CodeImage::Fatbin(bytes) => fatbin_ptx(bytes).map(Cow::Owned),
        CodeImage::Cubin(bytes) => match code_object::detect(bytes) {
            Some(CodeObjectKind::Fatbin) => fatbin_ptx(bytes).map(Cow::Owned),
            Some(CodeObjectKind::Ptx) => std::str::from_utf8(bytes)
                .map(Cow::Borrowed)
                .map_err(|e| code_error(format!("PTX text that is not UTF-8: {e}"))),
            _ => Err(code_error(
                "the CPU device runs PTX; this cubin has no PTX (compile to PTX, or load a \
                 fatbin that embeds PTX)"
                    .into(),
            )),
        },
    }
}

/// The PTX of the fatbin entry the CPU device should run.
fn fatbin_ptx(bytes: &[u8]) -> Result<String> {
    let entries = code_object::parse_fatbin(bytes).map_err(|e| code_error(e.to_string()))?;
    let device_arch = COMPUTE_CAPABILITY.0 * 10 + COMPUTE_CAPABILITY.1;
    let ptx = entries.iter().filter(|e| e.kind == EntryKind::Ptx);
    let best = ptx
        .clone()
        .filter(|e| e.arch <= device_arch)
        .max_by_key(|e| e.arch)
        .or_else(|| ptx.min_by_key(|e| e.arch));
    let Some(entry) = best else {
        let archs: Vec<String> = entries.iter().map(|e| format!("sm_{}", e.arch)).collect();
        return Err(code_error(format!(
            "the CPU device runs PTX; this fatbin holds no PTX (entries: {})",
            if archs.is_empty() {
                "none".into()
            } else {
                archs.join(", ")
            }
        )));
    };
    entry.ptx_text().map_err(|e| code_error(e.to_string()))
}

fn code_error(message: String) -> Error {
    Error::CodeObject {
        source_name: IN_MEMORY.into(),
        message,
    }
}
