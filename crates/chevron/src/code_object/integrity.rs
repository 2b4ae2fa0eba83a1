//! Whether a fatbin is intact, and how far a fatbin found in memory reaches. Every size and
//! offset a fatbin holds is checked against the bytes there are before anything is read through
//! it; what does not fit is reported as corrupted, with the byte offset where it was found.

use super::elf::Cubin;
use super::fatbin::{parse_fatbin, EntryKind, FATBIN_MAGIC};
use super::CodeObjectError;

/// Bytes of a fatbin container's header that are read: `u32` magic, `u16` version, `u16`
/// header size, `u64` size of the entries.
const CONTAINER_HEADER: usize = 16;

fn corrupted(at: usize, what: String) -> CodeObjectError {
    CodeObjectError::Corrupted(format!("fatbin at byte {at}: {what}"))
}

/// The fatbin container at the start of `bytes`: its header and the entries it announces,
/// checked against `bytes`, which may run on past it (e.g. to the end of the memory holding an
/// executable's `.nv_fatbin` section).
pub fn container_extent(bytes: &[u8]) -> Result<&[u8], CodeObjectError> {
    let Some(header) = bytes.get(..CONTAINER_HEADER) else {
        return Err(corrupted(
            0,
            format!(
                "a container header is {CONTAINER_HEADER} bytes, only {} are readable",
                bytes.len()
            ),
        ));
    };
    let word = |range: std::ops::Range<usize>| {
        header[range]
            .iter()
            .rev()
            .fold(0u64, |value, &b| value << 8 | u64::from(b))
    };
    let magic = word(0..4) as u32;
    if magic != FATBIN_MAGIC {
        return Err(corrupted(
            0,
            format!("magic {magic:#x}, not the fatbin magic {FATBIN_MAGIC:#x}"),
        ));
    }
    let header_size = word(6..8);
    let fat_size = word(8..16);
    if header_size < CONTAINER_HEADER as u64 {
        return Err(corrupted(
            6,
            format!("container header size {header_size} is less than {CONTAINER_HEADER}"),
        ));
    }
    match header_size
        .checked_add(fat_size)
        .filter(|&end| end <= bytes.len() as u64)
    {
        Some(end) => Ok(&bytes[..end as usize]),
        None => Err(corrupted(
            6,
            format!(
                "the container claims a {header_size}-byte header and {fat_size} bytes of \
                 entries, only {} bytes are readable",
                bytes.len()
            ),
        )),
    }
}

/// Checks a whole fatbin before it is used: its containers and entry headers (see
/// [`parse_fatbin`]), that every compressed entry decompresses to the size it claims, and that
/// every cubin entry's ELF header, section and symbol tables and `.nv.info` records lie inside
/// the entry. A cubin of a kind chevron does not read (32-bit, another machine) is not
/// corruption and passes.
pub fn check_fatbin(bytes: &[u8]) -> Result<(), CodeObjectError> {
    for entry in parse_fatbin(bytes)? {
        let contents = entry.contents()?;
        if entry.kind != EntryKind::Elf {
            continue;
        }
        if let Err(CodeObjectError::Malformed(reason) | CodeObjectError::Corrupted(reason)) =
            Cubin::parse(&contents)
        {
            return Err(corrupted(
                entry.offset,
                format!("the sm_{} cubin entry: {reason}", entry.arch),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(header_size: u16, fat_size: u64) -> Vec<u8> {
        let mut bytes = FATBIN_MAGIC.to_le_bytes().to_vec();
        bytes.extend_from_slice(&1u16.to_le_bytes());
        bytes.extend_from_slice(&header_size.to_le_bytes());
        bytes.extend_from_slice(&fat_size.to_le_bytes());
        bytes
    }

    #[test]
    fn extent_stops_at_the_announced_entries() {
        let mut bytes = header(16, 8);
        bytes.extend_from_slice(&[7; 20]);
        assert_eq!(container_extent(&bytes).unwrap().len(), 24);
    }

    #[test]
    fn sizes_past_the_readable_bytes_are_corrupted() {
        let mut bytes = header(0xffff, 64);
        bytes.extend_from_slice(&[0; 64]);
        let err = container_extent(&bytes).unwrap_err().to_string();
        assert!(err.contains("corrupted fatbin at byte 6"), "{err}");
        assert!(err.contains("65535-byte header"), "{err}");
        let err = container_extent(&header(16, 1 << 40))
            .unwrap_err()
            .to_string();
        assert!(err.contains("1099511627776 bytes of entries"), "{err}");
        let err = container_extent(&header(16, u64::MAX))
            .unwrap_err()
            .to_string();
        assert!(err.contains("corrupted"), "{err}");
        assert!(container_extent(&header(8, 0)).is_err());
        assert!(container_extent(&header(16, 0)[..10]).is_err());
        assert!(container_extent(b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0").is_err());
    }

    #[test]
    fn a_truncated_cubin_entry_is_corrupted() {
        let mut elf = vec![0u8; 64];
        elf[..6].copy_from_slice(b"\x7fELF\x02\x01");
        elf[18] = 190; // EM_CUDA
        elf[0x28] = 0xff; // e_shoff far past the end
        elf[0x3c] = 4; // e_shnum
        elf[0x3a] = 64; // e_shentsize
        let mut entry = vec![0u8; 64];
        entry[0] = 2; // ELF
        entry[4] = 64;
        entry[8] = elf.len() as u8;
        entry[28] = 90;
        entry.extend_from_slice(&elf);
        let mut bytes = header(16, entry.len() as u64);
        bytes.extend_from_slice(&entry);
        let err = check_fatbin(&bytes).unwrap_err().to_string();
        assert!(
            err.contains("corrupted fatbin at byte 80: the sm_90 cubin entry"),
            "{err}"
        );
    }

    #[test]
    fn a_compressed_size_claim_beyond_the_ratio_is_refused() {
        let mut entry = vec![0u8; 64];
        entry[0] = 1; // PTX
        entry[4] = 64;
        entry[8] = 16; // 16 payload bytes
        entry[40..48].copy_from_slice(&super::super::FLAG_COMPRESSED_LZ4.to_le_bytes());
        entry[56..64].copy_from_slice(&(1u64 << 29).to_le_bytes());
        entry.extend_from_slice(&[0; 16]);
        let mut bytes = header(16, entry.len() as u64);
        bytes.extend_from_slice(&entry);
        let err = check_fatbin(&bytes).unwrap_err().to_string();
        assert!(err.contains("from 16 LZ4 bytes"), "{err}");
    }
}
