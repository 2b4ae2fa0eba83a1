//! The trace file, written as the trace is recorded: the header when the trace starts, each
//! batch of events as a thread's buffer fills (see `buffer`), the tail when it stops. Memory
//! stays bounded however many events a run records, and the file on disk is always a run of
//! whole batches: a program that crashes leaves a valid trace, its tail written from a
//! signal-safe handler (see `crash`).
//!
//! A write error (a full disk, `/dev/full`) stops the writing; it is reported when the trace
//! stops.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::chrome::{Renderer, HEADER, TAIL};
use super::{crash, lock, Event};
use crate::error::{Error, Result};

/// The open trace file.
struct Sink {
    path: PathBuf,
    out: BufWriter<File>,
    renderer: Renderer,
    /// The first write error; nothing more is written after it.
    failed: Option<std::io::Error>,
}

static SINK: Mutex<Option<Sink>> = Mutex::new(None);

/// Creates the trace file `path` and writes its header.
pub(super) fn open(path: &Path) -> Result<()> {
    let io_error = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = File::create(path).map_err(io_error)?;
    let fd = file.as_raw_fd();
    let mut out = BufWriter::with_capacity(1 << 16, file);
    out.write_all(HEADER.as_bytes())
        .and_then(|()| out.flush())
        .map_err(io_error)?;
    *lock(&SINK) = Some(Sink {
        path: path.to_path_buf(),
        out,
        renderer: Renderer::default(),
        failed: None,
    });
    crash::arm(fd);
    Ok(())
}

/// Writes one batch of events (dropped when no trace file is open or writing failed).
pub(super) fn write(mut events: Vec<Event>) {
    if events.is_empty() {
        return;
    }
    super::source::each(|source| source.place(&mut events));
    let mut guard = lock(&SINK);
    let Some(sink) = guard.as_mut() else {
        return;
    };
    if sink.failed.is_some() {
        return;
    }
    // The file holds whole batches only: the crash handler leaves it alone mid-batch.
    crash::writing(true);
    let written = sink
        .renderer
        .write(&events, &mut sink.out)
        .and_then(|()| sink.out.flush());
    crash::writing(false);
    if let Err(err) = written {
        sink.failed = Some(err);
    }
}

/// Writes the tail and closes the file; the number of events written, or the first write error.
pub(super) fn close() -> Result<usize> {
    crash::disarm();
    let Some(mut sink) = lock(&SINK).take() else {
        return Ok(0);
    };
    if sink.failed.is_none() {
        let closed = sink
            .out
            .write_all(TAIL.as_bytes())
            .and_then(|()| sink.out.flush());
        if let Err(err) = closed {
            sink.failed = Some(err);
        }
    }
    match sink.failed {
        Some(source) => Err(Error::Io {
            path: sink.path,
            source,
        }),
        None => Ok(sink.renderer.written),
    }
}
