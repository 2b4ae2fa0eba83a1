//! The one submission path of every launch: [`submit`] hands a checked (or trusted) launch to
//! the backend and counts it on the stream.
//!
//! Launches with nothing extra to do (no trace recording, no stream with automatic graph
//! replay, a kernel without instrumentation, no cluster, not cooperative) take the plain
//! path: one relaxed load (`launch_extras::any`, the trace's bit and the count of streams
//! with replay on in one word), a field of the kernel, the backend call on the stream's own
//! backend stream (no replay wrapper, no look at the stream's replay flag: none is on
//! anywhere) and the stream's sequence number. Everything else (tracing, automatic replay,
//! instrumented kernels, clusters, cooperative launches) goes through [`submit_with_extras`],
//! out of line.

use std::ffi::c_void;

use crate::backend::LaunchConfig;
use crate::error::Result;
use crate::launch::kernel::Kernel;
use crate::stream::device_time;
use crate::stream::replay::Raw;
use crate::stream::token::Token;
use crate::stream::Stream;

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
/// As [`submit_counted`].
#[inline]
pub(crate) unsafe fn submit(
    kernel: &Kernel,
    stream: &Stream,
    launch: Submission<'_>,
    pointers: &[*mut c_void],
) -> Result<Token> {
    // SAFETY: forwarded from the caller.
    let sequence = unsafe { submit_counted(kernel, stream, launch, pointers) }?;
    Ok(stream.token_of(sequence))
}

/// Submits a launch to `stream` and returns its sequence number: no token, so no reference to
/// the stream is taken (the unchecked launches hand out a [`crate::Launched`] receipt instead).
///
/// # Safety
/// `stream` is on the kernel's device, the configuration is one the backend may be given, and
/// `pointers` holds one pointer per kernel parameter, each to a readable value of the
/// parameter's size, valid for the call.
#[inline]
pub(crate) unsafe fn submit_counted(
    kernel: &Kernel,
    stream: &Stream,
    launch: Submission<'_>,
    pointers: &[*mut c_void],
) -> Result<u64> {
    if launch.cluster.is_none()
        && !launch.cooperative
        && !kernel.is_instrumented()
        && !crate::launch_extras::any()
    {
        // No stream has replay on: the backend stream itself, as `launch_target` would find.
        let target = stream.direct_backend();
        // SAFETY: forwarded from the caller.
        let launched = unsafe { target.launch(kernel.backend_function(), launch.config, pointers) };
        return match launched {
            Ok(()) => Ok(stream.note_submission()),
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
) -> Result<u64> {
    let started = device_time::launch_clock(stream);
    let config = launch.config;
    let hook = kernel.launch_hook();
    let function = kernel.backend_function();
    let launched = match (launch.cluster, hook) {
        (Some(cluster), _) => {
            let target = stream.backend_stream();
            // SAFETY: forwarded from the caller.
            unsafe { target.launch_cluster(function, config, cluster, pointers) }
        }
        // SAFETY: forwarded from the caller.
        (None, Some(hook)) => unsafe {
            hook.launch(function, kernel.display_name(), stream, config, pointers)
        },
        (None, None) if launch.cooperative => {
            let target = stream.backend_stream();
            // SAFETY: forwarded from the caller.
            unsafe { target.launch_cooperative(function, config, pointers) }
        }
        // Replay needs the parameters' sizes: a kernel without a layout stays eager.
        (None, None) => match (stream.auto_graph_on(), kernel.params()) {
            (true, Some(params)) => {
                let args = Raw { pointers, params };
                let function = kernel.backend_function_arc();
                stream.replay().launch_tracked(&function, config, &args)
            }
            // SAFETY: forwarded from the caller.
            _ => unsafe { stream.launch_target().launch(function, config, pointers) },
        },
    };
    launched.map_err(|err| kernel.name_device(stream.device(), err))?;
    let sequence = stream.note_submission();
    if let Some(started) = started {
        let token = stream.token_of(sequence);
        super::traced::launched(&started, kernel, stream, config, launch.deps, &token);
    }
    Ok(sequence)
}
