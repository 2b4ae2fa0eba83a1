//! [`ArgSource`]: the argument values of a launch as automatic replay reads them, once, without
//! allocating: an array of pointers with the kernel's parameter layout (every launch hands its
//! values over so), or typed arguments in tests (`typed.rs`).

use std::ffi::c_void;

use chevron_ptx::symbols::ParamLayout;

/// The values of one launch.
pub(crate) trait ArgSource {
    /// How many values.
    fn count(&self) -> usize;

    /// Calls `f(pointer, size)` for each value in order while it returns true; returns whether
    /// every call did.
    fn each(&self, f: &mut dyn FnMut(*const u8, usize) -> bool) -> bool;

    /// Calls `f` with one pointer per value (the `cuLaunchKernel` convention).
    fn with_pointers<Out>(&self, f: impl FnOnce(&[*mut c_void]) -> Out) -> Out;
}

/// Pointers to values laid out as `params` says (one pointer per parameter, each to a readable
/// value of the parameter's size: the caller of `launch_raw` guarantees it).
pub(crate) struct Raw<'a> {
    pub pointers: &'a [*mut c_void],
    pub params: &'a [ParamLayout],
}

impl ArgSource for Raw<'_> {
    #[inline]
    fn count(&self) -> usize {
        self.pointers.len()
    }

    #[inline]
    fn each(&self, f: &mut dyn FnMut(*const u8, usize) -> bool) -> bool {
        self.pointers
            .iter()
            .zip(self.params)
            .all(|(&pointer, param)| f(pointer.cast::<u8>(), param.size as usize))
    }

    #[inline]
    fn with_pointers<Out>(&self, f: impl FnOnce(&[*mut c_void]) -> Out) -> Out {
        f(self.pointers)
    }
}

/// Calls `f` with one pointer per value stored in `words` at the byte `offsets` (a stack array
/// for up to 32 values).
pub(crate) fn pointers_into<Out>(
    words: &[u64],
    offsets: &[u32],
    f: impl FnOnce(&[*mut c_void]) -> Out,
) -> Out {
    let base = words.as_ptr().cast::<u8>();
    let at = |&offset: &u32| {
        // SAFETY: every offset lies within `words` (set when the layout was made).
        unsafe { base.add(offset as usize) as *mut c_void }
    };
    const STACK: usize = 32;
    if offsets.len() <= STACK {
        let mut array = [std::ptr::null_mut(); STACK];
        for (slot, offset) in array.iter_mut().zip(offsets) {
            *slot = at(offset);
        }
        f(&array[..offsets.len()])
    } else {
        let pointers: Vec<*mut c_void> = offsets.iter().map(at).collect();
        f(&pointers)
    }
}
