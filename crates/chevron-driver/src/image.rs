//! The length of a code object the driver API receives as a bare pointer
//! (`cuModuleLoadData`, `cuLibraryLoadData`, `cuLinkAddData` without a size): an ELF cubin's
//! extent from its headers, a fatbin's from its header, a fatbin wrapper's fatbin, else
//! NUL-terminated PTX text; every read bounded by the readable memory that holds the image.

use std::ffi::c_void;

use chevron::code_object::{container_extent, readable_from};

use crate::result::{DriverError, DriverResult, INVALID_IMAGE, INVALID_VALUE};

const FATBIN_MAGIC: u32 = 0xBA55_ED50;
const FATBIN_WRAPPER_MAGIC: u32 = 0x4662_43B1;

/// `bytes[at..at + len]` as a little-endian number, if `bytes` holds it.
pub(crate) fn read_le(bytes: &[u8], at: usize, len: usize) -> Option<u64> {
    let field = bytes.get(at..at.checked_add(len)?)?;
    Some(
        field
            .iter()
            .rev()
            .fold(0, |value, &b| value << 8 | u64::from(b)),
    )
}

/// A corrupted image: what is wrong, at which byte.
fn corrupted(at: u64, what: impl std::fmt::Display) -> DriverError {
    DriverError::new(INVALID_IMAGE, format!("image byte {at}: {what}"))
}

/// The code object at `image` as a byte slice: its extent from its own headers, every read
/// bounded by the readable memory holding `image` (the loaded segment or mapping), so headers
/// that claim more than is there are `CUDA_ERROR_INVALID_IMAGE` naming the byte, never a
/// read past the memory.
///
/// # Safety
/// `image` points to a whole cubin, fatbin, fatbin wrapper or NUL-terminated PTX text that
/// stays alive for `'a`.
pub unsafe fn image_bytes<'a>(image: *const c_void) -> DriverResult<&'a [u8]> {
    if image.is_null() {
        return Err(DriverError::new(INVALID_VALUE, "image is NULL"));
    }
    // SAFETY: the caller keeps the image, and so the memory holding it, alive.
    let Some(mapped) = (unsafe { readable_from(image.cast()) }) else {
        return Err(DriverError::new(
            INVALID_VALUE,
            format!("image {image:p} is not readable memory"),
        ));
    };
    let magic = read_le(mapped, 0, 4);
    if magic == Some(u64::from(FATBIN_WRAPPER_MAGIC)) {
        // A wrapper is { int magic; int version; const void* data; … }.
        let data = read_le(mapped, 8, 8)
            .ok_or_else(|| corrupted(8, "a fatbin wrapper cut short before its data pointer"))?;
        // SAFETY: the wrapper's data is a fatbin, by the caller's guarantee (and bounded in
        // turn by the memory holding it).
        return unsafe { image_bytes(data as usize as *const c_void) };
    }
    let len = if mapped.first() == Some(&0) {
        return Err(corrupted(0, "an empty image (its first byte is NUL)"));
    } else if magic == Some(u64::from(FATBIN_MAGIC)) {
        container_extent(mapped)
            .map_err(|e| DriverError::new(INVALID_IMAGE, e.to_string()))?
            .len()
    } else if magic == Some(0x464c_457f) {
        elf_len(mapped)?
    } else {
        mapped.iter().position(|&b| b == 0).ok_or_else(|| {
            corrupted(
                mapped.len() as u64,
                "PTX text runs to the end of readable memory without a NUL",
            )
        })?
    };
    Ok(&mapped[..len])
}

