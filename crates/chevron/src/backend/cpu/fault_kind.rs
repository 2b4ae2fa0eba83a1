//! The class of a CPU device's fault: the interpreter's fault kinds (which the compiled executor
//! reports too, by re-running a faulting block interpreted) and failed copies, as the
//! [`FaultKind`] that CUDA's front doors map to their error codes.

use chevron_ptx::interp::{self, MemoryError};

use crate::error::FaultKind;

/// Why a launch or a step of work failed: the fault's class and its description.
pub(crate) type Failure = (FaultKind, String);

/// A failed copy or fill as a [`Failure`], described as the memory refused it.
pub(crate) fn memory_failure(error: MemoryError) -> Failure {
    (of_memory_error(&error), error.to_string())
}

/// The class of a fault the executors raised.
pub(crate) fn of_fault(fault: &interp::Fault) -> FaultKind {
    use interp::FaultKind as K;
    match fault.kind {
        K::OutOfBounds | K::UseAfterFree | K::SharedOverrun | K::ReadOnly => {
            FaultKind::IllegalAddress
        }
        K::Misaligned => FaultKind::Misaligned,
        // A local access past the stack has an address; a stack grown past its limit has none.
        K::StackOverflow if fault.address.is_some() => FaultKind::IllegalAddress,
        K::StackOverflow => FaultKind::StackOverflow,
        // A call or `free` through an address that is not a function or an allocation; a call
        // to a function declared but never defined has no address.
        K::InvalidCall if fault.address.is_some() => FaultKind::IllegalAddress,
        K::InvalidCall => FaultKind::Other,
        K::Deadlock => FaultKind::Deadlock,
        K::Trap => FaultKind::Trap,
        K::Breakpoint => FaultKind::Breakpoint,
        K::Unsupported | K::InvalidLaunch => FaultKind::Unsupported,
        K::AssertFailed => FaultKind::Assert,
        K::Stopped => FaultKind::Timeout,
        K::UninitializedRead | K::BarrierError => FaultKind::SanitizerFinding,
    }
}

/// The class of a failed copy or fill on the device's memory.
pub(crate) fn of_memory_error(error: &MemoryError) -> FaultKind {
    match error {
        MemoryError::OutOfBounds { .. }
        | MemoryError::UseAfterFree { .. }
        | MemoryError::InvalidFree { .. } => FaultKind::IllegalAddress,
        MemoryError::OutOfMemory { .. }
        | MemoryError::AddressSpaceExhausted { .. }
        | MemoryError::InvalidArgument(_) => FaultKind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fault(kind: interp::FaultKind, address: Option<u64>) -> interp::Fault {
        interp::Fault {
            kind,
            kernel: "k".into(),
            function: "k".into(),
            block: [0; 3],
            thread: [0; 3],
            line: 1,
            instruction: "trap;".into(),
            address,
            detail: String::new(),
            source: Vec::new(),
            assertions: Vec::new(),
            failed_asserts: 0,
        }
    }

    #[test]
    fn executor_faults_keep_their_class() {
        use interp::FaultKind as K;
        let cases = [
            (K::OutOfBounds, Some(8), FaultKind::IllegalAddress),
            (K::UseAfterFree, Some(8), FaultKind::IllegalAddress),
            (K::SharedOverrun, Some(8), FaultKind::IllegalAddress),
            (K::ReadOnly, Some(8), FaultKind::IllegalAddress),
            (K::Misaligned, Some(9), FaultKind::Misaligned),
            (K::StackOverflow, Some(8), FaultKind::IllegalAddress),
            (K::StackOverflow, None, FaultKind::StackOverflow),
            (K::InvalidCall, Some(8), FaultKind::IllegalAddress),
            (K::InvalidCall, None, FaultKind::Other),
            (K::Deadlock, None, FaultKind::Deadlock),
            (K::Trap, None, FaultKind::Trap),
            (K::Breakpoint, None, FaultKind::Breakpoint),
            (K::Unsupported, None, FaultKind::Unsupported),
            (K::InvalidLaunch, None, FaultKind::Unsupported),
            (K::AssertFailed, None, FaultKind::Assert),
            (K::Stopped, None, FaultKind::Timeout),
            (K::UninitializedRead, Some(8), FaultKind::SanitizerFinding),
            (K::BarrierError, None, FaultKind::SanitizerFinding),
        ];
        for (kind, address, expected) in cases {
            assert_eq!(of_fault(&fault(kind, address)), expected, "{kind:?}");
        }
    }

    #[test]
    fn failed_copies_are_illegal_addresses() {
        let outside = MemoryError::OutOfBounds { addr: 8, len: 4 };
        assert_eq!(of_memory_error(&outside), FaultKind::IllegalAddress);
        let argument = MemoryError::InvalidArgument("pattern".into());
        assert_eq!(of_memory_error(&argument), FaultKind::Other);
    }
}
