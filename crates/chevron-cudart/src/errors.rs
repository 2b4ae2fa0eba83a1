//! `cudaError_t`: the codes chevron returns, their names and texts, the thread's last error and
//! CUDA's sticky errors, and the guard every exported function runs its body in.
//!
//! A failed call records its code as the calling thread's last error (`cudaGetLastError` reads
//! and clears it) and prints chevron's one-line explanation (naming the function, kernel,
//! thread, PTX line, …) to stderr. A kernel fault is *sticky*, as in CUDA: once reported, every
//! later call returns it until `cudaDeviceReset`.

// The `cudaError_t` constants carry CUDA's names (see `CODES` for their texts).
#![allow(missing_docs)]

use std::cell::Cell;
use std::ffi::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicI32, Ordering};

/// `cudaError_t`.
#[allow(non_camel_case_types)]
pub type cudaError_t = c_int;

/// The codes chevron returns, with CUDA 13.0's names, values and texts.
pub const CODES: &[(c_int, &str, &str)] = &[
    (0, "cudaSuccess", "no error"),
    (1, "cudaErrorInvalidValue", "invalid argument"),
    (2, "cudaErrorMemoryAllocation", "out of memory"),
    (3, "cudaErrorInitializationError", "initialization error"),
    (4, "cudaErrorCudartUnloading", "driver shutting down"),
    (
        9,
        "cudaErrorInvalidConfiguration",
        "invalid configuration argument",
    ),
    (12, "cudaErrorInvalidPitchValue", "invalid pitch argument"),
    (13, "cudaErrorInvalidSymbol", "invalid device symbol"),
    (16, "cudaErrorInvalidHostPointer", "invalid host pointer"),
    (
        17,
        "cudaErrorInvalidDevicePointer",
        "invalid device pointer",
    ),
    (
        21,
        "cudaErrorInvalidMemcpyDirection",
        "invalid copy direction for memcpy",
    ),
    (
        52,
        "cudaErrorMissingConfiguration",
        "__global__ function call is not configured",
    ),
    (
        65,
        "cudaErrorLaunchMaxDepthExceeded",
        "launch would exceed maximum depth of nested launches",
    ),
    (
        69,
        "cudaErrorLaunchPendingCountExceeded",
        "launch failed because launch would exceed cudaLimitDevRuntimePendingLaunchCount",
    ),
    (
        98,
        "cudaErrorInvalidDeviceFunction",
        "invalid device function",
    ),
    (
        100,
        "cudaErrorNoDevice",
        "no CUDA-capable device is detected",
    ),
    (101, "cudaErrorInvalidDevice", "invalid device ordinal"),
    (
        200,
        "cudaErrorInvalidKernelImage",
        "device kernel image is invalid",
    ),
    (
        209,
        "cudaErrorNoKernelImageForDevice",
        "no kernel image is available for execution on the device",
    ),
    (218, "cudaErrorInvalidPtx", "a PTX JIT compilation failed"),
    (
        400,
        "cudaErrorInvalidResourceHandle",
        "invalid resource handle",
    ),
    (
        401,
        "cudaErrorIllegalState",
        "the operation cannot be performed in the present state",
    ),
    (500, "cudaErrorSymbolNotFound", "named symbol not found"),
    (600, "cudaErrorNotReady", "device not ready"),
    (
        217,
        "cudaErrorPeerAccessUnsupported",
        "peer access is not supported between these two devices",
    ),
    (
        700,
        "cudaErrorIllegalAddress",
        "an illegal memory access was encountered",
    ),
    (
        701,
        "cudaErrorLaunchOutOfResources",
        "too many resources requested for launch",
    ),
    (
        705,
        "cudaErrorPeerAccessNotEnabled",
        "peer access has not been enabled",
    ),
    (
        702,
        "cudaErrorLaunchTimeout",
        "the launch timed out and was terminated",
    ),
    (710, "cudaErrorAssert", "device-side assert triggered"),
    (
        712,
        "cudaErrorHostMemoryAlreadyRegistered",
        "part or all of the requested memory range is already mapped",
    ),
    (
        713,
        "cudaErrorHostMemoryNotRegistered",
        "pointer does not correspond to a registered memory region",
    ),
    (714, "cudaErrorHardwareStackError", "hardware stack error"),
    (
        715,
        "cudaErrorIllegalInstruction",
        "an illegal instruction was encountered",
    ),
    (716, "cudaErrorMisalignedAddress", "misaligned address"),
    (
        717,
        "cudaErrorInvalidAddressSpace",
        "operation not supported on global/shared address space",
    ),
    (718, "cudaErrorInvalidPc", "invalid program counter"),
    (719, "cudaErrorLaunchFailure", "unspecified launch failure"),
    (
        720,
        "cudaErrorCooperativeLaunchTooLarge",
        "too many blocks in cooperative launch",
    ),
    (801, "cudaErrorNotSupported", "operation not supported"),
    (
        900,
        "cudaErrorStreamCaptureUnsupported",
        "operation not permitted when stream is capturing",
    ),
    (
        901,
        "cudaErrorStreamCaptureInvalidated",
        "operation failed due to a previous error during capture",
    ),
    (902, "cudaErrorStreamCaptureMerge", "operation would result in a merge of separate capture sequences"),
    (903, "cudaErrorStreamCaptureUnmatched", "capture was not ended in the same stream as it began"),
    (904, "cudaErrorStreamCaptureUnjoined", "capturing stream has unjoined work"),
    (905, "cudaErrorStreamCaptureIsolation", "dependency created on uncaptured work in another stream"),
    (910, "cudaErrorGraphExecUpdateFailure", "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update"),
    (999, "cudaErrorUnknown", "unknown error"),
];

