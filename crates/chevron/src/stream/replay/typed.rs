//! Typed launch arguments as an [`ArgSource`], for the replay tests (test code may use the launch
//! layer above).

use std::ffi::c_void;

use super::args::ArgSource;
use crate::launch::args::{KernelArg, KernelArgs};

/// Typed arguments (launches hand their values over as pointers; tests build sequences from
/// tuples).
pub(crate) struct Typed<'a, A: KernelArgs + ?Sized>(pub &'a A);

impl<A: KernelArgs + ?Sized> ArgSource for Typed<'_, A> {
    #[inline]
    fn count(&self) -> usize {
        self.0.count()
    }

    #[inline]
    fn each(&self, f: &mut dyn FnMut(*const u8, usize) -> bool) -> bool {
        self.0
            .visit(&mut |_, arg: &dyn KernelArg| {
                if f(arg.arg_ptr().cast::<u8>(), arg.arg_size()) {
                    Ok(())
                } else {
                    // Stops the visit; never leaves this function (and allocates nothing).
                    Err(crate::Error::InvalidValue {
                        call: "",
                        message: String::new(),
                    })
                }
            })
            .is_ok()
    }

    #[inline]
    fn with_pointers<Out>(&self, f: impl FnOnce(&[*mut c_void]) -> Out) -> Out {
        self.0.with_pointers(f)
    }
}
