//! Fatbin containers: several code objects (PTX text, cubins) for different architectures in one
//! blob, as `nvcc -fatbin`, `fatbinary` and the `.nv_fatbin` section of CUDA executables hold them.
//!
//! Layout (little-endian): a 16-byte header (`u32` magic `0xBA55ED50`, `u16` version, `u16`
//! header size, `u64` size of the entries that follow), then entries, each a header (`u16` kind:
//! 1 PTX, 2 ELF; `u16` version; `u32` header size; `u64` payload size; `u32` compressed size;
//! `u32` options offset; `u16` minor, `u16` major version; `u32` SM architecture; name offset and
//! length; `u64` flags; 8 reserved bytes; `u64` decompressed size) and its payload. Several
//! containers may follow each other. Payloads may be compressed: flag `0x2000` is an LZ4 block,
//! flag `0x8000` a Zstandard frame (what CUDA 13 `fatbinary` writes by default for PTX).

use std::borrow::Cow;

use super::CodeObjectError;

/// The fatbin magic number (bytes `50 ed 55 ba`).
pub const FATBIN_MAGIC: u32 = 0xBA55_ED50;

/// Flag: the payload is an LZ4 block.
pub const FLAG_COMPRESSED_LZ4: u64 = 0x2000;
/// Flag: the payload is a Zstandard frame.
pub const FLAG_COMPRESSED_ZSTD: u64 = 0x8000;
/// Flag: compiled with debug information.
pub const FLAG_DEBUG: u64 = 0x2;
/// Flag: code for an architecture's own feature set (`sm_90a`, `compute_90a`), which
/// `nvcc -arch=sm_90a` puts beside plain `compute_90` PTX of the same architecture number.
pub(crate) const FLAG_ARCH_SPECIFIC: u64 = 0x10_0000;

/// The largest decompressed payload accepted (a guard against corrupt sizes).
const MAX_DECOMPRESSED: u64 = 1 << 30;
/// The most an LZ4 block expands (each sequence of 1 token byte copies at most 255 bytes more).
const LZ4_MAX_RATIO: usize = 255;
/// Entry header bytes read (the header may be longer); also the least an entry header may be.
const ENTRY_HEADER: usize = 64;

/// What an entry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum EntryKind {
    /// PTX text.
    Ptx,
    /// An ELF cubin.
    Elf,
    /// Another kind (e.g. LTO IR), by its number.
    Other(u16),
}

/// How an entry's payload is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Compression {
    /// An LZ4 block.
    Lz4,
    /// A Zstandard frame.
    Zstd,
}

/// One entry of a fatbin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FatbinEntry<'a> {
    /// What it holds.
    pub kind: EntryKind,
    /// SM architecture (80 for `sm_80` / `compute_80`).
    pub arch: u32,
    /// (major, minor) version: the PTX ISA version for PTX entries.
    pub version: (u16, u16),
    /// The raw flags (`0x1` 64-bit, `0x2` debug, `0x10` Linux, compression bits).
    pub flags: u64,
    /// The compression of the payload, if any.
    pub compression: Option<Compression>,
    /// The size after decompression (0 when not compressed).
    pub decompressed_size: u64,
    /// Byte offset of the payload in the input.
    pub offset: usize,
    /// The payload as stored (compressed or not).
    pub payload: &'a [u8],
}

fn read<const N: usize>(bytes: &[u8], at: usize) -> Option<[u8; N]> {
    bytes.get(at..at.checked_add(N)?)?.try_into().ok()
}
fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    read(bytes, at).map(u16::from_le_bytes)
}
fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    read(bytes, at).map(u32::from_le_bytes)
}
fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    read(bytes, at).map(u64::from_le_bytes)
}

fn malformed(at: usize, what: &str) -> CodeObjectError {
    CodeObjectError::Corrupted(format!("fatbin at byte {at}: {what}"))
}

/// Parses every container in `bytes` (containers may be concatenated, with zero padding).
pub fn parse_fatbin(bytes: &[u8]) -> Result<Vec<FatbinEntry<'_>>, CodeObjectError> {
    let mut entries = Vec::new();
    let mut at = 0usize;
    loop {
        entries.extend(parse_container(bytes, &mut at)?);
        while bytes.get(at) == Some(&0) {
            at += 1;
        }
        if at >= bytes.len() {
            return Ok(entries);
        }
        if u32_at(bytes, at) != Some(FATBIN_MAGIC) {
            return Err(malformed(at, "trailing bytes are not another fatbin"));
        }
    }
}

