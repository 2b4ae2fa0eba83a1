//! The session's kernels by base name (`scale` for `scale<float>(float*, float)`), so finding a
//! kernel by a plain name, signature or template instance looks at the few kernels of that name
//! instead of every definition of the session.

use std::collections::HashMap;

/// Mangled kernel names by base name.
#[derive(Default)]
pub struct KernelIndex {
    by_base: HashMap<String, Vec<String>>,
}

impl KernelIndex {
    /// Notes kernel `mangled`, shown as `display` (its demangled signature, or its name).
    pub fn note(&mut self, display: &str, mangled: &str) {
        let names = self.by_base.entry(base(display).to_string()).or_default();
        if !names.iter().any(|n| n == mangled) {
            names.push(mangled.to_string());
        }
    }

    /// The kernels whose base name is `query`'s.
    pub fn candidates(&self, query: &str) -> &[String] {
        self.by_base.get(base(query)).map_or(&[], Vec::as_slice)
    }
}

/// A name without its template arguments and parameters.
fn base(name: &str) -> &str {
    let end = name.find(['<', '(']).unwrap_or(name.len());
    name[..end].trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_are_found_by_their_base_name() {
        let mut index = KernelIndex::default();
        index.note("scale<float>(float*, float)", "_Z5scaleIfEvPT_S0_");
        index.note("scale<float>(float*, float)", "_Z5scaleIfEvPT_S0_");
        index.note("fill", "fill");
        assert_eq!(index.candidates("scale<float>"), ["_Z5scaleIfEvPT_S0_"]);
        assert_eq!(index.candidates("scale"), ["_Z5scaleIfEvPT_S0_"]);
        assert_eq!(index.candidates("fill(int*)"), ["fill"]);
        assert!(index.candidates("other").is_empty());
    }
}
