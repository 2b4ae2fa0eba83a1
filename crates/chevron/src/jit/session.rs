//! [`Session`]: incremental CUDA C++ compilation onto one device.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chevron_ptx::ir::{FunctionKind, Item, Linkage, Module as PtxModule};
use chevron_ptx::symbols::{LookupError, SymbolTable};

use super::cache::Cache;
use super::declarations::declarations;
use super::globals;
use super::link::{link_kernels, Definition};
use super::nvrtc::{nvrtc, Compiled, Nvrtc};
use super::prelude::Prelude;
use super::snippet::SnippetCode;
use super::storage::Storage;
use crate::code_object::{CodeObject, IN_MEMORY};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::launch::kernel::Kernel;
use crate::module::{GlobalVar, Module};

/// An incremental CUDA C++ session on one device: snippets are compiled one at a time and see
/// what earlier snippets declared (see [the module documentation](super)).
pub struct Session {
    device: Device,
    nvrtc: &'static Nvrtc,
    options: Vec<String>,
    cache: Cache,
    /// Declarations of every snippet so far.
    prelude: Prelude,
    /// Snippets added successfully.
    added: u64,
    storage: Storage,
    /// The newest definition of every visible function and kernel, by (mangled) name.
    live: HashMap<String, Definition>,
    /// Kernels linked so far, with the names of the visible functions each uses.
    linked: HashMap<String, (Kernel, Vec<String>)>,
}

/// What [`Session::add`] did.
#[derive(Debug, Clone)]
pub struct Added {
    /// The snippet's number in the session (1, 2, …).
    pub snippet: u64,
    /// Whether the PTX came from the disk cache.
    pub cache_hit: bool,
    /// Time spent compiling (or reading the cache).
    pub compile_time: Duration,
    /// The kernels, device functions and globals it defined (demangled where mangled).
    pub defined: Vec<String>,
}

/// A symbol the session knows, for listings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JitSymbol {
    /// `kernel`, `function` or `global`.
    pub kind: &'static str,
    /// The demangled signature, or the name.
    pub display: String,
    /// The snippet that defined it (globals: first defined it).
    pub snippet: u64,
}

impl Session {
    /// A session on `device`, with the cache the environment asks for (`CHEVRON_CACHE`).
    pub fn new(device: &Device) -> Result<Session> {
        Session::with_cache(device, Cache::from_env())
    }

    /// A session on `device` with an explicit cache.
    pub fn with_cache(device: &Device, cache: Cache) -> Result<Session> {
        let nvrtc = nvrtc()?;
        let (major, minor) = device.compute_capability();
        // NVRTC 13 targets compute_75 and newer; the PTX runs on anything at least as new.
        let arch = (major * 10 + minor).max(75);
        Ok(Session {
            device: device.clone(),
            nvrtc,
            options: vec![
                format!("--gpu-architecture=compute_{arch}"),
                "--relocatable-device-code=true".into(),
                "--std=c++17".into(),
            ],
            cache,
            prelude: Prelude::default(),
            added: 0,
            storage: Storage::default(),
            live: HashMap::new(),
            linked: HashMap::new(),
        })
    }

    /// The device the session compiles for.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The compiler options.
    pub fn options(&self) -> &[String] {
        &self.options
    }

    /// The cache in use.
    pub fn cache(&self) -> &Cache {
        &self.cache
    }

    /// Where NVRTC was loaded from, and its version.
    pub fn compiler(&self) -> (String, (i32, i32)) {
        (self.nvrtc.path().to_string(), self.nvrtc.version())
    }

