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
const MAGIC: &[u8] = b"chevron cpu code 2\n";
/// The relocation kinds an entry may hold, by their index.
const RELOCS: [Reloc; 6] = [
    Reloc::Abs4,
    Reloc::Abs8,
    Reloc::X86PCRel4,
    Reloc::X86CallPCRel4,
    Reloc::X86CallPLTRel4,
    Reloc::X86GOTPCRel4,
];

/// The cache as one kernel's compile uses it: its folder, how many of the kernel's functions
/// came from it and how many were compiled, and the kernel's whole record
/// (`kernel_cache.rs`): replayed when the cache had it, else recorded.
#[derive(Default)]
pub struct CodeCache {
    pub folder: Option<PathBuf>,
    /// Where each function's machine code is also written
    /// ([`CompileOptions::code_dump`](crate::CompileOptions::code_dump)).
    pub dump: Option<PathBuf>,
    pub hits: u32,
    pub misses: u32,
    /// The kernel's record as the cache had it: its functions are defined from it, by name,
    /// without being translated.
    pub replay: Option<crate::kernel_cache::Record>,
    /// The functions defined so far, by name, for the kernel's record (while one is made).
    pub recorded: Option<Vec<(String, Entry)>>,
    /// The kernel key and the record's path.
    pub kernel: Option<(String, PathBuf)>,
    /// The renaming of the kernel's registers the compile used, for its record.
    pub renaming: Option<crate::coalesce::Renaming>,
}

impl CodeCache {
    /// Looks for the record of the kernel `key` names (`kernel_cache.rs`): replayed when the
    /// folder has it, else made as the compile goes.
    pub fn open_kernel(&mut self, key: String) {
        let Some(folder) = &self.folder else {
            return;
        };
        let path = crate::kernel_cache::path(folder, &key);
        self.replay = crate::kernel_cache::read(&path, &key);
        if self.replay.is_none() {
            self.recorded = Some(Vec::new());
        }
        self.kernel = Some((key, path));
    }

    /// Starts again without the record read by [`open_kernel`](Self::open_kernel) (one
    /// that did not replay), making a new one.
    pub fn without_replay(&mut self) {
        if self.replay.take().is_some() {
            self.hits = 0;
            self.misses = 0;
            self.recorded = Some(Vec::new());
        }
    }

    /// The compile went as far as the kernel's record needs: written when one was made.
    pub fn finish(&mut self, sites: u32, vector: Result<(), &str>) {
        if let (Some(folder), Some((key, path)), Some(functions)) =
            (&self.folder, &self.kernel, self.recorded.take())
        {
            let renaming = self.renaming.as_ref();
            crate::kernel_cache::write((folder, path), key, &functions, (sites, vector), renaming);
        }
    }

    /// Defines function `id` (named `name`) of `module` from the kernel's record, when the
    /// cache had one; `None` when the function must be translated. `counted`: whether it is
    /// one of the kernel's functions (not a trampoline). Returns the machine code.
    pub fn replay(
        &mut self,
        module: &mut JITModule,
        id: FuncId,
        name: &str,
        counted: bool,
    ) -> Result<Option<Vec<u8>>, String> {
        let Some(record) = &self.replay else {
            return Ok(None);
        };
        let entry = record
            .function(name, id)
            .ok_or_else(|| format!("the code cache's record has no function `{name}`"))?;
        define_entry(module, id, &entry)?;
        self.hits += u32::from(counted);
        Ok(Some(entry.code))
    }

    /// Defines function `id` (named `name`) of `module` from the function `context` holds:
    /// from the cache when it has the function's code, else compiled (and then stored).
    /// `counted`: whether it is one of the kernel's functions (not a trampoline). Returns the
    /// machine code (for the dump folder).
    pub fn define(
        &mut self,
        module: &mut JITModule,
        id: FuncId,
        (name, counted): (&str, bool),
        context: &mut cranelift_codegen::Context,
    ) -> Result<Vec<u8>, String> {
        let Some(folder) = &self.folder else {
            module
                .define_function(id, context)
                .map_err(|e| format!("Cranelift: {e:?}"))?;
            self.misses += u32::from(counted);
            let code = context.compiled_code().map(|c| c.code_buffer().to_vec());
            return Ok(code.unwrap_or_default());
        };
        let key = key(module, context);
        let path = folder.join(format!("{:016x}.code", digest(key.as_bytes())));
        let stored = std::fs::read(&path).ok();
        let entry = match stored.and_then(|b| Entry::parse(&b, &key, id)) {
            Some(entry) => {
                self.hits += u32::from(counted);
                entry
            }
            None => {
                let entry = compile(module, id, context)?;
                if let Some(bytes) = entry.to_bytes(&key) {
                    store(folder, &path, &bytes);
                }
                self.misses += u32::from(counted);
                entry
            }
        };
        define_entry(module, id, &entry)?;
        if let Some(recorded) = &mut self.recorded {
            recorded.push((name.to_string(), entry.clone()));
        }
        Ok(entry.code)
    }
}

