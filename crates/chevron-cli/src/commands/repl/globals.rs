//! The `__device__`, `__constant__` and `__managed__` variables a snippet declares, with their
//! C++ type and element count, so `:print NAME` shows a global by its declared type.

use super::units;

/// A device variable as declared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredGlobal {
    /// The element's C++ type (`unsigned int`, `float`, `struct P`).
    pub cpp: String,
    /// The element count of an array (`[4][2]` gives 8); `None` for a scalar.
    pub count: Option<u64>,
}

const QUALIFIERS: &[&str] = &[
    "__device__",
    "__constant__",
    "__managed__",
    "static",
    "const",
    "volatile",
    "extern",
];

/// The variables `source` declares at its top level, by name.
pub fn declared(source: &str) -> Vec<(String, DeclaredGlobal)> {
    units::statements(source)
        .iter()
        .filter_map(|statement| variable(statement))
        .collect()
}

fn variable(statement: &str) -> Option<(String, DeclaredGlobal)> {
    let head = statement.split(['=', '{', ';']).next()?;
    let words: Vec<&str> = head.split_whitespace().collect();
    if head.contains('(')
        || !words
            .iter()
            .any(|w| matches!(*w, "__device__" | "__constant__" | "__managed__"))
    {
        return None;
    }
    let head: String = words
        .iter()
        .filter(|w| !QUALIFIERS.contains(w))
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
    let (declarator, dims) = match head.find('[') {
        Some(open) => (&head[..open], Some(&head[open..])),
        None => (head.as_str(), None),
    };
    let declarator = declarator.trim_end();
    let split = declarator.rfind(|c: char| !(c.is_alphanumeric() || c == '_'))?;
    let (cpp, name) = (declarator[..split + 1].trim(), &declarator[split + 1..]);
    if cpp.is_empty() || name.is_empty() || cpp.contains('*') {
        return None;
    }
    let count = match dims {
        Some(dims) => {
            let mut count = 1u64;
            for dim in dims.split(['[', ']']).filter(|d| !d.trim().is_empty()) {
                count = count.checked_mul(dim.trim().parse().ok()?)?;
            }
            Some(count)
        }
        None => None,
    };
    Some((
        name.to_string(),
        DeclaredGlobal {
            cpp: cpp.to_string(),
            count,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_variables_are_found() {
        let found = declared(
            "__device__ int base = 40;\n__constant__ float table[2][3] = {{1}};\n\
             __device__ int twice(int x) { return 2 * x; }\n__device__ unsigned int n;\nint host;",
        );
        let names: Vec<(&str, &str, Option<u64>)> = found
            .iter()
            .map(|(n, g)| (n.as_str(), g.cpp.as_str(), g.count))
            .collect();
        assert_eq!(
            names,
            [
                ("base", "int", None),
                ("table", "float", Some(6)),
                ("n", "unsigned int", None)
            ]
        );
    }
}
