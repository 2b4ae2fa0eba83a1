//! Keeping a compile from taking the session down: `#include`s of files that are not regular
//! files (a FIFO, `/dev/zero`: NVRTC would block or read forever) are refused before NVRTC
//! sees them, and each compile runs on its own thread under a deadline and an interrupt flag.
//!
//! NVRTC cannot be cancelled: a compile that passes its deadline (or is interrupted) is
//! abandoned, its thread left blocked, and the session goes on unchanged. NVRTC's front end
//! installs its own `SIGINT` handler while it compiles, which ends the process with status 4;
//! the waiting thread puts the process's own handler back while the compile runs, so Ctrl-C
//! reaches the program (the REPL ends the compile and keeps its session).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// The compile deadline when `CHEVRON_COMPILE_TIMEOUT` (seconds) does not set one.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(300);

/// The deadline `CHEVRON_COMPILE_TIMEOUT` sets (seconds, fractions allowed), else the default.
pub fn deadline_from_env() -> Duration {
    std::env::var("CHEVRON_COMPILE_TIMEOUT")
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map_or(DEFAULT_DEADLINE, |s| Duration::from_secs_f64(s.min(1e6)))
}

/// The most files a snippet's own headers are followed through (see [`check_includes`]).
const MAX_FOLLOWED: usize = 256;

/// Refuses an `#include` that names an existing file which is not a regular file, looked up as
/// NVRTC does: an absolute path, else relative to the including file's directory (the working
/// directory for the snippet) and to each `--include-path=` of `options`. The headers a
/// snippet includes are followed (up to [`MAX_FOLLOWED`] files, each read up to 1 MiB), except
/// those found in the include paths (the CUDA headers): a FIFO included from one of those
/// meets the compile deadline instead.
pub fn check_includes(source: &str, options: &[String]) -> Result<()> {
    let search: Vec<PathBuf> = options
        .iter()
        .filter_map(|o| o.strip_prefix("--include-path="))
        .map(PathBuf::from)
        .collect();
    let mut queue = vec![(source.to_string(), PathBuf::from("."))];
    let mut followed = 0;
    while let Some((text, here)) = queue.pop() {
        for name in text.lines().filter_map(included) {
            let Some((path, in_search)) = resolve(name, &here, &search)? else {
                continue;
            };
            if in_search || followed >= MAX_FOLLOWED {
                continue;
            }
            followed += 1;
            if let Ok(bytes) = read_prefix(&path, 1 << 20) {
                let dir = path
                    .parent()
                    .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
                queue.push((String::from_utf8_lossy(&bytes).into_owned(), dir));
            }
        }
    }
    Ok(())
}

/// Where `#include` of `name` from a file in `here` lands (and whether in an include path);
/// an error when that is not a regular file; `None` when nothing is found (NVRTC's to report).
fn resolve(name: &str, here: &Path, search: &[PathBuf]) -> Result<Option<(PathBuf, bool)>> {
    let candidates: Vec<(PathBuf, bool)> = if Path::new(name).is_absolute() {
        vec![(PathBuf::from(name), false)]
    } else {
        std::iter::once((here.join(name), false))
            .chain(search.iter().map(|dir| (dir.join(name), true)))
            .collect()
    };
    for (path, in_search) in candidates {
        let Ok(metadata) = std::fs::metadata(&path) else {
            continue;
        };
        if !metadata.is_file() {
            return Err(Error::InvalidValue {
                call: "jit::Session::add",
                message: format!(
                    "#include \"{name}\": {} is not a regular file (a FIFO, a device or a \
                     directory); only regular files are included",
                    path.display()
                ),
            });
        }
        return Ok(Some((path, in_search)));
    }
    Ok(None)
}

/// The first `limit` bytes of the regular file `path`.
fn read_prefix(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limit)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The file named by an `#include` line.
fn included(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("include")?.trim_start();
    let (close, rest) = match rest.chars().next()? {
        '"' => ('"', &rest[1..]),
        '<' => ('>', &rest[1..]),
        _ => return None,
    };
    rest.split(close).next().filter(|name| !name.is_empty())
}

/// Why a guarded compile gave no result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// It ran past its deadline.
    Deadline,
    /// The interrupt flag was raised (Ctrl-C).
    Interrupted,
}

