//! NVIDIA cubins: ELF64 objects for one GPU architecture (`EM_CUDA`).
//!
//! What chevron reads from a cubin:
//! - the architecture (`e_flags`), and whether it is relocatable (`ET_REL`, compiled `-rdc`);
//! - kernels (functions marked `STO_CUDA_ENTRY` or with an `.nv.info.<name>` section), device
//!   functions, and variables in `.nv.global*`, `.nv.constant*`, `.nv.shared*` sections, from
//!   the symbol table; undefined ones are `.extern`;
//! - each kernel's parameter layout from `.nv.info.<kernel>` (`EIATTR_KPARAM_INFO`), and its
//!   registers and stack from `.nv.info`;
//! - who calls whom from `.nv.callgraph`.
//!
//! The result is the same [`SymbolTable`] that PTX gives, so the runtime treats both alike.
//! A cubin does not record parameter names (they are empty) nor alignments: a parameter's
//! alignment is taken as the largest power of two (at most 16) dividing both its size and its
//! offset.

use std::collections::{BTreeMap, HashMap};

use chevron_ptx::ir::{Linkage, StateSpace};
use chevron_ptx::symbols::{demangle, ParamLayout, Symbol, SymbolKind, SymbolTable};
use object::elf::{self, FileHeader64};
use object::read::elf::{FileHeader, SectionHeader, Sym};
use object::LittleEndian;

use super::nv_info::{self, FunctionResources, KernelInfo};
use super::CodeObjectError;

/// Offset of the ABI version byte in the ELF identification.
const EI_ABIVERSION: usize = 8;
/// `EM_CUDA`: the ELF machine number of NVIDIA GPU code.
pub const EM_CUDA: u16 = 190;
/// `STO_CUDA_ENTRY`: the symbol is a kernel.
const STO_CUDA_ENTRY: u8 = 0x10;
/// `STT_CUDA_OBJECT`: a device variable (used for undefined ones in relocatable cubins).
const STT_CUDA_OBJECT: elf::SymbolType = elf::SymbolType(13);

/// A parsed cubin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cubin {
    /// The SM architecture it was compiled for, e.g. 90 for `sm_90`.
    pub arch: u32,
    /// Whether it is relocatable (compiled with `-rdc`; must be linked before loading).
    pub relocatable: bool,
    /// Kernels, device functions and variables, in symbol-table order.
    pub symbols: SymbolTable,
    /// What `.nv.info` says about each kernel, in the order of `symbols`.
    pub kernels: Vec<CubinKernel>,
}

/// The cubin-specific facts about one kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CubinKernel {
    /// The (mangled) name.
    pub name: String,
    /// Its `.nv.info.<name>` attributes.
    pub info: KernelInfo,
    /// Registers and stack from the object-wide `.nv.info`.
    pub resources: FunctionResources,
}

