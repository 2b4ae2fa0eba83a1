//! [`Session`]: incremental CUDA C++ compilation onto one device.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chevron_ptx::ir::{FunctionKind, Item, Linkage, Module as PtxModule};
use chevron_ptx::symbols::{LookupError, SymbolTable};

use super::cache::Cache;
use super::compile_guard::{self, Stopped};
use super::declarations::declarations;
use super::globals;
use super::headers::include_options;
use super::kernel_index::KernelIndex;
use super::link::{link_kernels, Definition};
use super::nvrtc::{nvrtc, Compiled, Nvrtc};
use super::prelude::Prelude;
use super::snippet::SnippetCode;
use super::storage::Storage;
use super::unit_names::unit_names;
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
    /// Every kernel defined so far, by base name.
    kernels: KernelIndex,
    /// How long one compile may take ([`compile_guard::deadline_from_env`]).
    deadline: Duration,
    /// Raised to end the compile in progress (Ctrl-C in the REPL).
    interrupt: Option<Arc<AtomicBool>>,
    /// What linking kernels has cost so far.
    linking: LinkStats,
}

/// What [`Session::kernel`] spent linking kernels and loading them, over the session's life.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// Kernels linked and loaded (one module each).
    pub links: u64,
    /// Snippets whose code went into the latest link (the kernel's and its callees').
    pub latest_parts: usize,
    /// Time spent in chevron-ptx's linker.
    pub link_time: Duration,
    /// Time spent loading the linked modules on the device.
    pub load_time: Duration,
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
    /// Time spent parsing the PTX and reading its symbols.
    pub parse_time: Duration,
    /// Time spent placing the snippet's new globals (loading the module that holds them).
    pub load_time: Duration,
    /// Modules loaded on the device: 1 when the snippet defines new globals, else 0 (kernels
    /// are linked and loaded by [`Session::kernel`], not here).
    pub modules_loaded: usize,
    /// Bytes of earlier snippets' declarations compiled before the snippet (its prelude).
    pub prelude_bytes: usize,
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
        let mut options = vec![
            format!("--gpu-architecture=compute_{arch}"),
            "--relocatable-device-code=true".into(),
            "--std=c++17".into(),
        ];
        options.extend(include_options(nvrtc.path()));
        Ok(Session {
            device: device.clone(),
            nvrtc,
            options,
            cache,
            prelude: Prelude::default(),
            added: 0,
            storage: Storage::default(),
            live: HashMap::new(),
            linked: HashMap::new(),
            kernels: KernelIndex::default(),
            linking: LinkStats::default(),
            deadline: compile_guard::deadline_from_env(),
            interrupt: None,
        })
    }

    /// Sets how long one compile may take before it is abandoned with [`Error::Timeout`].
    pub fn set_compile_deadline(&mut self, deadline: Duration) {
        self.deadline = deadline;
    }

    /// A flag that, once raised, ends the compile in progress (the flag is lowered and the
    /// snippet fails, the session unchanged): Ctrl-C in a REPL.
    pub fn set_interrupt(&mut self, flag: Arc<AtomicBool>) {
        self.interrupt = Some(flag);
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
        self.compile(source, None)
    }

    /// Compiles `source` (with template instance `instance` made, if any) as the next snippet.
    fn compile(&mut self, source: &str, instance: Option<&str>) -> Result<Added> {
        let id = self.added + 1;
        let declared = declarations(source);
        let replacing = declared
            .iter()
            .map(|u| unit_names(u))
            .filter(|unit| unit.has_body)
            .map(|unit| unit.key)
            .collect();
        let mentions = format!("{source}\n{}", instance.unwrap_or(""));
        let prelude = self.prelude.for_source(&mentions, &replacing);
        // Errors in the snippet name `snippet(LINE)`, with its own line numbers; errors in
        // earlier snippets' declarations (a template instantiated now) name `prelude(LINE)`.
        let program = format!("{prelude}\n#line 1 \"snippet\"\n{source}\n");
        let started = Instant::now();
        let keyed = match instance {
            Some(instance) => format!("{program}\n// instance: {instance}"),
            None => program.clone(),
        };
        let key = Cache::key(&keyed, &self.options, self.nvrtc.version());
        let (ptx, cache_hit) = match self.cache.get(&key) {
            Some(ptx) => (ptx, true),
            None => match self.guarded_compile(id, source, program.clone(), instance)? {
                (Compiled::Ptx(ptx), _) => {
                    self.cache.put(&key, &ptx);
                    (ptx, false)
                }
                (Compiled::Rejected(log), _) => {
                    let log = self.with_header_hint(log);
                    return Err(match instance {
                        Some(instance) => Error::CodeObject {
                            source_name: format!("the instance `{instance}`"),
                            message: compile_log(&log),
                        },
                        None => snippet_error(id, compile_log(&log)),
                    });
                }
            },
        };
        let compile_time = started.elapsed();
        let parsing = Instant::now();
        let module = chevron_ptx::parse(ptx.trim_end_matches('\0'))
            .map_err(|e| snippet_error(id, format!("NVRTC's PTX does not parse: {e}")))?;
        let symbols = SymbolTable::from_module(&module);
        let parse_time = parsing.elapsed();
        let modules_before = self.storage.modules_loaded();
        let (code, globals, load_time) = self.prepare(id, module, symbols)?;
        let modules_loaded = self.storage.modules_loaded() - modules_before;
        let mut defined = self.commit(code);
        defined.extend(globals);
        self.prelude.extend(declared);
        self.added = id;
        Ok(Added {
            snippet: id,
            cache_hit,
            compile_time,
            parse_time,
            load_time,
            modules_loaded,
            prelude_bytes: prelude.len(),
            defined,
        })
    }

    /// Compiles `program` (snippet `id`, whose own text is `source`) on a thread of its own,
    /// under the session's deadline and interrupt flag; `#include`s of non-regular files are
    /// refused first.
    fn guarded_compile(
        &self,
        id: u64,
        source: &str,
        program: String,
        instance: Option<&str>,
    ) -> Result<(Compiled, Vec<String>)> {
        compile_guard::check_includes(source, &self.options)?;
        // The instance in use now: a fresh one after a compile was abandoned (see `abandon`).
        let nvrtc = super::nvrtc::nvrtc()?;
        let options = self.options.clone();
        let expressions: Vec<String> = instance.into_iter().map(str::to_string).collect();
        let compile = move || {
            let names: Vec<&str> = expressions.iter().map(String::as_str).collect();
            nvrtc.compile_with_names(&program, "prelude", &options, &names)
        };
        let stopped =
            match compile_guard::run_guarded(self.deadline, self.interrupt.as_deref(), compile) {
                Ok(compiled) => return compiled,
                Err(stopped) => stopped,
            };
        // The abandoned compile keeps its NVRTC busy: later ones use a fresh instance.
        let waits = match super::nvrtc::abandon(nvrtc) {
            Ok(_) => String::new(),
            Err(reason) => {
                format!("; later compiles wait for it (NVRTC could not be loaded again: {reason})")
            }
        };
        Err(match stopped {
            Stopped::Deadline => Error::Timeout {
                what: format!("compiling snippet {id}"),
                device: "NVRTC".into(),
                seconds: self.deadline.as_secs_f64(),
                detail: format!(
                    "the compile was abandoned (set CHEVRON_COMPILE_TIMEOUT to allow more){waits}"
                ),
            },
            Stopped::Interrupted => snippet_error(
                id,
                format!("interrupted: the compile was abandoned, the session is unchanged{waits}"),
            ),
        })
    }

    /// Places the snippet's globals and rewrites its code to use them.
    /// Also returns the globals it placed, for reports, and the time placing them took.
    fn prepare(
        &mut self,
        id: u64,
        module: PtxModule,
        symbols: SymbolTable,
    ) -> Result<(SnippetCode, Vec<String>, Duration)> {
        let (version, target, address_size) =
            (module.version, module.target.clone(), module.address_size);
        let split = globals::split(module);
        let placing = Instant::now();
        let placement = self
            .storage
            .place(&self.device, id, &split, (version, &target, address_size))
            .map_err(|message| snippet_error(id, message))?;
        let load_time = placing.elapsed();
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
            let uses = globals::rewrite(function, &placement.addresses, &shared_names)
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
        let code = SnippetCode {
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
        };
        Ok((code, placement.defined, load_time))
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
            if function.kind == FunctionKind::Entry {
                self.kernels
                    .note(defined.last().map_or("", String::as_str), &function.name);
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
        defined
    }

    /// The newest definition of kernel `query` (exact name, signature or plain name), linked
    /// with everything it calls. Redefinitions of the kernel or of anything it calls are picked
    /// up here; the `Kernel`s handed out before keep the code they were linked with.
    ///
    /// A template kernel named with its arguments (`scale<float>`) that no snippet instantiated
    /// is instantiated here, as a snippet of its own.
    pub fn kernel(&mut self, query: &str) -> Result<Kernel> {
        let name = match self.kernel_name(query) {
            Err(Error::NotFound { .. }) if self.is_template(query) => {
                self.compile("", Some(query))?;
                self.kernel_name(query)?
            }
            found => found?,
        };
        if let Some((kernel, _)) = self.linked.get(&name) {
            return Ok(kernel.clone());
        }
        let definition = self.live[&name].clone();
        let linking = Instant::now();
        let (linked, uses, parts) = link_kernels(std::slice::from_ref(&definition), &self.live)
            .map_err(|message| Error::CodeObject {
                source_name: format!("snippet {}", definition.code.id),
                message: format!("linking kernel `{}`: {message}", display_of(&definition)),
            })?;
        let linked = CodeObject::from_ptx_ir(linked, IN_MEMORY);
        let link_time = linking.elapsed();
        let loading = Instant::now();
        let module = Module::from_code_object(&self.device, &linked)?;
        let kernel = module.kernel(&name)?;
        self.linking.links += 1;
        self.linking.latest_parts = parts;
        self.linking.link_time += link_time;
        self.linking.load_time += loading.elapsed();
        self.linked.insert(name, (kernel.clone(), uses));
        Ok(kernel)
    }

    /// What linking and loading kernels has cost so far.
    pub fn link_stats(&self) -> LinkStats {
        self.linking
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
        if kernels.is_empty() {
            return Err(Error::CodeObject {
                source_name: "the JIT session".into(),
                message: "it defines no kernels (a template kernel is instantiated by naming \
                          it with its arguments, e.g. `scale<float>`)"
                    .into(),
            });
        }
        kernels.sort_by(|a, b| a.name().cmp(b.name()));
        let (linked, _, _) =
            link_kernels(&kernels, &self.live).map_err(|message| Error::CodeObject {
                source_name: "the JIT session".into(),
                message: format!("linking its kernels: {message}"),
            })?;
        Ok(chevron_ptx::print(&linked))
    }

    /// NVRTC's log, with where to get the CUDA headers when an `#include` found none.
    fn with_header_hint(&self, log: String) -> String {
        let searched = self.options.iter().any(|o| o.starts_with("--include-path"));
        if searched || !log.contains("could not open source file") {
            return log;
        }
        format!(
            "{log}\nno CUDA headers were found beside NVRTC ({}) or in a CUDA toolkit: \
             `scripts/deps/nvrtc.sh` installs them, or set CHEVRON_CUDA_INCLUDE",
            self.nvrtc.path()
        )
    }

    /// Whether `query` names a template (`NAME<…>`) an earlier snippet declared.
    fn is_template(&self, query: &str) -> bool {
        query
            .split_once('<')
            .is_some_and(|(name, _)| self.prelude.declares(name.trim()))
    }

    fn kernel_name(&self, query: &str) -> Result<String> {
        if self
            .live
            .get(query)
            .is_some_and(|d| d.code.is_kernel(d.index))
        {
            return Ok(query.to_string());
        }
        let indexed = self
            .kernels
            .candidates(query)
            .iter()
            .filter_map(|name| self.live.get(name));
        if let Some(found) = self.find_kernel_among(query, indexed)? {
            return Ok(found);
        }
        // Names the index cannot tell (a namespace left out of the query, …): every kernel.
        if let Some(found) = self.find_kernel_among(query, self.live.values())? {
            return Ok(found);
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

    /// The live kernel `query` names among `definitions`, looked up in their snippets' symbol
    /// tables, newest snippet first.
    fn find_kernel_among<'a>(
        &self,
        query: &str,
        definitions: impl Iterator<Item = &'a Definition>,
    ) -> Result<Option<String>> {
        let mut ids = HashSet::new();
        let mut snippets: Vec<&Arc<SnippetCode>> = definitions
            .filter(|d| d.code.is_kernel(d.index) && ids.insert(d.code.id))
            .map(|d| &d.code)
            .collect();
        snippets.sort_by_key(|s| std::cmp::Reverse(s.id));
        for code in snippets {
            match code.symbols.find_kernel(query) {
                Ok(symbol)
                    if self
                        .live
                        .get(&symbol.name)
                        .is_some_and(|d| d.code.id == code.id) =>
                {
                    return Ok(Some(symbol.name.clone()));
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
        Ok(None)
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

/// NVRTC's log, without the trailing summary line.
fn compile_log(log: &str) -> String {
    let lines: Vec<&str> = log
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty() && !l.contains("errors detected in the compilation"))
        .filter(|l| !l.contains("error detected in the compilation"))
        .collect();
    lines.join("\n")
}
