//! Links one kernel from the session's live definitions: the kernel and, transitively, the
//! newest definition of every function it calls, grouped by snippet and joined by chevron-ptx's
//! linker. The work is proportional to what the kernel uses, not to the session's size.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use chevron_ptx::ir::Module;
use chevron_ptx::linker::{link_with, LinkOptions, DRIVER_PROVIDED};

use super::snippet::SnippetCode;

/// One function definition: the snippet holding it and its index there.
#[derive(Clone)]
pub struct Definition {
    /// The snippet.
    pub code: Arc<SnippetCode>,
    /// Index into its functions.
    pub index: usize,
}

impl Definition {
    /// The function's (mangled) name.
    pub fn name(&self) -> &str {
        &self.code.functions[self.index].name
    }
}

/// The definition a call to `callee` from snippet `code` reaches: the snippet's own internal
/// function, else the newest live definition, else the snippet's own (visible) one.
fn resolve(
    code: &Arc<SnippetCode>,
    callee: &str,
    live: &HashMap<String, Definition>,
) -> Option<Definition> {
    let local = code.by_name.get(callee).map(|&index| Definition {
        code: Arc::clone(code),
        index,
    });
    match local {
        Some(local) if !local.code.is_visible(local.index) => Some(local),
        local => live.get(callee).cloned().or(local),
    }
}

/// A snippet's part of a link: its code, the functions chosen, the callees it declares.
type Group = (Arc<SnippetCode>, Vec<usize>, Vec<String>);

/// The kernels' code and everything they call, linked into one module; also the names of the
/// visible functions used (a redefinition of any of them makes the result stale) and how many
/// snippets' parts went into the link.
pub fn link_kernels(
    kernels: &[Definition],
    live: &HashMap<String, Definition>,
) -> Result<(Module, Vec<String>, usize), String> {
    let mut seen: HashSet<(u64, usize)> = HashSet::new();
    let mut stack = kernels.to_vec();
    let mut groups: BTreeMap<u64, Group> = BTreeMap::new();
    let mut uses = Vec::new();
    while let Some(definition) = stack.pop() {
        if !seen.insert((definition.code.id, definition.index)) {
            continue;
        }
        let code = &definition.code;
        if code.is_visible(definition.index) {
            uses.push(definition.name().to_string());
        }
        let group = groups
            .entry(code.id)
            .or_insert_with(|| (Arc::clone(code), Vec::new(), Vec::new()));
        group.1.push(definition.index);
        for callee in &code.calls[definition.index] {
            match resolve(code, callee, live) {
                Some(target) => {
                    let same = target.code.id == code.id
                        && code.by_name.get(callee.as_str()) == Some(&target.index);
                    if !same {
                        group.2.push(callee.clone());
                    }
                    stack.push(target);
                }
                None if DRIVER_PROVIDED.contains(&callee.as_str()) => group.2.push(callee.clone()),
                None => {
                    return Err(format!(
                        "`{}` calls `{callee}`, which no snippet defines",
                        definition.name()
                    ))
                }
            }
        }
    }
    let parts: Vec<Module> = groups
        .values_mut()
        .map(|(code, chosen, external)| {
            chosen.sort_unstable();
            external.sort();
            external.dedup();
            code.part(chosen, external)
        })
        .collect();
    let linked = link_with(&parts, &LinkOptions::default()).map_err(|e| e.to_string())?;
    Ok((linked, uses, parts.len()))
}
