//! How far the memory of the running process may be read from an address: to the end of the
//! loaded segment holding it (the program headers `dl_iterate_phdr` reports), or, for memory no
//! loaded object holds, to the end of its mapping in `/proc/self/maps`. The CUDA runtime ABI
//! bounds the fatbin an executable registers by it, so that no size the fatbin claims is read
//! past the memory that holds it.

use std::ffi::c_void;

/// The readable bytes from `address` to the end of the loaded segment or memory mapping that
/// holds it; `None` when no readable segment or mapping holds it.
///
/// # Safety
/// The memory holding `address` must stay mapped while the slice is used (for a fatbin: until
/// it is unregistered).
pub unsafe fn readable_from(address: *const u8) -> Option<&'static [u8]> {
    let end = segment_end(address as usize).or_else(|| mapping_end(address as usize))?;
    let len = end.checked_sub(address as usize).filter(|&len| len > 0)?;
    // SAFETY: `address..end` lies in one readable segment or mapping, which the caller keeps
    // mapped.
    Some(unsafe { std::slice::from_raw_parts(address, len) })
}

/// What the `dl_iterate_phdr` callback looks for and finds.
struct Search {
    address: usize,
    end: Option<usize>,
}

/// The end of the readable `PT_LOAD` segment of a loaded object that holds `address`.
fn segment_end(address: usize) -> Option<usize> {
    let mut search = Search { address, end: None };
    // SAFETY: the callback only reads the program headers the loader hands it, and `search`
    // outlives the call.
    unsafe {
        libc::dl_iterate_phdr(
            Some(visit_object),
            (&mut search as *mut Search).cast::<c_void>(),
        );
    }
    search.end
}

/// `dl_iterate_phdr`'s callback: records the end of the segment holding the address; 1 stops.
unsafe extern "C" fn visit_object(
    info: *mut libc::dl_phdr_info,
    _size: usize,
    data: *mut c_void,
) -> libc::c_int {
    // SAFETY: `data` is the `Search` that `segment_end` passed; `info` is valid for the call.
    let (search, info) = unsafe { (&mut *data.cast::<Search>(), &*info) };
    if info.dlpi_phdr.is_null() {
        return 0;
    }
    // SAFETY: the loader hands `dlpi_phnum` program headers at `dlpi_phdr`.
    let headers =
        unsafe { std::slice::from_raw_parts(info.dlpi_phdr, usize::from(info.dlpi_phnum)) };
    for header in headers {
        if header.p_type != libc::PT_LOAD || header.p_flags & libc::PF_R == 0 {
            continue;
        }
        let start = (info.dlpi_addr as usize).wrapping_add(header.p_vaddr as usize);
        let Some(end) = start.checked_add(header.p_memsz as usize) else {
            continue;
        };
        if (start..end).contains(&search.address) {
            search.end = Some(end);
            return 1;
        }
    }
    0
}

/// The end of the readable mapping in `/proc/self/maps` that holds `address`.
fn mapping_end(address: usize) -> Option<usize> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines().find_map(|line| {
        let mut fields = line.split_ascii_whitespace();
        let (start, end) = fields.next()?.split_once('-')?;
        let readable = fields.next()?.starts_with('r');
        let start = usize::from_str_radix(start, 16).ok()?;
        let end = usize::from_str_radix(end, 16).ok()?;
        (readable && (start..end).contains(&address)).then_some(end)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    static IN_THE_EXECUTABLE: [u8; 32] = [5; 32];

    #[test]
    fn a_static_reaches_to_its_segment_end() {
        // SAFETY: a static stays mapped.
        let bytes = unsafe { readable_from(IN_THE_EXECUTABLE.as_ptr()) }.unwrap();
        assert!(bytes.len() >= 32);
        assert_eq!(&bytes[..32], &IN_THE_EXECUTABLE);
    }

    #[test]
    fn heap_memory_reaches_to_its_mapping_end() {
        let boxed = vec![9u8; 1 << 20];
        // SAFETY: `boxed` outlives the slice.
        let bytes = unsafe { readable_from(boxed.as_ptr()) }.unwrap();
        assert!(bytes.len() >= boxed.len());
        assert_eq!(bytes[(1 << 20) - 1], 9);
    }

    #[test]
    fn unmapped_addresses_are_none() {
        // SAFETY: nothing is read when the answer is `None`.
        assert!(unsafe { readable_from(std::ptr::null()) }.is_none());
        // SAFETY: as above: the top page of the address space is never mapped in user space.
        assert!(unsafe { readable_from(usize::MAX as *const u8) }.is_none());
    }
}
