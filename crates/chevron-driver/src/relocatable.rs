//! Loading relocatable device code (`nvcc -rdc=true`) handed over as the device link's fatbin
//! wrapper, as NVIDIA's statically linked runtime does (`cuLibraryLoadData` with
//! `__fatDeviceText`).
//!
//! nvcc's device link step (`crt/link.stub`) builds a version-2 fatbin wrapper: its data is
//! the *linked* fatbin, which holds SASS only, and its last field a NULL-terminated array of
//! the translation units' own fatbins (`__cudaPrelinkedFatbins`, each with the unit's PTX).
//! A GPU the linked SASS was built for loads it; the CPU device, and a GPU of another
//! architecture, get the units' PTX linked by chevron-ptx's linker — the same path
//! `chevron-cudart` takes for `-cudart shared` programs ([`cudart::registry::register_fatbin`]). Other images are not this module's concern.

use std::ffi::{c_int, c_void};

use chevron::Module;
use cudart::registry::register_fatbin;
use cudart::state;

use crate::result::DriverResult;

/// `__fatBinC_Wrapper_t`'s magic number.
const WRAPPER_MAGIC: u32 = 0x4662_43B1;
/// The wrapper version whose last field lists the translation units' fatbins.
const LINKED_VERSION: u32 = 2;

/// When `image` is a device link's wrapper listing translation units: the module loaded on
/// device `ordinal`, with the PTX and binary versions of the code the device runs. `None` for
/// any other image. `source` names the entry point, for errors.
///
/// # Safety
/// `image` is a whole code object (see [`crate::image::image_bytes`]).
pub unsafe fn linked_module(
    image: *const c_void,
    ordinal: usize,
    source: &str,
) -> DriverResult<Option<(Module, (c_int, c_int))>> {
    // SAFETY: forwarded from the caller.
    if !unsafe { lists_units(image) } {
        return Ok(None);
    }
    let device = &state::device(ordinal)?.device;
    // SAFETY: a wrapper whose fatbins are the program's, mapped for its whole life.
    let fatbin = unsafe { register_fatbin(image) }?;
    let module = fatbin.module(ordinal, source)?;
    let versions = fatbin.code_versions(&device.code_targets());
    let (major, minor) = device.compute_capability();
    let arch = (major * 10 + minor) as c_int;
    let ptx = versions.ptx.map_or(arch, |v| v as c_int);
    let binary = versions.cubin.map_or(arch, |v| v as c_int);
    Ok(Some((module, (ptx, binary))))
}

/// Whether `image` is a version-2 fatbin wrapper listing translation units.
///
/// # Safety
/// `image` is NULL or a whole code object: at least 16 readable bytes, or NUL-terminated text
/// whose first bytes are not the wrapper's magic number.
unsafe fn lists_units(image: *const c_void) -> bool {
    if image.is_null() {
        return false;
    }
    let words = image.cast::<u32>();
    // SAFETY: the first 8 bytes are readable (caller's guarantee); unaligned reads.
    let (magic, version) = unsafe { (words.read_unaligned(), words.add(1).read_unaligned()) };
    if magic != WRAPPER_MAGIC || version != LINKED_VERSION {
        return false;
    }
    // SAFETY: a wrapper is `{ int magic; int version; const void *data; void **units; }`.
    let units = unsafe {
        image
            .cast::<u8>()
            .add(16)
            .cast::<*const c_void>()
            .read_unaligned()
    };
    !units.is_null()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_version_2_wrapper_with_units_lists_them() {
        let units = [0usize; 1];
        let wrapper = |version: u32, units: usize| -> [u64; 3] {
            [
                u64::from(WRAPPER_MAGIC) | u64::from(version) << 32,
                0x1000,
                units as u64,
            ]
        };
        let linked = wrapper(LINKED_VERSION, units.as_ptr() as usize);
        let plain = wrapper(1, units.as_ptr() as usize);
        let no_units = wrapper(LINKED_VERSION, 0);
        // SAFETY: each is 24 readable bytes.
        unsafe {
            assert!(lists_units(linked.as_ptr().cast()));
            assert!(!lists_units(plain.as_ptr().cast()));
            assert!(!lists_units(no_units.as_ptr().cast()));
            let text = [b".version 8.0\n".as_slice(), &[0; 3]].concat();
            assert!(!lists_units(text.as_ptr().cast()));
            assert!(!lists_units(std::ptr::null()));
        }
    }
}
