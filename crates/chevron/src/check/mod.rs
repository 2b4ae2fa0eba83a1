//! The sanitizer: `CHEVRON_CHECK=memcheck,racecheck,initcheck,synccheck,leaks` (or [`configure`]), on the
//! CPU device.
//!
//! - **memcheck**: every access checked against the allocation table, the kernel's exact shared
//!   memory and its thread's stack, misalignment, use after free, failed `assert` (the CPU
//!   device always checks these; with the check on, each fault is also a [`Finding`]).
//! - **initcheck**: device memory remembers which of its bytes were written (by the host, a copy,
//!   a memset or a kernel); a kernel reading a byte never written is a finding. Kernels run in
//!   the interpreter while it is on.
//! - **synccheck**: a block's threads waiting at one barrier from two instructions, or with two
//!   thread counts. Kernels run in the interpreter while it is on.
//! - **racecheck**: conflicting shared-memory accesses of a block's threads between two
//!   barriers, and conflicting global accesses of two blocks of a launch that no fence and
//!   atomic order (`chevron_ptx::interp::race`). Kernels run in the interpreter, their blocks
//!   one after another, while it is on.
//! - **leaks**: allocations made through the CUDA runtime and still live at exit, each with the
//!   host call that made it.
//!
//! Off by default. Each finding is printed on stderr as it is found, kept as a typed
//! [`Finding`] ([`findings`]), and at exit a summary is printed; when anything was found the
//! process exits with status 1 (as compute-sanitizer's `--error-exitcode`).

mod exit;
mod leaks;

use std::sync::{Mutex, OnceLock};

use crate::error::{Error, Result};
pub use chevron_ptx::interp::{RaceAccess, SourcePosition};
pub use leaks::{forget_allocation, track_allocation};

/// The environment variable that turns checks on.
pub const VARIABLE: &str = "CHEVRON_CHECK";

/// Which checks run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CheckConfig {
    /// Faults as findings (out of bounds, misaligned, use after free, shared overrun, assert).
    pub memcheck: bool,
    /// Reads of device memory never written.
    pub initcheck: bool,
    /// Allocations live at exit.
    pub leaks: bool,
    /// Barriers reached from two instructions or with two thread counts.
    pub synccheck: bool,
    /// Conflicting accesses that nothing orders (shared memory in a block, global between blocks).
    pub racecheck: bool,
}

impl CheckConfig {
    /// Parses a comma-separated list of `memcheck`, `racecheck`, `initcheck`, `synccheck`, `leaks` (`all`: every one;
    /// empty or `none`: off).
    pub fn parse(text: &str) -> Result<CheckConfig> {
        let mut config = CheckConfig::default();
        for word in text.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            match word {
                "memcheck" => config.memcheck = true,
                "initcheck" => config.initcheck = true,
                "leaks" | "leakcheck" => config.leaks = true,
                "synccheck" => config.synccheck = true,
                "all" => {
                    config = CheckConfig {
                        memcheck: true,
                        initcheck: true,
                        leaks: true,
                        synccheck: true,
                        racecheck: true,
                    }
                }
                "none" => {}
                "racecheck" => config.racecheck = true,
                _ => {
                    return Err(invalid(
                        text,
                        &format!(
                            "unknown check `{word}` (memcheck, racecheck, initcheck, synccheck, leaks, \
                             all)"
                        ),
                    ))
                }
            }
        }
        Ok(config)
    }

    /// Whether any check is on.
    pub fn any(&self) -> bool {
        self.memcheck || self.initcheck || self.leaks || self.synccheck || self.racecheck
    }

    /// The names of the checks that are on, comma-separated.
    pub fn names(&self) -> String {
        [
            (self.memcheck, "memcheck"),
            (self.racecheck, "racecheck"),
            (self.initcheck, "initcheck"),
            (self.synccheck, "synccheck"),
            (self.leaks, "leaks"),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, name)| *name)
        .collect::<Vec<_>>()
        .join(",")
    }
}

fn invalid(text: &str, why: &str) -> Error {
    Error::InvalidValue {
        call: VARIABLE,
        message: format!("`{text}`: {why}"),
    }
}

static CONFIG: OnceLock<CheckConfig> = OnceLock::new();

/// Sets the checks of this process before any device runs (what `chevron run --check` does);
/// an error if they were already fixed differently (by an earlier call or by [`active`]).
pub fn configure(config: CheckConfig) -> Result<()> {
    let set = *CONFIG.get_or_init(|| config);
    if set != config {
        return Err(Error::InvalidValue {
            call: "check::configure",
            message: format!(
                "the checks of this process are already `{}`",
                if set.any() {
                    set.names()
                } else {
                    "none".into()
                }
            ),
        });
    }
    if config.any() {
        exit::install();
    }
    Ok(())
}

/// The checks of this process: those [`configure`]d, else `CHEVRON_CHECK`'s (read once; a
/// malformed value is an error, every time it is asked).
pub fn active() -> Result<CheckConfig> {
    if let Some(config) = CONFIG.get() {
        return Ok(*config);
    }
    let text = std::env::var(VARIABLE).unwrap_or_default();
    let config = CheckConfig::parse(&text)?;
    configure(config)?;
    Ok(config)
}

/// The checks on, or none when `CHEVRON_CHECK` is malformed (devices refuse to start then).
pub(crate) fn current() -> CheckConfig {
    active().unwrap_or_default()
}

