//! [`CodeObject`]: a code object read once — its kind, bytes, symbol table and, for PTX, the
//! parsed IR — handed as it is to module loading, every backend, instrumentation and `inspect`.
//!
//! PTX is parsed when the object is read and never again: backends that run PTX take the IR,
//! backends that compile PTX text take the text. A fatbin's entries are decoded (decompressed,
//! PTX parsed) on first use and kept, so picking the same entry for several devices reads it
//! once.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use chevron_ptx::ir;
use chevron_ptx::symbols::SymbolTable;

use super::fatbin::{parse_fatbin, EntryKind, FatbinEntry};
use super::targets::{select_entry, CodeTargets};
use super::{check_fatbin, detect, embedded_fatbins, is_cuda_elf, CodeObjectKind, Cubin};
use crate::error::{Error, Result};

/// Name used in errors for code objects handed over in memory.
pub const IN_MEMORY: &str = "<memory>";

/// A code object, read once. Cloning shares it.
#[derive(Clone)]
pub struct CodeObject {
    inner: Arc<Inner>,
}

struct Inner {
    kind: CodeObjectKind,
    bytes: Vec<u8>,
    source_name: String,
    body: Body,
}

enum Body {
    Ptx(PtxBody),
    Cubin(std::result::Result<SymbolTable, String>),
    /// A fatbin, or a host ELF file whose embedded fatbins give the entries.
    Entries {
        /// Each entry, decoded on first use.
        decoded: Vec<OnceLock<std::result::Result<CodeObject, String>>>,
        /// Why the container could not be read, if it could not.
        unreadable: Option<String>,
    },
}

struct PtxBody {
    /// The parsed module, or why chevron-ptx could not parse the text.
    ir: std::result::Result<Arc<ir::Module>, String>,
    symbols: Option<SymbolTable>,
    /// The text, for backends that compile it; printed from the IR on first use when the object
    /// was made from IR.
    text: OnceLock<std::result::Result<String, String>>,
    /// Nanoseconds spent parsing.
    parse_ns: u64,
}

impl CodeObject {
    /// Reads a code object of any kind, detected from its content (anything unrecognized is
    /// read as PTX); errors name `source_name`. Never fails: what cannot be read is reported by
    /// the consumer that needs it (a backend may know more than chevron's readers).
    pub fn read(bytes: impl Into<Vec<u8>>, source_name: &str) -> CodeObject {
        let bytes = bytes.into();
        let kind = detect(&bytes).unwrap_or(CodeObjectKind::Ptx);
        CodeObject::read_as(kind, bytes, source_name)
    }

    /// Reads `bytes` as a code object of `kind`, unless their content says otherwise (a fatbin
    /// or PTX handed over as a cubin reads as what it is: callers such as MLIR's
    /// `mgpuModuleLoad` do not always know what they pass).
    pub fn read_as(kind: CodeObjectKind, bytes: impl Into<Vec<u8>>, source_name: &str) -> Self {
        let bytes = bytes.into();
        let kind = detect(&bytes).unwrap_or(kind);
        let body = match kind {
            CodeObjectKind::Ptx => Body::Ptx(PtxBody::parse(&bytes)),
            CodeObjectKind::Cubin if is_cuda_elf(&bytes) => Body::Cubin(
                Cubin::parse(&bytes)
                    .map(|cubin| cubin.symbols)
                    .map_err(|e| e.to_string()),
            ),
            // ELF that is no readable host file either: a cubin chevron cannot read (the
            // driver may).
            CodeObjectKind::Cubin if entries_of(kind, &bytes).is_err() => {
                Body::Cubin(Err(entries_of(kind, &bytes).err().unwrap_or_default()))
            }
            CodeObjectKind::Cubin | CodeObjectKind::Fatbin => {
                let (count, unreadable) = match entries_of(kind, &bytes) {
                    Ok(entries) => (entries.len(), check_entries(kind, &bytes).err()),
                    Err(reason) => (0, Some(reason)),
                };
                Body::Entries {
                    decoded: (0..count).map(|_| OnceLock::new()).collect(),
                    unreadable,
                }
            }
        };
        CodeObject {
            inner: Arc::new(Inner {
                kind,
                bytes,
                source_name: source_name.to_string(),
                body,
            }),
        }
    }