    /// Compiles one snippet of CUDA C++. On error (NVRTC's diagnostics, with line numbers of
    /// the snippet) the session is unchanged.
    pub fn add(&mut self, source: &str) -> Result<Added> {
        let id = self.added + 1;
        let prelude = self.prelude.for_source(source);
        let program = format!("{prelude}\n#line 1 \"snippet\"\n{source}\n");
        let started = Instant::now();
        let key = Cache::key(&program, &self.options, self.nvrtc.version());
        let (ptx, cache_hit) = match self.cache.get(&key) {
            Some(ptx) => (ptx, true),
            None => match self.nvrtc.compile(&program, "snippet", &self.options)? {
                Compiled::Ptx(ptx) => {
                    self.cache.put(&key, &ptx);
                    (ptx, false)
                }
                Compiled::Rejected(log) => {
                    return Err(compile_error(id, &log));
                }
            },
        };
        let compile_time = started.elapsed();
        let module = chevron_ptx::parse(ptx.trim_end_matches('\0'))
            .map_err(|e| snippet_error(id, format!("NVRTC's PTX does not parse: {e}")))?;
        let symbols = SymbolTable::from_module(&module);
        let code = self.prepare(id, module, symbols)?;
        let defined = self.commit(code);
        self.prelude.extend(declarations(source));
        self.added = id;
        Ok(Added {
            snippet: id,
            cache_hit,
            compile_time,
            defined,
        })
    }

    /// Places the snippet's globals and rewrites its code to use them.
    fn prepare(&mut self, id: u64, module: PtxModule, symbols: SymbolTable) -> Result<SnippetCode> {
        let (version, target, address_size) =
            (module.version, module.target.clone(), module.address_size);
        let split = globals::split(module);
        let addresses = self
            .storage
            .place(&self.device, id, &split, (version, &target, address_size))
            .map_err(|message| snippet_error(id, message))?;
        let mut shared = Vec::new();
        let mut declarations = Vec::new();
        let mut functions = Vec::new();
        for item in split.rest {
            match item {
                Item::Variable(variable) => shared.push(variable),
                Item::Function(f) if f.body.is_some() => functions.push(f),
                Item::Function(f) => declarations.push(f),
                _ => {}
            }
        }
        let shared_names: HashSet<String> = shared.iter().map(|v| v.name.clone()).collect();
        let mut shared_uses = Vec::new();
        for function in &mut functions {
            let uses = globals::rewrite(function, &addresses, &shared_names)
                .map_err(|message| snippet_error(id, format!("`{}`: {message}", function.name)))?;
            shared_uses.push(uses);
        }
        let calls = functions
            .iter()
            .map(|f| {
                symbols
                    .get(&f.name)
                    .map(|s| s.callees.clone())
                    .unwrap_or_default()
            })
            .collect();
        let by_name = functions
            .iter()
            .enumerate()
            .map(|(i, f)| (f.name.clone(), i))
            .collect();
        Ok(SnippetCode {
            id,
            version,
            target,
            address_size,
            functions,
            by_name,
            calls,
            shared_uses,
            shared,
            declarations,
            symbols,
        })
    }

    /// Makes the snippet's definitions the live ones; kernels using a replaced one go stale.
    fn commit(&mut self, code: SnippetCode) -> Vec<String> {
        let code = Arc::new(code);
        let mut defined = Vec::new();
        for (index, function) in code.functions.iter().enumerate() {
            defined.push(display(&code.symbols, &function.name));
            if function.linkage == Linkage::Internal {
                continue;
            }
            let definition = Definition {
                code: Arc::clone(&code),
                index,
            };
            if self
                .live
                .insert(function.name.clone(), definition)
                .is_some()
            {
                let name = &function.name;
                self.linked.retain(|_, (_, uses)| !uses.contains(name));
            }
        }
        defined.extend(self.storage.defined_by(code.id).map(str::to_string));
        defined
    }

    /// The newest definition of kernel `query` (exact name, signature or plain name), linked
    /// with everything it calls. Redefinitions of the kernel or of anything it calls are picked
    /// up here; the `Kernel`s handed out before keep the code they were linked with.
    pub fn kernel(&mut self, query: &str) -> Result<Kernel> {
        let name = self.kernel_name(query)?;
        if let Some((kernel, _)) = self.linked.get(&name) {
            return Ok(kernel.clone());
        }
        let definition = self.live[&name].clone();
        let (linked, uses) =
            link_kernels(std::slice::from_ref(&definition), &self.live).map_err(|message| {
                Error::CodeObject {
                    source_name: format!("snippet {}", definition.code.id),
                    message: format!("linking kernel `{}`: {message}", display_of(&definition)),
                }
            })?;
        let linked = CodeObject::from_ptx_ir(linked, IN_MEMORY);
        let module = Module::from_code_object(&self.device, &linked)?;
        let kernel = module.kernel(&name)?;
        self.linked.insert(name, (kernel.clone(), uses));
        Ok(kernel)
    }

