//! A kernel's whole compile kept in the code cache (`code_cache.rs`), so that a program run
//! again defines its kernel's functions without translating them: building the Cranelift IR
//! of tiled matmul's three functions and printing it as their keys took about 2.5 ms of a
//! 3 ms compile served by the cache.
//!
//! A *record* is filed under a hash of its *kernel key*: the compiler's identity (a hash of
//! the sources of this crate and of `chevron-ptx`, whose decoded instructions it translates,
//! and of `Cargo.lock`, made by `build.rs`), Cranelift's version, the target and every
//! setting, the compile's options, and the decoded kernel as the translation reads it (the
//! `Debug` form of its instructions and fields, with its calls inlined, each instruction's
//! memory ordering, and its stack tops; not the instructions' sources, whose positions make
//! no difference to the code). The translation is a function of exactly these, so
//! equal keys give equal functions; a record is used only when its stored key equals the
//! kernel key byte for byte. It holds each function's entry by name (in the order the compile
//! declared them, which a replay repeats, so the relocations' function numbers agree), the
//! kernel's number of global access sites, whether it has a vector function or why not, and
//! the renaming of its registers onto fewer numbers (`coalesce.rs`) when it has one, so that a
//! replay neither translates nor coalesces; the key is the kernel's before that renaming.
//! A record that cannot be read, is cut short or fails its checksum is ignored: the kernel is
//! compiled (through the per-function entries) and the record written again.

use std::path::{Path, PathBuf};

use chevron_ptx::interp::program::FunctionCode;
use cranelift_jit::JITModule;
use cranelift_module::FuncId;

use crate::coalesce::Renaming;
use crate::code_cache::{digest, settings, store, Entry, Reader};

/// What every record starts with (its format's version).
const MAGIC: &[u8] = b"chevron cpu kernel 3\n";

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
    /// The kernel's registers renamed onto fewer numbers (`coalesce.rs`), when they were.
    pub renaming: Option<Renaming>,
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
         {group_threads}\n{}\n\
         {stack_tops:?}",
        cfg!(debug_assertions),
        settings(module),
        translated_parts(code),
    )
}

/// What the translation reads of `code`: every field but the instructions' sources, and of
/// those, each instruction's memory ordering (`codegen::spin::ordered`, the one thing the
/// compiler asks of them). A source's position, spelling and other modifiers make no
/// difference to the code, and printing them took about a third of a cache hit's time (the
/// tile scan's 0.3 ms). The fields are named one by one, so that a field added to
/// `FunctionCode` is a compile error here until the key says whether it counts.
fn translated_parts(code: &FunctionCode) -> String {
    let FunctionCode {
        name,
        is_kernel,
        insts,
        source: _,
        num_regs,
        frame_size,
        params,
        returns,
        kernel_params,
        param_size,
        defined,
        builtin,
        carry_reg,
        grid_sync,
        cluster_dims,
        explicit_cluster,
    } = code;
    let ordered: Vec<usize> = (0..insts.len())
        .filter(|&pc| crate::codegen::spin::ordered(code, pc))
        .collect();
    format!(
        "{name} kernel {is_kernel} registers {num_regs} frame {frame_size} params {params:?} \
         returns {returns:?} kernel params {kernel_params:?} param size {param_size} defined \
         {defined} builtin {builtin:?} carry {carry_reg} grid sync {grid_sync} cluster \
         {cluster_dims:?} {explicit_cluster}\nordered {ordered:?}\n{insts:?}"
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
    let renaming = match r.number()? {
        0 => None,
        1 => {
            let count = u32::try_from(r.number()?).ok()?;
            let len = r.number()?;
            let map = (r.bytes(len.checked_mul(4)?)?.chunks_exact(4))
                .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
                .collect();
            Some(Renaming { map, count })
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
        renaming,
    })
}

/// Writes the record of `key` (see [`read`]) to `path` in `folder`; failures are ignored.
pub fn write(
    (folder, path): (&Path, &Path),
    key: &str,
    functions: &[(String, Entry)],
    (sites, vector): (u32, Result<(), &str>),
    renaming: Option<&Renaming>,
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
    match renaming {
        None => put(&mut out, 0),
        Some(Renaming { map, count }) => {
            put(&mut out, 1);
            put(&mut out, u64::from(*count));
            put(&mut out, map.len() as u64);
            for r in map {
                out.extend_from_slice(&r.to_le_bytes());
            }
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::{CompileOptions, CompiledKernel};

    /// The grid reduction's registers are renamed onto fewer numbers (`coalesce.rs`); compiled
    /// again from its record, the kernel has the same renaming without computing it, and
    /// every function comes from the record.
    #[test]
    fn a_record_keeps_the_kernels_renaming() {
        let folder = std::env::temp_dir().join(format!("chevron-renaming-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&folder);
        let program = Arc::new(crate::test_kernels::grid_sync());
        let kernel = program.kernel("grid_sum").unwrap();
        let options = CompileOptions {
            code_cache: Some(folder.clone()),
            ..Default::default()
        };
        let first = CompiledKernel::compile(&program, &kernel, &options).unwrap();
        let (_, all) = first.functions_from_cache();
        let again = CompiledKernel::from_cache(&program, &kernel, &options)
            .unwrap()
            .expect("a record");
        assert_eq!(again.functions_from_cache(), (all, all));
        let (code, _) = program.decoded(&kernel).unwrap();
        assert!(4 * first.num_regs < code.num_regs, "{}", first.num_regs);
        assert_eq!(again.num_regs, first.num_regs);

        let records: Vec<_> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "kernel"))
            .collect();
        assert_eq!(records.len(), 1);
        let bytes = std::fs::read(&records[0]).unwrap();
        let key_len = u64::from_le_bytes(bytes[super::MAGIC.len()..][..8].try_into().unwrap());
        let start = super::MAGIC.len() + 8;
        let key = std::str::from_utf8(&bytes[start..start + key_len as usize]).unwrap();
        let record = super::read(&records[0], key).expect("the record reads back");
        let renaming = record.renaming.expect("a renaming");
        assert_eq!(renaming.count, first.num_regs);
        assert_eq!(renaming.map.len(), code.num_regs as usize);
        let _ = std::fs::remove_dir_all(&folder);
    }
}
