//! Errors of the interpreter: faults raised while a kernel runs, errors of loading a module, and
//! errors of device-memory operations.
//!
//! A [`Fault`] always names the kernel, the block and thread that raised it, the PTX line and text
//! of the faulting instruction, and the address involved, so that a user can find the bug in the
//! source without a debugger.

use std::fmt;

use super::source::{self, SourceFrame, SourcePosition};

/// What went wrong in a [`Fault`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaultKind {
    /// An access outside every live allocation (or outside the state space's bounds).
    OutOfBounds,
    /// An access to memory that was freed.
    UseAfterFree,
    /// An access whose address is not a multiple of its size.
    Misaligned,
    /// A shared-memory access beyond the block's shared memory.
    SharedOverrun,
    /// A local-memory access beyond the thread's stack, or a stack that grew past its limit.
    StackOverflow,
    /// A block whose live threads can never all arrive at a barrier, or a warp collective whose
    /// member lanes never all arrive.
    Deadlock,
    /// `trap` was executed.
    Trap,
    /// `brkpt` was executed.
    Breakpoint,
    /// An instruction or operand form that the CPU device does not execute.
    Unsupported,
    /// A call through a pointer that is not a function, or a malformed call.
    InvalidCall,
    /// A write to read-only memory (`.const`, kernel parameters).
    ReadOnly,
    /// A launch whose configuration or parameters cannot run.
    InvalidLaunch,
    /// `__assertfail` (a failed device-side `assert`).
    AssertFailed,
    /// The launch was stopped from the host (a timeout) while its threads still ran.
    Stopped,
    /// A read of device memory that nothing wrote (with initcheck on).
    UninitializedRead,
    /// A barrier reached from two instructions, or with two thread counts (with synccheck on).
    BarrierError,
}

impl FaultKind {
    /// A short human-readable name.
    pub fn as_str(self) -> &'static str {
        match self {
            FaultKind::OutOfBounds => "out-of-bounds access",
            FaultKind::UseAfterFree => "use after free",
            FaultKind::Misaligned => "misaligned access",
            FaultKind::SharedOverrun => "shared-memory overrun",
            FaultKind::StackOverflow => "local-memory overrun",
            FaultKind::Deadlock => "deadlock",
            FaultKind::Trap => "trap",
            FaultKind::Breakpoint => "breakpoint",
            FaultKind::Unsupported => "unsupported instruction",
            FaultKind::InvalidCall => "invalid call",
            FaultKind::ReadOnly => "write to read-only memory",
            FaultKind::InvalidLaunch => "invalid launch",
            FaultKind::AssertFailed => "assertion failed",
            FaultKind::Stopped => "stopped",
            FaultKind::UninitializedRead => "uninitialized read",
            FaultKind::BarrierError => "barrier error",
        }
    }
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A fault raised by a running kernel; the launch stops at the first one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// What went wrong.
    pub kind: FaultKind,
    /// The kernel that was launched.
    pub kernel: String,
    /// The function executing when the fault happened (the kernel or a device function).
    pub function: String,
    /// `%ctaid` of the faulting thread.
    pub block: [u32; 3],
    /// `%tid` of the faulting thread.
    pub thread: [u32; 3],
    /// PTX source line of the faulting instruction (0 if unknown).
    pub line: u32,
    /// The faulting instruction, as PTX text.
    pub instruction: String,
    /// The address involved, if any.
    pub address: Option<u64>,
    /// More detail (sizes, the allocation involved, the barrier waited on…).
    pub detail: String,
    /// Where the faulting instruction is in the program's source, innermost frame first (its
    /// own line, then each call site it was inlined at); empty without line information.
    pub source: Vec<SourceFrame>,
    /// For [`FaultKind::AssertFailed`]: CUDA's line for every thread whose `assert` failed
    /// (`file:line: function: block: [x,y,z], thread: [x,y,z] Assertion `cond` failed.`), in
    /// block order, at most 4096; empty for other faults.
    pub assertions: Vec<String>,
    /// For [`FaultKind::AssertFailed`]: how many threads' `assert` failed.
    pub failed_asserts: u64,
}

impl Fault {
    /// The kernel's name demangled (`saxpy(float, float const*, float*, int)`), or as written.
    pub fn kernel_signature(&self) -> String {
        crate::symbols::demangle(&self.kernel).unwrap_or_else(|| self.kernel.clone())
    }

    /// The source position of the faulting instruction (its innermost frame), if known.
    pub fn source_position(&self) -> Option<&SourcePosition> {
        self.source.first().map(|frame| &frame.position)
    }
}

