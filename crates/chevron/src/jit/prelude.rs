//! The declarations a snippet is compiled after: of everything earlier snippets declared, the
//! units every snippet needs (preprocessor lines, types, templates, inline functions) and the
//! prototypes and `extern` globals whose names the snippet (or one of those units) mentions.
//! So the text NVRTC reads for snippet N does not grow with N.

use std::collections::{HashMap, HashSet};

/// Earlier snippets' declarations, deduplicated, in order.
#[derive(Default)]
pub struct Prelude {
    units: Vec<String>,
    seen: HashSet<String>,
    /// Units included for every snippet, by index.
    always: Vec<usize>,
    /// Identifiers the always-included units mention.
    always_mentions: HashSet<String>,
    /// Units declaring a name, by the name.
    by_name: HashMap<String, Vec<usize>>,
}

/// Words before `(` that are attributes, not the declared function.
const ATTRIBUTES: [&str; 6] = [
    "__launch_bounds__",
    "__align__",
    "__attribute__",
    "__declspec",
    "alignas",
    "decltype",
];

impl Prelude {
    /// Appends a snippet's declaration units (see `declarations`).
    pub fn extend(&mut self, units: Vec<String>) {
        for unit in units {
            if !self.seen.insert(unit.clone()) {
                continue;
            }
            let index = self.units.len();
            match declared_names(&unit) {
                Some(names) => {
                    for name in names {
                        self.by_name.entry(name).or_default().push(index);
                    }
                }
                None => {
                    self.always_mentions.extend(identifiers(&unit));
                    self.always.push(index);
                }
            }
            self.units.push(unit);
        }
    }

    /// The prelude for `source`, in declaration order.
    pub fn for_source(&self, source: &str) -> String {
        let mentioned: HashSet<String> = identifiers(source).collect();
        let mut chosen: Vec<usize> = self.always.clone();
        for name in mentioned.iter().chain(&self.always_mentions) {
            if let Some(indices) = self.by_name.get(name) {
                chosen.extend(indices);
            }
        }
        chosen.sort_unstable();
        chosen.dedup();
        let mut text = String::new();
        for index in chosen {
            text.push_str(&self.units[index]);
            text.push('\n');
        }
        text
    }
}

/// The names a prototype or `extern` declaration declares; `None` for units every snippet gets.
fn declared_names(unit: &str) -> Option<Vec<String>> {
    let text = unit.trim();
    if text.starts_with('#') || text.contains('{') {
        return None;
    }
    let first = identifiers(text).next()?;
    if matches!(
        first.as_str(),
        "typedef" | "using" | "template" | "namespace"
    ) {
        return None;
    }
    if text.ends_with(");") {
        return function_name(text).map(|name| vec![name]);
    }
    if first == "extern" {
        let body = text.trim_start_matches("extern").trim_end_matches(';');
        let names: Option<Vec<String>> = body
            .split(',')
            .map(|declarator| {
                let declarator = declarator.split('[').next().unwrap_or(declarator);
                identifiers(declarator).last()
            })
            .collect();
        return names;
    }
    None
}

/// The identifier before the first top-level `(` that is not an attribute's.
fn function_name(text: &str) -> Option<String> {
    let mut depth = 0i32;
    for (index, c) in text.char_indices() {
        match c {
            '(' if depth == 0 => {
                let name = identifiers(&text[..index]).last()?;
                if !ATTRIBUTES.contains(&name.as_str()) {
                    return Some(name);
                }
                depth += 1;
            }
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The identifiers of `text`, in order.
fn identifiers(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| {
            w.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
        })
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_mentioned_prototypes_are_included() {
        let mut prelude = Prelude::default();
        prelude.extend(vec![
            "#include <cuda_fp16.h>".into(),
            "struct Pair { int a; };".into(),
            "__device__ int f1(int x);".into(),
            "__launch_bounds__(128) __global__ void k(int *out);".into(),
            "extern __device__ int counter, table[4];".into(),
            "__device__ int f2(int x);".into(),
            "__forceinline__ __device__ int g(int x) { return f2(x); }".into(),
        ]);
        assert_eq!(
            prelude.for_source("__global__ void k2() { table[0] = f1(0); }"),
            "#include <cuda_fp16.h>\nstruct Pair { int a; };\n__device__ int f1(int x);\n\
             extern __device__ int counter, table[4];\n__device__ int f2(int x);\n\
             __forceinline__ __device__ int g(int x) { return f2(x); }\n"
        );
        assert!(prelude.for_source("k<<<").contains("void k(int *out);"));
        assert!(!prelude.for_source("f2").contains("f1"));
    }
}
