//! chevron's one error type.
//!
//! Every error says what failed and in what context: the kernel, the device, the driver call,
//! the parameter, the file and line. Errors are for what the caller cannot foresee; broken
//! internal invariants panic instead (and never cross the C ABI).

use std::path::PathBuf;

/// Result alias used throughout chevron.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in chevron. `Debug` shows the same readable message as
/// `Display` (as anyhow's errors do), so `fn main() -> chevron::Result<()>` reports it well.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A backend (its driver library, a symbol of it, or its devices) is not available.
    #[error("{backend} is unavailable: {reason}")]
    Unavailable {
        /// `cuda`, `cpu`, `nvrtc`, …
        backend: &'static str,
        /// Why, e.g. "libcuda.so.1: cannot open shared object file".
        reason: String,
    },

    /// A driver call returned an error.
    #[error("{call} failed on {device}: {name}: {text}{}", context_suffix(.context))]
    Driver {
        /// The driver entry point, e.g. `cuLaunchKernel`.
        call: &'static str,
        /// The driver's numeric code.
        code: i32,
        /// The driver's error name, e.g. `CUDA_ERROR_INVALID_VALUE`.
        name: String,
        /// The driver's error text.
        text: String,
        /// The device, e.g. `cuda:0 (NVIDIA H200)`.
        device: String,
        /// What chevron was doing: kernel name, grid and block, … (may be empty).
        context: String,
    },

    /// Launch arguments do not match the kernel's parameters.
    #[error("kernel `{kernel}`: {message}")]
    Argument {
        /// The kernel.
        kernel: String,
        /// The 0-based parameter index, when one parameter is at fault.
        parameter: Option<usize>,
        /// What is wrong, e.g. "parameter 2 (`n`) is 4 bytes, got 8".
        message: String,
    },

    /// A launch configuration the device cannot run (threads per block, shared memory, grid).
    #[error("kernel `{kernel}` on {device}: invalid launch configuration: {message}")]
    LaunchConfig {
        /// The kernel.
        kernel: String,
        /// The device.
        device: String,
        /// What is wrong, with the limit.
        message: String,
    },

    /// A kernel, symbol or device was not found.
    #[error("{what} `{name}` not found{}{}", in_suffix(.scope), candidates_suffix(.candidates))]
    NotFound {
        /// `kernel`, `symbol`, `global`, `device`.
        what: &'static str,
        /// What was asked for.
        name: String,
        /// Where it was looked for (a module or file), may be empty.
        scope: String,
        /// Close matches, for the message.
        candidates: Vec<String>,
    },

    /// A code object is malformed or unsupported (PTX syntax error, truncated cubin, …).
    #[error("{source_name}: {message}")]
    CodeObject {
        /// The file name, or `<memory>`.
        source_name: String,
        /// What is wrong; for PTX, `line L, column C: …`.
        message: String,
    },

    /// A kernel faulted on the device (out-of-bounds access, trap, deadlock, …). Later work on the
    /// stream is cancelled.
    #[error("kernel `{kernel}` faulted on {device}: {message}")]
    Fault {
        /// The kernel.
        kernel: String,
        /// The device.
        device: String,
        /// What class of fault it is, as the device detected it (CUDA's front doors map it to
        /// their error codes without reading `message`).
        kind: FaultKind,
        /// The fault: for the CPU device, kind, block, thread, PTX line and address.
        message: String,
    },

    /// Work did not finish within a host-side deadline ([`crate::Token::wait_timeout`]).
    #[error("{what} on {device} did not finish within {seconds} s{}", context_suffix(.detail))]
    Timeout {
        /// What was waited for: ``kernel `k` `` where known, else the submission.
        what: String,
        /// The device.
        device: String,
        /// The deadline, in seconds.
        seconds: f64,
        /// On the CPU device, where the stopped kernel's threads were.
        detail: String,
    },

    /// A file could not be read or written.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },

    /// An argument of a chevron call is invalid (wrong size, wrong device, …).
    #[error("{call}: {message}")]
    InvalidValue {
        /// The chevron call, e.g. `Buffer::copy_from_host`.
        call: &'static str,
        /// What is wrong.
        message: String,
    },
}

/// The class of a kernel fault ([`Error::Fault`]): what the CPU device's executors detected, or
/// the error code a GPU's driver reported. `docs/faults.md` lists the CUDA error each maps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FaultKind {
    /// An access outside every live allocation, to freed memory, past the block's shared or the
    /// thread's local memory, a write to read-only memory, or a call or `free` through an
    /// address that is none of these (CUDA: illegal address, 700).
    IllegalAddress,
    /// An access whose address is not a multiple of its size (CUDA: misaligned address, 716).
    Misaligned,
    /// An address outside the state space an instruction needs (CUDA: invalid address space,
    /// 717; reported by GPUs).
    InvalidAddressSpace,
    /// A failed device-side `assert` (CUDA: device-side assert triggered, 710).
    Assert,
    /// `trap` was executed (CUDA: unspecified launch failure, 719).
    Trap,
    /// `brkpt` was executed with no debugger attached.
    Breakpoint,
    /// An instruction the device refused (CUDA: illegal instruction, 715; reported by GPUs).
    IllegalInstruction,
    /// Calls nested past the thread's stack limit (CUDA: hardware stack error, 714).
    StackOverflow,
    /// Threads that can never all arrive at a barrier or warp collective (a GPU hangs).
    Deadlock,
    /// The kernel was stopped because it ran too long: a host-side timeout on the CPU device
    /// (CUDA: launch timed out, 702).
    Timeout,
    /// A finding of a check that ends the launch (initcheck's uninitialized read, synccheck's
    /// barrier error; `CHEVRON_CHECK`).
    SanitizerFinding,
    /// An instruction or launch form that the CPU device does not execute.
    Unsupported,
    /// A fault a GPU's driver reported with a code no other kind stands for.
    DeviceFault {
        /// The driver's `CUresult`, e.g. 719 (`CUDA_ERROR_LAUNCH_FAILED`).
        code: i32,
    },
    /// Anything else: a failed host function, an internal error of the CPU device.
    Other,
}

impl FaultKind {
    /// The kind of a fault that a GPU's driver reported as `code` (a `CUresult` of 700–719).
    pub fn from_driver_code(code: i32) -> FaultKind {
        match code {
            700 => FaultKind::IllegalAddress,
            702 => FaultKind::Timeout,
            710 => FaultKind::Assert,
            714 => FaultKind::StackOverflow,
            715 => FaultKind::IllegalInstruction,
            716 => FaultKind::Misaligned,
            717 => FaultKind::InvalidAddressSpace,
            code => FaultKind::DeviceFault { code },
        }
    }
}

impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

fn context_suffix(context: &str) -> String {
    if context.is_empty() {
        String::new()
    } else {
        format!(" ({context})")
    }
}

fn in_suffix(scope: &str) -> String {
    if scope.is_empty() {
        String::new()
    } else {
        format!(" in {scope}")
    }
}

fn candidates_suffix(candidates: &[String]) -> String {
    if candidates.is_empty() {
        String::new()
    } else {
        format!("; candidates: {}", candidates.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_shows_the_readable_message() {
        let error = Error::NotFound {
            what: "kernel",
            name: "saxpy".into(),
            scope: "k.ptx".into(),
            candidates: vec!["saxpy2".into()],
        };
        let message = "kernel `saxpy` not found in k.ptx; candidates: saxpy2";
        assert_eq!(format!("{error:?}"), message);
        assert_eq!(error.to_string(), message);
    }
}