pub const SUCCESS: cudaError_t = 0;
pub const INVALID_VALUE: cudaError_t = 1;
pub const MEMORY_ALLOCATION: cudaError_t = 2;
pub const INVALID_CONFIGURATION: cudaError_t = 9;
pub const INVALID_PITCH_VALUE: cudaError_t = 12;
pub const INVALID_SYMBOL: cudaError_t = 13;
pub const INVALID_DEVICE_POINTER: cudaError_t = 17;
pub const INVALID_MEMCPY_DIRECTION: cudaError_t = 21;
pub const MISSING_CONFIGURATION: cudaError_t = 52;
pub const INVALID_DEVICE_FUNCTION: cudaError_t = 98;
pub const NO_DEVICE: cudaError_t = 100;
pub const INVALID_DEVICE: cudaError_t = 101;
pub const INVALID_KERNEL_IMAGE: cudaError_t = 200;
pub const NO_KERNEL_IMAGE_FOR_DEVICE: cudaError_t = 209;
pub const INVALID_RESOURCE_HANDLE: cudaError_t = 400;
pub const ILLEGAL_STATE: cudaError_t = 401;
pub const SYMBOL_NOT_FOUND: cudaError_t = 500;
pub const NOT_READY: cudaError_t = 600;
pub const ILLEGAL_ADDRESS: cudaError_t = 700;
pub const PEER_ACCESS_NOT_ENABLED: cudaError_t = 705;
pub const ASSERT: cudaError_t = 710;
pub const HOST_MEMORY_ALREADY_REGISTERED: cudaError_t = 712;
pub const HOST_MEMORY_NOT_REGISTERED: cudaError_t = 713;
pub const LAUNCH_FAILURE: cudaError_t = 719;
pub const COOPERATIVE_LAUNCH_TOO_LARGE: cudaError_t = 720;
pub const NOT_SUPPORTED: cudaError_t = 801;
pub const UNKNOWN: cudaError_t = 999;

/// A failed call: CUDA's code and chevron's explanation.
#[derive(Debug)]
pub struct CudaError {
    pub code: cudaError_t,
    pub message: String,
}

impl CudaError {
    pub fn new(code: cudaError_t, message: impl Into<String>) -> CudaError {
        CudaError {
            code,
            message: message.into(),
        }
    }
}

/// The result of an exported function's body.
pub type CudaResult<T = ()> = Result<T, CudaError>;

impl From<chevron::Error> for CudaError {
    fn from(error: chevron::Error) -> CudaError {
        use chevron::Error as E;
        let code = match &error {
            E::Unavailable { .. } => NO_DEVICE,
            E::Driver { code, .. } => driver_code(*code),
            E::Argument { .. } | E::InvalidValue { .. } => INVALID_VALUE,
            // NVIDIA's runtime answers every launch a device cannot run so (an H200, CUDA 13.0:
            // blocks and grids too large or empty, too much shared memory, launch bounds).
            E::LaunchConfig { .. } => INVALID_VALUE,
            E::NotFound { what, .. } if *what == "kernel" => INVALID_DEVICE_FUNCTION,
            E::NotFound { .. } => SYMBOL_NOT_FOUND,
            E::CodeObject { .. } => INVALID_KERNEL_IMAGE,
            E::Fault { message, .. } => fault_code(message),
            _ => UNKNOWN,
        };
        CudaError::new(code, error.to_string())
    }
}

/// The code CUDA reports for a kernel fault, from chevron's description of it (the CPU
/// device's fault kinds, or the driver's error name on a GPU).
fn fault_code(message: &str) -> cudaError_t {
    if message.contains("Assertion") || message.contains("CUDA_ERROR_ASSERT") {
        ASSERT
    } else if ["out-of-bounds", "address", "ILLEGAL_ADDRESS"]
        .iter()
        .any(|word| message.contains(word))
    {
        ILLEGAL_ADDRESS
    } else {
        LAUNCH_FAILURE
    }
}