/// The hint a report without source positions ends with.
pub const NO_LINE_INFO_HINT: &str = "no source line: compile with -lineinfo";

impl fmt::Display for Fault {
    /// With line information: ``out-of-bounds access in kernel `k(int*)` at k.cu:14:5, block
    /// (0, 0, 0), thread (3, 0, 0), address 0x…: detail (PTX line 42: `st.global.u32 …`)``;
    /// without, the PTX line takes the source position's place and a hint on `-lineinfo` ends it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [bx, by, bz] = self.block;
        let [tx, ty, tz] = self.thread;
        write!(f, "{} in kernel `{}`", self.kind, self.kernel_signature())?;
        if self.function != self.kernel && !self.function.is_empty() {
            let function =
                crate::symbols::demangle(&self.function).unwrap_or_else(|| self.function.clone());
            write!(f, " (in function `{function}`)")?;
        }
        let source = source::describe(&self.source);
        if !source.is_empty() {
            write!(f, " at {source}")?;
        }
        write!(f, ", block ({bx}, {by}, {bz}), thread ({tx}, {ty}, {tz})")?;
        if source.is_empty() {
            write!(f, ", PTX line {}: `{}`", self.line, self.instruction)?;
        }
        if let Some(address) = self.address {
            write!(f, ", address {address:#x}")?;
        }
        if !self.detail.is_empty() {
            write!(f, ": {}", self.detail)?;
        }
        if !source.is_empty() {
            write!(f, " (PTX line {}: `{}`)", self.line, self.instruction)?;
        } else if self.line != 0 {
            write!(f, " ({NO_LINE_INFO_HINT})")?;
        }
        Ok(())
    }
}

impl std::error::Error for Fault {}

/// A fault as the executor raises it, before the block adds the kernel, block and thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ExecFault {
    pub kind: FaultKind,
    /// The lane of the warp that faulted.
    pub lane: u32,
    pub address: Option<u64>,
    pub detail: String,
}

impl ExecFault {
    pub(crate) fn new(kind: FaultKind, lane: u32, detail: impl Into<String>) -> Self {
        ExecFault {
            kind,
            lane,
            address: None,
            detail: detail.into(),
        }
    }

    pub(crate) fn at(kind: FaultKind, lane: u32, address: u64, detail: impl Into<String>) -> Self {
        ExecFault {
            kind,
            lane,
            address: Some(address),
            detail: detail.into(),
        }
    }
}

/// An error of a device-memory operation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MemoryError {
    /// The range touches no live allocation, or runs past the end of one.
    #[error("{len} bytes at {addr:#x} are outside every allocation")]
    OutOfBounds {
        /// First byte of the access.
        addr: u64,
        /// Length of the access.
        len: u64,
    },
    /// The range lies in an allocation that was freed.
    #[error("{len} bytes at {addr:#x} lie in freed allocation {base:#x} ({size} bytes)")]
    UseAfterFree {
        /// First byte of the access.
        addr: u64,
        /// Length of the access.
        len: u64,
        /// Base of the freed allocation.
        base: u64,
        /// Size of the freed allocation.
        size: u64,
    },
    /// `free` of an address that is not the base of a live allocation.
    #[error("{addr:#x} is not the base of a live allocation")]
    InvalidFree {
        /// The address passed.
        addr: u64,
    },
    /// The host could not provide the memory.
    #[error("cannot allocate {bytes} bytes of device memory")]
    OutOfMemory {
        /// The size asked for.
        bytes: u64,
    },
    /// The device's address window has no free range large enough.
    #[error(
        "cannot allocate {bytes} bytes of device memory: no free range of the device's \
         {window}-byte address window is large enough ({free_ranges} free ranges)"
    )]
    AddressSpaceExhausted {
        /// The size asked for.
        bytes: u64,
        /// Size of the address window.
        window: u64,
        /// How many separate free ranges the window has.
        free_ranges: usize,
    },
    /// An alignment that is not a power of two, or a fill pattern that is not 1, 2, 4 or 8 bytes.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

/// An error of [`Program::load`](super::Program::load): something in the module that the CPU
/// device cannot execute, or a malformed module.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}PTX line {line}: {message}", function.as_ref().map(|f| format!("in `{f}`, ")).unwrap_or_default())]
pub struct LoadError {
    /// The function in which the problem is, if it is inside one.
    pub function: Option<String>,
    /// The PTX line (0 if unknown).
    pub line: u32,
    /// What is wrong.
    pub message: String,
}

impl LoadError {
    pub(crate) fn new(function: Option<&str>, line: u32, message: impl Into<String>) -> Self {
        LoadError {
            function: function.map(str::to_string),
            line,
            message: message.into(),
        }
    }
}
