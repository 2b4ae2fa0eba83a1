//! What a compiled launch reports besides its memory: the `printf` output of its blocks
//! (compiled, or run again in the interpreter), the lane instructions of the blocks the
//! interpreter ran, and its fault, each as an interpreted launch gives them.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use chevron_ptx::interp::{
    Fault, FaultKind, LaunchHooks, LaunchReport, KEPT_ASSERTIONS, KEPT_PRINTF_BYTES,
};

/// What a launch reports: its `printf` output, handed to its sink block by block, or
/// (without one) kept per block and returned in block order, at most [`KEPT_PRINTF_BYTES`],
/// as the interpreter does; and the lane instructions of the blocks the interpreter ran.
pub(crate) struct Reported<'a> {
    sink: Option<&'a (dyn Fn(&str) + Sync)>,
    blocks: Mutex<Vec<(u64, String)>>,
    /// Bytes of `blocks`.
    kept: AtomicUsize,
    interpreted: AtomicU64,
}

impl<'a> Reported<'a> {
    pub(crate) fn new(hooks: &LaunchHooks<'a>) -> Self {
        Reported {
            sink: hooks.printf,
            blocks: Mutex::new(Vec::new()),
            kept: AtomicUsize::new(0),
            interpreted: AtomicU64::new(0),
        }
    }

    /// What the interpreter's run of blocks from `index` on reported.
    pub(crate) fn add_interpreted(&self, index: u64, report: &LaunchReport) {
        (self.interpreted).fetch_add(report.lane_instructions, Ordering::Relaxed);
        self.add(index, report.printf_output.clone());
    }

    /// What block `index` printed (kept up to [`KEPT_PRINTF_BYTES`] in all, as blocks end).
    pub(crate) fn add(&self, index: u64, mut text: String) {
        match self.sink {
            _ if text.is_empty() => {}
            Some(sink) => sink(&text),
            None => {
                let kept = self.kept.fetch_add(text.len(), Ordering::Relaxed);
                let mut end = KEPT_PRINTF_BYTES.saturating_sub(kept).min(text.len());
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                text.truncate(end);
                let mut blocks = self.blocks.lock().unwrap_or_else(|e| e.into_inner());
                blocks.push((index, text));
            }
        }
    }

    /// The launch's report.
    pub(crate) fn report(&self) -> LaunchReport {
        LaunchReport {
            lane_instructions: self.interpreted.load(Ordering::Relaxed),
            printf_output: self.text(),
        }
    }

    /// The kept output, in block order.
    fn text(&self) -> String {
        let mut blocks =
            std::mem::take(&mut *self.blocks.lock().unwrap_or_else(|e| e.into_inner()));
        blocks.sort_by_key(|(index, _)| *index);
        blocks.into_iter().map(|(_, text)| text).collect()
    }
}

/// The faults of a launch's blocks, as the interpreter keeps them: the first block's, with the
/// lines of every failed `assert` of the launch in block order (a failed `assert` stops its
/// own block only, so that every failing thread is reported, as on a GPU).
#[derive(Default)]
pub(crate) struct Faults {
    first: Mutex<Option<(u64, Fault)>>,
    asserted: Mutex<Vec<(u64, Vec<String>, u64)>>,
}

impl Faults {
    /// Notes the fault of the blocks from `index` on; whether the launch goes on (the fault is
    /// a failed `assert`).
    pub(crate) fn note(&self, index: u64, mut fault: Fault) -> bool {
        let asserted = fault.kind == FaultKind::AssertFailed;
        if asserted {
            let lines = std::mem::take(&mut fault.assertions);
            let mut all = self.asserted.lock().unwrap_or_else(|e| e.into_inner());
            all.push((index, lines, fault.failed_asserts));
        }
        let mut first = self.first.lock().unwrap_or_else(|e| e.into_inner());
        if first.as_ref().is_none_or(|(i, _)| index < *i) {
            *first = Some((index, fault));
        }
        asserted
    }

    /// The launch's fault, if a block faulted.
    pub(crate) fn first(self) -> Option<Fault> {
        let (_, mut fault) = self.first.into_inner().unwrap_or_else(|e| e.into_inner())?;
        let mut asserted = self
            .asserted
            .into_inner()
            .unwrap_or_else(|e| e.into_inner());
        asserted.sort_by_key(|(index, ..)| *index);
        fault.failed_asserts = 0;
        for (_, lines, count) in asserted {
            fault.failed_asserts += count;
            let room = KEPT_ASSERTIONS.saturating_sub(fault.assertions.len());
            fault.assertions.extend(lines.into_iter().take(room));
        }
        Some(fault)
    }
}
