//! A persistent cache of generated machine code, so that a program run again does not compile
//! its kernels again (`CompileOptions::code_cache`: the CPU device turns it on by default,
//! `CHEVRON_CPU_CODE_CACHE`).
//!
//! An entry is one Cranelift function: its machine code and relocations, filed under a hash of
//! its *key*, the whole text of the function's Cranelift IR as the compiler built it, preceded
//! by Cranelift's version, the target triple and every shared and ISA setting. Cranelift is
//! deterministic, so equal keys give equal code: an entry is used only when its stored key
//! equals the function's key byte for byte, which makes invalidation exact (a change of the
//! compiler's translation, of a setting, of the host's features or of Cranelift changes the
//! key). An entry that cannot be read, is truncated, fails its checksum or holds anything
//! unexpected is ignored and written again; writes go to a temporary file renamed into place,
//! so a reader never sees half an entry. The folder holds at most [`MAX_ENTRIES`] entries;
//! past that it is emptied.

use std::fmt::Write as _;
use std::hash::Hasher;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use cranelift_codegen::binemit::Reloc;
use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::ir::LibCall;
use cranelift_jit::JITModule;
use cranelift_module::{FuncId, Module, ModuleReloc, ModuleRelocTarget};

/// Entries kept before the folder is emptied.
const MAX_ENTRIES: usize = 4096;
/// What every entry starts with (its format's version).
const MAGIC: &[u8] = b"chevron cpu code 1\n";
/// The relocation kinds an entry may hold, by their index.
const RELOCS: [Reloc; 6] = [
    Reloc::Abs4,
    Reloc::Abs8,
    Reloc::X86PCRel4,
    Reloc::X86CallPCRel4,
    Reloc::X86CallPLTRel4,
    Reloc::X86GOTPCRel4,
];

/// The cache as one kernel's compile uses it: its folder, and how many functions came from
/// it and how many were compiled.
#[derive(Debug, Default)]
pub struct CodeCache {
    pub folder: Option<PathBuf>,
    /// Where each function's machine code is also written
    /// ([`CompileOptions::code_dump`](crate::CompileOptions::code_dump)).
    pub dump: Option<PathBuf>,
    pub hits: u32,
    pub misses: u32,
}

impl CodeCache {
    /// Defines function `id` of `module` from the function `context` holds: from the cache
    /// when it has the function's code, else compiled (and then stored). Returns the machine
    /// code (for the dump folder).
    pub fn define(
        &mut self,
        module: &mut JITModule,
        id: FuncId,
        context: &mut cranelift_codegen::Context,
    ) -> Result<Vec<u8>, String> {
        let failed = |e: cranelift_module::ModuleError| format!("Cranelift: {e:?}");
        let Some(folder) = &self.folder else {
            module.define_function(id, context).map_err(failed)?;
            self.misses += 1;
            let code = context.compiled_code().map(|c| c.code_buffer().to_vec());
            return Ok(code.unwrap_or_default());
        };
        let key = key(module, context);
        let path = folder.join(format!("{:016x}.code", fnv(key.as_bytes())));
        let stored = std::fs::read(&path).ok();
        if let Some(entry) = stored.and_then(|b| Entry::parse(&b, &key, id)) {
            module
                .define_function_bytes(id, entry.alignment, &entry.code, &entry.relocs)
                .map_err(failed)?;
            self.hits += 1;
            return Ok(entry.code);
        }
        context
            .compile(module.isa(), &mut ControlPlane::default())
            .map_err(|e| format!("Cranelift: {:?}", e.inner))?;
        let compiled = context.compiled_code().expect("a compiled function");
        let entry = Entry {
            alignment: u64::from(compiled.buffer.alignment),
            code: compiled.code_buffer().to_vec(),
            relocs: compiled
                .buffer
                .relocs()
                .iter()
                .map(|reloc| ModuleReloc::from_mach_reloc(reloc, &context.func, id))
                .collect(),
        };
        module
            .define_function_bytes(id, entry.alignment, &entry.code, &entry.relocs)
            .map_err(failed)?;
        if let Some(bytes) = entry.to_bytes(&key) {
            store(folder, &path, &bytes);
        }
        self.misses += 1;
        Ok(entry.code)
    }
}

/// The key of the function `context` holds, as `module` would compile it.
fn key(module: &JITModule, context: &cranelift_codegen::Context) -> String {
    let isa = module.isa();
    let mut key = format!(
        "cranelift {}\n{}\n{}",
        cranelift_codegen::VERSION,
        isa.triple(),
        isa.flags()
    );
    for flag in isa.isa_flags() {
        let _ = writeln!(key, "{flag}");
    }
    let _ = write!(key, "{}", context.func.display());
    key
}

/// Writes `bytes` to `path` through a temporary file of `folder`; failures are ignored (the
/// cache only saves time).
fn store(folder: &Path, path: &Path, bytes: &[u8]) {
    if std::fs::create_dir_all(folder).is_err() {
        return;
    }
    let full = std::fs::read_dir(folder).is_ok_and(|d| d.count() >= MAX_ENTRIES);
    if full {
        for file in std::fs::read_dir(folder).into_iter().flatten().flatten() {
            if file.path().extension().is_some_and(|e| e == "code") {
                let _ = std::fs::remove_file(file.path());
            }
        }
    }
    let unique = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let temporary = folder.join(format!(".{}-{unique}.tmp", std::process::id()));
    if std::fs::write(&temporary, bytes).is_err() || std::fs::rename(&temporary, path).is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
}

/// FNV-1a, 64 bits: the entry's file name (from its key) and its checksum.
fn fnv(bytes: &[u8]) -> u64 {
    let mut hasher = fnv::FnvHasher::default();
    hasher.write(bytes);
    hasher.finish()
}

