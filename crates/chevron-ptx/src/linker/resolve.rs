//! Symbol resolution: which definition each visible name refers to, and which internal names
//! must be renamed.
//!
//! For a visible name, a strong definition (`.visible` with a body or storage) wins; with none,
//! the largest `.common` variable wins, then the first `.weak` definition. Two strong definitions
//! are a duplicate; a name that is only declared (`.extern`) is unresolved unless the CUDA driver
//! provides it (`vprintf`, `malloc`, …), it is dynamic shared memory (`.extern .shared`), or the
//! caller allows unresolved names. Declarations must agree with the definition in kind (kernel,
//! device function, variable) and in parameter sizes.

use std::collections::{HashMap, HashSet};

use crate::ir::{Function, FunctionKind, Item, Linkage, Module, Param, StateSpace};
use crate::symbols::{param_size_align, variable_size_align};

use super::rename::Renames;
use super::{LinkOptions, SymbolProblem};

/// Functions the CUDA driver supplies when it loads PTX; `.extern` references to them stay.
pub const DRIVER_PROVIDED: &[&str] = &[
    "vprintf",
    "malloc",
    "free",
    "__assertfail",
    "cudaGetParameterBuffer",
    "cudaGetParameterBufferV2",
    "cudaLaunchDevice",
    "cudaLaunchDeviceV2",
    // CUDA 12+'s device runtime names (CDP2), which the CPU device serves itself
    // (`interp/device_runtime.rs`); `libcudadevrt`'s own definitions call into the GPU driver.
    "__cudaCDP2GetParameterBuffer",
    "__cudaCDP2GetParameterBufferV2",
    "__cudaCDP2LaunchDevice",
    "__cudaCDP2LaunchDevice_ptsz",
    "__cudaCDP2LaunchDeviceV2",
    "__cudaCDP2LaunchDeviceV2_ptsz",
    "__cudaCDP2GetLastError",
    "__cudaCDP2PeekAtLastError",
    "__cudaCDP2StreamCreateWithFlags",
    "__cudaCDP2StreamDestroy",
    "__cudaCDP2GetDevice",
];

/// What a module-scope name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Entry,
    Func,
    Variable,
}

/// One declaration or definition of a name.
#[derive(Debug, Clone)]
struct Occurrence {
    module: usize,
    item: usize,
    linkage: Linkage,
    defined: bool,
    kind: Kind,
    shared: bool,
    size: u64,
    align: u32,
    signature: Option<(Vec<u32>, Vec<u32>)>,
}

/// What a visible name resolved to.
#[derive(Debug, Clone)]
pub(super) struct Resolution {
    /// The winning definition: (module, item index); `None` when the name stays external.
    pub winner: Option<(usize, usize)>,
    /// The declaration kept when the name stays external (the first, or for dynamic shared
    /// memory the most aligned); otherwise the first occurrence: (module, item index).
    pub first: (usize, usize),
}

fn signature(f: &Function) -> (Vec<u32>, Vec<u32>) {
    let sizes = |ps: &[Param]| ps.iter().map(|p| param_size_align(p).0).collect();
    (sizes(&f.returns), sizes(&f.params))
}

/// The module-scope names of one module with what they are, in item order.
fn occurrences(module_index: usize, module: &Module) -> Vec<(String, Occurrence)> {
    let linkage_of: HashMap<&str, Linkage> = module
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Function(f) => Some((f.name.as_str(), f.linkage)),
            _ => None,
        })
        .collect();
    let mut out = Vec::new();
    for (item, it) in module.items.iter().enumerate() {
        let base = Occurrence {
            module: module_index,
            item,
            linkage: Linkage::Internal,
            defined: true,
            kind: Kind::Func,
            shared: false,
            size: 0,
            align: 1,
            signature: None,
        };
        let (name, occurrence) = match it {
            Item::Function(f) => (
                &f.name,
                Occurrence {
                    linkage: f.linkage,
                    defined: f.body.is_some(),
                    kind: match f.kind {
                        FunctionKind::Entry => Kind::Entry,
                        FunctionKind::Func => Kind::Func,
                    },
                    signature: Some(signature(f)),
                    ..base
                },
            ),
            Item::Variable(v) => (
                &v.name,
                Occurrence {
                    linkage: v.linkage,
                    defined: v.linkage != Linkage::Extern,
                    kind: Kind::Variable,
                    shared: matches!(
                        v.space,
                        StateSpace::Shared | StateSpace::SharedCta | StateSpace::SharedCluster
                    ),
                    size: variable_size_align(v).0,
                    align: variable_size_align(v).1,
                    ..base
                },
            ),
            Item::Alias { alias, aliasee } => (
                alias,
                Occurrence {
                    linkage: match linkage_of.get(aliasee.as_str()) {
                        Some(Linkage::Internal) | None => Linkage::Internal,
                        Some(_) => Linkage::Visible,
                    },
                    ..base
                },
            ),
            _ => continue,
        };
        out.push((name.clone(), occurrence));
    }
    out
}

