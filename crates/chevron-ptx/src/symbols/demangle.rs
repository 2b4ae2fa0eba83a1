//! Demangling of Itanium C++ names and the spelling-tolerant keys `find` compares.
//!
//! A C++ programmer names a kernel by its signature (`saxpy(float, const float*, float*)`), by its
//! name (`saxpy`, `ns::block_scan`), or by a template instance (`block_scan<int, 128>`). The keys
//! built here make those spellings comparable: whitespace is ignored, a leading `const`/`volatile`
//! moves after the type it qualifies (`const float*` ≡ `float const*`), and `unsigned int` ≡
//! `unsigned`.

use cpp_demangle::{DemangleOptions, Symbol as Mangled};

/// Demangles an Itanium C++ name into the signature a C++ programmer writes, without the return
/// type: `_Z5saxpyfPKfPf` gives `saxpy(float, float const*, float*)`. `None` for names that are
/// not mangled (`extern "C"` kernels) or that do not demangle.
pub fn demangle(name: &str) -> Option<String> {
    demangle_with(name, &DemangleOptions::new().no_return_type())
}

fn demangle_with(name: &str, options: &DemangleOptions) -> Option<String> {
    if !name.starts_with("_Z") {
        return None;
    }
    Mangled::new(name).ok()?.demangle_with_options(options).ok()
}

/// The ways a symbol can be named, from the most to the least specific.
#[derive(Debug, Clone, Default)]
pub(crate) struct NameKeys {
    /// Normalized signatures: without and with the return type.
    pub signatures: Vec<String>,
    /// Normalized name without parameters, templates kept (`ns::block_scan<int,128>`).
    pub templated: Option<String>,
    /// Normalized qualified name without template arguments (`ns::block_scan`).
    pub qualified: String,
}

impl NameKeys {
    /// Builds the keys of a (possibly mangled) symbol name.
    pub fn of(name: &str) -> NameKeys {
        let Some(signature) = demangle(name) else {
            return NameKeys {
                signatures: Vec::new(),
                templated: None,
                qualified: name.to_string(),
            };
        };
        let mut signatures = vec![normalize(&signature)];
        if let Some(full) = demangle_with(name, &DemangleOptions::new()) {
            signatures.push(normalize(&full));
        }
        let bare = demangle_with(name, &DemangleOptions::new().no_params().no_return_type())
            .unwrap_or_else(|| signature.clone());
        let qualified = strip_template_args(&bare).unwrap_or_else(|| bare.clone());
        NameKeys {
            signatures,
            templated: Some(normalize(&bare)),
            qualified: normalize(&qualified),
        }
    }

    /// Whether `query` (already normalized) names this symbol's qualified name or a `::`-aligned
    /// suffix of it (`block_scan` and `ns::block_scan` both name `ns::block_scan`).
    pub fn qualified_matches(&self, query: &str) -> bool {
        self.qualified == query
            || self
                .qualified
                .strip_suffix(query)
                .is_some_and(|head| head.ends_with("::"))
    }

    /// The last component of the qualified name (`block_scan`).
    pub fn unqualified(&self) -> &str {
        self.qualified
            .rsplit("::")
            .next()
            .unwrap_or(&self.qualified)
    }
}

/// Removes every top-level `<…>` group; `None` when the brackets do not balance (e.g.
/// `operator<`), in which case the name is used as it is.
fn strip_template_args(name: &str) -> Option<String> {
    let mut out = String::with_capacity(name.len());
    let mut depth = 0usize;
    for c in name.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.checked_sub(1)?,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    (depth == 0).then_some(out)
}

/// A token of a C++ signature: a word (identifier or number) or a punctuation mark.
fn tokenize(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if c.is_whitespace() {
            continue;
        }
        if is_word_char(c) {
            let mut end = start + c.len_utf8();
            while let Some(&(i, n)) = chars.peek() {
                if !is_word_char(n) {
                    break;
                }
                end = i + n.len_utf8();
                chars.next();
            }
            tokens.push(text[start..end].to_string());
        } else if c == ':' && chars.peek().is_some_and(|&(_, n)| n == ':') {
            chars.next();
            tokens.push("::".to_string());
        } else {
            tokens.push(c.to_string());
        }
    }
    tokens
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$' || c == '.'
}

fn is_cv(token: &str) -> bool {
    token == "const" || token == "volatile"
}

/// Whether a type may start after `previous`.
fn starts_type(previous: Option<&String>) -> bool {
    previous.is_none_or(|p| matches!(p.as_str(), "(" | "," | "<"))
}

/// Moves leading cv-qualifiers after the type they qualify, recursively inside template
/// arguments.
fn move_leading_cv(tokens: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        if !(is_cv(&tokens[i]) && starts_type(out.last())) {
            out.push(tokens[i].clone());
            i += 1;
            continue;
        }
        let mut cv = Vec::new();
        while i < tokens.len() && is_cv(&tokens[i]) {
            cv.push(tokens[i].clone());
            i += 1;
        }
        let start = i;
        while i < tokens.len() {
            let t = tokens[i].as_str();
            if t == "<" {
                i = matching_close(tokens, i);
            } else if t == "::" || (is_word_char(t.chars().next().unwrap_or(' ')) && !is_cv(t)) {
                i += 1;
            } else {
                break;
            }
        }
        out.extend(move_leading_cv(&tokens[start..i]));
        out.extend(cv);
    }
    out
}

