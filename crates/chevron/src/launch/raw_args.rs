//! [`RawArgs`]: an argument list given as the `cuLaunchKernel` array of pointers to values,
//! optionally with the size of each value.
//!
//! C ABIs hand arguments over this way (`chevron_launch` passes `{value, size}` pairs,
//! `mgpuLaunchKernel` and `cudaLaunchKernel` bare pointers). [`crate::Kernel::launch_raw_args`]
//! checks such a list with the same rules as a typed launch: the count against the parameter
//! layout, each size where the caller gave sizes, no NULL value pointer, and the parameter
//! space.

use std::ffi::c_void;

use crate::error::{Error, Result};

/// Pointers to argument values, one per kernel parameter, and optionally their sizes.
#[derive(Debug, Clone, Copy)]
pub struct RawArgs<'a> {
    pointers: &'a [*mut c_void],
    sizes: Option<&'a [usize]>,
}

impl<'a> RawArgs<'a> {
    /// Pointers only: the count is checked, the sizes are the caller's promise.
    pub fn new(pointers: &'a [*mut c_void]) -> RawArgs<'a> {
        RawArgs {
            pointers,
            sizes: None,
        }
    }

    /// Pointers with the size of each value, checked against the parameter layout. The two
    /// slices must have the same length.
    pub fn with_sizes(pointers: &'a [*mut c_void], sizes: &'a [usize]) -> Result<RawArgs<'a>> {
        if pointers.len() != sizes.len() {
            return Err(Error::InvalidValue {
                call: "RawArgs::with_sizes",
                message: format!(
                    "{} argument pointers but {} sizes",
                    pointers.len(),
                    sizes.len()
                ),
            });
        }
        Ok(RawArgs {
            pointers,
            sizes: Some(sizes),
        })
    }

    /// The pointers to the values.
    pub fn pointers(&self) -> &'a [*mut c_void] {
        self.pointers
    }

    /// The sizes, when the caller gave them.
    pub fn sizes(&self) -> Option<&'a [usize]> {
        self.sizes
    }

    /// The number of arguments.
    pub fn len(&self) -> usize {
        self.pointers.len()
    }

    /// Whether there are no arguments.
    pub fn is_empty(&self) -> bool {
        self.pointers.is_empty()
    }

    /// The total size of the values when the sizes are known, else 0.
    pub(crate) fn passed_bytes(&self) -> u64 {
        self.sizes
            .map_or(0, |sizes| sizes.iter().map(|&s| s as u64).sum())
    }
}

impl<'a> From<&'a [*mut c_void]> for RawArgs<'a> {
    fn from(pointers: &'a [*mut c_void]) -> RawArgs<'a> {
        RawArgs::new(pointers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_must_match_the_pointers() {
        let mut value = 7u32;
        let pointers = [(&mut value as *mut u32).cast::<c_void>()];
        let args = RawArgs::with_sizes(&pointers, &[4]).unwrap();
        assert_eq!((args.len(), args.passed_bytes()), (1, 4));
        let err = RawArgs::with_sizes(&pointers, &[4, 8]).unwrap_err();
        assert!(
            err.to_string().contains("1 argument pointers but 2 sizes"),
            "{err}"
        );
        assert_eq!(RawArgs::new(&pointers).passed_bytes(), 0);
    }
}
