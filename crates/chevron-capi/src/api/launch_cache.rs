//! The per-thread cache of the kernel and stream a thread last launched with, so that a loop
//! of launches through a C ABI (`chevron_launch`, `mgpuLaunchKernel`) costs no registry lookup,
//! no lock and no reference count change.
//!
//! A cache entry holds the key the caller gave (the handles, tagged by kind, and whatever else
//! chooses the objects, e.g. the default device for a NULL stream), clones of the kernel and
//! stream, and the caller's release epoch when they were looked up: the sum of the removal
//! counts of the registries involved, which only grows. The entry is used while the epoch has
//! not moved, that is while no handle of those registries was released since: then the
//! handles are certainly still live. A hit costs a thread-local access and the epoch's atomic
//! loads; any release anywhere sends the next launch of every thread through the registries
//! once. The entry keeps its kernel and stream alive until the thread launches with another
//! key or exits (their handles are invalid from their release on; only the objects'
//! destruction waits).
//!
//! An entry also remembers the last launch shape (configuration, argument count and sizes) that
//! passed every check with its kernel and stream ([`Validated`]): a launch of the same shape
//! skips the checks whose outcome cannot differ and only looks at its value pointers.

use std::cell::RefCell;

use chevron::{Kernel, LaunchConfig, Stream};

use super::{chevron_kernel, chevron_stream, lookup, KERNELS, STREAMS};
use crate::error::CapiResult;

/// What chooses a kernel and a stream: two handles and one more word.
pub(crate) type Key = [u64; 3];

struct Entry {
    key: Key,
    epoch: u64,
    kernel: Kernel,
    stream: Stream,
    validated: Validated,
}

/// Argument lists up to this long are remembered by [`Validated`].
const REMEMBERED_ARGS: usize = 8;

/// The launch shape that last passed every check (device, configuration, parameter space,
/// count, sizes) with an entry's kernel and stream. Those checks depend on nothing else, so a
/// launch of the same shape passes them again.
#[derive(Default)]
pub(crate) struct Validated {
    shape: Option<(LaunchConfig, usize)>,
    sizes: [usize; REMEMBERED_ARGS],
}

impl Validated {
    /// Whether a launch with `config` and `count` arguments whose sizes `size_of` tells (0
    /// when the caller gives none) has the remembered shape.
    #[inline]
    pub(crate) fn holds(
        &self,
        config: &LaunchConfig,
        count: usize,
        size_of: impl Fn(usize) -> usize,
    ) -> bool {
        match &self.shape {
            Some((known, n)) if known == config && *n == count => {
                (0..count).all(|i| self.sizes[i] == size_of(i))
            }
            _ => false,
        }
    }

    /// Remembers a shape that just passed every check (argument lists up to 8 long).
    pub(crate) fn remember(
        &mut self,
        config: LaunchConfig,
        count: usize,
        size_of: impl Fn(usize) -> usize,
    ) {
        if count > REMEMBERED_ARGS {
            return;
        }
        for (i, size) in self.sizes.iter_mut().take(count).enumerate() {
            *size = size_of(i);
        }
        self.shape = Some((config, count));
    }
}

thread_local! {
    static LAST: RefCell<Option<Entry>> = const { RefCell::new(None) };
}

/// Calls `f` with the kernel and stream of `key`: from this thread's cache while `epoch()`
/// has not moved since they were looked up, else from `look_up` (whose failure is returned).
/// `epoch` must only grow, and grow whenever an object `look_up` could return is released.
/// `f` runs once.
pub(crate) fn with_cached<R>(
    key: Key,
    epoch: impl Fn() -> u64,
    look_up: impl Fn() -> CapiResult<(Kernel, Stream)>,
    f: impl Fn(&Kernel, &Stream, &mut Validated) -> CapiResult<R>,
) -> CapiResult<R> {
    // The epoch is read before the lookups, so that a release racing with them makes the
    // entry stale rather than wrong.
    let fresh = || -> CapiResult<Entry> {
        let epoch = epoch();
        let (kernel, stream) = look_up()?;
        Ok(Entry {
            key,
            epoch,
            kernel,
            stream,
            validated: Validated::default(),
        })
    };
    let cached = LAST.try_with(|last| {
        let mut last = last.try_borrow_mut().ok()?;
        if !last
            .as_ref()
            .is_some_and(|e| e.key == key && e.epoch == epoch())
        {
            *last = Some(fresh().ok()?);
        }
        let entry = last.as_mut()?;
        Some(f(&entry.kernel, &entry.stream, &mut entry.validated))
    });
    match cached {
        Ok(Some(result)) => result,
        // No cache during thread exit, none in a nested use, or a failed lookup: the
        // registries answer (and name the problem).
        _ => {
            let mut entry = fresh()?;
            f(&entry.kernel, &entry.stream, &mut entry.validated)
        }
    }
}

/// [`with_cached`] for `chevron_launch`: the kernel behind `kernel` and the stream behind
/// `stream` (NULL: the kernel's device's default stream).
pub(crate) fn with_kernel_and_stream<R>(
    kernel: chevron_kernel,
    stream: chevron_stream,
    f: impl Fn(&Kernel, &Stream, &mut Validated) -> CapiResult<R>,
) -> CapiResult<R> {
    let key = [kernel as usize as u64, stream as usize as u64, 0];
    let epoch = || KERNELS.removals() + STREAMS.removals();
    let look_up = || {
        let found = lookup(&KERNELS, kernel)?;
        let stream = if stream.is_null() {
            found.device().default_stream()?
        } else {
            lookup(&STREAMS, stream)?
        };
        Ok((found, stream))
    };
    with_cached(key, epoch, look_up, f)
}