/// The index just past the `>` matching the `<` at `open` (or the end when unbalanced).
fn matching_close(tokens: &[String], open: usize) -> usize {
    let mut depth = 0usize;
    for (i, t) in tokens.iter().enumerate().skip(open) {
        match t.as_str() {
            "<" => depth += 1,
            ">" => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

/// The standard integer typedefs as the CUDA compilers on Linux (LP64) define them, which is how
/// they appear in demangled names.
const TYPEDEFS: [(&str, &[&str]); 12] = [
    ("size_t", &["unsigned", "long"]),
    ("uintptr_t", &["unsigned", "long"]),
    ("uint64_t", &["unsigned", "long"]),
    ("ptrdiff_t", &["long"]),
    ("intptr_t", &["long"]),
    ("int64_t", &["long"]),
    ("uint32_t", &["unsigned"]),
    ("int32_t", &["int"]),
    ("uint16_t", &["unsigned", "short"]),
    ("int16_t", &["short"]),
    ("uint8_t", &["unsigned", "char"]),
    ("int8_t", &["signed", "char"]),
];

/// Replaces `size_t`, `std::int64_t`, … by the fundamental types they name.
fn expand_typedefs(tokens: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(tokens.len());
    for token in tokens {
        let Some((_, spelled)) = TYPEDEFS.iter().find(|(name, _)| *name == token) else {
            out.push(token);
            continue;
        };
        // `std::size_t`: drop the `std::` qualifier (but not another namespace's).
        let n = out.len();
        if n >= 2 && out[n - 1] == "::" && out[n - 2] == "std" && (n == 2 || out[n - 3] != "::") {
            out.truncate(n - 2);
        }
        out.extend(spelled.iter().map(|w| w.to_string()));
    }
    out
}

/// A comparison key for a C++ name or signature, insensitive to whitespace, to the placement of
/// `const`/`volatile`, and to `int` after `unsigned`/`signed`/`short`/`long`.
pub fn normalize(text: &str) -> String {
    let tokens = move_leading_cv(&expand_typedefs(tokenize(text)));
    let mut kept: Vec<String> = Vec::with_capacity(tokens.len());
    for t in tokens {
        let drop_int = t == "int"
            && kept
                .last()
                .is_some_and(|p| matches!(p.as_str(), "unsigned" | "signed" | "short" | "long"));
        if !drop_int {
            kept.push(t);
        }
    }
    // Runs of cv-qualifiers in one order: `const volatile`.
    let mut i = 0;
    while i < kept.len() {
        let run = kept[i..].iter().take_while(|t| is_cv(t)).count();
        kept[i..i + run].sort();
        i += run.max(1);
    }
    let mut key = String::with_capacity(text.len());
    for (n, t) in kept.iter().enumerate() {
        let word = |s: &str| s.chars().next().is_some_and(is_word_char);
        if n > 0 && word(t) && word(&kept[n - 1]) {
            key.push(' ');
        }
        key.push_str(t);
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demangles_without_return_type() {
        assert_eq!(
            demangle("_Z5saxpyfPKfPf").as_deref(),
            Some("saxpy(float, float const*, float*)")
        );
        assert_eq!(
            demangle("_Z10block_scanIiLi128EEvPKiPii").as_deref(),
            Some("block_scan<int, 128>(int const*, int*, int)")
        );
        assert_eq!(demangle("saxpy"), None);
        assert_eq!(demangle("_Zgarbage"), None);
    }

    #[test]
    fn spellings_compare_equal() {
        let key = normalize("saxpy(float, float const*, float*)");
        assert_eq!(normalize("saxpy( float,const float *,float* )"), key);
        assert_ne!(normalize("saxpy(float, float*, float const*)"), key);
        assert_eq!(
            normalize("f(const volatile char*, unsigned int)"),
            normalize("f(char volatile const*, unsigned)")
        );
        assert_eq!(
            normalize("h(size_t, const std::int64_t*, uint8_t)"),
            normalize("h(unsigned long, long const*, unsigned char)")
        );
        assert_ne!(normalize("h(my::size_t)"), normalize("h(unsigned long)"));
        assert_eq!(
            normalize("g(const ns::Foo<const int>&)"),
            normalize("g(ns::Foo<int const> const&)")
        );
    }

    #[test]
    fn keys_of_a_template_in_a_namespace() {
        let keys = NameKeys::of("_ZN2ns10block_scanIiLi128EEEvPKiPii");
        assert_eq!(keys.qualified, "ns::block_scan");
        assert_eq!(keys.unqualified(), "block_scan");
        assert!(keys.qualified_matches("block_scan"));
        assert!(keys.qualified_matches("ns::block_scan"));
        assert!(!keys.qualified_matches("scan"));
        assert_eq!(keys.templated.as_deref(), Some("ns::block_scan<int,128>"));
        assert!(keys.signatures.contains(&normalize(
            "void ns::block_scan<int, 128>(const int*, int*, int)"
        )));
    }
}
