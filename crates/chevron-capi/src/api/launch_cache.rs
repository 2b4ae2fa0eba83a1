//! The per-thread cache of the kernel and stream a thread last launched with, so that a loop
//! of `chevron_launch` calls costs no registry lookup at all.
//!
//! A cache entry holds the two handles, clones of the objects behind them, and how many
//! kernels and streams had ever been released when they were looked up. It is used while
//! neither count has moved, that is while no kernel or stream handle was released since: then
//! both handles are certainly still live. A hit costs a thread-local access and two atomic
//! loads; any release of a kernel or stream anywhere sends the next launch of every thread
//! through the registries once. The entry keeps its kernel and stream alive until the thread
//! launches with another pair or exits (their handles are invalid from their release on;
//! only the objects' destruction waits).

use std::cell::RefCell;

use chevron::{Kernel, Stream};

use super::{chevron_kernel, chevron_stream, lookup, KERNELS, STREAMS};
use crate::error::CapiResult;

struct Entry {
    kernel_handle: u64,
    stream_handle: u64,
    kernels_released: u64,
    streams_released: u64,
    kernel: Kernel,
    stream: Stream,
}

impl Entry {
    fn is_for(&self, kernel: u64, stream: u64) -> bool {
        self.kernel_handle == kernel
            && self.stream_handle == stream
            && self.kernels_released == KERNELS.removals()
            && self.streams_released == STREAMS.removals()
    }
}

thread_local! {
    static LAST: RefCell<Option<Entry>> = const { RefCell::new(None) };
}

/// Calls `f` with the kernel behind `kernel` and the stream behind `stream` (NULL: the
/// kernel's device's default stream), from this thread's cache when it is current. `f` runs
/// once.
pub(crate) fn with_kernel_and_stream<R>(
    kernel: chevron_kernel,
    stream: chevron_stream,
    f: impl Fn(&Kernel, &Stream) -> CapiResult<R>,
) -> CapiResult<R> {
    let (kernel_handle, stream_handle) = (kernel as usize as u64, stream as usize as u64);
    let cached = LAST.try_with(|last| {
        let mut last = last.try_borrow_mut().ok()?;
        if !last
            .as_ref()
            .is_some_and(|e| e.is_for(kernel_handle, stream_handle))
        {
            *last = Some(look_up(kernel, stream).ok()?);
        }
        let entry = last.as_ref()?;
        Some(f(&entry.kernel, &entry.stream))
    });
    match cached {
        Ok(Some(result)) => result,
        // No cache during thread exit, none in a nested use, or a failed lookup: the
        // registries answer (and name the problem).
        _ => {
            let entry = look_up(kernel, stream)?;
            f(&entry.kernel, &entry.stream)
        }
    }
}

/// A fresh entry from the registries; the release counts are read first, so that a release
/// racing with the lookups makes the entry stale rather than wrong.
fn look_up(kernel: chevron_kernel, stream: chevron_stream) -> CapiResult<Entry> {
    let kernels_released = KERNELS.removals();
    let streams_released = STREAMS.removals();
    let found = lookup(&KERNELS, kernel)?;
    let stream_object = if stream.is_null() {
        found.device().default_stream()?
    } else {
        lookup(&STREAMS, stream)?
    };
    Ok(Entry {
        kernel_handle: kernel as usize as u64,
        stream_handle: stream as usize as u64,
        kernels_released,
        streams_released,
        kernel: found,
        stream: stream_object,
    })
}
