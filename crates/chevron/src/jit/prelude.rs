//! The declarations a snippet is compiled after: of everything earlier snippets declared, the
//! units every snippet needs (preprocessor lines, enums, namespaces, operators) and the units
//! declaring a name the snippet mentions, with what those mention in turn (a prototype's
//! parameter types, an inline function's callees). So the text NVRTC reads for snippet N
//! depends on what the snippet uses, not on N.
//!
//! A unit with the key of an earlier one (see [`unit_names`](super::unit_names)) replaces it:
//! a type keeps its place (later units may use it), anything else moves to the end (it may use
//! later units). A snippet is compiled without the units its own declarations replace, so a
//! redefinition never clashes with the definition it replaces.

use std::collections::{HashMap, HashSet};

use super::unit_names::{identifiers, unit_names};

/// Earlier snippets' declarations, in order.
#[derive(Default)]
pub struct Prelude {
    /// Units by position; `None` where a unit was replaced by a later one.
    units: Vec<Option<Unit>>,
    /// The position of the live unit with each key.
    by_key: HashMap<String, usize>,
    /// Positions of units included for every snippet.
    always: Vec<usize>,
    /// Positions of units declaring a name, by the name.
    by_name: HashMap<String, Vec<usize>>,
}

struct Unit {
    text: String,
    key: String,
    /// The names it is found by (`None`: included for every snippet).
    names: Option<Vec<String>>,
    /// The identifiers the unit mentions.
    mentions: Vec<String>,
}

impl Prelude {
    /// Appends a snippet's declaration units (see `declarations`).
    pub fn extend(&mut self, units: Vec<String>) {
        for text in units {
            let classified = unit_names(&text);
            let replaced = self.by_key.get(&classified.key).copied();
            let kept = |at: usize| {
                self.units[at]
                    .as_ref()
                    .is_some_and(|old| old.text == text || !classified.has_body)
            };
            if replaced.is_some_and(kept) {
                continue;
            }
            let index = match replaced {
                Some(at) if classified.is_type => at,
                Some(at) => {
                    self.remove(at);
                    self.units.push(None);
                    self.units.len() - 1
                }
                None => {
                    self.units.push(None);
                    self.units.len() - 1
                }
            };
            if replaced != Some(index) {
                match &classified.names {
                    Some(names) => {
                        for name in names {
                            self.by_name.entry(name.clone()).or_default().push(index);
                        }
                    }
                    None => self.always.push(index),
                }
            }
            self.by_key.insert(classified.key.clone(), index);
            self.units[index] = Some(Unit {
                mentions: identifiers(&text).collect(),
                text,
                key: classified.key,
                names: classified.names,
            });
        }
    }

    /// The prelude for `source`, in declaration order, without the units whose keys are in
    /// `replacing` (the keys of `source`'s own definitions kept whole).
    pub fn for_source(&self, source: &str, replacing: &HashSet<String>) -> String {
        let mut chosen: HashSet<usize> = HashSet::new();
        let mut names: Vec<String> = identifiers(source).collect();
        let mut seen: HashSet<String> = HashSet::new();
        let mut pending: Vec<usize> = self.always.clone();
        loop {
            for index in pending.drain(..) {
                let Some(unit) = &self.units[index] else {
                    continue;
                };
                if replacing.contains(&unit.key) || !chosen.insert(index) {
                    continue;
                }
                names.extend(unit.mentions.iter().cloned());
            }
            let Some(name) = names.pop() else {
                break;
            };
            if seen.insert(name.clone()) {
                if let Some(indices) = self.by_name.get(&name) {
                    pending.extend(indices);
                }
            }
        }
        let mut chosen: Vec<usize> = chosen.into_iter().collect();
        chosen.sort_unstable();
        let mut text = String::new();
        for index in chosen {
            if let Some(unit) = &self.units[index] {
                text.push_str(&unit.text);
                text.push('\n');
            }
        }
        text
    }

    /// Whether a unit declares `name`.
    pub fn declares(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// Drops the unit at `index` (replaced by a later one placed elsewhere).
    fn remove(&mut self, index: usize) {
        let Some(unit) = self.units[index].take() else {
            return;
        };
        let Some(names) = unit.names else {
            self.always.retain(|&i| i != index);
            return;
        };
        for name in names {
            if let Some(indices) = self.by_name.get_mut(&name) {
                indices.retain(|&i| i != index);
                if indices.is_empty() {
                    self.by_name.remove(&name);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prelude(units: &[&str]) -> Prelude {
        let mut prelude = Prelude::default();
        prelude.extend(units.iter().map(|u| u.to_string()).collect());
        prelude
    }

    #[test]
    fn only_what_the_snippet_uses_is_included() {
        let prelude = prelude(&[
            "#include <cuda_fp16.h>",
            "struct Pair { int a; };",
            "struct Unused { int b; };",
            "__device__ int f1(int x);",
            "__launch_bounds__(128) __global__ void k(int *out);",
            "extern __device__ int counter, table[4];",
            "__device__ int f2(int x);",
            "__device__ Pair make(int a);",
            "__forceinline__ __device__ int g(int x) { return f2(x); }",
        ]);
        let none = HashSet::new();
        assert_eq!(
            prelude.for_source("__global__ void k2() { table[0] = f1(0) + g(1); }", &none),
            "#include <cuda_fp16.h>\n__device__ int f1(int x);\n\
             extern __device__ int counter, table[4];\n__device__ int f2(int x);\n\
             __forceinline__ __device__ int g(int x) { return f2(x); }\n"
        );
        assert!(prelude
            .for_source("k<<<", &none)
            .contains("void k(int *out);"));
        let with_type = prelude.for_source("make(1).a", &none);
        assert!(with_type.contains("struct Pair") && !with_type.contains("Unused"));
        assert!(!prelude.for_source("f2", &none).contains("f1"));
    }

    #[test]
    fn a_forward_declaration_does_not_hide_a_definition() {
        let mut prelude = prelude(&["struct Node { int value; };"]);
        prelude.extend(vec!["struct Node;".into()]);
        assert_eq!(
            prelude.for_source("Node n;", &HashSet::new()),
            "struct Node { int value; };\n"
        );
    }

    #[test]
    fn a_redefinition_replaces_the_unit_with_its_key() {
        let mut prelude = prelude(&[
            "struct P { int a; };",
            "__device__ P make();",
            "__forceinline__ __device__ int twice(int a) { return 2 * a; }",
            "__device__ int helper(int a);",
        ]);
        let redefinition = "__forceinline__ __device__ int twice(int a) { return helper(a); }";
        let replacing = HashSet::from([unit_names(redefinition).key]);
        assert!(!prelude
            .for_source(redefinition, &replacing)
            .contains("2 * a"));
        prelude.extend(vec![
            redefinition.to_string(),
            "struct P { int a; int b; };".into(),
        ]);
        let none = HashSet::new();
        assert_eq!(
            prelude.for_source("twice(make().b)", &none),
            "struct P { int a; int b; };\n__device__ P make();\n__device__ int helper(int a);\n\
             __forceinline__ __device__ int twice(int a) { return helper(a); }\n"
        );
    }
}
