//! Source-line information across linked modules: `.file` indices and `.loc` statements.
//!
//! Each module numbers its `.file`s from 1, so the linked module renumbers them (a path named by
//! several modules keeps one index) and rewrites every `.loc` (including `inlined_at N …`).
//! Verbatim `.section` debug bodies cannot be merged safely (their labels would collide), so they
//! are kept only when a single module has them; otherwise they are dropped together with the
//! `.loc` annotations (`function_name …`) that point into them, and line numbers remain.

use std::collections::HashMap;

use crate::ir::{Item, Module, Statement};

/// The renumbering of `.file` indices of every module.
#[derive(Debug, Default)]
pub(super) struct FileTable {
    /// The merged `.file` items, in order.
    pub files: Vec<Item>,
    /// Per module: old index → new index.
    maps: Vec<HashMap<u32, u32>>,
}

impl FileTable {
    /// Numbers the `.file`s of all modules; identical paths share one index.
    pub fn build(modules: &[Module]) -> FileTable {
        let mut table = FileTable::default();
        let mut by_path: HashMap<String, u32> = HashMap::new();
        for module in modules {
            let mut map = HashMap::new();
            for item in &module.items {
                let Item::File { index, path, extra } = item else {
                    continue;
                };
                let new = *by_path.entry(path.clone()).or_insert_with(|| {
                    let new = u32::try_from(table.files.len() + 1).unwrap_or(u32::MAX);
                    table.files.push(Item::File {
                        index: new,
                        path: path.clone(),
                        extra: extra.clone(),
                    });
                    new
                });
                map.insert(*index, new);
            }
            table.maps.push(map);
        }
        table
    }

    /// Rewrites the `.loc` statements of module `index`'s functions; with `keep_annotations`
    /// false, drops what follows the column (which names labels of debug sections).
    pub fn rewrite(&self, index: usize, module: &mut Module, keep_annotations: bool) {
        let Some(map) = self.maps.get(index) else {
            return;
        };
        for item in &mut module.items {
            if let Item::Function(f) = item {
                if let Some(body) = &mut f.body {
                    rewrite_statements(body, map, keep_annotations);
                }
            }
        }
    }
}

fn rewrite_statements(statements: &mut [Statement], map: &HashMap<u32, u32>, keep: bool) {
    for statement in statements {
        match statement {
            Statement::Loc { file, extra, .. } => {
                *file = map.get(file).copied().unwrap_or(*file);
                *extra = if keep {
                    rewrite_inlined_at(extra, map)
                } else {
                    String::new()
                };
            }
            Statement::Block(inner) => rewrite_statements(inner, map, keep),
            _ => {}
        }
    }
}

/// Renumbers the file of `inlined_at FILE LINE COL` in a `.loc` tail.
fn rewrite_inlined_at(extra: &str, map: &HashMap<u32, u32>) -> String {
    const KEY: &str = "inlined_at";
    let Some(at) = extra.find(KEY) else {
        return extra.to_string();
    };
    let after = &extra[at + KEY.len()..];
    let trimmed = after.trim_start();
    let digits = trimmed.len()
        - trimmed
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .len();
    let Some(old) = trimmed[..digits].parse::<u32>().ok() else {
        return extra.to_string();
    };
    let new = map.get(&old).copied().unwrap_or(old);
    let spaces = &after[..after.len() - trimmed.len()];
    format!("{}{KEY}{spaces}{new}{}", &extra[..at], &trimmed[digits..])
}

/// Whether at most one module has `.section` items (so they can be kept as they are).
pub(super) fn sections_mergeable(modules: &[Module]) -> bool {
    modules
        .iter()
        .filter(|m| m.items.iter().any(|i| matches!(i, Item::Section { .. })))
        .count()
        <= 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inlined_at_is_renumbered() {
        let map = HashMap::from([(1, 3)]);
        assert_eq!(
            rewrite_inlined_at(", function_name $L__info_string0, inlined_at 1 47 3", &map),
            ", function_name $L__info_string0, inlined_at 3 47 3"
        );
        assert_eq!(rewrite_inlined_at("", &map), "");
    }

    #[test]
    fn shared_paths_share_an_index() {
        let file = |index, path: &str| Item::File {
            index,
            path: path.into(),
            extra: vec![],
        };
        let module = |items| Module {
            items,
            ..Module::default()
        };
        let table = FileTable::build(&[
            module(vec![file(1, "a.cu"), file(2, "common.h")]),
            module(vec![file(1, "common.h"), file(2, "b.cu")]),
        ]);
        assert_eq!(table.files.len(), 3);
        assert_eq!(table.maps[1][&1], 2);
        assert_eq!(table.maps[1][&2], 3);
    }
}
