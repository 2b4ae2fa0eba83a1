//! Kernel instrumentation: PTX rewritten by chevron-ptx's pass ([`chevron_ptx::passes`]) to
//! call the device functions of a separate tool code object, linked in before loading.
//!
//! [`Module::load_instrumented`] takes the application's code object (PTX, or a fatbin's PTX),
//! a tool (PTX defining the hooks of the ABI documented in [`chevron_ptx::passes::instrument`](mod@chevron_ptx::passes::instrument))
//! and an [`Instrumentation`] naming the hooks and kernels. Selected kernels get one hidden last
//! parameter, `launch`, which chevron fills at every launch with a launch number (1, 2, …,
//! counted over the process). Kernels not selected run unmodified; cluster launches of
//! instrumented kernels are not supported.
//!
//! `CHEVRON_INSTRUMENT=blocks|counts|memory` instruments every PTX module loaded with a built-in
//! tool ([`Builtin`]), whose `launch` is the address of a per-launch record; the records go into
//! the trace ([`crate::trace`]) and into a summary printed at exit.

mod launch;
mod records;

use std::sync::Arc;

use chevron_ptx::linker::{link_with, LinkOptions};
use chevron_ptx::passes::{instrument, InstrumentedKernel, LineMap, LAUNCH_PARAM};

pub use chevron_ptx::passes::Hooks;
use launch::KernelHook;

use crate::code_object::{CodeObject, CodeObjectKind, IN_MEMORY};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::module::hook::LaunchHook;
use crate::module::loading;
use crate::module::Module;
use crate::trace::Moment;

/// Reads the records of every launch instrumented with a built-in tool that were not read yet,
/// waiting for their kernels: their events go into the trace (when it is recording) and their
/// figures into the summary. Records are otherwise read after a host wait on the launch's
/// stream and when the trace stops; a program that does neither calls this before it ends,
/// while the device's driver is alive. Returns how many records were read; a record that
/// cannot be read is explained on stderr and its error returned (after reading the others).
pub fn collect() -> Result<usize> {
    let (read, error) = records::collect_records(&mut crate::trace::record_late, Moment::Collect);
    match error {
        Some(error) => Err(error),
        None => Ok(read),
    }
}

/// The number of launches instrumented with a built-in tool whose records were not read yet.
pub fn pending() -> usize {
    records::pending()
}

/// Which hooks to insert into which kernels.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Instrumentation {
    /// The hooks.
    pub hooks: Hooks,
    /// The kernels, by symbol name or demangled signature; `None` for every kernel.
    pub kernels: Option<Vec<String>>,
}

/// A built-in tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Builtin {
    /// Per thread block: the first thread's start and the last thread's exit (`%globaltimer`).
    Blocks,
    /// Per kernel: basic blocks entered and instructions executed, summed over threads.
    Counts,
    /// Per kernel: global loads and stores and their bytes, summed over threads.
    Memory,
}

impl Builtin {
    /// Parses `blocks`, `counts` or `memory`.
    pub fn from_name(name: &str) -> Option<Builtin> {
        match name {
            "blocks" => Some(Builtin::Blocks),
            "counts" => Some(Builtin::Counts),
            "memory" => Some(Builtin::Memory),
            _ => None,
        }
    }

    /// The tool named by `CHEVRON_INSTRUMENT` (an unknown name is reported once and ignored).
    pub fn from_env() -> Option<Builtin> {
        let name = std::env::var("CHEVRON_INSTRUMENT").ok()?;
        if name.is_empty() {
            return None;
        }
        let tool = Builtin::from_name(&name);
        if tool.is_none() {
            static WARNED: std::sync::Once = std::sync::Once::new();
            WARNED.call_once(|| {
                eprintln!("chevron: CHEVRON_INSTRUMENT={name} is not blocks, counts or memory")
            });
        }
        tool
    }

