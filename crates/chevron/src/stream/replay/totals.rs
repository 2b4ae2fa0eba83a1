//! Process-wide totals of automatic replay, over every stream ([`auto_graph_totals`]), and the
//! line `CHEVRON_AUTO_GRAPH=report` prints at exit, so that programs using chevron through a C
//! ABI (the C API, MLIR's mgpu, the CUDA runtime) can tell whether their launches replayed.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Once;

use super::AutoGraphStats;

static INSTANTIATIONS: AtomicU64 = AtomicU64::new(0);
static REPLAYS: AtomicU64 = AtomicU64::new(0);
static REPLAYED_LAUNCHES: AtomicU64 = AtomicU64::new(0);
static EAGER_LAUNCHES: AtomicU64 = AtomicU64::new(0);
static NODE_UPDATES: AtomicU64 = AtomicU64::new(0);

/// Adds what one stream did between `before` and `after` (called off the held-launch path).
pub(super) fn note(before: &AutoGraphStats, after: &AutoGraphStats) {
    let add = |total: &AtomicU64, was: u64, is: u64| {
        if is > was {
            total.fetch_add(is - was, Ordering::Relaxed);
        }
    };
    add(&INSTANTIATIONS, before.instantiations, after.instantiations);
    add(&REPLAYS, before.replays, after.replays);
    add(
        &REPLAYED_LAUNCHES,
        before.replayed_launches,
        after.replayed_launches,
    );
    add(&EAGER_LAUNCHES, before.eager_launches, after.eager_launches);
    add(&NODE_UPDATES, before.node_updates, after.node_updates);
}

/// What automatic replay did so far in this process, over every stream.
pub fn auto_graph_totals() -> AutoGraphStats {
    AutoGraphStats {
        instantiations: INSTANTIATIONS.load(Ordering::Relaxed),
        replays: REPLAYS.load(Ordering::Relaxed),
        replayed_launches: REPLAYED_LAUNCHES.load(Ordering::Relaxed),
        eager_launches: EAGER_LAUNCHES.load(Ordering::Relaxed),
        node_updates: NODE_UPDATES.load(Ordering::Relaxed),
    }
}

extern "C" fn report_at_exit() {
    // A panic must not unwind into the C library.
    let _ = std::panic::catch_unwind(|| {
        let t = auto_graph_totals();
        eprintln!(
            "chevron: automatic graph replay: {} instantiation(s), {} replays of {} launches, \
             {} eager launches, {} node updates",
            t.instantiations, t.replays, t.replayed_launches, t.eager_launches, t.node_updates
        );
    });
}

/// Prints the totals at exit (once per process).
pub(super) fn report_at_exit_once() {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        extern "C" {
            fn atexit(callback: extern "C" fn()) -> std::ffi::c_int;
        }
        // SAFETY: `atexit` is the C library's; the callback is a plain `extern "C"` function
        // that lets no panic out (it catches them).
        if unsafe { atexit(report_at_exit) } != 0 {
            eprintln!("chevron: CHEVRON_AUTO_GRAPH=report: cannot register the exit handler");
        }
    });
}
