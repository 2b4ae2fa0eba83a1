//! Merging the `.version`, `.target` and `.address_size` of the modules being linked.
//!
//! The linked module takes the highest `.version`, the highest architecture of the `.target`s
//! (`sm_90a` ranks above `sm_90`, which ranks above `sm_80`), and the other `.target` words
//! (`debug`, `texmode_*`, `map_f64_to_f32`) only when every module has them. All modules must
//! agree on `.address_size`.

use crate::ir::{Module, Version};

use super::LinkError;

/// The merged header of a linked module.
pub(super) struct Header {
    pub version: Version,
    pub target: Vec<String>,
    pub address_size: u32,
}

/// The architecture number and suffix of an `sm_NN[a|f]` / `compute_NN` word.
fn arch_rank(word: &str) -> Option<(u32, bool)> {
    let rest = word
        .strip_prefix("sm_")
        .or_else(|| word.strip_prefix("compute_"))?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let number = digits.parse().ok()?;
    Some((number, rest.len() > digits.len()))
}

/// Merges the headers; `modules` must not be empty.
pub(super) fn merge(modules: &[Module]) -> Result<Header, LinkError> {
    let first = modules.first().ok_or(LinkError::NoModules)?;
    if let Some((index, other)) = modules
        .iter()
        .enumerate()
        .find(|(_, m)| m.address_size != first.address_size)
    {
        return Err(LinkError::AddressSize {
            first: first.address_size,
            module: index,
            other: other.address_size,
        });
    }
    let version = modules.iter().map(|m| m.version).max().unwrap_or_default();
    let arch = modules
        .iter()
        .flat_map(|m| m.target.iter())
        .filter_map(|w| arch_rank(w).map(|rank| (rank, w)))
        .max_by_key(|(rank, _)| *rank)
        .map(|(_, w)| w.clone());
    let extras = first
        .target
        .iter()
        .filter(|w| arch_rank(w).is_none() && modules.iter().all(|m| m.target.contains(w)));
    let target = arch.into_iter().chain(extras.cloned()).collect();
    Ok(Header {
        version,
        target,
        address_size: first.address_size,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(major: u32, minor: u32, target: &[&str], address_size: u32) -> Module {
        Module {
            version: Version { major, minor },
            target: target.iter().map(|w| w.to_string()).collect(),
            address_size,
            items: Vec::new(),
        }
    }

    #[test]
    fn highest_version_and_arch_common_extras() {
        let header = merge(&[
            module(8, 0, &["sm_80", "debug", "texmode_unified"], 64),
            module(9, 0, &["sm_90a", "debug"], 64),
            module(8, 5, &["sm_90", "debug"], 64),
        ])
        .unwrap();
        assert_eq!(header.version, Version { major: 9, minor: 0 });
        assert_eq!(header.target, ["sm_90a", "debug"]);
        assert_eq!(header.address_size, 64);
    }

    #[test]
    fn address_sizes_must_agree() {
        let err = merge(&[module(8, 0, &["sm_80"], 64), module(8, 0, &["sm_80"], 32)]);
        assert!(matches!(
            err,
            Err(LinkError::AddressSize {
                first: 64,
                module: 1,
                other: 32
            })
        ));
        assert!(matches!(merge(&[]), Err(LinkError::NoModules)));
    }
}
