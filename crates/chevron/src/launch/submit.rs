//! The one submission path of every launch: [`submit`] hands a checked (or trusted) launch to
//! the backend and counts it on the stream.
//!
//! Launches with nothing extra to do (no trace recording, no stream with automatic graph
//! replay, a kernel without instrumentation, no cluster, not cooperative) take the plain path: one relaxed load
//! of [`EXTRAS`], a field of the kernel, the backend call and the stream's sequence number.
//! Everything else (tracing, automatic replay, instrumented kernels, clusters, cooperative
//! launches) goes through
//! [`submit_with_extras`], out of line.
//!
//! [`EXTRAS`] is kept up to date where those features change state: the trace sets a bit when
//! it starts and clears it when it stops; every stream with automatic replay on counts one.

use std::ffi::c_void;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::backend::LaunchConfig;
use crate::error::Result;
use crate::launch::kernel::Kernel;
use crate::stream::token::Token;
use crate::stream::Stream;

/// Nonzero while any launch may need more than the plain path: the trace bit, plus one per
/// stream with automatic graph replay on.
static EXTRAS: AtomicU32 = AtomicU32::new(0);

/// The bit of [`EXTRAS`] set while the trace records.
const TRACE_BIT: u32 = 1 << 31;

/// Notes that the trace started (`true`) or stopped recording.
pub(crate) fn note_trace(on: bool) {
    if on {
        EXTRAS.fetch_or(TRACE_BIT, Ordering::Relaxed);
    } else {
        EXTRAS.fetch_and(!TRACE_BIT, Ordering::Relaxed);
    }
}

/// Notes that a stream turned automatic graph replay on (`true`) or off.
pub(crate) fn note_auto_graph(on: bool) {
    if on {
        EXTRAS.fetch_add(1, Ordering::Relaxed);
    } else {
        EXTRAS.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A launch as [`submit`] takes it.
pub(crate) struct Submission<'a> {
    pub(crate) config: &'a LaunchConfig,
    /// Thread-block cluster dimensions; `None` for an ordinary launch.
    pub(crate) cluster: Option<[u32; 3]>,
    /// A cooperative launch (every block resident at once; never with a cluster).
    pub(crate) cooperative: bool,
    /// The tokens waited for before the launch (for the trace only: the wait is made).
    pub(crate) deps: &'a [&'a Token],
}

impl<'a> Submission<'a> {
    /// A launch on `stream` that comes after `deps`: makes the stream wait for them first.
    pub(crate) fn after(
        stream: &Stream,
        config: &'a LaunchConfig,
        cluster: Option<[u32; 3]>,
        deps: &'a [&'a Token],
    ) -> Result<Submission<'a>> {
        if !deps.is_empty() {
            stream.wait_for(deps)?;
        }
        Ok(Submission {
            config,
            cluster,
            cooperative: false,
            deps,
        })
    }
}

/// Submits a launch to `stream` and returns its token.
///
/// # Safety
/// `stream` is on the kernel's device, the configuration is one the backend may be given, and
/// `pointers` holds one pointer per kernel parameter, each to a readable value of the
/// parameter's size, valid for the call.
#[inline]
pub(crate) unsafe fn submit(
    kernel: &Kernel,
    stream: &Stream,
    launch: Submission<'_>,
    pointers: &[*mut c_void],
) -> Result<Token> {
    if launch.cluster.is_none()
        && !launch.cooperative
        && !kernel.is_instrumented()
        && EXTRAS.load(Ordering::Relaxed) == 0
    {
        let target = stream.launch_target();
        // SAFETY: forwarded from the caller.
        let launched = unsafe { target.launch(kernel.backend_function(), launch.config, pointers) };
        return match launched {
            Ok(()) => Ok(stream.submitted()),
            Err(err) => Err(kernel.name_device(stream.device(), err)),
        };
    }
    // SAFETY: forwarded from the caller.
    unsafe { submit_with_extras(kernel, stream, launch, pointers) }
}

/// [`submit`] when the trace records, automatic replay is on somewhere, the kernel is
/// instrumented, or the launch uses clusters or is cooperative.
///
/// # Safety
/// As [`submit`].
#[cold]
#[inline(never)]
unsafe fn submit_with_extras(
    kernel: &Kernel,
    stream: &Stream,
    launch: Submission<'_>,
    pointers: &[*mut c_void],
) -> Result<Token> {
    let started = crate::trace::launch_clock(stream);
    let config = launch.config;
    let hook = kernel.instrument_hook();
    let function = kernel.backend_function();
    let launched = match (launch.cluster, hook) {
        (Some(cluster), _) => {
            let target = stream.backend_stream();
            // SAFETY: forwarded from the caller.
            unsafe { target.launch_cluster(function, config, cluster, pointers) }
        }
        // SAFETY: forwarded from the caller.
        (None, Some(hook)) => unsafe { hook.launch(kernel, stream, config, pointers) },
        (None, None) if launch.cooperative => {
            let target = stream.backend_stream();
            // SAFETY: forwarded from the caller.
            unsafe { target.launch_cooperative(function, config, pointers) }
        }
        // Replay needs the parameters' sizes: a kernel without a layout stays eager.
        (None, None) => match (stream.auto_graph_on(), kernel.params()) {
            (true, Some(params)) => {
                crate::graph::auto::launch_tracked(kernel, stream, config, pointers, params)
            }
            // SAFETY: forwarded from the caller.
            _ => unsafe { stream.launch_target().launch(function, config, pointers) },
        },
    };
    launched.map_err(|err| kernel.name_device(stream.device(), err))?;
    let token = stream.submitted();
    if let Some(started) = started {
        crate::trace::launch(&started, kernel, stream, config, launch.deps, &token);
    }
    Ok(token)
}
