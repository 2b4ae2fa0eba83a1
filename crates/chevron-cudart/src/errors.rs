//! `cudaError_t`: the codes chevron returns, their names and texts, the thread's last error and
//! CUDA's sticky errors, and the guard every exported function runs its body in (through
//! `chevron::ffi::entry`). `codes.rs` is the one table of CUDA's error codes, with the names
//! both the runtime and the driver API give them.
//!
//! A failed call records its code as the calling thread's last error (`cudaGetLastError` reads
//! and clears it) and prints chevron's one-line explanation (naming the function, kernel,
//! thread, PTX line, …) to stderr. A kernel fault is *sticky*, as in CUDA: once reported, every
//! later call returns it until `cudaDeviceReset`.

// The `cudaError_t` constants carry CUDA's names (see `CODES` for their texts).
#![allow(missing_docs)]

mod codes;

use std::cell::Cell;
use std::ffi::c_int;
use std::sync::atomic::{AtomicI32, Ordering};

use chevron::ffi::EntryError;

use chevron::FaultKind;
pub use codes::{ErrorCode, CODES};

/// `cudaError_t`.
#[allow(non_camel_case_types)]
pub type cudaError_t = c_int;

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
pub const DEVICE_UNINITIALIZED: cudaError_t = 201;
pub const NO_KERNEL_IMAGE_FOR_DEVICE: cudaError_t = 209;
pub const INVALID_RESOURCE_HANDLE: cudaError_t = 400;
pub const ILLEGAL_STATE: cudaError_t = 401;
pub const SYMBOL_NOT_FOUND: cudaError_t = 500;
pub const NOT_READY: cudaError_t = 600;
pub const ILLEGAL_ADDRESS: cudaError_t = 700;
pub const LAUNCH_TIMEOUT: cudaError_t = 702;
pub const PEER_ACCESS_NOT_ENABLED: cudaError_t = 705;
pub const ASSERT: cudaError_t = 710;
pub const HOST_MEMORY_ALREADY_REGISTERED: cudaError_t = 712;
pub const HOST_MEMORY_NOT_REGISTERED: cudaError_t = 713;
pub const HARDWARE_STACK_ERROR: cudaError_t = 714;
pub const ILLEGAL_INSTRUCTION: cudaError_t = 715;
pub const MISALIGNED_ADDRESS: cudaError_t = 716;
pub const INVALID_ADDRESS_SPACE: cudaError_t = 717;
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
            E::Fault { kind, .. } => fault_code(*kind),
            _ => UNKNOWN,
        };
        CudaError::new(code, error.to_string())
    }
}

/// The code CUDA reports for a kernel fault of class `kind` (docs/faults.md): the CPU device's
/// classes as a GPU reports them, a GPU's own code as its driver gave it.
fn fault_code(kind: FaultKind) -> cudaError_t {
    match kind {
        FaultKind::IllegalAddress => ILLEGAL_ADDRESS,
        FaultKind::Misaligned => MISALIGNED_ADDRESS,
        FaultKind::InvalidAddressSpace => INVALID_ADDRESS_SPACE,
        FaultKind::Assert => ASSERT,
        FaultKind::IllegalInstruction => ILLEGAL_INSTRUCTION,
        FaultKind::StackOverflow => HARDWARE_STACK_ERROR,
        FaultKind::Timeout => LAUNCH_TIMEOUT,
        FaultKind::DeviceFault { code } => driver_code(code),
        // `trap` and everything a GPU has no code of its own for (a deadlock hangs a GPU; a
        // check's finding and the CPU device's own limits do not happen there).
        FaultKind::Trap
        | FaultKind::Breakpoint
        | FaultKind::Deadlock
        | FaultKind::SanitizerFinding
        | FaultKind::Unsupported
        | FaultKind::Other => LAUNCH_FAILURE,
        // A class added later: CUDA's catch-all for a kernel fault.
        _ => LAUNCH_FAILURE,
    }
}

/// The runtime code of a driver error: CUDA's runtime keeps the driver's values for these.
fn driver_code(code: c_int) -> cudaError_t {
    if describe(code).is_some() {
        code
    } else {
        UNKNOWN
    }
}