/// Runs `compile` on its own thread and waits for it until `deadline` passes or `interrupt`
/// is raised (then the thread is abandoned); while it waits, the process's `SIGINT` handler is
/// kept in place.
pub fn run_guarded<T: Send + 'static>(
    deadline: Duration,
    interrupt: Option<&AtomicBool>,
    compile: impl FnOnce() -> T + Send + 'static,
) -> std::result::Result<T, Stopped> {
    let (done, result) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("chevron-nvrtc".into())
        .spawn(move || {
            let _ = done.send(compile());
        });
    let Ok(_thread) = spawned else {
        return Err(Stopped::Deadline);
    };
    let handler = sigint::Keeper::new();
    let started = Instant::now();
    loop {
        match result.recv_timeout(Duration::from_millis(5)) {
            Ok(value) => {
                handler.restore();
                return Ok(value);
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                handler.restore();
                return Err(Stopped::Deadline);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        handler.restore();
        if interrupt.is_some_and(|flag| flag.swap(false, Ordering::SeqCst)) {
            return Err(Stopped::Interrupted);
        }
        if started.elapsed() >= deadline {
            return Err(Stopped::Deadline);
        }
    }
}

mod sigint {
    //! The process's `SIGINT` disposition, kept while NVRTC compiles.

    use std::mem::MaybeUninit;

    /// The disposition found when the compile started.
    pub struct Keeper {
        saved: Option<libc::sigaction>,
    }

    impl Keeper {
        pub fn new() -> Keeper {
            Keeper { saved: current() }
        }

        /// Puts the saved disposition back if another was installed since.
        pub fn restore(&self) {
            let Some(saved) = &self.saved else {
                return;
            };
            let Some(now) = current() else {
                return;
            };
            if now.sa_sigaction != saved.sa_sigaction {
                // SAFETY: `saved` is a disposition the kernel gave back for SIGINT; setting it
                // again is valid, and the old disposition is not asked for.
                unsafe { libc::sigaction(libc::SIGINT, saved, std::ptr::null_mut()) };
            }
        }
    }

    fn current() -> Option<libc::sigaction> {
        let mut action = MaybeUninit::<libc::sigaction>::zeroed();
        // SAFETY: a null new action only reads the disposition into the valid out-pointer.
        let status =
            unsafe { libc::sigaction(libc::SIGINT, std::ptr::null(), action.as_mut_ptr()) };
        // SAFETY: on success the kernel filled the structure (and it was zeroed before).
        (status == 0).then(|| unsafe { action.assume_init() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_are_read_from_lines() {
        assert_eq!(included("#include <cuda_fp16.h>"), Some("cuda_fp16.h"));
        assert_eq!(included("  #  include \"a/b.h\" // x"), Some("a/b.h"));
        assert_eq!(included("int x; // #include <y>"), None);
    }

    #[test]
    fn devices_and_directories_are_refused() {
        let err = check_includes("#include \"/dev/zero\"\n", &[]).unwrap_err();
        assert!(
            err.to_string().contains("/dev/zero is not a regular file"),
            "{err}"
        );
        let options = vec!["--include-path=/".to_string()];
        let err = check_includes("#include <dev/null>\n", &options).unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
        assert!(check_includes("#include <no/such/header.h>\n", &options).is_ok());
        // A FIFO included by a header the snippet includes.
        let dir = std::env::temp_dir().join(format!("chevron-guard-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let header = dir.join("outer.h");
        std::fs::write(&header, "#include \"/dev/null\"\n").unwrap();
        let source = format!("#include \"{}\"\n", header.display());
        let err = check_includes(&source, &[]).unwrap_err();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(
            err.to_string().contains("/dev/null is not a regular file"),
            "{err}"
        );
    }

    #[test]
    fn a_compile_past_its_deadline_or_interrupted_is_abandoned() {
        let (_hold, wait) = mpsc::channel::<()>();
        let stuck = move || {
            let _ = wait.recv();
        };
        let result = run_guarded(Duration::from_millis(50), None, stuck);
        assert_eq!(result, Err(Stopped::Deadline));
        let flag = AtomicBool::new(true);
        let (_hold, wait) = mpsc::channel::<()>();
        let result = run_guarded(Duration::from_secs(600), Some(&flag), move || {
            let _ = wait.recv();
        });
        assert_eq!(result, Err(Stopped::Interrupted));
        assert_eq!(run_guarded(Duration::from_secs(600), None, || 7), Ok(7));
    }
}