fn parse_container<'a>(
    bytes: &'a [u8],
    at: &mut usize,
) -> Result<Vec<FatbinEntry<'a>>, CodeObjectError> {
    let start = *at;
    if u32_at(bytes, start) != Some(FATBIN_MAGIC) {
        return Err(malformed(start, "no fatbin magic 0xBA55ED50"));
    }
    let header_size = u16_at(bytes, start + 6).ok_or_else(|| malformed(start, "short header"))?;
    let body_size = u64_at(bytes, start + 8).ok_or_else(|| malformed(start, "short header"))?;
    if header_size < 16 {
        return Err(malformed(start, "container header shorter than 16 bytes"));
    }
    let body_start = start + usize::from(header_size);
    let body_end = usize::try_from(body_size)
        .ok()
        .and_then(|s| body_start.checked_add(s))
        .filter(|&end| end <= bytes.len())
        .ok_or_else(|| malformed(start, "entries run past the end of the data"))?;
    let mut entries = Vec::new();
    let mut cursor = body_start;
    while cursor < body_end {
        let (entry, next) = parse_entry(bytes, cursor, body_end)?;
        entries.push(entry);
        cursor = next;
    }
    *at = body_end;
    Ok(entries)
}

fn parse_entry(
    bytes: &[u8],
    at: usize,
    end: usize,
) -> Result<(FatbinEntry<'_>, usize), CodeObjectError> {
    let short = || malformed(at, "entry header runs past the end");
    let header = bytes.get(at..end).ok_or_else(short)?;
    if header.len() < ENTRY_HEADER {
        return Err(short());
    }
    let kind = match u16_at(header, 0).ok_or_else(short)? {
        1 => EntryKind::Ptx,
        2 => EntryKind::Elf,
        other => EntryKind::Other(other),
    };
    let header_size = u32_at(header, 4).ok_or_else(short)? as usize;
    let size = u64_at(header, 8).ok_or_else(short)?;
    let compressed_size = u32_at(header, 16).ok_or_else(short)?;
    let minor = u16_at(header, 24).ok_or_else(short)?;
    let major = u16_at(header, 26).ok_or_else(short)?;
    let arch = u32_at(header, 28).ok_or_else(short)?;
    let flags = u64_at(header, 40).ok_or_else(short)?;
    let decompressed_size = u64_at(header, 56).ok_or_else(short)?;
    if header_size < ENTRY_HEADER {
        return Err(malformed(at, "entry header shorter than 64 bytes"));
    }
    let payload_start = at + header_size;
    let payload_end = usize::try_from(size)
        .ok()
        .and_then(|s| payload_start.checked_add(s))
        .filter(|&e| e <= end)
        .ok_or_else(|| malformed(at, "entry payload runs past the end"))?;
    let compression = if flags & FLAG_COMPRESSED_ZSTD != 0 {
        Some(Compression::Zstd)
    } else if flags & FLAG_COMPRESSED_LZ4 != 0 {
        Some(Compression::Lz4)
    } else {
        None
    };
    let stored_end = match compression {
        Some(_) if compressed_size > 0 => {
            (payload_start + compressed_size as usize).min(payload_end)
        }
        _ => payload_end,
    };
    let entry = FatbinEntry {
        kind,
        arch,
        version: (major, minor),
        flags,
        compression,
        decompressed_size,
        offset: payload_start,
        payload: &bytes[payload_start..stored_end],
    };
    Ok((entry, payload_end))
}

