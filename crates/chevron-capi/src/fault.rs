//! The class of a kernel fault for C callers: [`chevron_fault_kind`], and
//! `chevron_last_fault_kind()`, which says what kind of fault the thread's last failed call
//! reported (`CHEVRON_ERROR_FAULT`), as `chevron_last_error()` says it in words.

use std::cell::Cell;

use chevron::FaultKind;

/// The class of a kernel fault (`CHEVRON_ERROR_FAULT`), as `chevron_last_fault_kind` reports it.
/// docs/faults.md lists the CUDA error each stands for.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum chevron_fault_kind {
    /// The thread's last failed call was not a kernel fault (or no call failed).
    CHEVRON_FAULT_NONE = 0,
    /// An access outside device memory the kernel may touch (CUDA: illegal address).
    CHEVRON_FAULT_ILLEGAL_ADDRESS = 1,
    /// An access whose address is not a multiple of its size (CUDA: misaligned address).
    CHEVRON_FAULT_MISALIGNED = 2,
    /// An address outside the state space an instruction needs (CUDA: invalid address space).
    CHEVRON_FAULT_INVALID_ADDRESS_SPACE = 3,
    /// A failed device-side `assert` (CUDA: device-side assert triggered).
    CHEVRON_FAULT_ASSERT = 4,
    /// `trap` was executed.
    CHEVRON_FAULT_TRAP = 5,
    /// `brkpt` was executed with no debugger attached.
    CHEVRON_FAULT_BREAKPOINT = 6,
    /// An instruction the device refused (CUDA: illegal instruction).
    CHEVRON_FAULT_ILLEGAL_INSTRUCTION = 7,
    /// Calls nested past the thread's stack limit (CUDA: hardware stack error).
    CHEVRON_FAULT_STACK_OVERFLOW = 8,
    /// Threads that can never all arrive at a barrier or warp collective.
    CHEVRON_FAULT_DEADLOCK = 9,
    /// The kernel was stopped because it ran too long (CUDA: launch timed out).
    CHEVRON_FAULT_TIMEOUT = 10,
    /// A finding of a check that ends the launch (`CHEVRON_CHECK`: initcheck, synccheck).
    CHEVRON_FAULT_SANITIZER_FINDING = 11,
    /// An instruction or launch form the CPU device does not execute.
    CHEVRON_FAULT_UNSUPPORTED = 12,
    /// A fault a GPU's driver reported with a code of its own (written to `driver_code`).
    CHEVRON_FAULT_DEVICE = 13,
    /// Any other fault (a failed host function, an internal error).
    CHEVRON_FAULT_OTHER = 14,
}

impl chevron_fault_kind {
    /// The C kind of `kind`, and the driver's code for a GPU's own fault (0 otherwise).
    pub(crate) fn of(kind: FaultKind) -> (chevron_fault_kind, i32) {
        use chevron_fault_kind::*;
        let c = match kind {
            FaultKind::IllegalAddress => CHEVRON_FAULT_ILLEGAL_ADDRESS,
            FaultKind::Misaligned => CHEVRON_FAULT_MISALIGNED,
            FaultKind::InvalidAddressSpace => CHEVRON_FAULT_INVALID_ADDRESS_SPACE,
            FaultKind::Assert => CHEVRON_FAULT_ASSERT,
            FaultKind::Trap => CHEVRON_FAULT_TRAP,
            FaultKind::Breakpoint => CHEVRON_FAULT_BREAKPOINT,
            FaultKind::IllegalInstruction => CHEVRON_FAULT_ILLEGAL_INSTRUCTION,
            FaultKind::StackOverflow => CHEVRON_FAULT_STACK_OVERFLOW,
            FaultKind::Deadlock => CHEVRON_FAULT_DEADLOCK,
            FaultKind::Timeout => CHEVRON_FAULT_TIMEOUT,
            FaultKind::SanitizerFinding => CHEVRON_FAULT_SANITIZER_FINDING,
            FaultKind::Unsupported => CHEVRON_FAULT_UNSUPPORTED,
            FaultKind::DeviceFault { code } => return (CHEVRON_FAULT_DEVICE, code),
            // `Other`, and a class this header does not name yet.
            _ => CHEVRON_FAULT_OTHER,
        };
        (c, 0)
    }
}

thread_local! {
    static LAST_FAULT: Cell<Option<FaultKind>> = const { Cell::new(None) };
}

/// Records the fault class of this thread's last failed call (`None`: not a fault).
pub(crate) fn set_last_fault(kind: Option<FaultKind>) {
    // During thread exit the slot may be gone; the kind is then dropped.
    let _ = LAST_FAULT.try_with(|slot| slot.set(kind));
}

/// The kind of kernel fault the last failed `chevron_*` call on this thread reported, or
/// `CHEVRON_FAULT_NONE` when that failure was not a fault. For `CHEVRON_FAULT_DEVICE`, writes the
/// GPU driver's code (a `CUresult`, e.g. 719) to `driver_code`, else 0; `driver_code` may be NULL.
///
/// # Safety
/// `driver_code` is NULL or points to writable memory for one `int32_t`.
#[no_mangle]
pub unsafe extern "C" fn chevron_last_fault_kind(driver_code: *mut i32) -> chevron_fault_kind {
    let last = LAST_FAULT.try_with(Cell::get).ok().flatten();
    let (kind, code) = match last {
        Some(kind) => chevron_fault_kind::of(kind),
        None => (chevron_fault_kind::CHEVRON_FAULT_NONE, 0),
    };
    if !driver_code.is_null() {
        // SAFETY: non-NULL, and writable for one int32_t by the caller's contract.
        unsafe { driver_code.write(code) };
    }
    kind
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{entry, CapiError};
    use crate::status::chevron_status;

    fn fault(kind: FaultKind) -> chevron::Error {
        chevron::Error::Fault {
            kernel: "k".into(),
            device: "cpu:0".into(),
            kind,
            message: "misaligned access in kernel `k`".into(),
        }
    }

    fn last() -> (chevron_fault_kind, i32) {
        let mut code = -1;
        // SAFETY: `code` is a writable int32_t.
        let kind = unsafe { chevron_last_fault_kind(&mut code) };
        (kind, code)
    }

    #[test]
    fn the_last_failure_names_its_fault_kind() {
        let status = entry("chevron_demo", || Err(fault(FaultKind::Misaligned).into()));
        assert_eq!(status, chevron_status::CHEVRON_ERROR_FAULT);
        assert_eq!(last(), (chevron_fault_kind::CHEVRON_FAULT_MISALIGNED, 0));
        let gpu = FaultKind::DeviceFault { code: 719 };
        entry("chevron_demo", || Err(fault(gpu).into()));
        assert_eq!(last(), (chevron_fault_kind::CHEVRON_FAULT_DEVICE, 719));
        // A failure that is not a fault clears it; NULL is accepted.
        entry("chevron_demo", || Err(CapiError::invalid("`n` is NULL")));
        assert_eq!(last(), (chevron_fault_kind::CHEVRON_FAULT_NONE, 0));
        // SAFETY: NULL is allowed.
        let kind = unsafe { chevron_last_fault_kind(std::ptr::null_mut()) };
        assert_eq!(kind, chevron_fault_kind::CHEVRON_FAULT_NONE);
    }
}
