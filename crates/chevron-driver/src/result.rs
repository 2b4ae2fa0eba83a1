//! `CUresult`: the codes the driver API returns, their names and texts (the `CUresult` column of
//! chevron-cudart's one table of CUDA's codes, `cudart::errors::CODES`), and the wrapper every
//! exported function runs its body in (`chevron::ffi::entry`: a panic contained, the error
//! printed once, the code).
//!
//! The runtime's `cudaError_t` values that the driver shares keep their numbers (CUDA defines
//! them so); the runtime-only ones map to the driver code CUDA documents for the same misuse.
#![allow(missing_docs)]

use std::ffi::c_int;

use chevron::ffi::EntryError;
use cudart::errors::{cudaError_t, CudaError, CODES};

/// `CUresult`.
#[allow(non_camel_case_types)]
pub type CUresult = c_int;

pub const SUCCESS: CUresult = 0;
pub const INVALID_VALUE: CUresult = 1;
pub const OUT_OF_MEMORY: CUresult = 2;
pub const NOT_INITIALIZED: CUresult = 3;
pub const DEINITIALIZED: CUresult = 4;
pub const NO_DEVICE: CUresult = 100;
pub const INVALID_DEVICE: CUresult = 101;
pub const INVALID_IMAGE: CUresult = 200;
pub const INVALID_CONTEXT: CUresult = 201;
pub const NO_BINARY_FOR_GPU: CUresult = 209;
pub const INVALID_PTX: CUresult = 218;
pub const FILE_NOT_FOUND: CUresult = 301;
pub const INVALID_HANDLE: CUresult = 400;
pub const NOT_FOUND: CUresult = 500;
pub const NOT_READY: CUresult = 600;
pub const LAUNCH_FAILED: CUresult = 719;
pub const NOT_SUPPORTED: CUresult = 801;
pub const UNKNOWN: CUresult = 999;

/// The driver's name and text of `code` (`cuGetErrorName/String`), if the driver API returns
/// it: the row of the one table of CUDA's codes, shared with the runtime.
pub fn describe(code: CUresult) -> Option<(&'static str, &'static str)> {
    CODES
        .iter()
        .find(|known| known.value == code)
        .and_then(|known| Some((known.driver?, known.text)))
}

/// A failed call: the driver's code and chevron's explanation (empty: print nothing).
#[derive(Debug)]
pub struct DriverError {
    pub code: CUresult,
    pub message: String,
}

impl DriverError {
    pub fn new(code: CUresult, message: impl Into<String>) -> DriverError {
        DriverError {
            code,
            message: message.into(),
        }
    }
}

/// The result of an exported function's body.
pub type DriverResult<T = ()> = Result<T, DriverError>;

/// The driver code for the runtime code `code`.
pub fn from_runtime(code: cudaError_t) -> CUresult {
    match code {
        // cudaErrorInvalidConfiguration, …PitchValue, …HostPointer, …DevicePointer,
        // …MemcpyDirection, …MissingConfiguration: the driver reports an invalid value.
        9 | 12 | 16 | 17 | 21 | 52 => INVALID_VALUE,
        // cudaErrorInvalidSymbol: the driver's "not found".
        13 => NOT_FOUND,
        // cudaErrorInvalidDeviceFunction: a function handle the driver does not know.
        98 => INVALID_HANDLE,
        code if describe(code).is_some() => code,
        _ => UNKNOWN,
    }
}

impl From<CudaError> for DriverError {
    fn from(error: CudaError) -> DriverError {
        DriverError::new(from_runtime(error.code), error.message)
    }
}

impl From<chevron::Error> for DriverError {
    fn from(error: chevron::Error) -> DriverError {
        DriverError::from(CudaError::from(error))
    }
}

/// A runtime entry point's code as a driver result (the runtime printed its explanation).
pub fn runtime(code: cudaError_t) -> DriverResult {
    match code {
        0 => Ok(()),
        code => Err(DriverError::new(from_runtime(code), "")),
    }
}

/// A failure of an exported function: a kernel fault also becomes the runtime's sticky error
/// (one CUDA context has one), anything else prints its explanation; a panic is
/// `CUDA_ERROR_UNKNOWN`.
impl EntryError for DriverError {
    type Code = CUresult;

    /// The runtime's internal error (`CUDA_ERROR_UNKNOWN`, `internal error: …`).
    fn internal(panic: Option<&str>) -> DriverError {
        DriverError::from(CudaError::internal(panic))
    }

    fn record(self, function: &str) -> CUresult {
        // The faults a kernel leaves its context with (sticky, as on a GPU).
        if cudart::errors::is_sticky(self.code) {
            cudart::errors::record(function, &CudaError::new(self.code, self.message));
        } else if !self.message.is_empty() {
            eprintln!("chevron: {function}: {}", self.message);
        }
        self.code
    }
}