impl FatbinEntry<'_> {
    /// The payload, decompressed if needed.
    pub fn contents(&self) -> Result<Cow<'_, [u8]>, CodeObjectError> {
        let Some(compression) = self.compression else {
            return Ok(Cow::Borrowed(self.payload));
        };
        if self.decompressed_size > MAX_DECOMPRESSED {
            return Err(self.decompress_error(format!(
                "claims {} decompressed bytes",
                self.decompressed_size
            )));
        }
        let expected = self.decompressed_size as usize;
        let data = match compression {
            Compression::Lz4 => self.decompress_lz4(expected)?,
            Compression::Zstd => self.decompress_zstd(expected)?,
        };
        if expected != 0 && data.len() != expected {
            return Err(self.decompress_error(format!(
                "gave {} bytes, the header says {expected}",
                data.len()
            )));
        }
        Ok(Cow::Owned(data))
    }

    /// The PTX text of a PTX entry (trailing NUL padding removed).
    pub fn ptx_text(&self) -> Result<String, CodeObjectError> {
        if self.kind != EntryKind::Ptx {
            return Err(CodeObjectError::Unsupported(format!(
                "fatbin entry at byte {} holds {:?}, not PTX",
                self.offset, self.kind
            )));
        }
        let contents = self.contents()?;
        let end = contents.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        String::from_utf8(contents[..end].to_vec()).map_err(|_| {
            CodeObjectError::Malformed(format!(
                "PTX entry at byte {} of the fatbin is not UTF-8",
                self.offset
            ))
        })
    }

    /// An LZ4 block of `expected` bytes: a block expands at most 255-fold, so a larger claim is
    /// refused before anything is allocated.
    fn decompress_lz4(&self, expected: usize) -> Result<Vec<u8>, CodeObjectError> {
        let most = self.payload.len().saturating_mul(LZ4_MAX_RATIO);
        if expected > most {
            return Err(self.decompress_error(format!(
                "claims {expected} decompressed bytes from {} LZ4 bytes (at most {most})",
                self.payload.len()
            )));
        }
        lz4_flex::block::decompress(self.payload, expected)
            .map_err(|e| self.decompress_error(format!("LZ4: {e}")))
    }

    /// A Zstandard frame, read as it decodes (nothing is allocated ahead of the output) and cut
    /// one byte past `expected` (or [`MAX_DECOMPRESSED`] when the header gives no size).
    fn decompress_zstd(&self, expected: usize) -> Result<Vec<u8>, CodeObjectError> {
        use std::io::Read;
        let limit = if expected == 0 {
            MAX_DECOMPRESSED
        } else {
            expected as u64
        };
        let decoder = ruzstd::decoding::StreamingDecoder::new(self.payload)
            .map_err(|e| self.decompress_error(format!("Zstandard: {e}")))?;
        let mut out = Vec::with_capacity(expected.min(self.payload.len().saturating_mul(8)));
        decoder
            .take(limit + 1)
            .read_to_end(&mut out)
            .map_err(|e| self.decompress_error(format!("Zstandard: {e}")))?;
        if out.len() as u64 > limit {
            return Err(self.decompress_error(format!(
                "decodes to more than the {limit} bytes its header claims"
            )));
        }
        Ok(out)
    }

    fn decompress_error(&self, reason: String) -> CodeObjectError {
        CodeObjectError::Decompress {
            offset: self.offset,
            reason,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn container(header_size: u16, body: &[u8]) -> Vec<u8> {
        let mut bytes = FATBIN_MAGIC.to_le_bytes().to_vec();
        bytes.extend_from_slice(&1u16.to_le_bytes());
        bytes.extend_from_slice(&header_size.to_le_bytes());
        bytes.extend_from_slice(&(body.len() as u64).to_le_bytes());
        bytes.extend_from_slice(body);
        bytes
    }

    #[test]
    fn headers_that_would_not_advance_are_errors() {
        assert!(parse_fatbin(&container(0, &[])).is_err());
        assert_eq!(parse_fatbin(&container(16, &[])).unwrap(), []);
        let mut entry = vec![0u8; 64];
        entry[0] = 1; // PTX
        entry[4] = 8; // header size 8 < 64
        assert!(parse_fatbin(&container(16, &entry)).is_err());
    }

    #[test]
    fn ptx_entry_text_drops_padding() {
        let text = b".version 8.0\n\0\0\0";
        let mut entry = vec![0u8; 64];
        entry[0] = 1;
        entry[4] = 64;
        entry[8] = text.len() as u8;
        entry[28] = 80;
        entry.extend_from_slice(text);
        let bytes = container(16, &entry);
        let entries = parse_fatbin(&bytes).unwrap();
        assert_eq!(entries[0].kind, EntryKind::Ptx);
        assert_eq!(entries[0].arch, 80);
        assert_eq!(entries[0].ptx_text().unwrap(), ".version 8.0\n");
    }
}
