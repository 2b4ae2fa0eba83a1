//! A kernel's whole compile kept in the code cache (`code_cache.rs`), so that a program run
//! again defines its kernel's functions without translating them: building the Cranelift IR
//! of tiled matmul's three functions and printing it as their keys took about 2.5 ms of a
//! 3 ms compile served by the cache.
//!
//! A *record* is filed under a hash of its *kernel key*: the compiler's identity (a hash of
//! the sources of this crate and of `chevron-ptx`, whose decoded instructions it translates,
//! and of `Cargo.lock`, made by `build.rs`), Cranelift's version, the target and every
//! setting, the compile's options, and the whole decoded kernel (its `Debug` form, with its
//! calls inlined, and its stack tops). The translation is a function of exactly these, so
//! equal keys give equal functions; a record is used only when its stored key equals the
//! kernel key byte for byte. It holds each function's entry by name (in the order the compile
//! declared them, which a replay repeats, so the relocations' function numbers agree), the
//! kernel's number of global access sites, and whether it has a vector function or why not.
//! A record that cannot be read, is cut short or fails its checksum is ignored: the kernel is
//! compiled (through the per-function entries) and the record written again.

use std::path::{Path, PathBuf};

use chevron_ptx::interp::program::FunctionCode;
use cranelift_jit::JITModule;
use cranelift_module::FuncId;

use crate::code_cache::{digest, settings, store, Entry, Reader};

/// What every record starts with (its format's version).
const MAGIC: &[u8] = b"chevron cpu kernel 2\n";

/// The compiler's identity (`build.rs`): changes whenever its sources or its dependencies do.
const COMPILER: &str = env!("CHEVRON_CPU_JIT_SOURCES");

/// A kernel's record as read back.
pub struct Record {
    /// Each function's entry, stored under its name.
    functions: Vec<(String, Vec<u8>)>,
    /// The kernel's global access sites.
    pub sites: u32,
    /// Whether the kernel has a vector function, or why not.
    pub vector: Result<(), String>,
}

impl Record {
    /// Function `name`'s entry, as function `id`.
    pub fn function(&self, name: &str, id: FuncId) -> Option<Entry> {
        let (_, bytes) = self.functions.iter().find(|(n, _)| n == name)?;
        Entry::parse(bytes, name, id)
    }
}

/// The kernel key of `code` (stack tops `stack_tops`) compiled by `module` with `checks` and
/// `vectors` (see the module doc).
pub fn kernel_key(
    module: &JITModule,
    (code, stack_tops): (&FunctionCode, &[u64]),
    checks: bool,
    (vectors, group_threads): (bool, u32),
) -> String {
    format!(
        "compiler {COMPILER} debug {}\n{}checks {checks} vectors {vectors} group \
         {group_threads}\n{code:?}\n\
         {stack_tops:?}",
        cfg!(debug_assertions),
        settings(module),
    )
}

/// Where the record of `key` lives in `folder`.
pub fn path(folder: &Path, key: &str) -> PathBuf {
    folder.join(format!("{:016x}.kernel", digest(key.as_bytes())))
}

/// The record at `path`, if it is whole, passes its checksum and was stored under exactly
/// `key`.
pub fn read(path: &Path, key: &str) -> Option<Record> {
    let bytes = std::fs::read(path).ok()?;
    let (body, checksum) = bytes.split_at_checked(bytes.len().checked_sub(8)?)?;
    if digest(body) != u64::from_le_bytes(checksum.try_into().ok()?) {
        return None;
    }
    let mut r = Reader(body.strip_prefix(MAGIC)?);
    let key_len = r.number()?;
    if r.bytes(key_len)? != key.as_bytes() {
        return None;
    }
    let sites = u32::try_from(r.number()?).ok()?;
    let vector = match r.number()? {
        0 => Ok(()),
        1 => {
            let len = r.number()?;
            Err(String::from_utf8(r.bytes(len)?.to_vec()).ok()?)
        }
        _ => return None,
    };
    let count = r.number()?;
    let mut functions = Vec::new();
    for _ in 0..count {
        let len = r.number()?;
        let name = String::from_utf8(r.bytes(len)?.to_vec()).ok()?;
        let len = r.number()?;
        functions.push((name, r.bytes(len)?.to_vec()));
    }
    r.0.is_empty().then_some(Record {
        functions,
        sites,
        vector,
    })
}

/// Writes the record of `key` (see [`read`]) to `path` in `folder`; failures are ignored.
pub fn write(
    (folder, path): (&Path, &Path),
    key: &str,
    functions: &[(String, Entry)],
    sites: u32,
    vector: Result<(), &str>,
) {
    let mut out = MAGIC.to_vec();
    let put = |out: &mut Vec<u8>, v: u64| out.extend_from_slice(&v.to_le_bytes());
    let put_bytes = |out: &mut Vec<u8>, bytes: &[u8]| {
        put(out, bytes.len() as u64);
        out.extend_from_slice(bytes);
    };
    put_bytes(&mut out, key.as_bytes());
    put(&mut out, u64::from(sites));
    match vector {
        Ok(()) => put(&mut out, 0),
        Err(why) => {
            put(&mut out, 1);
            put_bytes(&mut out, why.as_bytes());
        }
    }
    put(&mut out, functions.len() as u64);
    for (name, entry) in functions {
        // A relocation of a form the cache does not keep: no record.
        let Some(bytes) = entry.to_bytes(name) else {
            return;
        };
        put_bytes(&mut out, name.as_bytes());
        put_bytes(&mut out, &bytes);
    }
    let checksum = digest(&out);
    put(&mut out, checksum);
    store(folder, path, &out);
}
