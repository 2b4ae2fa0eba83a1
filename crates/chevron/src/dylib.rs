//! Curated tables of C entry points from libraries opened at run time (never linked): the CUDA
//! driver (`backend/cuda/sys.rs`), NVRTC (`jit/nvrtc.rs`), and later nvJitLink or HIP.
//!
//! [`library_table!`] declares a table as a struct of function pointers, each resolved by its
//! exported name when the library is opened; entries under `optional` exist only in newer
//! versions and are `None` when missing. Every failure is a message naming the library (where
//! it was found) and the missing symbol, with the system's own reason, never a panic.

use std::ffi::OsStr;

use libloading::Library;

/// Opens the library at `path` (a file or a name the loader searches for); the error is the
/// system's, which names it (`dlopen failed: libcuda.so.1: cannot open shared object file`).
pub(crate) fn open(path: impl AsRef<OsStr>) -> Result<Library, String> {
    // SAFETY: the libraries opened here (the CUDA driver, NVRTC and its builtins) run
    // initializers without preconditions.
    unsafe { Library::new(path.as_ref()) }.map_err(|err| with_source(&err))
}

/// Resolves `symbol` (without a trailing NUL) of `library`, found at `source`.
///
/// # Safety
/// `T` is the exported symbol's type: a function pointer of its C signature.
pub(crate) unsafe fn symbol<T: Copy>(
    library: &Library,
    source: &str,
    symbol: &str,
) -> Result<T, String> {
    // SAFETY: the caller guarantees the symbol's type.
    match unsafe { library.get::<T>(symbol.as_bytes()) } {
        Ok(found) => Ok(*found),
        Err(err) => Err(format!("{source}: {symbol}: {}", with_source(&err))),
    }
}

/// Resolves `symbol` when the library has it.
///
/// # Safety
/// As [`symbol`].
pub(crate) unsafe fn optional_symbol<T: Copy>(library: &Library, symbol: &str) -> Option<T> {
    // SAFETY: the caller guarantees the symbol's type.
    unsafe { library.get::<T>(symbol.as_bytes()) }
        .ok()
        .map(|found| *found)
}

/// A libloading error with the system's own description (its source), e.g. `dlopen failed:
/// libcuda.so.1: cannot open shared object file: No such file or directory`.
fn with_source(err: &libloading::Error) -> String {
    match std::error::Error::source(err) {
        Some(source) => format!("{err}: {source}"),
        None => err.to_string(),
    }
}

/// Declares a table of entry points:
///
/// ```text
/// library_table! {
///     /// Docs of the table.
///     pub struct Driver (pub) {          // the struct's and the fields' visibility
///         /// `cuInit(flags)`.
///         cuInit = "cuInit"(c_uint) -> CUresult;
///     }
///     optional {
///         cuTensorMapEncodeTiled = "cuTensorMapEncodeTiled"(…) -> CUresult;
///     }
/// }
/// ```
///
/// The struct also keeps the libraries loaded (`_libraries`) and where the library was found
/// (`source`); `unsafe fn resolve(libraries, source)` resolves every entry from the last library.
macro_rules! library_table {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident ($fvis:vis) {
            $( $(#[$doc:meta])* $field:ident = $symbol:literal ($($arg:ty),* $(,)?) -> $ret:ty; )*
        }
        $( optional {
            $( $(#[$odoc:meta])* $ofield:ident = $osymbol:literal ($($oarg:ty),* $(,)?) -> $oret:ty; )*
        } )?
    ) => {
        $(#[$meta])*
        $vis struct $name {
            $( $(#[$doc])* $fvis $field: unsafe extern "C" fn($($arg),*) -> $ret, )*
            $($( $(#[$odoc])* $fvis $ofield: Option<unsafe extern "C" fn($($oarg),*) -> $oret>, )*)?
            /// Where the library was found, for messages (not every table names it).
            #[allow(dead_code)]
            source: String,
            /// Keep the libraries loaded while the function pointers are used.
            _libraries: Vec<libloading::Library>,
        }

        impl $name {
            /// Resolves every entry point from the last of `libraries` (the others, such as
            /// libraries it opens by name, only stay loaded), found at `source`.
            ///
            /// # Safety
            /// The last library is the one this table describes: its exports have the declared
            /// signatures.
            unsafe fn resolve(
                libraries: Vec<libloading::Library>,
                source: String,
            ) -> std::result::Result<$name, String> {
                let Some(library) = libraries.last() else {
                    return Err(format!("{source}: no library to resolve from"));
                };
                $(
                    // SAFETY: the caller guarantees the library; the type is the entry's
                    // documented C signature.
                    let $field = unsafe {
                        $crate::dylib::symbol::<unsafe extern "C" fn($($arg),*) -> $ret>(
                            library, &source, $symbol,
                        )?
                    };
                )*
                $($(
                    // SAFETY: as above; a library without the symbol leaves it `None`.
                    let $ofield = unsafe {
                        $crate::dylib::optional_symbol::<unsafe extern "C" fn($($oarg),*) -> $oret>(
                            library, $osymbol,
                        )
                    };
                )*)?
                Ok($name { $($field,)* $($($ofield,)*)? source, _libraries: libraries })
            }
        }
    };
}

pub(crate) use library_table;

#[cfg(test)]
mod tests {
    use std::ffi::{c_char, c_int};

    use super::*;

    library_table! {
        /// Two functions of the C library.
        struct LibC (pub(crate)) {
            /// `abs(value)`.
            abs = "abs"(c_int) -> c_int;
            /// `strlen(text)`.
            strlen = "strlen"(*const c_char) -> usize;
        }
        optional {
            /// Exported by no C library.
            missing = "chevron_no_such_symbol"(c_int) -> c_int;
        }
    }

    fn libc() -> Library {
        open("libc.so.6").expect("the C library is loaded in every process")
    }

    #[test]
    fn a_table_resolves_required_and_optional_entries() {
        // SAFETY: the C library exports `abs` and `strlen` with these signatures.
        let table = unsafe { LibC::resolve(vec![libc()], "libc.so.6".into()) }.unwrap();
        // SAFETY: plain C calls with valid arguments.
        unsafe {
            assert_eq!((table.abs)(-7), 7);
            assert_eq!((table.strlen)(c"chevron".as_ptr()), 7);
        }
        assert!(table.missing.is_none());
        assert_eq!(table.source, "libc.so.6");
    }

    library_table! {
        #[allow(dead_code)]
        struct Broken (pub(crate)) {
            /// Exported by no C library.
            missing = "chevron_no_such_symbol"(c_int) -> c_int;
        }
    }

    #[test]
    fn errors_name_the_library_and_the_symbol() {
        // SAFETY: the missing symbol is never called.
        let err = unsafe { Broken::resolve(vec![libc()], "libc.so.6".into()) }
            .err()
            .unwrap();
        assert!(
            err.starts_with("libc.so.6: chevron_no_such_symbol: "),
            "{err}"
        );
        // SAFETY: as above.
        let err = unsafe { Broken::resolve(Vec::new(), "nothing".into()) }
            .err()
            .unwrap();
        assert!(err.contains("no library"), "{err}");
        let err = open("/nonexistent/libchevron_missing.so").unwrap_err();
        assert!(err.contains("/nonexistent/libchevron_missing.so"), "{err}");
    }
}