/// The extent of the 64-bit ELF file at the start of `mapped`: the furthest of its header
/// tables and of the contents of its sections and segments, each within `mapped`.
fn elf_len(mapped: &[u8]) -> DriverResult<usize> {
    let field = |at: u64, len: usize| {
        usize::try_from(at)
            .ok()
            .and_then(|at| read_le(mapped, at, len))
            .ok_or_else(|| {
                corrupted(
                    at,
                    format!("past the {} readable bytes of the ELF image", mapped.len()),
                )
            })
    };
    if field(4, 1)? != 2 {
        return Err(DriverError::new(INVALID_IMAGE, "a 32-bit ELF image"));
    }
    let (phoff, shoff) = (field(0x20, 8)?, field(0x28, 8)?);
    let (phentsize, phnum) = (field(0x36, 2)?, field(0x38, 2)?);
    let (shentsize, shnum) = (field(0x3a, 2)?, field(0x3c, 2)?);
    // Offsets and sizes are at most 2^64 - 1 and counts 2^16: u128 sums cannot overflow.
    let mut end = (u128::from(phoff) + u128::from(phentsize) * u128::from(phnum))
        .max(u128::from(shoff) + u128::from(shentsize) * u128::from(shnum))
        .max(64);
    let extent = |end: u128, at: u64| -> DriverResult<u128> {
        if end > mapped.len() as u128 {
            return Err(corrupted(
                at,
                format!(
                    "the ELF headers place {end} bytes, past the {} readable",
                    mapped.len()
                ),
            ));
        }
        Ok(end)
    };
    extent(end, 0x20)?;
    for i in 0..shnum {
        let header = shoff + i * shentsize;
        if field(header + 4, 4)? != 8 {
            let (offset, size) = (field(header + 0x18, 8)?, field(header + 0x20, 8)?);
            end = end.max(extent(
                u128::from(offset) + u128::from(size),
                header + 0x18,
            )?);
        }
    }
    for i in 0..phnum {
        let header = phoff + i * phentsize;
        let (offset, size) = (field(header + 8, 8)?, field(header + 0x20, 8)?);
        end = end.max(extent(u128::from(offset) + u128::from(size), header + 8)?);
    }
    Ok(end as usize)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn text_ends_at_its_nul_and_a_fatbin_at_its_header_size() {
        let text = b".version 8.0\n\0garbage";
        // SAFETY: NUL-terminated.
        let bytes = unsafe { image_bytes(text.as_ptr().cast()) }.unwrap();
        assert_eq!(bytes, b".version 8.0\n");
        let mut fatbin = [0u8; 64];
        fatbin[..4].copy_from_slice(&FATBIN_MAGIC.to_le_bytes());
        fatbin[6..8].copy_from_slice(&16u16.to_le_bytes());
        fatbin[8..16].copy_from_slice(&24u64.to_le_bytes());
        // SAFETY: 64 readable bytes, 40 of them the fatbin.
        let bytes = unsafe { image_bytes(fatbin.as_ptr().cast()) }.unwrap();
        assert_eq!(bytes.len(), 40);
    }

    /// A 64-bit ELF header whose section table is at `shoff`, with `shnum` entries.
    fn elf_header(shoff: u64, shnum: u16) -> Vec<u8> {
        let mut elf = vec![0u8; 4096];
        elf[..4].copy_from_slice(&[0x7f, b'E', b'L', b'F']);
        elf[4] = 2;
        elf[0x28..0x30].copy_from_slice(&shoff.to_le_bytes());
        elf[0x3a..0x3c].copy_from_slice(&64u16.to_le_bytes());
        elf[0x3c..0x3e].copy_from_slice(&shnum.to_le_bytes());
        elf
    }

    #[test]
    fn headers_that_claim_more_than_readable_memory_are_an_invalid_image() {
        // A section table, or a section, placed 2^60 bytes on: past any mapping.
        let elf = elf_header(1 << 60, 1);
        // SAFETY: 4096 readable bytes; the reads are bounded by the memory holding them.
        let error = unsafe { image_bytes(elf.as_ptr().cast()) }.unwrap_err();
        assert_eq!(error.code, INVALID_IMAGE);
        assert!(error.message.contains("image byte 32"), "{}", error.message);
        let mut elf = elf_header(64, 1);
        elf[64 + 4] = 1; // SHT_PROGBITS
        elf[64 + 0x18..64 + 0x20].copy_from_slice(&u64::MAX.to_le_bytes());
        elf[64 + 0x20..64 + 0x28].copy_from_slice(&u64::MAX.to_le_bytes());
        // SAFETY: as above.
        let error = unsafe { image_bytes(elf.as_ptr().cast()) }.unwrap_err();
        assert_eq!(error.code, INVALID_IMAGE);
        assert!(error.message.contains("image byte 88"), "{}", error.message);
        // A fatbin whose size runs past the memory.
        let mut fatbin = [0u8; 64];
        fatbin[..4].copy_from_slice(&FATBIN_MAGIC.to_le_bytes());
        fatbin[6..8].copy_from_slice(&16u16.to_le_bytes());
        fatbin[8..16].copy_from_slice(&(u64::MAX - 8).to_le_bytes());
        // SAFETY: as above.
        let error = unsafe { image_bytes(fatbin.as_ptr().cast()) }.unwrap_err();
        assert_eq!(error.code, INVALID_IMAGE);
    }

    #[test]
    fn an_image_outside_readable_memory_is_an_invalid_value() {
        // SAFETY: never read: no mapping holds the first page.
        let error = unsafe { image_bytes(16 as *const c_void) }.unwrap_err();
        assert_eq!(error.code, INVALID_VALUE);
    }

    /// `bytes` copied to the end of a fresh page whose next page is inaccessible: a read past
    /// them faults. The pages are never unmapped (a test process is short-lived).
    pub(crate) fn before_a_guard_page(bytes: &[u8]) -> *const u8 {
        assert!(bytes.len() <= 4096);
        // SAFETY: a fresh anonymous mapping of two pages, the second made inaccessible; the
        // copy stays within the first.
        unsafe {
            let pages = libc::mmap(
                std::ptr::null_mut(),
                8192,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
            .cast::<u8>();
            assert_ne!(pages, libc::MAP_FAILED.cast::<u8>());
            assert_eq!(
                libc::mprotect(pages.add(4096).cast(), 4096, libc::PROT_NONE),
                0
            );
            let at = pages.add(4096 - bytes.len());
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), at, bytes.len());
            at
        }
    }

    #[test]
    fn images_cut_short_at_the_end_of_memory_are_invalid_not_read_past() {
        let code = |bytes: &[u8]| {
            // SAFETY: the bytes end at an inaccessible page; reads are bounded before it.
            unsafe { image_bytes(before_a_guard_page(bytes).cast()) }
                .map(<[u8]>::len)
                .map_err(|e| e.code)
        };
        assert_eq!(code(b".version 8.0\n.target sm_90"), Err(INVALID_IMAGE)); // no NUL
        assert_eq!(code(b".version 8.0\n\0"), Ok(13));
        assert_eq!(code(b"\0\0\0\xff/ G"), Err(INVALID_IMAGE)); // empty text
        assert_eq!(code(&FATBIN_MAGIC.to_le_bytes()), Err(INVALID_IMAGE)); // header cut short
        assert_eq!(
            code(&FATBIN_WRAPPER_MAGIC.to_le_bytes()),
            Err(INVALID_IMAGE)
        );
        assert_eq!(code(&elf_header(64, 1)[..40]), Err(INVALID_IMAGE));
    }
}
