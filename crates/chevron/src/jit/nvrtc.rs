//! NVRTC, the CUDA C++ run-time compiler: one curated table, loaded at run time, never linked.
//!
//! The library is looked for, in order: `CHEVRON_NVRTC` (the library file, or a directory holding
//! `libnvrtc.so.13` and its builtins; when set, nothing else is tried), the loader path, CUDA
//! toolkit locations (`CUDA_HOME`, `CUDA_PATH`, `/usr/local/cuda*`), Python's `nvidia` wheels
//! (`site-packages/nvidia/cu13/lib`) and the project-local `.deps/nvrtc` that
//! `scripts/deps/nvrtc.sh` installs. NVRTC opens `libnvrtc-builtins.so.13.0` by name; the
//! builtins next to the chosen library are opened first, so no loader path is needed.
//!
//! NVRTC compiles one program at a time per loaded copy of the library (a lock of its own).
//! A compile that is abandoned while still running ([`super::compile_guard`]) keeps that lock,
//! so [`abandon`] loads a fresh instance from a private copy of the library file and makes it
//! the one [`nvrtc`] returns: later compiles do not wait for the abandoned one.

#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_int, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use crate::dylib::{self, library_table};
use crate::error::{Error, Result};

type nvrtcResult = c_int;
type nvrtcProgram = *mut std::ffi::c_void;

/// `NVRTC_SUCCESS`.
const NVRTC_SUCCESS: nvrtcResult = 0;

/// The library's file name, and its builtins'.
const LIBRARY: &str = "libnvrtc.so.13";
const BUILTINS: &str = "libnvrtc-builtins.so.13.0";

/// How to install NVRTC, for error messages.
pub const INSTALL_HINT: &str = "install it with `scripts/deps/nvrtc.sh` (the pinned wheel: \
    python3 -m pip install nvidia-cuda-nvrtc==13.0.88) and set CHEVRON_NVRTC to the directory \
    holding libnvrtc.so.13";

library_table! {
    /// The NVRTC entry points chevron uses, resolved from the loaded library.
    pub struct Nvrtc (pub(crate)) {
        /// `nvrtcVersion(&major, &minor)`.
        version = "nvrtcVersion"(*mut c_int, *mut c_int) -> nvrtcResult;
        /// `nvrtcCreateProgram(&program, source, name, headers, sources, names)`.
        create_program = "nvrtcCreateProgram"(
            *mut nvrtcProgram, *const c_char, *const c_char, c_int,
            *const *const c_char, *const *const c_char) -> nvrtcResult;
        /// `nvrtcDestroyProgram(&program)`.
        destroy_program = "nvrtcDestroyProgram"(*mut nvrtcProgram) -> nvrtcResult;
        /// `nvrtcCompileProgram(program, count, options)`.
        compile_program = "nvrtcCompileProgram"(nvrtcProgram, c_int, *const *const c_char) -> nvrtcResult;
        /// `nvrtcGetPTXSize(program, &size)`.
        ptx_size = "nvrtcGetPTXSize"(nvrtcProgram, *mut usize) -> nvrtcResult;
        /// `nvrtcGetPTX(program, buffer)`.
        ptx = "nvrtcGetPTX"(nvrtcProgram, *mut c_char) -> nvrtcResult;
        /// `nvrtcGetProgramLogSize(program, &size)`.
        log_size = "nvrtcGetProgramLogSize"(nvrtcProgram, *mut usize) -> nvrtcResult;
        /// `nvrtcGetProgramLog(program, buffer)`.
        log = "nvrtcGetProgramLog"(nvrtcProgram, *mut c_char) -> nvrtcResult;
        /// `nvrtcAddNameExpression(program, expression)`.
        add_name_expression = "nvrtcAddNameExpression"(nvrtcProgram, *const c_char) -> nvrtcResult;
        /// `nvrtcGetLoweredName(program, expression, &lowered)`.
        lowered_name = "nvrtcGetLoweredName"(nvrtcProgram, *const c_char, *mut *const c_char) -> nvrtcResult;
        /// `nvrtcGetErrorString(result)`.
        error_string = "nvrtcGetErrorString"(nvrtcResult) -> *const c_char;
    }
}

// SAFETY: NVRTC's entry points are thread-safe (a program is used by one thread at a time here);
// the table holds only function pointers and the libraries that keep them valid.
unsafe impl Send for Nvrtc {}
// SAFETY: as above.
unsafe impl Sync for Nvrtc {}

