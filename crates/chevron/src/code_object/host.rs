//! Device code embedded in host objects and executables: nvcc puts a fatbin in the `.nv_fatbin`
//! section (`__nv_relfatbin` for relocatable device code, `-rdc`) of the host ELF it builds.

use object::elf::{self, FileHeader64};
use object::read::elf::{FileHeader, SectionHeader};
use object::Endianness;

use super::CodeObjectError;

/// Section names that hold embedded fatbins.
const FATBIN_SECTIONS: [&[u8]; 2] = [b".nv_fatbin", b"__nv_relfatbin"];

/// The fatbins embedded in a 64-bit host ELF file (object, shared library or executable), in
/// section order; empty when it has none. Errors when the bytes are not a 64-bit ELF file.
pub fn embedded_fatbins(bytes: &[u8]) -> Result<Vec<&[u8]>, CodeObjectError> {
    let malformed = |what: &str, e: object::read::Error| {
        CodeObjectError::Malformed(format!("host ELF {what}: {e}"))
    };
    let header = FileHeader64::<Endianness>::parse(bytes).map_err(|e| malformed("header", e))?;
    let endian = header.endian().map_err(|e| malformed("header", e))?;
    let sections = header
        .sections(endian, bytes)
        .map_err(|e| malformed("section table", e))?;
    let mut out = Vec::new();
    for section in sections.iter() {
        let name = sections.section_name(endian, section).unwrap_or(b"");
        if !FATBIN_SECTIONS.contains(&name) || section.sh_type(endian) == elf::SHT_NOBITS {
            continue;
        }
        let data = section
            .data(endian, bytes)
            .map_err(|e| malformed("fatbin section", e))?;
        out.push(data);
    }
    Ok(out)
}