/// Whether `code` poisons the process until `cudaDeviceReset` (a kernel fault). The runtime and
/// the driver share these values.
pub fn is_sticky(code: cudaError_t) -> bool {
    // 702: a launch that timed out; 714–718: the other faults a GPU reports for a kernel
    // (stack, instruction, alignment, address space, program counter).
    matches!(
        code,
        ILLEGAL_ADDRESS | LAUNCH_TIMEOUT | ASSERT | 714..=718 | LAUNCH_FAILURE
    )
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

/// Whether no sticky error was reported (one relaxed load, for launch fast paths).
#[inline]
pub fn no_sticky_error() -> bool {
    STICKY.load(Ordering::Relaxed) == SUCCESS
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

/// A failure of an exported function: recorded by [`record`]; a panic is
/// `cudaErrorUnknown`.
impl EntryError for CudaError {
    type Code = cudaError_t;

    fn internal(panic: Option<&str>) -> CudaError {
        let text = panic.unwrap_or("internal error");
        CudaError::new(UNKNOWN, format!("internal error: {text}"))
    }

    fn record(self, function: &str) -> cudaError_t {
        record(function, &self);
        self.code
    }
}

/// Runs `body` as the exported function `function`: a panic becomes `cudaErrorUnknown`, a
/// failure is recorded, and the code is returned.
#[inline]
pub fn guard(function: &str, body: impl FnOnce() -> CudaResult) -> cudaError_t {
    match chevron::ffi::entry(function, body) {
        Ok(()) => SUCCESS,
        Err(code) => code,
    }
}

/// The runtime's name and text of `code`, if the runtime returns it.
pub fn describe(code: cudaError_t) -> Option<(&'static str, &'static str)> {
    CODES
        .iter()
        .find(|known| known.value == code)
        .and_then(|known| Some((known.runtime?, known.text)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fault(kind: FaultKind, message: &str) -> cudaError_t {
        CudaError::from(chevron::Error::Fault {
            kernel: "k".into(),
            device: "cpu:0".into(),
            kind,
            message: message.into(),
        })
        .code
    }

    #[test]
    fn faults_map_to_the_codes_cuda_reports() {
        let cases = [
            (FaultKind::IllegalAddress, ILLEGAL_ADDRESS),
            (FaultKind::Misaligned, MISALIGNED_ADDRESS),
            (FaultKind::InvalidAddressSpace, INVALID_ADDRESS_SPACE),
            (FaultKind::Assert, ASSERT),
            (FaultKind::IllegalInstruction, ILLEGAL_INSTRUCTION),
            (FaultKind::StackOverflow, HARDWARE_STACK_ERROR),
            (FaultKind::Timeout, LAUNCH_TIMEOUT),
            (FaultKind::Trap, LAUNCH_FAILURE),
            (FaultKind::Breakpoint, LAUNCH_FAILURE),
            (FaultKind::Deadlock, LAUNCH_FAILURE),
            (FaultKind::SanitizerFinding, LAUNCH_FAILURE),
            (FaultKind::Unsupported, LAUNCH_FAILURE),
            (FaultKind::Other, LAUNCH_FAILURE),
            (FaultKind::DeviceFault { code: 718 }, 718),
            (FaultKind::DeviceFault { code: 12345 }, UNKNOWN),
        ];
        for (kind, code) in cases {
            assert_eq!(fault(kind, "no words to read"), code, "{kind:?}");
            assert!(is_sticky(code) || code == UNKNOWN, "{kind:?}");
        }
    }

    #[test]
    fn the_message_does_not_decide_the_code() {
        // Words the former text matching keyed on, under kinds that disagree with them.
        let misaligned = "misaligned access in kernel `k`, address 0x7: 4-byte load";
        assert_eq!(fault(FaultKind::Misaligned, misaligned), MISALIGNED_ADDRESS);
        let assert_text = "trap in kernel `k`: Assertion `x` failed.";
        assert_eq!(fault(FaultKind::Trap, assert_text), LAUNCH_FAILURE);
    }

    #[test]
    fn a_gpu_fault_keeps_its_driver_code() {
        // Each sticky fault a GPU's driver reports becomes a kind and maps back to its code.
        for code in [700, 702, 710, 714, 715, 716, 717, 718, 719] {
            assert_eq!(fault_code(FaultKind::from_driver_code(code)), code);
        }
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
