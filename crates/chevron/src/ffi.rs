//! The one wrapper every C entry point of chevron's front doors runs its body in: the C API
//! (`chevron_*`), MLIR's `mgpu*` functions, the CUDA runtime (`cuda*`) and the driver API
//! (`cu*`).
//!
//! [`entry`] runs the body under `catch_unwind`, so no panic ever crosses the C ABI; a failure
//! (an `Err` of the body, or a panic turned into one by [`EntryError::internal`]) is handed to
//! [`EntryError::record`], which does what its front door does with a failure (the thread's last
//! error, CUDA's sticky errors, the explanation on stderr) and answers the code the C function
//! returns. Each front door implements [`EntryError`] for its error type and keeps a one-line
//! wrapper of its own (`chevron-capi`'s `entry` and `guard`, `chevron-cudart`'s `guard`,
//! `chevron-driver`'s `entry`).
//!
//! Launches pass through it (`cuLaunchKernel`, `cudaLaunchKernel`, `<<<>>>`), so the successful
//! path costs nothing beyond the body: `catch_unwind` sets up no state until a panic unwinds,
//! nothing is allocated, and recording a failure is out of line.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// A front door's failure: what a panic becomes, how a failure is recorded, and the code the
/// C function then returns.
pub trait EntryError: Sized {
    /// What the C function returns for a failure (a status code, or `()` where the function
    /// returns a fallback value of its own).
    type Code;

    /// The failure a panic of the body becomes; `panic` is the panic's message, if it had one
    /// (a `&str` or `String` payload).
    fn internal(panic: Option<&str>) -> Self;

    /// Records the failure of C function `function` as the front door does (last error,
    /// sticky error, explanation printed) and answers the code to return.
    fn record(self, function: &str) -> Self::Code;
}

/// Runs `body` as the C function `function`: its value when it succeeds, else the code its
/// failure (or its panic, through [`EntryError::internal`]) records.
#[inline]
pub fn entry<T, E: EntryError>(
    function: &str,
    body: impl FnOnce() -> Result<T, E>,
) -> Result<T, E::Code> {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(failed(function, error)),
        Err(payload) => Err(panicked::<E>(function, payload)),
    }
}

/// A failure of the body, recorded.
#[cold]
#[inline(never)]
fn failed<E: EntryError>(function: &str, error: E) -> E::Code {
    error.record(function)
}

/// A panic of the body, turned into its front door's failure and recorded.
#[cold]
#[inline(never)]
fn panicked<E: EntryError>(function: &str, payload: Box<dyn Any + Send>) -> E::Code {
    E::internal(panic_message(payload.as_ref())).record(function)
}

/// Whether `count` elements of `T` can be one C array: their byte length fits in `isize`, as
/// `slice::from_raw_parts` requires (no allocation is larger). A C caller's count beyond that
/// is an invalid value to report, never a slice to build.
pub fn c_array_fits<T>(count: usize) -> bool {
    count
        .checked_mul(std::mem::size_of::<T>())
        .is_some_and(|bytes| bytes <= isize::MAX as usize)
}

/// The message of a panic: its payload when that is a `&str` or a `String`.
fn panic_message(payload: &(dyn Any + Send)) -> Option<&str> {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    /// A front door that records failures in a thread-local list and returns their code.
    #[derive(Debug)]
    struct Failure(i32, String);

    thread_local! {
        static RECORDED: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    }

    impl EntryError for Failure {
        type Code = i32;
        fn internal(panic: Option<&str>) -> Failure {
            Failure(999, format!("internal: {}", panic.unwrap_or("no message")))
        }
        fn record(self, function: &str) -> i32 {
            RECORDED.with(|r| r.borrow_mut().push(format!("{function}: {}", self.1)));
            self.0
        }
    }

    fn recorded() -> Vec<String> {
        RECORDED.with(|r| r.take())
    }

    #[test]
    fn success_passes_the_value_and_records_nothing() {
        assert_eq!(entry("f", || Ok::<_, Failure>(7)), Ok(7));
        assert!(recorded().is_empty());
    }

    #[test]
    fn a_failure_is_recorded_once_and_gives_its_code() {
        assert_eq!(
            entry("f", || Err::<(), _>(Failure(4, "bad".into()))),
            Err(4)
        );
        assert_eq!(recorded(), ["f: bad"]);
    }

    #[test]
    fn panics_of_every_payload_become_internal_failures() {
        let text = String::from("owned");
        assert_eq!(entry::<(), Failure>("a", || panic!("static")), Err(999));
        assert_eq!(entry::<(), Failure>("b", || panic!("{text}")), Err(999));
        assert_eq!(
            entry::<(), Failure>("c", || std::panic::panic_any(42)),
            Err(999)
        );
        assert_eq!(
            recorded(),
            [
                "a: internal: static",
                "b: internal: owned",
                "c: internal: no message"
            ]
        );
    }
}