/// What a check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The check: `memcheck`, `racecheck`, `initcheck`, `synccheck` or `leaks`.
    pub check: &'static str,
    /// What was found: a fault kind (`out-of-bounds access`, …), `uninitialized read`,
    /// `shared-memory race`, `global-memory race`, `leak`.
    pub kind: String,
    /// The kernel (demangled), for findings inside one.
    pub kernel: Option<String>,
    /// `%ctaid` and `%tid` of the thread, for findings inside a kernel.
    pub block: Option<[u32; 3]>,
    /// See `block`.
    pub thread: Option<[u32; 3]>,
    /// The address involved.
    pub address: Option<u64>,
    /// The source position of the instruction (with `-lineinfo`).
    pub source: Option<SourcePosition>,
    /// racecheck: whether this finding's own access wrote (else it read).
    pub write: Option<bool>,
    /// racecheck: the earlier access of the pair (this finding's own is `block`, `thread`,
    /// `source`).
    pub other: Option<RaceAccess>,
    /// How many times it happened (racecheck groups conflicts by their pair of instructions).
    pub count: u64,
    /// The whole report, as printed.
    pub message: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.check, self.message)
    }
}

impl std::error::Error for Finding {}

static FINDINGS: Mutex<Vec<Finding>> = Mutex::new(Vec::new());

/// Every finding of this process so far, in the order found.
pub fn findings() -> Vec<Finding> {
    FINDINGS.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Takes the findings so far, leaving none: a harness that asserted on them keeps them out of
/// the exit summary and status.
pub fn take_findings() -> Vec<Finding> {
    std::mem::take(&mut *FINDINGS.lock().unwrap_or_else(|e| e.into_inner()))
}

/// Records a finding and prints it on stderr.
pub(crate) fn record(finding: Finding) {
    eprintln!("chevron check: {finding}");
    FINDINGS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(finding);
}

/// Records a kernel fault as a memcheck finding (or initcheck, for uninitialized reads), when
/// that check is on.
pub(crate) fn record_fault(fault: &chevron_ptx::interp::Fault) {
    let checks = current();
    let (check, on) = match fault.kind {
        chevron_ptx::interp::FaultKind::UninitializedRead => ("initcheck", checks.initcheck),
        chevron_ptx::interp::FaultKind::BarrierError => ("synccheck", checks.synccheck),
        _ => ("memcheck", checks.memcheck),
    };
    if !on || fault.kind == chevron_ptx::interp::FaultKind::Stopped {
        return;
    }
    record(Finding {
        check,
        kind: fault.kind.as_str().to_string(),
        kernel: Some(fault.kernel_signature()),
        block: Some(fault.block),
        thread: Some(fault.thread),
        address: fault.address,
        source: fault.source_position().cloned(),
        write: None,
        other: None,
        count: 1,
        message: fault.to_string(),
    });
}

/// Records the conflicts racecheck found in one launch, one finding per pair of instructions.
pub(crate) fn record_races(races: Vec<chevron_ptx::interp::Race>) {
    for race in races {
        record(Finding {
            check: "racecheck",
            kind: race.kind().to_string(),
            kernel: Some(race.kernel.clone()),
            block: Some(race.access.block),
            thread: Some(race.access.thread),
            address: Some(race.address),
            source: race.access.source_position().cloned(),
            message: race.to_string(),
            count: race.count,
            write: Some(race.access.write),
            other: Some(race.other),
        });
    }
}

/// Records a CUDA runtime call that failed (`function` returned `error_name`) as a memcheck
/// finding, with the host code that called it, as compute-sanitizer reports API errors. Kernel
/// faults seen again by later calls are not recorded here.
pub fn record_api_error(function: &str, error_name: &str, message: &str) {
    if !current().memcheck {
        return;
    }
    let backtrace = std::backtrace::Backtrace::force_capture().to_string();
    let caller = leaks::caller_of(&backtrace, function);
    let detail = if message.is_empty() {
        String::new()
    } else {
        format!(": {message}")
    };
    record(Finding {
        check: "memcheck",
        kind: "CUDA API error".into(),
        kernel: None,
        block: None,
        thread: None,
        address: None,
        source: None,
        write: None,
        other: None,
        count: 1,
        message: format!("CUDA API error: {function} returned {error_name}{caller}{detail}"),
    });
}

/// Records a fault of a copy or fill (`what`: `memcpy host-to-device`, …) as a memcheck finding.
pub(crate) fn record_memory_fault(what: &str, message: &str) {
    if !current().memcheck {
        return;
    }
    record(Finding {
        check: "memcheck",
        kind: "invalid memory operation".into(),
        kernel: None,
        block: None,
        thread: None,
        address: None,
        source: None,
        write: None,
        other: None,
        count: 1,
        message: format!("{what}: {message}"),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parse_and_bad_names_are_errors() {
        let config = CheckConfig::parse("memcheck, leaks").unwrap();
        assert!(config.memcheck && config.leaks && !config.initcheck);
        assert_eq!(config.names(), "memcheck,leaks");
        assert!(!CheckConfig::parse("").unwrap().any());
        assert!(CheckConfig::parse("all").unwrap().initcheck);
        let error = CheckConfig::parse("memcheck,bogus")
            .unwrap_err()
            .to_string();
        assert!(error.contains("unknown check `bogus`"), "{error}");
        assert!(CheckConfig::parse("synccheck").unwrap().synccheck);
        assert!(CheckConfig::parse("racecheck").unwrap().racecheck);
        assert!(CheckConfig::parse("all").unwrap().racecheck);
    }
}