/// The outcome of one compilation.
#[non_exhaustive]
pub enum Compiled {
    /// The PTX text.
    Ptx(String),
    /// The compiler rejected the source: its log.
    Rejected(String),
}

/// The instance compiles use, once loaded: the first one, or the fresh copy [`abandon`] loaded.
static CURRENT: Mutex<Option<&'static Nvrtc>> = Mutex::new(None);

/// The process's NVRTC, or why it is unavailable (looked for once): the instance compiles
/// use now (see [`abandon`]).
pub fn nvrtc() -> Result<&'static Nvrtc> {
    static FIRST: OnceLock<std::result::Result<Nvrtc, String>> = OnceLock::new();
    let mut current = CURRENT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(instance) = *current {
        return Ok(instance);
    }
    let first = FIRST
        .get_or_init(find)
        .as_ref()
        .map_err(|reason| Error::Unavailable {
            backend: "nvrtc",
            reason: reason.clone(),
        })?;
    *current = Some(first);
    Ok(first)
}

/// Says that a compile on `stuck` was abandoned while it may still be running (it holds
/// `stuck`'s lock, perhaps for ever): unless that was done already, loads a fresh instance from
/// a private copy of `stuck`'s library file and makes it the one [`nvrtc`] returns. `stuck`
/// stays loaded, for the thread still in it. Returns the instance now in use, or why none
/// could be loaded (then later compiles wait for the abandoned one).
pub fn abandon(stuck: &'static Nvrtc) -> std::result::Result<&'static Nvrtc, String> {
    let mut current = CURRENT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(instance) = *current {
        if !std::ptr::eq(instance, stuck) {
            return Ok(instance);
        }
    }
    let fresh: &'static Nvrtc = Box::leak(Box::new(stuck.fresh_copy()?));
    *current = Some(fresh);
    Ok(fresh)
}

impl Nvrtc {
    /// Where the library was loaded from.
    pub fn path(&self) -> &str {
        &self.source
    }

    /// `(major, minor)`.
    pub fn version(&self) -> (i32, i32) {
        let (mut major, mut minor) = (0, 0);
        // SAFETY: two valid out-pointers.
        unsafe { (self.version)(&mut major, &mut minor) };
        (major, minor)
    }

    /// Compiles `source` (named `name` in diagnostics) with `options`.
    pub fn compile(&self, source: &str, name: &str, options: &[String]) -> Result<Compiled> {
        self.compile_with_names(source, name, options, &[])
            .map(|(compiled, _)| compiled)
    }

    /// Compiles like [`Nvrtc::compile`], instantiating the templates `expressions` name
    /// (`scale<float>`); also returns each one's mangled name (empty when rejected).
    pub fn compile_with_names(
        &self,
        source: &str,
        name: &str,
        options: &[String],
        expressions: &[&str],
    ) -> Result<(Compiled, Vec<String>)> {
        let source = c_string(source, "source")?;
        let name = c_string(name, "program name")?;
        let options: Vec<CString> = options
            .iter()
            .map(|o| c_string(o, "option"))
            .collect::<Result<_>>()?;
        let option_ptrs: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
        let mut program: nvrtcProgram = std::ptr::null_mut();
        // SAFETY: NUL-terminated source and name alive for the call; no headers.
        let created = unsafe {
            (self.create_program)(
                &mut program,
                source.as_ptr(),
                name.as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        self.check(created, "nvrtcCreateProgram")?;
        let program = Program {
            nvrtc: self,
            raw: program,
        };
        let expressions: Vec<CString> = expressions
            .iter()
            .map(|e| c_string(e, "name expression"))
            .collect::<Result<_>>()?;
        for expression in &expressions {
            // SAFETY: a live program and a NUL-terminated expression alive for the call.
            let added = unsafe { (self.add_name_expression)(program.raw, expression.as_ptr()) };
            self.check(added, "nvrtcAddNameExpression")?;
        }
        let count = c_int::try_from(option_ptrs.len()).unwrap_or(c_int::MAX);
        // SAFETY: a live program and `count` NUL-terminated options alive for the call.
        let result = unsafe { (self.compile_program)(program.raw, count, option_ptrs.as_ptr()) };
        if result != NVRTC_SUCCESS {
            let log = program.text(self.log_size, self.log, "nvrtcGetProgramLog")?;
            if log.trim().is_empty() {
                self.check(result, "nvrtcCompileProgram")?;
            }
            return Ok((Compiled::Rejected(log), Vec::new()));
        }
        let mut lowered = Vec::with_capacity(expressions.len());
        for expression in &expressions {
            let mut name: *const c_char = std::ptr::null();
            // SAFETY: a compiled program, an expression added before compiling, and a valid
            // out-pointer; the name NVRTC returns lives as long as the program.
            let found = unsafe { (self.lowered_name)(program.raw, expression.as_ptr(), &mut name) };
            self.check(found, "nvrtcGetLoweredName")?;
            lowered.push(if name.is_null() {
                String::new()
            } else {
                // SAFETY: a non-null result is a NUL-terminated string owned by the program.
                unsafe { CStr::from_ptr(name) }
                    .to_string_lossy()
                    .into_owned()
            });
        }
        let ptx = program.text(self.ptx_size, self.ptx, "nvrtcGetPTX")?;
        Ok((Compiled::Ptx(ptx), lowered))
    }

    /// Another instance of this library, with state (and lock) of its own: the library file
    /// copied to a private temporary directory (a second `dlopen` of the same file would give
    /// this instance back), opened, and the copy's name removed (its mapping stays).
    fn fresh_copy(&self) -> std::result::Result<Nvrtc, String> {
        static COPIES: AtomicUsize = AtomicUsize::new(0);
        let file = loaded_file(self.version as *const std::ffi::c_void)?;
        let dir = std::env::temp_dir().join(format!(
            "chevron-nvrtc-{}-{}",
            std::process::id(),
            COPIES.fetch_add(1, Ordering::Relaxed)
        ));
        let copy = dir.join(LIBRARY);
        let opened = std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::copy(&file, &copy))
            .map_err(|e| format!("copying {} to {}: {e}", file.display(), copy.display()))
            .and_then(|_| dylib::open(&copy));
        let _ = std::fs::remove_dir_all(&dir);
        // SAFETY: a copy of the file this table was resolved from, so NVRTC 13 again.
        unsafe { Nvrtc::resolve(vec![opened?], self.source.clone()) }
    }

    fn check(&self, result: nvrtcResult, call: &'static str) -> Result<()> {
        if result == NVRTC_SUCCESS {
            return Ok(());
        }
        // SAFETY: nvrtcGetErrorString accepts any code and returns a static string.
        let text = unsafe { (self.error_string)(result) };
        let text = if text.is_null() {
            format!("error {result}")
        } else {
            // SAFETY: a non-null result is a static NUL-terminated string.
            unsafe { CStr::from_ptr(text) }
                .to_string_lossy()
                .into_owned()
        };
        Err(Error::Driver {
            call,
            code: result,
            device: "nvrtc".into(),
            name: format!("NVRTC error {result}"),
            text,
            context: String::new(),
        })
    }
}

/// The file of the loaded library that holds `address`.
fn loaded_file(address: *const std::ffi::c_void) -> std::result::Result<PathBuf, String> {
    let mut info = std::mem::MaybeUninit::<libc::Dl_info>::zeroed();
    // SAFETY: dladdr only reads `address` as a number and fills the valid out-pointer.
    let found = unsafe { libc::dladdr(address, info.as_mut_ptr()) };
    // SAFETY: zeroed before, and filled by dladdr when it succeeded.
    let info = unsafe { info.assume_init() };
    if found == 0 || info.dli_fname.is_null() {
        return Err("the loaded NVRTC library's file was not found (dladdr)".into());
    }
    // SAFETY: a non-null dli_fname is the NUL-terminated name of a loaded object.
    let name = unsafe { CStr::from_ptr(info.dli_fname) };
    Ok(PathBuf::from(name.to_string_lossy().into_owned()))
}

/// A program, destroyed on drop.
struct Program<'a> {
    nvrtc: &'a Nvrtc,
    raw: nvrtcProgram,
}

type SizeFn = unsafe extern "C" fn(nvrtcProgram, *mut usize) -> nvrtcResult;
type TextFn = unsafe extern "C" fn(nvrtcProgram, *mut c_char) -> nvrtcResult;

impl Program<'_> {
    /// Reads a NUL-terminated text (log or PTX) of the program.
    fn text(&self, size: SizeFn, read: TextFn, call: &'static str) -> Result<String> {
        let mut length = 0usize;
        // SAFETY: a live program and a valid out-pointer.
        let sized = unsafe { size(self.raw, &mut length) };
        self.nvrtc.check(sized, call)?;
        let mut buffer = vec![0u8; length.max(1)];
        // SAFETY: the buffer holds `length` bytes, as NVRTC asked for.
        let read = unsafe { read(self.raw, buffer.as_mut_ptr().cast()) };
        self.nvrtc.check(read, call)?;
        let end = buffer.iter().position(|&b| b == 0).unwrap_or(buffer.len());
        buffer.truncate(end);
        Ok(String::from_utf8_lossy(&buffer).into_owned())
    }
}

