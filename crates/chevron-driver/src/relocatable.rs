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

use chevron::code_object::readable_from;
use chevron::Module;
use cudart::registry::register_fatbin;
use cudart::state;

use crate::image::read_le;
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

/// Whether `image` is a version-2 fatbin wrapper listing translation units (read within the
/// memory holding it: a shorter image is not one).
///
/// # Safety
/// `image` is NULL or points into memory that stays mapped during the call.
unsafe fn lists_units(image: *const c_void) -> bool {
    if image.is_null() {
        return false;
    }
    // SAFETY: the caller keeps the memory mapped.
    let Some(mapped) = (unsafe { readable_from(image.cast()) }) else {
        return false;
    };
    // A wrapper is `{ int magic; int version; const void *data; void **units; }`.
    read_le(mapped, 0, 4) == Some(u64::from(WRAPPER_MAGIC))
        && read_le(mapped, 4, 4) == Some(u64::from(LINKED_VERSION))
        && read_le(mapped, 16, 8).is_some_and(|units| units != 0)
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

    #[test]
    fn a_short_image_at_the_end_of_memory_is_not_read_past() {
        let magic = WRAPPER_MAGIC.to_le_bytes();
        for bytes in [
            &magic[..],
            &[magic.as_slice(), &[2, 0, 0, 0]].concat(),
            b"\0\0\0\xff/ G",
        ] {
            let at = crate::image::tests::before_a_guard_page(bytes);
            // SAFETY: the page stays mapped; reads are bounded before the guard page.
            assert!(!unsafe { lists_units(at.cast()) });
        }
    }
}