/// The function `context` holds compiled, as an entry of function `id`.
fn compile(
    module: &JITModule,
    id: FuncId,
    context: &mut cranelift_codegen::Context,
) -> Result<Entry, String> {
    context
        .compile(module.isa(), &mut ControlPlane::default())
        .map_err(|e| format!("Cranelift: {:?}", e.inner))?;
    let compiled = context.compiled_code().expect("a compiled function");
    Ok(Entry {
        alignment: u64::from(compiled.buffer.alignment),
        code: compiled.code_buffer().to_vec(),
        relocs: compiled
            .buffer
            .relocs()
            .iter()
            .map(|reloc| ModuleReloc::from_mach_reloc(reloc, &context.func, id))
            .collect(),
    })
}

/// Function `id` of `module` defined as `entry` holds it.
fn define_entry(module: &mut JITModule, id: FuncId, entry: &Entry) -> Result<(), String> {
    module
        .define_function_bytes(id, entry.alignment, &entry.code, &entry.relocs)
        .map_err(|e| format!("Cranelift: {e:?}"))
}

/// What every key starts with: Cranelift's version, the target and every setting `module`
/// compiles with.
pub fn settings(module: &JITModule) -> String {
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
    key
}

/// The key of the function `context` holds, as `module` would compile it.
fn key(module: &JITModule, context: &cranelift_codegen::Context) -> String {
    let mut key = settings(module);
    let _ = write!(key, "{}", context.func.display());
    key
}

/// Writes `bytes` to `path` through a temporary file of `folder`; failures are ignored (the
/// cache only saves time).
pub fn store(folder: &Path, path: &Path, bytes: &[u8]) {
    if std::fs::create_dir_all(folder).is_err() {
        return;
    }
    let full = std::fs::read_dir(folder).is_ok_and(|d| d.count() >= MAX_ENTRIES);
    if full {
        for file in std::fs::read_dir(folder).into_iter().flatten().flatten() {
            if file
                .path()
                .extension()
                .is_some_and(|e| e == "code" || e == "kernel")
            {
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

/// A 64-bit hash of `bytes` (and their length): the name of an entry or a record (from its
/// key) and its checksum. Not for adversaries: any one changed byte or a different length
/// changes it (each step is a bijection of a lane, and folding the lanes a bijection of
/// each). Four lanes take 32 bytes a step, so the multiplies do not wait for each other:
/// with one lane, eight bytes a step, checking the tile scan's 222 KB record and its entries
/// took about a quarter of its 0.9 ms compile from the cache (FNV-1a, a byte a step, 0.15
/// ms of a 0.4 ms replay of matmul before that).
pub fn digest(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let step = |h: u64, word: u64| (h ^ word).wrapping_mul(K).rotate_left(29);
    let word = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
    let mut lanes = [
        0xcbf2_9ce4_8422_2325 ^ bytes.len() as u64,
        K,
        K.rotate_left(21),
        K.rotate_left(43),
    ];
    let mut chunks = bytes.chunks_exact(32);
    for chunk in &mut chunks {
        for (lane, bytes) in lanes.iter_mut().zip(chunk.chunks_exact(8)) {
            *lane = step(*lane, word(bytes));
        }
    }
    let mut h = lanes[1..].iter().fold(lanes[0], |h, &lane| step(h, lane));
    let mut words = chunks.remainder().chunks_exact(8);
    for bytes in &mut words {
        h = step(h, word(bytes));
    }
    let mut tail = [0u8; 8];
    tail[..words.remainder().len()].copy_from_slice(words.remainder());
    h = step(h, u64::from_le_bytes(tail));
    (h ^ (h >> 32)).wrapping_mul(K)
}

/// One function's machine code, as [`JITModule::define_function_bytes`] takes it.
#[derive(Clone)]
pub struct Entry {
    alignment: u64,
    code: Vec<u8>,
    relocs: Vec<ModuleReloc>,
}

impl Entry {
    /// The entry as stored under `key`: the magic, the key, the alignment, the code, the
    /// relocations, then the checksum of all that. `None` when a relocation has a form the
    /// cache does not keep.
    pub fn to_bytes(&self, key: &str) -> Option<Vec<u8>> {
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
        let checksum = digest(&out);
        put(&mut out, checksum);
        Some(out)
    }

    /// The entry `bytes` holds for function `id`, if they are whole, pass their checksum and
    /// were stored under exactly `key`.
    pub fn parse(bytes: &[u8], key: &str, id: FuncId) -> Option<Entry> {
        let (body, checksum) = bytes.split_at_checked(bytes.len().checked_sub(8)?)?;
        if digest(body) != u64::from_le_bytes(checksum.try_into().ok()?) {
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
pub struct Reader<'a>(pub &'a [u8]);

impl Reader<'_> {
    pub fn number(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.bytes(8)?.try_into().ok()?))
    }

    pub fn bytes(&mut self, len: u64) -> Option<&[u8]> {
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