    /// A PTX code object of a module already parsed (or built) in memory, such as a module
    /// rewritten by a pass or linked from several: nothing is parsed, and the text is printed
    /// only if a backend asks for it.
    pub fn from_ptx_ir(module: ir::Module, source_name: &str) -> CodeObject {
        let symbols = SymbolTable::from_module(&module);
        CodeObject {
            inner: Arc::new(Inner {
                kind: CodeObjectKind::Ptx,
                bytes: Vec::new(),
                source_name: source_name.to_string(),
                body: Body::Ptx(PtxBody {
                    ir: Ok(Arc::new(module)),
                    symbols: Some(symbols),
                    text: OnceLock::new(),
                    parse_ns: 0,
                }),
            }),
        }
    }

    /// What the object is (a host ELF file with embedded fatbins reads as a cubin).
    pub fn kind(&self) -> CodeObjectKind {
        self.inner.kind
    }

    /// The bytes as read (empty for an object made from IR).
    pub fn bytes(&self) -> &[u8] {
        &self.inner.bytes
    }

    /// The file it came from, or `<memory>`.
    pub fn source_name(&self) -> &str {
        &self.inner.source_name
    }

    /// Nanoseconds spent parsing PTX when the object was read (0 for binaries).
    pub fn parse_ns(&self) -> u64 {
        match &self.inner.body {
            Body::Ptx(ptx) => ptx.parse_ns,
            _ => 0,
        }
    }

    /// The symbol table: of the PTX or cubin itself; of a fatbin, the entry
    /// [`CodeTargets::any`] picks. `None` when the object's symbols cannot be read.
    pub fn symbols(&self) -> Option<&SymbolTable> {
        self.symbols_on(&CodeTargets::any())
    }

    /// The symbol table of what a device with `targets` runs: of a fatbin, the entry
    /// [`select_entry`] picks for it (else the one [`CodeTargets::any`] picks).
    pub fn symbols_on(&self, targets: &CodeTargets) -> Option<&SymbolTable> {
        match &self.inner.body {
            Body::Ptx(ptx) => ptx.symbols.as_ref(),
            Body::Cubin(symbols) => symbols.as_ref().ok(),
            Body::Entries { .. } => {
                let entry = self
                    .entry_for(targets)
                    .or_else(|_| self.entry_for(&CodeTargets::any()))
                    .ok()?;
                entry.symbols_on(targets)
            }
        }
    }

    /// Why a fatbin (or a host file's embedded fatbins) cannot be used at all: a damaged
    /// container or entry, found when the object was read. `None` for a sound object and for
    /// other kinds.
    pub fn corruption(&self) -> Option<&str> {
        match &self.inner.body {
            Body::Entries { unreadable, .. } => unreadable.as_deref(),
            _ => None,
        }
    }

    /// Why the symbol table cannot be read (`None` when it can).
    pub fn symbols_error(&self) -> Option<String> {
        if self.symbols().is_some() {
            return None;
        }
        Some(match &self.inner.body {
            Body::Ptx(ptx) => ptx.ir.as_ref().err().cloned().unwrap_or_default(),
            Body::Cubin(symbols) => symbols.as_ref().err().cloned().unwrap_or_default(),
            Body::Entries { .. } => match self.entry_for(&CodeTargets::any()) {
                Ok(entry) => entry.symbols_error().unwrap_or_default(),
                Err(reason) => reason,
            },
        })
    }

    /// The parsed PTX module; an error for binaries and for PTX chevron-ptx cannot parse.
    pub fn ptx(&self) -> Result<&Arc<ir::Module>> {
        match &self.inner.body {
            Body::Ptx(ptx) => ptx.ir.as_ref().map_err(|e| self.error(e.clone())),
            _ => Err(self.error(format!("a {} holds no PTX text", self.kind_word()))),
        }
    }