    /// PTX of every live kernel with everything it calls (session globals at their addresses):
    /// a code object to load on the session's device while the session lives.
    pub fn linked_ptx(&self) -> Result<String> {
        let mut kernels: Vec<Definition> = self
            .live
            .values()
            .filter(|d| d.code.is_kernel(d.index))
            .cloned()
            .collect();
        kernels.sort_by(|a, b| a.name().cmp(b.name()));
        let (linked, _) =
            link_kernels(&kernels, &self.live).map_err(|message| Error::CodeObject {
                source_name: "the JIT session".into(),
                message: format!("linking its kernels: {message}"),
            })?;
        Ok(chevron_ptx::print(&linked))
    }

    fn kernel_name(&self, query: &str) -> Result<String> {
        if self
            .live
            .get(query)
            .is_some_and(|d| d.code.is_kernel(d.index))
        {
            return Ok(query.to_string());
        }
        let mut snippets: Vec<&Arc<SnippetCode>> = Vec::new();
        for definition in self.live.values() {
            if definition.code.is_kernel(definition.index)
                && !snippets.iter().any(|s| s.id == definition.code.id)
            {
                snippets.push(&definition.code);
            }
        }
        snippets.sort_by_key(|s| std::cmp::Reverse(s.id));
        for code in snippets {
            match code.symbols.find_kernel(query) {
                Ok(symbol)
                    if self
                        .live
                        .get(&symbol.name)
                        .is_some_and(|d| d.code.id == code.id) =>
                {
                    return Ok(symbol.name.clone());
                }
                Err(ambiguous @ LookupError::Ambiguous { .. }) => {
                    return Err(Error::InvalidValue {
                        call: "jit::Session::kernel",
                        message: ambiguous.to_string(),
                    })
                }
                _ => {}
            }
        }
        Err(Error::NotFound {
            what: "kernel",
            name: query.to_string(),
            scope: format!("the JIT session on {}", self.device.label()),
            candidates: self
                .symbols()
                .into_iter()
                .filter(|s| s.kind == "kernel")
                .map(|s| s.display)
                .collect(),
        })
    }

    /// A global of the session (exact or demangled name): its one device address and size.
    pub fn global(&self, query: &str) -> Result<GlobalVar> {
        self.storage.find(query).ok_or_else(|| Error::NotFound {
            what: "global",
            name: query.to_string(),
            scope: format!("the JIT session on {}", self.device.label()),
            candidates: self.storage.names(),
        })
    }

    /// The live kernels, device functions and globals, by snippet.
    pub fn symbols(&self) -> Vec<JitSymbol> {
        let mut symbols: Vec<JitSymbol> = self
            .live
            .values()
            .map(|d| JitSymbol {
                kind: match d.code.functions[d.index].kind {
                    FunctionKind::Entry => "kernel",
                    FunctionKind::Func => "function",
                },
                display: display_of(d),
                snippet: d.code.id,
            })
            .collect();
        symbols.extend(self.storage.symbols());
        symbols.sort_by(|a, b| (a.snippet, &a.display).cmp(&(b.snippet, &b.display)));
        symbols
    }

    /// How many snippets hold live code (the rest were replaced entirely and freed, unless a
    /// kernel still uses them).
    pub fn live_snippets(&self) -> usize {
        let ids: HashSet<u64> = self.live.values().map(|d| d.code.id).collect();
        ids.len()
    }
}

fn display(symbols: &SymbolTable, name: &str) -> String {
    symbols
        .get(name)
        .map_or(name, |s| s.display_name())
        .to_string()
}

fn display_of(definition: &Definition) -> String {
    display(&definition.code.symbols, definition.name())
}

fn snippet_error(id: u64, message: String) -> Error {
    Error::CodeObject {
        source_name: format!("snippet {id}"),
        message,
    }
}

/// NVRTC's log, without the trailing summary line, as the error of snippet `id`.
fn compile_error(id: u64, log: &str) -> Error {
    let lines: Vec<&str> = log
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty() && !l.contains("errors detected in the compilation"))
        .filter(|l| !l.contains("error detected in the compilation"))
        .collect();
    snippet_error(id, lines.join("\n"))
}
