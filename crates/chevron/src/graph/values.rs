//! [`ArgValues`]: copies of a launch's argument values, kept after the call that gave them.
//!
//! Graph nodes and launches held back by automatic replay outlive the caller's argument tuple,
//! so the values are copied into 8-byte-aligned slots and handed to the backend as the usual
//! array of pointers.

use std::ffi::c_void;

use crate::error::{Error, Result};
use crate::launch::args::KernelArgs;
use crate::launch::MAX_PARAM_BYTES;

/// The argument values of one launch, each at an 8-byte-aligned offset.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct ArgValues {
    words: Vec<u64>,
    /// (offset in bytes, size in bytes) of each value.
    spans: Vec<(usize, usize)>,
}

impl ArgValues {
    /// Copies the values of `args`. Sizes are checked before anything is copied: no launch
    /// takes more than [`MAX_PARAM_BYTES`] of values, so larger ones are refused.
    pub(crate) fn capture(args: &impl KernelArgs) -> Result<ArgValues> {
        let mut total = 0u64;
        args.visit(&mut |index, arg| {
            total = total.saturating_add(arg.arg_size() as u64);
            if total > MAX_PARAM_BYTES {
                return Err(Error::InvalidValue {
                    call: "Graph::set_args",
                    message: format!(
                        "argument {index} takes {} bytes: launch arguments take at most \
                         {MAX_PARAM_BYTES} bytes together",
                        arg.arg_size()
                    ),
                });
            }
            Ok(())
        })?;
        let mut values = ArgValues::default();
        let _ = args.visit(&mut |_, arg| {
            // SAFETY: a `KernelArg` points to `arg_size()` readable bytes while borrowed.
            unsafe { values.push(arg.arg_ptr(), arg.arg_size()) };
            Ok(())
        });
        Ok(values)
    }

    /// # Safety
    /// `pointer` points to `size` readable bytes.
    unsafe fn push(&mut self, pointer: *const c_void, size: usize) {
        let offset = self.words.len() * 8;
        self.words
            .resize(self.words.len() + size.div_ceil(8).max(1), 0);
        // SAFETY: the source is readable for `size` bytes (caller); the destination was just
        // sized to hold them; the two never overlap (the words are a fresh allocation).
        unsafe {
            std::ptr::copy_nonoverlapping(
                pointer.cast::<u8>(),
                self.words.as_mut_ptr().cast::<u8>().add(offset),
                size,
            );
        }
        self.spans.push((offset, size));
    }

    /// Calls `f` with one pointer per value (the `cuLaunchKernel` convention).
    pub(crate) fn with_pointers<Out>(&self, f: impl FnOnce(&[*mut c_void]) -> Out) -> Out {
        let base = self.words.as_ptr().cast::<u8>();
        let pointers: Vec<*mut c_void> = self
            .spans
            .iter()
            // SAFETY: every offset lies within `words` (set by `push`).
            .map(|&(offset, _)| unsafe { base.add(offset) } as *mut c_void)
            .collect();
        f(&pointers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captured_values_read_back_aligned_and_compare_by_content() {
        let values = ArgValues::capture(&(7u8, 2.5f64, -3i32)).unwrap();
        assert_eq!(values.spans, [(0, 1), (8, 8), (16, 4)]);
        values.with_pointers(|p| {
            assert!(p.iter().all(|q| (*q as usize).is_multiple_of(8)));
            // SAFETY: the pointers point into `values`, alive for this closure.
            unsafe {
                assert_eq!(*(p[0] as *const u8), 7);
                assert_eq!(*(p[1] as *const f64), 2.5);
                assert_eq!(*(p[2] as *const i32), -3);
            }
        });
        assert_eq!(values, ArgValues::capture(&(7u8, 2.5f64, -3i32)).unwrap());
        assert_ne!(values, ArgValues::capture(&(7u8, 2.5f64, 4i32)).unwrap());
    }

    #[test]
    fn values_larger_than_the_parameter_space_are_refused_before_copying() {
        // 2^40 bytes claimed by a one-byte value: reading them would crash, copying abort.
        struct Huge(u8);
        // SAFETY: claims more bytes than it has; the test checks they are never read.
        unsafe impl crate::KernelArg for Huge {
            fn arg_ptr(&self) -> *mut c_void {
                &self.0 as *const u8 as *mut c_void
            }
            fn arg_size(&self) -> usize {
                1 << 40
            }
            fn arg_type_name(&self) -> &'static str {
                "Huge"
            }
        }
        let err = ArgValues::capture(&(1u32, Huge(0)))
            .unwrap_err()
            .to_string();
        assert!(err.contains("1099511627776 bytes"), "{err}");
    }
}