impl Drop for Program<'_> {
    fn drop(&mut self) {
        // SAFETY: the program was created by nvrtcCreateProgram and is destroyed once.
        unsafe { (self.nvrtc.destroy_program)(&mut self.raw) };
    }
}

fn c_string(text: &str, what: &str) -> Result<CString> {
    CString::new(text).map_err(|_| Error::InvalidValue {
        call: "jit::Session::add",
        message: format!("the {what} contains a NUL byte"),
    })
}

/// Looks for the library in the documented order.
fn find() -> std::result::Result<Nvrtc, String> {
    if let Some(configured) = std::env::var_os("CHEVRON_NVRTC") {
        let configured = PathBuf::from(configured);
        let file = if configured.is_dir() {
            configured.join(LIBRARY)
        } else {
            configured.clone()
        };
        return open_file(&file).map_err(|reason| {
            format!(
                "CHEVRON_NVRTC={}: {reason}; {INSTALL_HINT}",
                configured.display()
            )
        });
    }
    if let Ok(library) = dylib::open(LIBRARY) {
        // SAFETY: a library by this name is NVRTC 13.
        return unsafe { Nvrtc::resolve(vec![library], LIBRARY.into()) };
    }
    let candidates = candidate_dirs();
    for dir in &candidates {
        let file = dir.join(LIBRARY);
        if file.exists() {
            return open_file(&file);
        }
    }
    Err(format!(
        "{LIBRARY} not found (CHEVRON_NVRTC unset; not on the loader path; not in {}); \
         {INSTALL_HINT}",
        candidates
            .iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// Opens `file` after the builtins beside it (when there).
fn open_file(file: &Path) -> std::result::Result<Nvrtc, String> {
    if !file.is_file() {
        return Err(format!("{} does not exist", file.display()));
    }
    // The builtins first: NVRTC opens them by name, and finds them loaded.
    let builtins_path = file.with_file_name(BUILTINS);
    let mut libraries = Vec::new();
    if builtins_path.is_file() {
        libraries.push(dylib::open(&builtins_path)?);
    }
    libraries.push(dylib::open(file)?);
    // SAFETY: the file is NVRTC 13 (its name says so).
    unsafe { Nvrtc::resolve(libraries, file.display().to_string()) }
}

/// Toolkit locations, Python wheels and the project-local install, in that order.
fn candidate_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for variable in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(root) = std::env::var_os(variable) {
            dirs.push(PathBuf::from(root).join("lib64"));
        }
    }
    dirs.push(PathBuf::from("/usr/local/cuda/lib64"));
    dirs.extend(glob_dirs(Path::new("/usr/local"), "cuda-13", "lib64"));
    let mut python_roots: Vec<PathBuf> = Vec::new();
    if let Some(venv) = std::env::var_os("VIRTUAL_ENV") {
        python_roots.push(PathBuf::from(venv).join("lib"));
    }
    if let Some(home) = std::env::var_os("HOME") {
        python_roots.push(PathBuf::from(home).join(".local/lib"));
    }
    python_roots.extend(["/usr/local/lib", "/usr/lib"].map(PathBuf::from));
    for root in python_roots {
        for python in glob_dirs(&root, "python3", "") {
            for packages in ["site-packages", "dist-packages"] {
                dirs.push(python.join(packages).join("nvidia/cu13/lib"));
            }
        }
    }
    if let Ok(mut dir) = std::env::current_dir() {
        loop {
            dirs.push(dir.join(".deps/nvrtc/nvidia/cu13/lib"));
            if !dir.pop() {
                break;
            }
        }
    }
    dirs.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.deps/nvrtc/nvidia/cu13/lib"));
    dirs
}

/// `root/PREFIX*/below` for each entry of `root` whose name starts with `prefix`.
fn glob_dirs(root: &Path, prefix: &str, below: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
        .map(|e| e.path().join(below))
        .collect();
    found.sort();
    found
}
