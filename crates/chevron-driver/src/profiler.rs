//! `cuProfilerStart` and `cuProfilerStop`: marks for an attached profiler. chevron's devices
//! have none to signal, so both succeed in a current context (and fail as CUDA documents
//! without one).

use crate::context::require_current;
use crate::result::{entry, CUresult};

/// Starts profiling the current context (a mark only).
#[no_mangle]
pub extern "C" fn cuProfilerStart() -> CUresult {
    entry("cuProfilerStart", || require_current().map(drop))
}

/// Stops profiling the current context (a mark only).
#[no_mangle]
pub extern "C" fn cuProfilerStop() -> CUresult {
    entry("cuProfilerStop", || require_current().map(drop))
}
