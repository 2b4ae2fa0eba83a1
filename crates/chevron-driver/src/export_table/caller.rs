//! The caller of an exported function, for reports: its return address and the shared
//! object (and offset in it) that address lies in, through glibc's `backtrace` and `dladdr`.

use std::ffi::{c_char, c_int, c_void, CStr};

/// glibc's `Dl_info`.
#[repr(C)]
struct DlInfo {
    dli_fname: *const c_char,
    dli_fbase: *mut c_void,
    dli_sname: *const c_char,
    dli_saddr: *mut c_void,
}

extern "C" {
    fn backtrace(buffer: *mut *mut c_void, size: c_int) -> c_int;
    fn dladdr(address: *const c_void, info: *mut DlInfo) -> c_int;
}

/// The return address of the function that called this one's caller (0 if unknown).
#[inline(never)]
pub fn return_address() -> usize {
    let mut frames = [std::ptr::null_mut::<c_void>(); 3];
    // SAFETY: `frames` holds 3 entries, as passed.
    let depth = unsafe { backtrace(frames.as_mut_ptr(), 3) };
    // Frame 0: here; 1: the exported function; 2: its caller.
    if depth >= 3 {
        frames[2] as usize
    } else {
        0
    }
}

/// What `dladdr` knows of `address`: `None` where no loaded object holds it.
fn lookup(address: usize) -> Option<DlInfo> {
    let mut info = DlInfo {
        dli_fname: std::ptr::null(),
        dli_fbase: std::ptr::null_mut(),
        dli_sname: std::ptr::null(),
        dli_saddr: std::ptr::null_mut(),
    };
    // SAFETY: `info` is a writable `Dl_info`; dladdr compares the address with the loaded
    // objects' ranges and never dereferences it.
    let found = address != 0 && unsafe { dladdr(address as *const c_void, &mut info) } != 0;
    found.then_some(info)
}

/// `address` as `object+0xoffset` (the object's file name without its directory), or the
/// bare address where no loaded object holds it.
pub fn describe(address: usize) -> String {
    let Some(info) = lookup(address).filter(|info| !info.dli_fname.is_null()) else {
        return format!("{address:#x}");
    };
    // SAFETY: dladdr's file name is a NUL-terminated string owned by the loader.
    let path = unsafe { CStr::from_ptr(info.dli_fname) }.to_string_lossy();
    let object = path.rsplit('/').next().unwrap_or(&path);
    let object = if object.is_empty() {
        "the program"
    } else {
        object
    };
    let offset = address.wrapping_sub(info.dli_fbase as usize);
    format!("{object}+{offset:#x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_in_a_loaded_object_is_named_with_its_offset() {
        let here = describe(describe as *const () as usize);
        assert!(here.contains("+0x"), "{here}");
        assert_eq!(describe(0), "0x0");
    }
}