    /// The tool's name.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::Blocks => "blocks",
            Builtin::Counts => "counts",
            Builtin::Memory => "memory",
        }
    }

    fn tool(self) -> &'static str {
        match self {
            Builtin::Blocks => include_str!("tools/blocks.ptx"),
            Builtin::Counts => include_str!("tools/counts.ptx"),
            Builtin::Memory => include_str!("tools/memory.ptx"),
        }
    }

    fn hooks(self) -> Hooks {
        Hooks {
            entry_exit: self == Builtin::Blocks,
            blocks: self == Builtin::Counts,
            accesses: self == Builtin::Memory,
        }
    }
}

impl Module {
    /// Loads `code` (PTX, or a fatbin's PTX) with the kernels `what` selects rewritten to call
    /// the hooks `what` names, defined by `tool` (PTX). `code` itself is not changed.
    pub fn load_instrumented(
        device: &Device,
        code: &[u8],
        tool: &[u8],
        what: &Instrumentation,
    ) -> Result<Module> {
        let tool = std::str::from_utf8(tool).map_err(|e| Error::CodeObject {
            source_name: "<instrumentation tool>".into(),
            message: format!("the tool's PTX is not UTF-8: {e}"),
        })?;
        load(device, &CodeObject::read(code, IN_MEMORY), tool, what, None)
    }

    /// Loads `code` (PTX, or a fatbin's PTX) with every kernel instrumented by the built-in
    /// `tool`, as `CHEVRON_INSTRUMENT` does; its records go into the trace when the trace is
    /// recording, and into the summary printed at exit.
    pub fn load_builtin(device: &Device, code: &[u8], tool: Builtin) -> Result<Module> {
        let what = Instrumentation {
            hooks: tool.hooks(),
            kernels: None,
        };
        let code = CodeObject::read(code, IN_MEMORY);
        load(device, &code, tool.tool(), &what, Some(tool))
    }
}

/// Installs [`load_from_env`] as the module loader's hook (every later module load asks it
/// first) and the built-in tools' records as a source of the trace; with `CHEVRON_INSTRUMENT`
/// set, the summary is printed at exit. The runtime installs it before it hands out a device.
pub(crate) fn install() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        crate::module::hook::install_load_hook(load_from_env);
        crate::trace::add_source(&BuiltinRecords);
    });
    if Builtin::from_env().is_some() {
        crate::trace::write_at_exit_once();
    }
}

/// The records of built-in tools, as a source of the trace.
struct BuiltinRecords;

impl crate::trace::Source for BuiltinRecords {
    fn after_wait(&self, what: crate::trace::Waited<'_>) {
        records::collect_after_wait(what);
    }

    fn settle(&self) -> Result<()> {
        collect().map(|_| ())
    }

    fn drain(&self, moment: Moment, out: &mut dyn FnMut(crate::trace::Event)) {
        records::collect_records(out, moment);
    }

    fn at_exit(&self) {
        records::print_summary();
    }
}

/// Loads a module instrumented with the tool `CHEVRON_INSTRUMENT` names, when it names one and
/// the code object holds PTX; `None` otherwise (the caller loads it as it is).
fn load_from_env(device: &Device, code: &CodeObject) -> Result<Option<Module>> {
    crate::trace::init_from_env();
    let Some(builtin) = Builtin::from_env() else {
        return Ok(None);
    };
    crate::trace::write_at_exit_once();
    if code.kind() == CodeObjectKind::Cubin {
        records::note_skipped(code.source_name(), "a cubin holds no PTX to rewrite");
        return Ok(None);
    }
    let what = Instrumentation {
        hooks: builtin.hooks(),
        kernels: None,
    };
    load(device, code, builtin.tool(), &what, Some(builtin)).map(Some)
}