impl Cubin {
    /// The facts about the kernel with this exact name.
    pub fn kernel(&self, name: &str) -> Option<&CubinKernel> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// Parses a cubin.
    pub fn parse(bytes: &[u8]) -> Result<Cubin, CodeObjectError> {
        let header = check_header(bytes)?;
        let endian = LittleEndian;
        let malformed = |what: &str, e: object::read::Error| {
            CodeObjectError::Malformed(format!("cubin {what}: {e}"))
        };
        let sections = header
            .sections(endian, bytes)
            .map_err(|e| malformed("section table", e))?;
        let mut section_names = Vec::with_capacity(sections.len());
        let mut by_name: HashMap<String, &[u8]> = HashMap::new();
        for section in sections.iter() {
            let name = sections
                .section_name(endian, section)
                .map(|n| String::from_utf8_lossy(n).into_owned())
                .unwrap_or_default();
            if name.starts_with(".nv.info") || name == ".nv.callgraph" {
                let data = section
                    .data(endian, bytes)
                    .map_err(|e| malformed(&format!("section {name}"), e))?;
                by_name.insert(name.clone(), data);
            }
            section_names.push(name);
        }
        let mut infos: HashMap<&str, KernelInfo> = HashMap::new();
        for (section, data) in &by_name {
            if let Some(function) = section.strip_prefix(".nv.info.") {
                let records = nv_info::records(data, section)?;
                infos.insert(function, KernelInfo::from_records(&records));
            }
        }
        let symtab = sections
            .symbols(endian, bytes, elf::SHT_SYMTAB)
            .map_err(|e| malformed("symbol table", e))?;

        let mut names: BTreeMap<u32, String> = BTreeMap::new();
        let mut symbols = Vec::new();
        for (index, sym) in symtab.enumerate() {
            let name = String::from_utf8_lossy(sym.name(endian, symtab.strings()).unwrap_or(b""))
                .into_owned();
            let section = usize::from(sym.st_shndx(endian).0);
            let section_name = section_names.get(section).map_or("", String::as_str);
            let info = infos.get(name.as_str());
            let kind = match sym.st_type() {
                elf::STT_FUNC
                    if sym.st_other().0 & STO_CUDA_ENTRY != 0
                        || info.is_some_and(KernelInfo::has_parameter_bank) =>
                {
                    SymbolKind::Kernel
                }
                elf::STT_FUNC => SymbolKind::DeviceFunction,
                elf::STT_OBJECT | STT_CUDA_OBJECT => {
                    match variable_kind(sym, section, section_name, &sections, endian) {
                        Some(kind) => kind,
                        None => continue,
                    }
                }
                _ => continue,
            };
            if name.is_empty() || is_reserved(&name) {
                continue;
            }
            let defined = section != 0;
            let linkage = match (defined, sym.st_bind()) {
                (false, _) => Linkage::Extern,
                (true, elf::STB_GLOBAL) => Linkage::Visible,
                (true, elf::STB_WEAK) => Linkage::Weak,
                (true, _) => Linkage::Internal,
            };
            let params = match (kind, info) {
                (SymbolKind::Kernel, Some(info)) => param_layout(info),
                _ => Vec::new(),
            };
            names.insert(index.0 as u32, name.clone());
            symbols.push(Symbol {
                demangled: demangle_cubin_name(&name),
                name,
                kind,
                linkage,
                defined,
                params,
                callees: Vec::new(),
            });
        }
        add_callees(&mut symbols, &names, by_name.get(".nv.callgraph").copied());
        let resources = match by_name.get(".nv.info") {
            Some(data) => nv_info::function_resources(&nv_info::records(data, ".nv.info")?),
            None => BTreeMap::new(),
        };
        let kernels = kernel_facts(&symbols, &names, &infos, &resources);
        Ok(Cubin {
            arch: arch_of(bytes, header.e_flags(endian).0),
            relocatable: header.e_type(endian) == elf::ET_REL,
            symbols: SymbolTable { symbols },
            kernels,
        })
    }
}

/// Checks the ELF identification before handing the bytes to the ELF reader.
fn check_header(bytes: &[u8]) -> Result<&FileHeader64<LittleEndian>, CodeObjectError> {
    if bytes.get(..4) != Some(&elf::ELFMAG[..]) {
        return Err(CodeObjectError::Malformed("not an ELF file".into()));
    }
    match bytes.get(4..6) {
        Some([2, 1]) => {}
        Some([1, _]) => {
            return Err(CodeObjectError::Unsupported(
                "32-bit cubins are not supported".into(),
            ))
        }
        _ => {
            return Err(CodeObjectError::Malformed(
                "ELF file is not 64-bit little-endian".into(),
            ))
        }
    }
    let header = FileHeader64::<LittleEndian>::parse(bytes)
        .map_err(|e| CodeObjectError::Malformed(format!("cubin header: {e}")))?;
    let machine = header.e_machine(LittleEndian).0;
    if machine != EM_CUDA {
        return Err(CodeObjectError::Unsupported(format!(
            "ELF file is for machine {machine}, not an NVIDIA GPU (EM_CUDA, 190)"
        )));
    }
    Ok(header)
}

/// The SM number: bits 8..16 of `e_flags` from ELF ABI version 8 on, bits 0..8 before.
fn arch_of(bytes: &[u8], flags: u32) -> u32 {
    let abi_version = bytes.get(EI_ABIVERSION).copied().unwrap_or(0);
    if abi_version >= 8 {
        (flags >> 8) & 0xff
    } else {
        flags & 0xff
    }
}