    /// The PTX text (trailing NUL terminators removed); an error for binaries and for text
    /// that is not UTF-8.
    pub fn ptx_text(&self) -> Result<&str> {
        let Body::Ptx(ptx) = &self.inner.body else {
            return Err(self.error(format!("a {} holds no PTX text", self.kind_word())));
        };
        let text = ptx.text.get_or_init(|| match &ptx.ir {
            _ if !self.inner.bytes.is_empty() => std::str::from_utf8(&self.inner.bytes)
                .map(|text| text.trim_end_matches('\0').to_string())
                .map_err(|e| format!("PTX text is not UTF-8: {e}")),
            Ok(module) => Ok(chevron_ptx::print(module)),
            Err(reason) => Err(reason.clone()),
        });
        text.as_deref().map_err(|e| self.error(e.clone()))
    }

    /// The PTX text if something already asked for it ([`CodeObject::ptx_text`]): for an object
    /// made from IR, whether it was printed for a backend that compiles text.
    pub(crate) fn ptx_text_if_printed(&self) -> Option<&str> {
        match &self.inner.body {
            Body::Ptx(ptx) => ptx.text.get().and_then(|text| text.as_deref().ok()),
            _ => None,
        }
    }

    /// What a device with `targets` is handed: this object when the device takes it as it is
    /// (PTX, a GPU cubin, a fatbin the device picks from itself), else the fatbin entry
    /// [`select_entry`] picks, decoded once. An error says what the device runs and what the
    /// object holds.
    pub fn for_targets(&self, targets: &CodeTargets) -> Result<CodeObject> {
        match (&self.inner.body, self.inner.kind) {
            (Body::Ptx(_), _) if targets.ptx_archs.is_some() => Ok(self.clone()),
            (Body::Ptx(_), _) => Err(self.error("this device runs no PTX".into())),
            (Body::Cubin(_), _) if targets.cubin_archs.is_some() => Ok(self.clone()),
            (Body::Cubin(_), _) => Err(self.error(
                "this device runs PTX only; a cubin holds machine code for a GPU and no PTX \
                 (compile to PTX, or load a fatbin that embeds PTX)"
                    .into(),
            )),
            (
                Body::Entries {
                    unreadable: Some(reason),
                    ..
                },
                _,
            ) => Err(self.error(reason.clone())),
            (Body::Entries { .. }, CodeObjectKind::Fatbin) if targets.whole_fatbins => {
                Ok(self.clone())
            }
            (Body::Entries { .. }, _) => {
                self.entry_for(targets).cloned().map_err(|e| self.error(e))
            }
        }
    }