/// Runs `body` as the exported function `function`: a panic becomes `CUDA_ERROR_UNKNOWN`, a
/// failure is recorded (see [`DriverError`]'s `EntryError`), and the code is returned.
#[inline]
pub fn entry(function: &str, body: impl FnOnce() -> DriverResult) -> CUresult {
    if crate::fork::in_forked_child() && !function.starts_with("cuGetError") {
        return forked(function);
    }
    if !crate::context::initialised() && !works_before_init(function) {
        return uninitialised(function);
    }
    // The driver's own use of the runtime's functions does not bind the primary context.
    let bound = cudart::state::bound_here();
    let outcome = chevron::ffi::entry(function, body);
    cudart::state::set_bound_here(bound);
    match outcome {
        Ok(()) => SUCCESS,
        Err(code) => code,
    }
}

/// The functions CUDA answers before `cuInit`: initialisation itself, the version, the error
/// texts and the entry-point look-ups.
fn works_before_init(function: &str) -> bool {
    matches!(
        function,
        "cuInit"
            | "cuDriverGetVersion"
            | "cuGetErrorName"
            | "cuGetErrorString"
            | "cuGetProcAddress"
            | "cuGetProcAddress_v2"
            | "cuGetExportTable"
    )
}

/// Any other call before `cuInit` (or the runtime's first use):
/// `CUDA_ERROR_NOT_INITIALIZED`, as NVIDIA's driver answers, whatever the arguments.
#[cold]
fn uninitialised(function: &str) -> CUresult {
    eprintln!("chevron: {function}: cuInit has not been called (CUDA_ERROR_NOT_INITIALIZED)");
    NOT_INITIALIZED
}

/// A call in a child forked after `cuInit`: `CUDA_ERROR_NOT_INITIALIZED`, said once.
#[cold]
fn forked(function: &str) -> CUresult {
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| {
        eprintln!(
            "chevron: {function}: this process was forked after CUDA was initialised in its \
             parent; CUDA cannot be used in the child (CUDA_ERROR_NOT_INITIALIZED)"
        );
    });
    NOT_INITIALIZED
}

/// Writes `value` through an out-pointer, refusing NULL.
/// Fails with `CUDA_ERROR_INVALID_VALUE` when the out-pointer `out` is NULL: checked before a
/// call makes what it would hand back, so that nothing is made and lost.
pub(crate) fn require<T>(out: *mut T, what: &str) -> DriverResult {
    if out.is_null() {
        return Err(DriverError::new(INVALID_VALUE, format!("{what} is NULL")));
    }
    Ok(())
}

pub(crate) fn store<T>(out: *mut T, value: T, what: &str) -> DriverResult {
    if out.is_null() {
        return Err(DriverError::new(INVALID_VALUE, format!("{what} is NULL")));
    }
    // SAFETY: non-NULL; writable by the API's contract.
    unsafe { out.write(value) };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_codes_map_to_the_driver_codes_cuda_documents() {
        assert_eq!(from_runtime(0), SUCCESS);
        assert_eq!(from_runtime(2), OUT_OF_MEMORY);
        assert_eq!(from_runtime(17), INVALID_VALUE);
        assert_eq!(from_runtime(13), NOT_FOUND);
        assert_eq!(from_runtime(98), INVALID_HANDLE);
        assert_eq!(from_runtime(700), 700);
        assert_eq!(from_runtime(12345), UNKNOWN);
    }

    #[test]
    fn the_driver_names_its_codes_from_the_table_it_shares_with_the_runtime() {
        assert_eq!(
            describe(INVALID_CONTEXT),
            Some(("CUDA_ERROR_INVALID_CONTEXT", "invalid device context"))
        );
        // A runtime-only code has no driver name, a driver-only one no runtime name; a shared
        // one has one text under both names.
        assert_eq!(describe(9), None);
        assert_eq!(cudart::errors::describe(301), None);
        assert_eq!(
            cudart::errors::describe(INVALID_CONTEXT),
            Some(("cudaErrorDeviceUninitialized", "invalid device context"))
        );
        let (name, text) = describe(LAUNCH_FAILED).unwrap();
        assert_eq!(name, "CUDA_ERROR_LAUNCH_FAILED");
        assert_eq!(
            Some(text),
            cudart::errors::describe(719).map(|(_, text)| text)
        );
    }

    #[test]
    fn a_fault_maps_by_its_kind_not_its_text() {
        use chevron::FaultKind;
        let code = |kind: FaultKind| {
            DriverError::from(chevron::Error::Fault {
                kernel: "k".into(),
                device: "cpu:0".into(),
                kind,
                message: "out-of-bounds access, address 0x10".into(),
            })
            .code
        };
        assert_eq!(code(FaultKind::Misaligned), 716); // CUDA_ERROR_MISALIGNED_ADDRESS
        assert_eq!(code(FaultKind::Assert), 710); // CUDA_ERROR_ASSERT
        assert_eq!(code(FaultKind::IllegalAddress), 700); // CUDA_ERROR_ILLEGAL_ADDRESS
        assert_eq!(code(FaultKind::Trap), LAUNCH_FAILED);
        assert_eq!(code(FaultKind::DeviceFault { code: 715 }), 715);
    }

    #[test]
    fn a_panic_is_an_unknown_error() {
        assert_eq!(crate::context::cuInit(0), SUCCESS);
        assert_eq!(entry("test", || panic!("boom")), UNKNOWN);
        assert_eq!(entry("test", || Ok(())), SUCCESS);
    }
}
