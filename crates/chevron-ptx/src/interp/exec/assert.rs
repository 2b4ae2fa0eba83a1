//! A failed device-side `assert` (`__assertfail`), as CUDA reports it: every thread whose
//! assertion fails writes `file:line: function: block: [x,y,z], thread: [x,y,z] Assertion
//! `cond` failed.` and stops; the other threads run on, and the launch fails once its blocks are
//! done, with the first failing thread's fault (whose [`Fault::assertions`] hold every line).
//!
//! [`Fault::assertions`]: crate::interp::Fault::assertions

use super::calls::arg_value;
use super::Launch;
use crate::interp::block::{fault, Block};
use crate::interp::fault::{ExecFault, FaultKind};
use crate::interp::inst::Call;
use crate::interp::printf;
use crate::interp::warp::Warp;

/// Most assertion lines one launch keeps; later failing threads are counted, not described.
pub const KEPT_ASSERTIONS: usize = 4096;

/// Records the failed assertion of `lane` (its CUDA line, and the block's fault if it is the
/// first) and ends the lane, as `trap` would end that thread alone.
pub(super) fn fail(call: &Call, w: &mut Warp, b: &mut Block, l: &Launch<'_>, lane: usize) {
    let arg = |w: &Warp, i: usize| call.args.get(i).map(|a| arg_value(w, *a, lane));
    let text = |w: &mut Warp, b: &Block, a: Option<u64>| {
        printf::c_string(w, b, l, lane, a.unwrap_or(0)).unwrap_or_default()
    };
    let (message, file, function) = (arg(w, 0), arg(w, 1), arg(w, 3));
    let line = arg(w, 2).unwrap_or(0) as u32;
    let message = text(w, b, message);
    let file = text(w, b, file);
    let function = text(w, b, function);
    let [bx, by, bz] = b.ctaid;
    let [tx, ty, tz] = w.tid[lane];
    b.failed_asserts += 1;
    if b.assertions.len() < KEPT_ASSERTIONS {
        b.assertions.push(format!(
            "{file}:{line}: {function}: block: [{bx},{by},{bz}], thread: [{tx},{ty},{tz}] \
             Assertion `{message}` failed."
        ));
    }
    if b.failed_assert.is_none() {
        let e = ExecFault::new(
            FaultKind::AssertFailed,
            lane as u32,
            format!("{file}:{line}: {function}: Assertion `{message}` failed."),
        );
        b.failed_assert = Some(Box::new(fault(l, b, w, e)));
    }
    w.exited |= 1 << lane;
    b.exited(1);
}