fn load(
    device: &Device,
    code: &CodeObject,
    tool: &str,
    what: &Instrumentation,
    builtin: Option<Builtin>,
) -> Result<Module> {
    let started = crate::trace::clock();
    let source_name = code.source_name();
    let code_error = |message: String| Error::CodeObject {
        source_name: source_name.to_string(),
        message,
    };
    if code.kind() == CodeObjectKind::Cubin {
        return Err(code_error(
            "cannot instrument a cubin: instrumentation rewrites PTX".into(),
        ));
    }
    // The PTX this device would run (of a fatbin, the entry it picks), parsed once.
    let targets = device.core().backend.code_targets().ptx_part();
    let mut module = chevron_ptx::ir::Module::clone(code.for_targets(&targets)?.ptx()?);
    let parse_started = std::time::Instant::now();
    // Without positions: the tool's lines must not pass for lines of the application's PTX.
    let tool_module = chevron_ptx::parse(tool)
        .map_err(|e| Error::CodeObject {
            source_name: "<instrumentation tool>".into(),
            message: e.to_string(),
        })?
        .without_spans();
    let parse_ns = code.parse_ns() + parse_started.elapsed().as_nanos() as u64;
    let tool_symbols = chevron_ptx::SymbolTable::from_module(&tool_module);
    for hook in what.hooks.function_names() {
        let defined = tool_symbols.symbols.iter().any(|s| {
            s.name == hook && s.defined && s.kind == chevron_ptx::SymbolKind::DeviceFunction
        });
        if !defined {
            return Err(Error::CodeObject {
                source_name: "<instrumentation tool>".into(),
                message: format!("the tool defines no device function `{hook}`"),
            });
        }
    }
    let symbols = chevron_ptx::SymbolTable::from_module(&module);
    let selected = |name: &str| match &what.kernels {
        None => true,
        Some(list) => list.iter().any(|query| {
            query == name
                || symbols
                    .find_kernel(query)
                    .is_ok_and(|symbol| symbol.name == name)
        }),
    };
    let done =
        instrument(&mut module, selected, what.hooks).map_err(|e| code_error(e.to_string()))?;
    // The application's own unresolved declarations (-rdc code) stay as they are.
    let options = LinkOptions {
        allow_unresolved: true,
        ..LinkOptions::default()
    };
    let linked = link_with(&[module, tool_module], &options)
        .map_err(|e| code_error(format!("linking the instrumentation tool: {e}")))?;
    let mut loaded = load_linked(device, linked, source_name)?;
    if let Some(symbols) = &mut loaded.symbols {
        for symbol in &mut symbols.symbols {
            symbol.params.retain(|p| p.name != LAUNCH_PARAM);
        }
    }
    let kernels = done
        .into_iter()
        .map(|kernel: InstrumentedKernel| {
            let name = kernel.name.clone();
            let hook: Arc<dyn LaunchHook> = Arc::new(KernelHook::new(kernel, builtin));
            (name, hook)
        })
        .collect();
    let module = Module::from_loaded(device, loaded, source_name, Some(Arc::new(kernels)));
    crate::trace::module_load(started, source_name, device.label(), parse_ns);
    Ok(module)
}

/// Loads the linked, instrumented module. The CPU device loads it as parsed, so that faults
/// report the lines of the original PTX its instructions carry; other devices get the printed
/// text, and a compiler message naming a line of it also names the original line.
fn load_linked(
    device: &Device,
    linked: chevron_ptx::ir::Module,
    source_name: &str,
) -> Result<loading::Loaded> {
    let code = CodeObject::from_ptx_ir(linked, source_name);
    match loading::load(device, &code) {
        // A backend that compiled the printed text names its lines: add the original lines (on
        // this cold path the printed text is parsed once more, to pair its instructions with
        // the IR's). A backend that took the IR names the original lines already.
        Err(Error::CodeObject {
            source_name,
            message,
        }) => {
            let reparsed = code
                .ptx_text_if_printed()
                .and_then(|t| chevron_ptx::parse(t).ok());
            let message = match (code.ptx(), reparsed) {
                (Ok(linked), Some(reparsed)) => LineMap::new(linked, &reparsed).annotate(&message),
                _ => message,
            };
            Err(Error::CodeObject {
                source_name,
                message,
            })
        }
        loaded => loaded,
    }
}
