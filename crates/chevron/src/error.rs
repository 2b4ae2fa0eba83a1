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
