//! Code objects: what kind a blob is, the symbols, parameter layouts and entries of cubins and
//! fatbins, and [`CodeObject`], the one reading of a code object every consumer takes. Pure
//! parsing; nothing here needs a GPU.
//!
//! - [`CodeObject::read`] reads PTX (parsed once), a cubin or a fatbin; [`CodeTargets`] is what
//!   a device runs, and [`select_entry`] the one rule picking a fatbin's entry for it.
//! - [`detect`] tells PTX text, a cubin (ELF) and a fatbin apart by their first bytes.
//! - [`Cubin::parse`] reads a cubin's kernels, device functions, globals and kernel parameter
//!   layouts into the same [`SymbolTable`] that PTX gives (see `elf.rs`, `nv_info.rs`).
//! - [`parse_fatbin`] lists a fatbin's entries and decompresses them (see `fatbin.rs`).
//! - [`check_fatbin`] checks every size and offset of a fatbin against its bytes, and
//!   [`container_extent`] (with [`readable_from`] for memory of the running process) bounds a
//!   fatbin known only by its address (see `integrity.rs`, `loaded.rs`).
//! - [`embedded_fatbins`] finds the fatbins nvcc embeds in host objects and executables.
//! - [`binary_symbols`] is the symbol table of a cubin, a fatbin, or a host ELF file's embedded
//!   fatbins, in one call.

mod elf;
mod fatbin;
mod host;
mod integrity;
mod loaded;
mod nv_info;
mod object;
mod targets;

pub use elf::{Cubin, CubinKernel, EM_CUDA};
pub use fatbin::{
    parse_fatbin, Compression, EntryKind, FatbinEntry, FATBIN_MAGIC, FLAG_COMPRESSED_LZ4,
    FLAG_COMPRESSED_ZSTD, FLAG_DEBUG,
};
pub use host::embedded_fatbins;
pub use integrity::{check_fatbin, container_extent};
pub use loaded::readable_from;
pub use nv_info::{FunctionResources, KernelInfo, KernelParam};
#[doc(hidden)]
pub use object::ptx_parses;
pub use object::{CodeObject, IN_MEMORY};
pub use targets::{select_entry, CodeTargets};

use chevron_ptx::symbols::SymbolTable;

/// What a code object is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CodeObjectKind {
    /// PTX assembly text.
    Ptx,
    /// An ELF cubin.
    Cubin,
    /// A fatbin container.
    Fatbin,
}

impl CodeObjectKind {
    /// `ptx`, `cubin` or `fatbin`.
    pub fn as_str(self) -> &'static str {
        match self {
            CodeObjectKind::Ptx => "ptx",
            CodeObjectKind::Cubin => "cubin",
            CodeObjectKind::Fatbin => "fatbin",
        }
    }
}

/// Why a code object could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CodeObjectError {
    /// The bytes are not a well-formed code object of the kind expected.
    #[error("malformed code object: {0}")]
    Malformed(String),
    /// A size or offset in the object points outside it: the bytes were damaged after they
    /// were written (`fatbin at byte 6: …`, with the offset where the bad value was found).
    #[error("corrupted {0}")]
    Corrupted(String),
    /// A well-formed object of a kind chevron does not read.
    #[error("unsupported code object: {0}")]
    Unsupported(String),
    /// A compressed fatbin entry could not be decompressed.
    #[error("corrupted fatbin: cannot decompress the entry at byte {offset}: {reason}")]
    Decompress {
        /// Byte offset of the entry's payload in the fatbin.
        offset: usize,
        /// What went wrong.
        reason: String,
    },
}

/// Tells the kind of a code object from its first bytes: the ELF magic (`7f 45 4c 46`), the
/// fatbin magic (`50 ed 55 ba`), or text whose first word after whitespace and comments is a
/// PTX directive (`.version`, `.target`, …). `None` for anything else.
pub fn detect(bytes: &[u8]) -> Option<CodeObjectKind> {
    if bytes.starts_with(b"\x7fELF") {
        return Some(CodeObjectKind::Cubin);
    }
    if bytes.starts_with(&FATBIN_MAGIC.to_le_bytes()) {
        return Some(CodeObjectKind::Fatbin);
    }
    let text = skip_comments(bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes));
    let directive = text.strip_prefix(b".")?;
    let word_len = directive
        .iter()
        .position(|b| !b.is_ascii_alphanumeric() && *b != b'_')
        .unwrap_or(directive.len());
    let word = &directive[..word_len];
    const DIRECTIVES: [&[u8]; 5] = [b"version", b"target", b"address_size", b"visible", b"entry"];
    DIRECTIVES.contains(&word).then_some(CodeObjectKind::Ptx)
}

/// The text after leading whitespace, `//` line comments and `/* */` block comments.
fn skip_comments(mut text: &[u8]) -> &[u8] {
    loop {
        let trimmed = text.trim_ascii_start();
        if let Some(rest) = trimmed.strip_prefix(b"//") {
            text = rest
                .iter()
                .position(|&b| b == b'\n')
                .map_or(&[][..], |i| &rest[i + 1..]);
        } else if let Some(rest) = trimmed.strip_prefix(b"/*") {
            text = rest
                .windows(2)
                .position(|w| w == b"*/")
                .map_or(&[][..], |i| &rest[i + 2..]);
        } else {
            return trimmed;
        }
    }
}

/// The symbol table of a cubin, or of a fatbin: the entry [`CodeTargets::any`] picks (its
/// newest cubin, else its newest PTX). A host ELF file (an nvcc-built object or executable)
/// gives the symbols of the fatbins it embeds. Reads through [`CodeObject`].
pub fn binary_symbols(bytes: &[u8]) -> Result<SymbolTable, CodeObjectError> {
    match detect(bytes) {
        Some(CodeObjectKind::Ptx) => Err(CodeObjectError::Unsupported(
            "PTX text is not a binary code object".into(),
        )),
        None => Err(CodeObjectError::Malformed(
            "neither a cubin (ELF) nor a fatbin".into(),
        )),
        Some(_) => {
            let code = CodeObject::read(bytes, IN_MEMORY);
            match code.symbols() {
                Some(symbols) => Ok(symbols.clone()),
                None => Err(CodeObjectError::Malformed(
                    code.symbols_error().unwrap_or_default(),
                )),
            }
        }
    }
}

/// Whether ELF bytes are GPU code (`e_machine` is `EM_CUDA`) rather than a host file.
pub fn is_cuda_elf(bytes: &[u8]) -> bool {
    bytes
        .get(18..20)
        .is_some_and(|m| u16::from_le_bytes([m[0], m[1]]) == EM_CUDA)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_each_kind() {
        assert_eq!(detect(b"\x7fELF\x02\x01"), Some(CodeObjectKind::Cubin));
        assert_eq!(
            detect(&[0x50, 0xed, 0x55, 0xba, 1, 0]),
            Some(CodeObjectKind::Fatbin)
        );
        let ptx = b"//\n// Generated by NVIDIA NVVM Compiler\n/* x */\n\n.version 9.0\n";
        assert_eq!(detect(ptx), Some(CodeObjectKind::Ptx));
        assert_eq!(detect(b"  .target sm_80"), Some(CodeObjectKind::Ptx));
        assert_eq!(detect(b"// only a comment"), None);
        assert_eq!(detect(b"int main() {}"), None);
        assert_eq!(detect(b".versionx"), None);
        assert_eq!(detect(b""), None);
    }
}
