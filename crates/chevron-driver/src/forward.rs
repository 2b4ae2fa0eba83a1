//! Driver functions that are the runtime's function of the same meaning: [`through`] calls
//! one after the driver's initialisation check and turns its `cudaError_t` into a `CUresult`;
//! [`forward!`] writes the exported functions whose arguments are the runtime function's, in
//! order (the driver's and the runtime's structures and handles are the same).

use std::ffi::c_int;

use crate::memory::enter;
use crate::result::{runtime, DriverResult};

/// Runs the runtime call `call` after the driver's initialisation check.
pub fn through(call: impl FnOnce() -> c_int) -> DriverResult {
    enter()?;
    runtime(call())
}

/// Exports driver functions that forward to the runtime function given for each, with the
/// same arguments.
macro_rules! forward {
    ($($(#[$doc:meta])* $name:ident => $target:path, ($($arg:ident: $ty:ty),*);)*) => {
        $(
            $(#[$doc])*
            ///
            /// # Safety
            /// The pointers are NULL or valid as the CUDA driver API documents them.
            #[no_mangle]
            #[allow(unused_unsafe)]
            pub unsafe extern "C" fn $name($($arg: $ty),*) -> $crate::result::CUresult {
                $crate::result::entry(stringify!($name), || {
                    // SAFETY: forwarded from the caller, as the runtime function takes them.
                    $crate::forward::through(|| unsafe { $target($($arg),*) })
                })
            }
        )*
    };
}
