//! Where a session's globals live: each snippet's new `__device__`/`__constant__` definitions are
//! loaded once, in a module of their own that the session keeps for its whole life, so every
//! global has one address and keeps its value. A later definition of the same global (same
//! size) keeps the storage.

use std::collections::HashMap;

use chevron_ptx::ir::{Item, Linkage, Module as PtxModule, Variable, Version};
use chevron_ptx::symbols::demangle;

use super::globals::Split;
use super::session::JitSymbol;
use crate::backend::DevicePtr;
use crate::code_object::{CodeObject, IN_MEMORY};
use crate::device::Device;
use crate::module::{GlobalVar, Module};

/// The session's globals.
#[derive(Default)]
pub struct Storage {
    /// Visible globals by (mangled) name.
    globals: HashMap<String, Placed>,
    /// The modules holding the storage, kept loaded.
    modules: Vec<Module>,
}

struct Placed {
    ptr: DevicePtr,
    size: u64,
    snippet: u64,
    /// `.weak`/`.common`: emitted by headers in every snippet that includes them (static
    /// members of library templates); kept, but not listed.
    weak: bool,
}

/// Where a snippet's code finds its globals, and which ones it placed.
pub struct Placement {
    /// The address of every global its code names, by the name its PTX uses.
    pub addresses: HashMap<String, u64>,
    /// The listed globals it placed (demangled where mangled).
    pub defined: Vec<String>,
}

impl Storage {
    /// Places snippet `id`'s new globals.
    pub fn place(
        &mut self,
        device: &Device,
        id: u64,
        split: &Split,
        (version, target, address_size): (Version, &[String], u32),
    ) -> Result<Placement, String> {
        let mut addresses = HashMap::new();
        for name in &split.references {
            let placed = self
                .globals
                .get(name)
                .ok_or_else(|| format!("uses global `{name}`, which no earlier snippet defines"))?;
            addresses.insert(name.clone(), placed.ptr);
        }
        let mut fresh = Vec::new();
        for variable in &split.definitions {
            let existing = match variable.linkage {
                Linkage::Internal => None,
                _ => self.globals.get(&variable.name),
            };
            match existing {
                Some(placed) if size_of(variable).is_some_and(|s| s != placed.size) => {
                    return Err(format!(
                        "global `{}` is already defined with {} bytes (snippet {}); a global \
                         keeps its storage for the life of the session",
                        variable.name, placed.size, placed.snippet
                    ));
                }
                Some(placed) => {
                    addresses.insert(variable.name.clone(), placed.ptr);
                }
                None => fresh.push(variable.clone()),
            }
        }
        if fresh.is_empty() {
            return Ok(Placement {
                addresses,
                defined: Vec::new(),
            });
        }
        let module = PtxModule {
            version,
            target: target.to_vec(),
            address_size,
            items: fresh.iter().cloned().map(Item::Variable).collect(),
        };
        let module = Module::from_code_object(device, &CodeObject::from_ptx_ir(module, IN_MEMORY))
            .map_err(|e| format!("placing its globals: {e}"))?;
        let mut defined = Vec::new();
        for variable in &fresh {
            let global = module
                .global(&variable.name)
                .map_err(|e| format!("placing its globals: {e}"))?;
            addresses.insert(variable.name.clone(), global.ptr);
            if variable.linkage != Linkage::Internal {
                let weak = matches!(variable.linkage, Linkage::Weak | Linkage::Common);
                if !weak {
                    defined.push(shown(&variable.name));
                }
                let placed = Placed {
                    ptr: global.ptr,
                    size: global.size,
                    snippet: id,
                    weak,
                };
                self.globals.insert(variable.name.clone(), placed);
            }
        }
        self.modules.push(module);
        Ok(Placement { addresses, defined })
    }

    /// How many modules of globals were loaded so far (each holds one snippet's new globals).
    pub fn modules_loaded(&self) -> usize {
        self.modules.len()
    }

    /// A global by exact or demangled name.
    pub fn find(&self, query: &str) -> Option<GlobalVar> {
        let (name, placed) = self.globals.get_key_value(query).or_else(|| {
            self.globals
                .iter()
                .find(|(name, _)| demangle(name).is_some_and(|d| d == query))
        })?;
        Some(GlobalVar {
            name: name.clone(),
            ptr: placed.ptr,
            size: placed.size,
        })
    }

    /// Every global's name (demangled where mangled), sorted.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.globals.keys().map(|n| shown(n)).collect();
        names.sort();
        names
    }

    /// Every global as a listing entry.
    pub fn symbols(&self) -> impl Iterator<Item = JitSymbol> + '_ {
        self.globals
            .iter()
            .filter(|(_, placed)| !placed.weak)
            .map(|(name, placed)| JitSymbol {
                kind: "global",
                display: format!(
                    "{} ({} bytes at {:#x})",
                    shown(name),
                    placed.size,
                    placed.ptr
                ),
                snippet: placed.snippet,
            })
    }
}

fn shown(name: &str) -> String {
    demangle(name).unwrap_or_else(|| name.to_string())
}

/// A variable's size in bytes, when its array dimensions are all given.
fn size_of(variable: &Variable) -> Option<u64> {
    let mut size = u64::from(variable.ty.size()) * u64::from(variable.vector.unwrap_or(1));
    for dimension in &variable.array {
        size *= (*dimension)?;
    }
    Some(size)
}
