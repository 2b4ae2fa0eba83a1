//! Code objects for `chevron run`: read from a file, or compiled from a `.cu` file through a JIT
//! session (and its disk cache), with a spinner on a terminal when compiling takes over 0.3 s.

use std::io::IsTerminal;
use std::path::Path;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use chevron::jit::Session;
use chevron::Device;
use indicatif::ProgressBar;

use crate::source_file::{read_code_object, read_source};

/// The code object `file` holds; for a `.cu` file, the PTX of its kernels compiled through a JIT
/// session, returned too: it holds the globals, so keep it while the code is used. A template
/// kernel named with its arguments (`kernel`, e.g. `scale<float>`) is instantiated first.
pub fn code_object(
    device: &Device,
    file: &Path,
    kernel: Option<&str>,
) -> Result<(Vec<u8>, Option<Session>), String> {
    if file.extension().is_none_or(|e| e != "cu") {
        return Ok((read_code_object(file)?, None));
    }
    let source = read_source(file)?;
    let mut session = Session::new(device).map_err(|e| e.to_string())?;
    let label = file.display().to_string();
    with_spinner(&label, || session.add(&source)).map_err(|e| format!("{label}: {e}"))?;
    if let Some(kernel) = kernel.filter(|k| k.contains('<')) {
        match with_spinner(&label, || session.kernel(kernel)) {
            // Reported by the caller's lookup, with the file's kernels listed.
            Ok(_) | Err(chevron::Error::NotFound { .. }) => {}
            Err(err) => return Err(format!("{label}: {err}")),
        }
    }
    let ptx = session.linked_ptx().map_err(|e| format!("{label}: {e}"))?;
    Ok((ptx.into_bytes(), Some(session)))
}

/// Runs `work`, showing a spinner on stderr (a terminal only) once it takes over 0.3 s.
fn with_spinner<T>(label: &str, work: impl FnOnce() -> T) -> T {
    if !std::io::stderr().is_terminal() {
        return work();
    }
    let (done, finished) = mpsc::channel::<()>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            if finished.recv_timeout(Duration::from_millis(300)) != Err(RecvTimeoutError::Timeout) {
                return;
            }
            let spinner = ProgressBar::new_spinner();
            spinner.set_message(format!("compiling {label}"));
            spinner.enable_steady_tick(Duration::from_millis(100));
            let _ = finished.recv();
            spinner.finish_and_clear();
        });
        let result = work();
        drop(done);
        result
    })
}