/// Symbols the toolchain adds for its own use.
fn is_reserved(name: &str) -> bool {
    name.starts_with('.')
        || name.starts_with("__UDT")
        || name.starts_with("__UFT")
        || name.starts_with("__nv_reserved")
}

/// The demangled name; internal copies are named `$kernel$_Z…`, so the part after the last `$`
/// is tried too.
fn demangle_cubin_name(name: &str) -> Option<String> {
    demangle(name).or_else(|| demangle(name.rsplit('$').next()?))
}

/// The kind of a variable symbol, from the section that holds it; `None` for symbols that are
/// not device variables.
fn variable_kind(
    sym: &elf::Sym64<LittleEndian>,
    section: usize,
    section_name: &str,
    sections: &object::read::elf::SectionTable<FileHeader64<LittleEndian>>,
    endian: LittleEndian,
) -> Option<SymbolKind> {
    let size = sym.st_size(endian);
    if section == 0 {
        // Undefined: only the CUDA object type marks a device variable of another object.
        return (sym.st_type() == STT_CUDA_OBJECT).then_some(SymbolKind::Global {
            space: StateSpace::Global,
            size,
            align: 1,
        });
    }
    let space = [
        (".nv.global", StateSpace::Global),
        (".nv.constant", StateSpace::Const),
        (".nv.shared", StateSpace::Shared),
        (".nv.local", StateSpace::Local),
    ]
    .into_iter()
    .find(|(prefix, _)| section_name.starts_with(prefix))?
    .1;
    let section_align = sections
        .section(object::SectionIndex(section))
        .map(|s| s.sh_addralign(endian))
        .unwrap_or(1)
        .clamp(1, 1 << 12);
    let value = sym.st_value(endian);
    let align = if value == 0 {
        section_align
    } else {
        (1u64 << value.trailing_zeros()).min(section_align)
    };
    Some(SymbolKind::Global {
        space,
        size,
        align: u32::try_from(align).unwrap_or(1),
    })
}

/// The parameter layout of a kernel from its `EIATTR_KPARAM_INFO` entries.
fn param_layout(info: &KernelInfo) -> Vec<ParamLayout> {
    info.params
        .iter()
        .map(|p| {
            let (offset, size) = (u32::from(p.offset), u32::from(p.size));
            let mut align = 16u32;
            while align > 1 && (size % align != 0 || offset % align != 0) {
                align /= 2;
            }
            ParamLayout {
                name: String::new(),
                offset,
                size,
                align,
            }
        })
        .collect()
}

/// Fills `callees` from `.nv.callgraph`: (caller, callee) pairs of u32 symbol indices; callee
/// values from 0xfffffffc up are markers, not symbols.
fn add_callees(symbols: &mut [Symbol], names: &BTreeMap<u32, String>, graph: Option<&[u8]>) {
    let Some(graph) = graph else { return };
    let words: Vec<u32> = graph
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    for pair in words.chunks_exact(2) {
        let (Some(caller), Some(callee)) = (names.get(&pair[0]), names.get(&pair[1])) else {
            continue;
        };
        if let Some(symbol) = symbols.iter_mut().find(|s| &s.name == caller) {
            if !symbol.callees.contains(callee) {
                symbol.callees.push(callee.clone());
            }
        }
    }
}

/// The `.nv.info` facts of every kernel.
fn kernel_facts(
    symbols: &[Symbol],
    names: &BTreeMap<u32, String>,
    infos: &HashMap<&str, KernelInfo>,
    resources: &BTreeMap<u32, FunctionResources>,
) -> Vec<CubinKernel> {
    let index_of: HashMap<&str, u32> = names.iter().map(|(i, n)| (n.as_str(), *i)).collect();
    symbols
        .iter()
        .filter(|s| s.is_kernel())
        .map(|symbol| CubinKernel {
            name: symbol.name.clone(),
            info: infos.get(symbol.name.as_str()).cloned().unwrap_or_default(),
            resources: index_of
                .get(symbol.name.as_str())
                .and_then(|i| resources.get(i))
                .copied()
                .unwrap_or_default(),
        })
        .collect()
}