    /// The decoded entry of a fatbin (or of a host file's embedded fatbins) that `targets`
    /// runs.
    fn entry_for(&self, targets: &CodeTargets) -> std::result::Result<&CodeObject, String> {
        let Body::Entries {
            decoded,
            unreadable,
        } = &self.inner.body
        else {
            return Ok(self);
        };
        if let Some(reason) = unreadable {
            return Err(reason.clone());
        }
        let entries = entries_of(self.inner.kind, &self.inner.bytes)?;
        let Some(index) = select_entry(&entries, targets) else {
            return Err(self.nothing_to_run(&entries, targets));
        };
        let entry = &entries[index];
        let name = format!("{} (sm_{} entry)", self.inner.source_name, entry.arch);
        decoded[index]
            .get_or_init(|| {
                let contents = entry.contents().map_err(|e| e.to_string())?;
                Ok(match entry.kind {
                    EntryKind::Ptx => {
                        let end = contents.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
                        CodeObject::read_as(CodeObjectKind::Ptx, &contents[..end], &name)
                    }
                    _ => CodeObject::read_as(CodeObjectKind::Cubin, contents.into_owned(), &name),
                })
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    fn nothing_to_run(&self, entries: &[FatbinEntry<'_>], targets: &CodeTargets) -> String {
        let listed: Vec<String> = entries
            .iter()
            .map(|e| match e.kind {
                EntryKind::Ptx => format!("compute_{} PTX", e.arch),
                EntryKind::Elf => format!("sm_{} cubin", e.arch),
                EntryKind::Other(n) => format!("sm_{} entry of kind {n}", e.arch),
            })
            .collect();
        let listed = if listed.is_empty() {
            "none".to_string()
        } else {
            listed.join(", ")
        };
        let runs = match (&targets.cubin_archs, &targets.ptx_archs) {
            (None, Some(_)) => "this device runs PTX only".to_string(),
            (Some(archs), _) => format!(
                "this device runs cubins of sm_{}..sm_{} and PTX",
                archs.start(),
                archs.end()
            ),
            (None, None) => "this device runs no code object of a fatbin".to_string(),
        };
        let holds = if targets.runs_ptx_only() {
            "no PTX"
        } else {
            "no entry it runs"
        };
        format!(
            "{runs}; the {} holds {holds} (entries: {listed})",
            self.kind_word()
        )
    }

    fn kind_word(&self) -> &'static str {
        match self.inner.kind {
            CodeObjectKind::Ptx => "PTX module",
            CodeObjectKind::Cubin if is_cuda_elf(&self.inner.bytes) => "cubin",
            CodeObjectKind::Cubin => "host ELF file",
            CodeObjectKind::Fatbin => "fatbin",
        }
    }

    fn error(&self, message: String) -> Error {
        Error::CodeObject {
            source_name: self.inner.source_name.clone(),
            message,
        }
    }
}

/// PTX texts code objects parsed, over the whole process (every thread).
static PTX_PARSES: AtomicU64 = AtomicU64::new(0);

/// How many PTX texts code objects parsed so far in this process, on every thread (for tests
/// that check that a code object is read once however many devices or threads load it).
#[doc(hidden)]
pub fn ptx_parses() -> u64 {
    PTX_PARSES.load(Ordering::Relaxed)
}

impl PtxBody {
    fn parse(bytes: &[u8]) -> PtxBody {
        PTX_PARSES.fetch_add(1, Ordering::Relaxed);
        // Compilers often hand PTX over with its C string terminator.
        let end = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        let started = std::time::Instant::now();
        let ir = chevron_ptx::parse_bytes(&bytes[..end])
            .map(Arc::new)
            .map_err(|e| e.to_string());
        let parse_ns = started.elapsed().as_nanos() as u64;
        PtxBody {
            symbols: ir.as_ref().ok().map(|m| SymbolTable::from_module(m)),
            ir,
            text: OnceLock::new(),
            parse_ns,
        }
    }
}

/// The entries of a fatbin, or of every fatbin a host ELF file embeds.
fn entries_of(
    kind: CodeObjectKind,
    bytes: &[u8],
) -> std::result::Result<Vec<FatbinEntry<'_>>, String> {
    if kind == CodeObjectKind::Fatbin {
        return parse_fatbin(bytes).map_err(|e| e.to_string());
    }
    let fatbins = embedded_fatbins(bytes).map_err(|e| e.to_string())?;
    if fatbins.is_empty() {
        return Err("a host ELF file without embedded device code (.nv_fatbin)".into());
    }
    let mut entries = Vec::new();
    for fatbin in fatbins {
        entries.extend(parse_fatbin(fatbin).map_err(|e| e.to_string())?);
    }
    Ok(entries)
}

/// Checks every fatbin of [`entries_of`] whole (see [`check_fatbin`]): a corrupted entry makes
/// the object unreadable even when a device would pick another.
fn check_entries(kind: CodeObjectKind, bytes: &[u8]) -> std::result::Result<(), String> {
    let fatbins = match kind {
        CodeObjectKind::Fatbin => vec![bytes],
        _ => embedded_fatbins(bytes).map_err(|e| e.to_string())?,
    };
    fatbins
        .into_iter()
        .try_for_each(check_fatbin)
        .map_err(|e| e.to_string())
}

impl std::fmt::Debug for CodeObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodeObject")
            .field("kind", &self.inner.kind)
            .field("source", &self.inner.source_name)
            .field("bytes", &self.inner.bytes.len())
            .finish()
    }
}