/// The runtime code of a driver error: CUDA's runtime keeps the driver's values for these.
fn driver_code(code: c_int) -> cudaError_t {
    if CODES.iter().any(|(known, ..)| *known == code) {
        code
    } else {
        UNKNOWN
    }
}

/// Whether `code` poisons the process until `cudaDeviceReset` (a kernel fault).
fn is_sticky(code: cudaError_t) -> bool {
    // 714–718: the other faults a GPU reports for a kernel (stack, instruction, alignment,
    // address space, program counter).
    matches!(code, ILLEGAL_ADDRESS | ASSERT | 714..=718 | LAUNCH_FAILURE)
}

thread_local! {
    static LAST_ERROR: Cell<cudaError_t> = const { Cell::new(SUCCESS) };
}

/// The sticky error, 0 while there is none.
static STICKY: AtomicI32 = AtomicI32::new(SUCCESS);

/// Returns the thread's last error and clears it (the sticky error stays).
pub fn take_last_error() -> cudaError_t {
    let last = LAST_ERROR.with(|e| e.replace(SUCCESS));
    match STICKY.load(Ordering::Relaxed) {
        SUCCESS => last,
        sticky => sticky,
    }
}

/// The thread's last error, left in place.
pub fn peek_last_error() -> cudaError_t {
    match STICKY.load(Ordering::Relaxed) {
        SUCCESS => LAST_ERROR.with(Cell::get),
        sticky => sticky,
    }
}

/// Clears the sticky error (`cudaDeviceReset`).
pub fn clear_sticky() {
    STICKY.store(SUCCESS, Ordering::Relaxed);
}

/// Fails with the sticky error, if one was reported.
pub fn check_sticky() -> CudaResult {
    match STICKY.load(Ordering::Relaxed) {
        SUCCESS => Ok(()),
        code => Err(CudaError::new(code, "")),
    }
}

/// Records a failure (thread's last error, sticky error) and prints its explanation.
pub fn record(function: &str, error: &CudaError) {
    LAST_ERROR.with(|e| e.set(error.code));
    if is_sticky(error.code) {
        STICKY.store(error.code, Ordering::Relaxed);
    } else if error.code != NOT_READY {
        // A failed call (a kernel's fault is the sanitizer's finding already).
        let name = describe(error.code).map_or("an error", |(name, _)| name);
        chevron::check::record_api_error(function, name, &error.message);
    }
    if !error.message.is_empty() {
        eprintln!("chevron: {function}: {}", error.message);
    }
}

/// Runs `body` as the exported function `function`: a panic becomes `cudaErrorUnknown`, a
/// failure is recorded, and the code is returned.
pub fn guard(function: &str, body: impl FnOnce() -> CudaResult) -> cudaError_t {
    let outcome = catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|panic| {
        let text = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("internal error");
        Err(CudaError::new(UNKNOWN, format!("internal error: {text}")))
    });
    match outcome {
        Ok(()) => SUCCESS,
        Err(error) => {
            record(function, &error);
            error.code
        }
    }
}

/// The entry of `code` in [`CODES`].
pub fn describe(code: cudaError_t) -> Option<(&'static str, &'static str)> {
    CODES
        .iter()
        .find(|(known, ..)| *known == code)
        .map(|(_, name, text)| (*name, *text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fault(message: &str) -> cudaError_t {
        CudaError::from(chevron::Error::Fault {
            kernel: "k".into(),
            device: "cpu:0".into(),
            message: message.into(),
        })
        .code
    }

    #[test]
    fn faults_map_to_the_codes_cuda_reports() {
        assert_eq!(fault("assertion failed …: Assertion `x` failed."), ASSERT);
        assert_eq!(
            fault("CUDA_ERROR_ASSERT: device-side assert triggered"),
            ASSERT
        );
        assert_eq!(fault("out-of-bounds access in kernel `k`"), ILLEGAL_ADDRESS);
        assert_eq!(
            fault("CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access"),
            ILLEGAL_ADDRESS
        );
        assert_eq!(fault("trap in kernel `k`"), LAUNCH_FAILURE);
    }

    #[test]
    fn every_code_has_a_name_and_a_text() {
        assert_eq!(
            describe(ASSERT),
            Some(("cudaErrorAssert", "device-side assert triggered"))
        );
        assert_eq!(describe(12345), None);
    }

    #[test]
    fn a_fault_is_sticky_until_cleared() {
        assert_eq!(
            guard("test", || Err(CudaError::new(ILLEGAL_ADDRESS, ""))),
            ILLEGAL_ADDRESS
        );
        assert_eq!(take_last_error(), ILLEGAL_ADDRESS);
        assert_eq!(take_last_error(), ILLEGAL_ADDRESS, "sticky");
        assert!(check_sticky().is_err());
        clear_sticky();
        assert_eq!(take_last_error(), SUCCESS);
    }
}