/// Fresh names for internal symbols that clash with a visible name or with an internal name of
/// an earlier module; one map per module.
pub(super) fn internal_renames(modules: &[Module]) -> Vec<Renames> {
    let all: Vec<Vec<(String, Occurrence)>> = modules
        .iter()
        .enumerate()
        .map(|(i, m)| occurrences(i, m))
        .collect();
    let external: HashSet<&str> = all
        .iter()
        .flatten()
        .filter(|(_, o)| o.linkage != Linkage::Internal)
        .map(|(n, _)| n.as_str())
        .collect();
    let mut taken: HashSet<String> = all.iter().flatten().map(|(n, _)| n.clone()).collect();
    let mut claimed: HashSet<String> = HashSet::new();
    let mut maps = Vec::with_capacity(modules.len());
    for (index, names) in all.iter().enumerate() {
        let mut map = Renames::new();
        let internal: Vec<&String> = {
            let mut seen = HashSet::new();
            names
                .iter()
                .filter(|(n, o)| o.linkage == Linkage::Internal && seen.insert(n.clone()))
                .map(|(n, _)| n)
                .collect()
        };
        for name in internal {
            if external.contains(name.as_str()) || claimed.contains(name) {
                let mut fresh = format!("{name}$m{index}");
                let mut n = 1;
                while taken.contains(&fresh) {
                    fresh = format!("{name}$m{index}_{n}");
                    n += 1;
                }
                taken.insert(fresh.clone());
                map.insert(name.clone(), fresh);
            } else {
                claimed.insert(name.clone());
            }
        }
        maps.push(map);
    }
    maps
}

/// Resolves every visible name of the (already renamed) modules.
pub(super) fn resolve(
    modules: &[Module],
    options: &LinkOptions,
) -> Result<HashMap<String, Resolution>, Vec<SymbolProblem>> {
    let mut by_name: HashMap<String, Vec<Occurrence>> = HashMap::new();
    let mut order: Vec<String> = Vec::new();
    for (index, module) in modules.iter().enumerate() {
        for (name, occurrence) in occurrences(index, module) {
            if occurrence.linkage == Linkage::Internal {
                continue;
            }
            let list = by_name.entry(name.clone()).or_default();
            if list.is_empty() {
                order.push(name);
            }
            list.push(occurrence);
        }
    }
    let mut problems = Vec::new();
    let mut resolved = HashMap::new();
    for name in order {
        let list = &by_name[&name];
        match resolve_one(&name, list, options) {
            Ok(resolution) => {
                resolved.insert(name, resolution);
            }
            Err(problem) => problems.push(problem),
        }
    }
    if problems.is_empty() {
        Ok(resolved)
    } else {
        Err(problems)
    }
}

fn modules_of<'a>(list: impl IntoIterator<Item = &'a Occurrence>) -> Vec<usize> {
    let mut modules: Vec<usize> = list.into_iter().map(|o| o.module).collect();
    modules.dedup();
    modules
}

fn resolve_one(
    name: &str,
    list: &[Occurrence],
    options: &LinkOptions,
) -> Result<Resolution, SymbolProblem> {
    let first = &list[0];
    if list.iter().any(|o| o.kind != first.kind) {
        return Err(SymbolProblem::KindMismatch {
            name: name.to_string(),
            modules: modules_of(list),
        });
    }
    let defined: Vec<&Occurrence> = list.iter().filter(|o| o.defined).collect();
    let strong: Vec<&Occurrence> = defined
        .iter()
        .copied()
        .filter(|o| o.linkage == Linkage::Visible)
        .collect();
    if strong.len() > 1 {
        return Err(SymbolProblem::Duplicate {
            name: name.to_string(),
            modules: modules_of(strong),
        });
    }
    let common = defined
        .iter()
        .copied()
        .filter(|o| o.linkage == Linkage::Common)
        .reduce(|best, o| if o.size > best.size { o } else { best });
    let winner = strong
        .first()
        .copied()
        .or(common)
        .or_else(|| defined.first().copied());
    let Some(winner) = winner else {
        let allowed = options.allow_unresolved
            || first.shared
            || DRIVER_PROVIDED.contains(&name)
            || options.provided.iter().any(|p| p == name);
        let kept = list
            .iter()
            .reduce(|best, o| if o.align > best.align { o } else { best })
            .unwrap_or(first);
        return if allowed {
            Ok(Resolution {
                winner: None,
                first: (kept.module, kept.item),
            })
        } else {
            Err(SymbolProblem::Unresolved {
                name: name.to_string(),
                modules: modules_of(list),
            })
        };
    };
    if let Some(other) = list
        .iter()
        .find(|o| o.signature.is_some() && o.signature != winner.signature)
    {
        return Err(SymbolProblem::SignatureMismatch {
            name: name.to_string(),
            modules: vec![winner.module, other.module],
        });
    }
    Ok(Resolution {
        winner: Some((winner.module, winner.item)),
        first: (first.module, first.item),
    })
}
