//! The length of a code object the driver API receives as a bare pointer
//! (`cuModuleLoadData`, `cuLibraryLoadData`, `cuLinkAddData` without a size): an ELF cubin's
//! extent from its headers, a fatbin's from its header, a fatbin wrapper's fatbin, else
//! NUL-terminated PTX text.

use std::ffi::{c_void, CStr};

use crate::result::{DriverError, DriverResult, INVALID_IMAGE, INVALID_VALUE};

const FATBIN_MAGIC: u32 = 0xBA55_ED50;
const FATBIN_WRAPPER_MAGIC: u32 = 0x4662_43B1;

/// Reads `len` bytes at `at` as little-endian.
///
/// # Safety
/// `at..at + len` is readable.
unsafe fn read_le(at: *const u8, len: usize) -> u64 {
    let mut value = 0u64;
    for i in (0..len).rev() {
        // SAFETY: within the readable range, by the caller's guarantee.
        value = (value << 8) | u64::from(unsafe { *at.add(i) });
    }
    value
}

/// The code object at `image` as a byte slice.
///
/// # Safety
/// `image` points to a whole cubin, fatbin, fatbin wrapper or NUL-terminated PTX text that
/// stays alive for `'a`.
pub unsafe fn image_bytes<'a>(image: *const c_void) -> DriverResult<&'a [u8]> {
    if image.is_null() {
        return Err(DriverError::new(INVALID_VALUE, "image is NULL"));
    }
    let at = image.cast::<u8>();
    // SAFETY: every code object is at least 16 bytes, or NUL-terminated text shorter than
    // that whose first bytes cannot be a magic number; the reads below stay in the headers.
    let magic = unsafe { read_le(at, 4) };
    let len = if magic == u64::from(FATBIN_WRAPPER_MAGIC) {
        // SAFETY: a wrapper is { int magic; int version; const void* data; … }.
        let data = unsafe { read_le(at.add(8), 8) } as usize as *const c_void;
        // SAFETY: the wrapper's data is a fatbin, by the caller's guarantee.
        return unsafe { image_bytes(data) };
    } else if magic == u64::from(FATBIN_MAGIC) {
        // SAFETY: the fatbin header: magic, version (u16), header size (u16), size (u64).
        let (header, body) = unsafe { (read_le(at.add(6), 2), read_le(at.add(8), 8)) };
        (header + body) as usize
    } else if magic == 0x464c_457f {
        // SAFETY: an ELF header, by the magic.
        unsafe { elf_len(at)? }
    } else {
        // SAFETY: NUL-terminated text by the caller's guarantee.
        unsafe { CStr::from_ptr(image.cast()) }.to_bytes().len()
    };
    // SAFETY: the image's extent as its own headers give it.
    Ok(unsafe { std::slice::from_raw_parts(at, len) })
}

/// The extent of a 64-bit ELF file: the furthest of its header tables and of the contents of
/// its sections and segments.
///
/// # Safety
/// `at` points to a whole ELF file.
unsafe fn elf_len(at: *const u8) -> DriverResult<usize> {
    // SAFETY: reads of the ELF header and of the tables it locates (caller's guarantee).
    unsafe {
        if *at.add(4) != 2 {
            return Err(DriverError::new(INVALID_IMAGE, "a 32-bit ELF image"));
        }
        let (phoff, shoff) = (read_le(at.add(0x20), 8), read_le(at.add(0x28), 8));
        let (phentsize, phnum) = (read_le(at.add(0x36), 2), read_le(at.add(0x38), 2));
        let (shentsize, shnum) = (read_le(at.add(0x3a), 2), read_le(at.add(0x3c), 2));
        let mut end = (phoff + phentsize * phnum)
            .max(shoff + shentsize * shnum)
            .max(64);
        for i in 0..shnum {
            let header = at.add((shoff + i * shentsize) as usize);
            let kind = read_le(header.add(4), 4);
            if kind != 8 {
                end = end.max(read_le(header.add(0x18), 8) + read_le(header.add(0x20), 8));
            }
        }
        for i in 0..phnum {
            let header = at.add((phoff + i * phentsize) as usize);
            end = end.max(read_le(header.add(8), 8) + read_le(header.add(0x20), 8));
        }
        usize::try_from(end).map_err(|_| DriverError::new(INVALID_IMAGE, "an ELF image too large"))
    }
}

#[cfg(test)]
mod tests {
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
}
