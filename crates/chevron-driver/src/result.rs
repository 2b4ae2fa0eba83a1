//! `CUresult`: the codes the driver API returns, their names and texts, and the wrapper every
//! exported function runs its body in (`catch_unwind`, the error printed once, the code).
//!
//! The runtime's `cudaError_t` values that the driver shares keep their numbers (CUDA defines
//! them so); the runtime-only ones map to the driver code CUDA documents for the same misuse.
#![allow(missing_docs)]

use std::ffi::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};

use cudart::errors::{cudaError_t, CudaError};

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

/// The codes chevron returns, with CUDA 13.0's names and texts (`cuGetErrorName/String`).
pub const CODES: &[(CUresult, &str, &str)] = &[
    (0, "CUDA_SUCCESS", "no error"),
    (1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"),
    (2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"),
    (3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"),
    (4, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"),
    (
        100,
        "CUDA_ERROR_NO_DEVICE",
        "no CUDA-capable device is detected",
    ),
    (101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"),
    (
        200,
        "CUDA_ERROR_INVALID_IMAGE",
        "device kernel image is invalid",
    ),
    (201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"),
    (
        209,
        "CUDA_ERROR_NO_BINARY_FOR_GPU",
        "no kernel image is available for execution on the device",
    ),
    (
        218,
        "CUDA_ERROR_INVALID_PTX",
        "a PTX JIT compilation failed",
    ),
    (301, "CUDA_ERROR_FILE_NOT_FOUND", "file not found"),
    (400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"),
    (
        401,
        "CUDA_ERROR_ILLEGAL_STATE",
        "the operation cannot be performed in the present state",
    ),
    (500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"),
    (600, "CUDA_ERROR_NOT_READY", "device not ready"),
    (
        700,
        "CUDA_ERROR_ILLEGAL_ADDRESS",
        "an illegal memory access was encountered",
    ),
    (
        701,
        "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
        "too many resources requested for launch",
    ),
    (
        702,
        "CUDA_ERROR_LAUNCH_TIMEOUT",
        "the launch timed out and was terminated",
    ),
    (710, "CUDA_ERROR_ASSERT", "device-side assert triggered"),
    (
        712,
        "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
        "part or all of the requested memory range is already mapped",
    ),
    (
        713,
        "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
        "pointer does not correspond to a registered memory region",
    ),
    (
        714,
        "CUDA_ERROR_HARDWARE_STACK_ERROR",
        "hardware stack error",
    ),
    (
        715,
        "CUDA_ERROR_ILLEGAL_INSTRUCTION",
        "an illegal instruction was encountered",
    ),
    (716, "CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address"),
    (
        717,
        "CUDA_ERROR_INVALID_ADDRESS_SPACE",
        "operation not supported on global/shared address space",
    ),
    (718, "CUDA_ERROR_INVALID_PC", "invalid program counter"),
    (
        719,
        "CUDA_ERROR_LAUNCH_FAILED",
        "unspecified launch failure",
    ),
    (801, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"),
    (
        900,
        "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
        "operation not permitted when stream is capturing",
    ),
    (
        901,
        "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
        "operation failed due to a previous error during capture",
    ),
    (999, "CUDA_ERROR_UNKNOWN", "unknown error"),
];

/// The name and text of `code`.
pub fn describe(code: CUresult) -> Option<(&'static str, &'static str)> {
    CODES
        .iter()
        .find(|(known, ..)| *known == code)
        .map(|(_, name, text)| (*name, *text))
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

/// Runs `body` as the exported function `function`: a panic becomes `CUDA_ERROR_UNKNOWN`, a
/// failure prints its explanation (a kernel fault also becomes the runtime's sticky error, as
/// one CUDA context has one), and the code is returned.
pub fn entry(function: &str, body: impl FnOnce() -> DriverResult) -> CUresult {
    if crate::fork::in_forked_child() && !function.starts_with("cuGetError") {
        return forked(function);
    }
    // The driver's own use of the runtime's functions does not bind the primary context.
    let bound = cudart::state::bound_here();
    let outcome = catch_unwind(AssertUnwindSafe(body));
    cudart::state::set_bound_here(bound);
    let outcome = outcome.unwrap_or_else(|panic| {
        let text = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("internal error");
        Err(DriverError::new(UNKNOWN, format!("internal error: {text}")))
    });
    match outcome {
        Ok(()) => SUCCESS,
        Err(error) => {
            // The faults a kernel leaves its context with (sticky, as on a GPU).
            if matches!(error.code, 700 | 702 | 710 | 714..=719) {
                let runtime = CudaError::new(error.code, error.message);
                cudart::errors::record(function, &runtime);
            } else if !error.message.is_empty() {
                eprintln!("chevron: {function}: {}", error.message);
            }
            error.code
        }
    }
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
        assert_eq!(entry("test", || panic!("boom")), UNKNOWN);
        assert_eq!(entry("test", || Ok(())), SUCCESS);
    }
}