/// One function's machine code, as [`JITModule::define_function_bytes`] takes it.
struct Entry {
    alignment: u64,
    code: Vec<u8>,
    relocs: Vec<ModuleReloc>,
}

impl Entry {
    /// The entry as stored under `key`: the magic, the key, the alignment, the code, the
    /// relocations, then the checksum of all that. `None` when a relocation has a form the
    /// cache does not keep.
    fn to_bytes(&self, key: &str) -> Option<Vec<u8>> {
        let mut out = MAGIC.to_vec();
        let put = |out: &mut Vec<u8>, v: u64| out.extend_from_slice(&v.to_le_bytes());
        put(&mut out, key.len() as u64);
        out.extend_from_slice(key.as_bytes());
        put(&mut out, self.alignment);
        put(&mut out, self.code.len() as u64);
        out.extend_from_slice(&self.code);
        put(&mut out, self.relocs.len() as u64);
        for reloc in &self.relocs {
            let kind = RELOCS.iter().position(|k| *k == reloc.kind)? as u64;
            put(&mut out, u64::from(reloc.offset));
            put(&mut out, kind);
            put(&mut out, reloc.addend as u64);
            match &reloc.name {
                ModuleRelocTarget::User { namespace, index } => {
                    put(&mut out, 0);
                    put(&mut out, u64::from(*namespace) << 32 | u64::from(*index));
                }
                ModuleRelocTarget::FunctionOffset(_, offset) => {
                    put(&mut out, 1);
                    put(&mut out, u64::from(*offset));
                }
                ModuleRelocTarget::LibCall(call) => {
                    let name = call.to_string();
                    put(&mut out, 2);
                    put(&mut out, name.len() as u64);
                    out.extend_from_slice(name.as_bytes());
                }
                ModuleRelocTarget::KnownSymbol(_) => return None,
            }
        }
        let checksum = fnv(&out);
        put(&mut out, checksum);
        Some(out)
    }

    /// The entry `bytes` holds for function `id`, if they are whole, pass their checksum and
    /// were stored under exactly `key`.
    fn parse(bytes: &[u8], key: &str, id: FuncId) -> Option<Entry> {
        let (body, checksum) = bytes.split_at_checked(bytes.len().checked_sub(8)?)?;
        if fnv(body) != u64::from_le_bytes(checksum.try_into().ok()?) {
            return None;
        }
        let mut r = Reader(body.strip_prefix(MAGIC)?);
        let stored_key_len = r.number()?;
        if r.bytes(stored_key_len)? != key.as_bytes() {
            return None;
        }
        let alignment = r.number()?;
        let code_len = r.number()?;
        let code = r.bytes(code_len)?.to_vec();
        let count = r.number()?;
        let mut relocs = Vec::new();
        for _ in 0..count {
            let offset = u32::try_from(r.number()?).ok()?;
            let kind = *RELOCS.get(usize::try_from(r.number()?).ok()?)?;
            let addend = r.number()? as i64;
            let name = match r.number()? {
                0 => {
                    let both = r.number()?;
                    ModuleRelocTarget::user((both >> 32) as u32, both as u32)
                }
                1 => ModuleRelocTarget::FunctionOffset(id, u32::try_from(r.number()?).ok()?),
                2 => {
                    let len = r.number()?;
                    let name = std::str::from_utf8(r.bytes(len)?).ok()?;
                    ModuleRelocTarget::LibCall(LibCall::from_str(name).ok()?)
                }
                _ => return None,
            };
            relocs.push(ModuleReloc {
                offset,
                kind,
                name,
                addend,
            });
        }
        let in_code = |r: &ModuleReloc| (r.offset as usize) < code.len();
        (r.0.is_empty() && relocs.iter().all(in_code)).then_some(Entry {
            alignment,
            code,
            relocs,
        })
    }
}

/// Reads an entry's fields in order; `None` past its end.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn number(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.bytes(8)?.try_into().ok()?))
    }

    fn bytes(&mut self, len: u64) -> Option<&[u8]> {
        let (head, rest) = self.0.split_at_checked(usize::try_from(len).ok()?)?;
        self.0 = rest;
        Some(head)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Entry {
        Entry {
            alignment: 16,
            code: (0..64).collect(),
            relocs: vec![
                ModuleReloc {
                    offset: 3,
                    kind: Reloc::Abs8,
                    name: ModuleRelocTarget::user(0, 7),
                    addend: -4,
                },
                ModuleReloc {
                    offset: 20,
                    kind: Reloc::X86CallPCRel4,
                    name: ModuleRelocTarget::LibCall(LibCall::FmaF32),
                    addend: 0,
                },
            ],
        }
    }

    #[test]
    fn an_entry_reads_back_under_its_key_only() {
        let id = FuncId::from_u32(2);
        let bytes = sample().to_bytes("the key").unwrap();
        let entry = Entry::parse(&bytes, "the key", id).unwrap();
        assert_eq!(entry.to_bytes("the key"), Some(bytes.clone()));
        assert!(Entry::parse(&bytes, "the kez", id).is_none());
        assert!(Entry::parse(&bytes, "the key ", id).is_none());
    }

    #[test]
    fn a_damaged_entry_is_refused() {
        let id = FuncId::from_u32(0);
        let bytes = sample().to_bytes("k").unwrap();
        for at in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x10;
            assert!(
                Entry::parse(&damaged, "k", id).is_none(),
                "byte {at} flipped"
            );
            assert!(Entry::parse(&bytes[..at], "k", id).is_none(), "cut at {at}");
        }
        assert!(Entry::parse(&[], "k", id).is_none());
    }
}
