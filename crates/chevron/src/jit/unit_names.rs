//! What one declaration unit of the prelude declares: the names that make a later snippet need
//! it, and the key under which a later unit replaces it.
//!
//! A unit is included in a snippet's prelude when the snippet (or another included unit)
//! mentions a name it declares; units that declare no name a scanner can be sure of
//! (preprocessor lines, `enum`s, whose enumerators are used unqualified, namespaces, operator
//! overloads, anonymous types) are included in every prelude. A later unit with the same key
//! (its text up to the body or the `;`, spaces collapsed) replaces the earlier one: that is how a
//! redefined inline function, template or type stops clashing with its old definition.

/// What a unit declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitNames {
    /// The names that make a snippet need the unit; `None`: every snippet gets it.
    pub names: Option<Vec<String>>,
    /// The replacement key.
    pub key: String,
    /// Whether the unit is a type (`struct`, `class`, `union`, `typedef`, `using`): a
    /// redefinition keeps its place in the prelude, since later units may use it.
    pub is_type: bool,
    /// Whether it holds a body (a definition kept whole): only such a unit replaces another, so
    /// a forward declaration never hides a definition.
    pub has_body: bool,
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

/// Classifies one unit made by `declarations`.
pub fn unit_names(unit: &str) -> UnitNames {
    let text = unit.trim();
    let head_end = text.find('{').unwrap_or(text.len());
    let head = text[..head_end].trim_end_matches(';').trim();
    // The words after a body (`typedef struct { … } NAME;`) belong to the key too.
    let trailer = match text.rfind('}') {
        Some(end) if text.contains('{') => text[end + 1..].trim_end_matches(';'),
        _ => "",
    };
    let words: Vec<String> = identifiers(head).collect();
    let has = |word: &str| words.iter().any(|w| w == word);
    // Namespace and `extern "C"` blocks add up instead of replacing each other: their key is
    // their whole text.
    let block = has("namespace") || head == "extern \"C\"";
    let keyed = if block {
        text.to_string()
    } else {
        format!("{head} {trailer}")
    };
    let key = keyed.split_whitespace().collect::<Vec<_>>().join(" ");
    let is_type = !text.starts_with('#')
        && !has("enum")
        && (has("struct") || has("class") || has("union") || has("typedef"))
        || words.first().is_some_and(|w| w == "using") && head.contains('=');
    let names = if text.starts_with('#') || has("namespace") || has("enum") {
        None
    } else if is_type {
        type_name(text, head, &words).map(|name| vec![name])
    } else if head.ends_with(')') {
        function_name(head)
            .filter(|name| name != "operator")
            .map(|name| vec![name])
    } else if words.first().is_some_and(|w| w == "extern") && !text.contains('{') {
        variable_names(head)
    } else {
        None
    };
    UnitNames {
        names,
        key,
        is_type,
        has_body: text.contains('{'),
    }
}

/// The name a type unit declares: `struct NAME`, `typedef … NAME;`, `using NAME = …;`.
fn type_name(text: &str, head: &str, words: &[String]) -> Option<String> {
    if words.first().is_some_and(|w| w == "using") {
        return words.get(1).cloned();
    }
    if words.iter().any(|w| w == "typedef") {
        let declarator = text.trim_end_matches(';');
        let declarator = match declarator.rfind('}') {
            Some(end) => &declarator[end + 1..],
            None => declarator,
        };
        if declarator.contains('(') {
            return None;
        }
        let declarator = declarator.split('[').next().unwrap_or(declarator);
        return identifiers(declarator).last();
    }
    // `struct __align__(16) NAME : BASE`: the last word before a top-level `:` (not `::`).
    let mut end = head.len();
    let bytes = head.as_bytes();
    for (index, &b) in bytes.iter().enumerate() {
        let colon = b == b':'
            && bytes.get(index + 1) != Some(&b':')
            && (index == 0 || bytes[index - 1] != b':');
        if colon {
            end = index;
            break;
        }
    }
    let name = identifiers(without_template_arguments(&head[..end]))
        .filter(|w| w != "final")
        .last()?;
    (!matches!(name.as_str(), "struct" | "class" | "union")).then_some(name)
}

/// The names an `extern` variable declaration declares.
fn variable_names(head: &str) -> Option<Vec<String>> {
    head.trim_start_matches("extern")
        .split(',')
        .map(|declarator| {
            let declarator = declarator.split('[').next().unwrap_or(declarator);
            identifiers(declarator).last()
        })
        .collect()
}

/// The identifier before the first top-level `(` that is not an attribute's.
fn function_name(text: &str) -> Option<String> {
    let mut depth = 0i32;
    for (index, c) in text.char_indices() {
        match c {
            '(' if depth == 0 => {
                let name = identifiers(without_template_arguments(&text[..index])).last()?;
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

/// `text` without a trailing template argument list (`pick<int>` gives `pick`).
fn without_template_arguments(text: &str) -> &str {
    let text = text.trim_end();
    if !text.ends_with('>') {
        return text;
    }
    let mut depth = 0i32;
    for (index, c) in text.char_indices().rev() {
        match c {
            '>' => depth += 1,
            '<' => {
                depth -= 1;
                if depth == 0 {
                    return &text[..index];
                }
            }
            _ => {}
        }
    }
    text
}

/// The identifiers of `text`, in order.
pub fn identifiers(text: &str) -> impl Iterator<Item = String> + '_ {
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

    fn names(unit: &str) -> Option<Vec<String>> {
        unit_names(unit).names
    }

    #[test]
    fn units_declare_the_names_a_scanner_can_be_sure_of() {
        let one = |name: &str| Some(vec![name.to_string()]);
        assert_eq!(names("__device__ int f1(int x);"), one("f1"));
        assert_eq!(
            names("__launch_bounds__(128) __global__ void k(int *out);"),
            one("k")
        );
        assert_eq!(
            names("extern __device__ int counter, table[4];"),
            Some(vec!["counter".into(), "table".into()])
        );
        assert_eq!(names("struct Pair { int a; };"), one("Pair"));
        assert_eq!(
            names("struct __align__(16) V : Base { float x; };"),
            one("V")
        );
        assert_eq!(
            names("template <typename T> struct Box { T v; };"),
            one("Box")
        );
        assert_eq!(names("typedef struct { int a; } Plain;"), one("Plain"));
        assert_eq!(
            names("template <> struct Traits<int> { static const int bits = 32; };"),
            one("Traits")
        );
        assert_eq!(names("struct Later;"), one("Later"));
        assert_eq!(names("typedef unsigned int word;"), one("word"));
        assert_eq!(names("using real = float;"), one("real"));
        assert_eq!(
            names("template <> __device__ int pick<int>(int x);"),
            one("pick")
        );
        assert_eq!(
            names("__forceinline__ __device__ int twice(int a) { return 2 * a; }"),
            one("twice")
        );
        assert_eq!(
            names("template <typename T> __device__ T sq(T x) { return x * x; }"),
            one("sq")
        );
        for always in [
            "#include <cuda_fp16.h>",
            "enum Color { RED, GREEN };",
            "namespace ns {\n__device__ float half_of(float x);\n}",
            "__device__ P operator+(P x, P y);",
            "struct { int a; } anonymous_value;",
            "using namespace ns;",
        ] {
            assert_eq!(names(always), None, "{always}");
        }
    }

    #[test]
    fn keys_ignore_bodies_and_spacing() {
        let key = |unit: &str| unit_names(unit).key;
        assert_eq!(
            key("__device__  int twice(int a) { return 2 * a; }"),
            key("__device__ int twice(int a) {return 3*a;}")
        );
        assert_eq!(key("struct P { int a; };"), "struct P");
        assert!(unit_names("struct P { int a; };").is_type);
        assert_ne!(
            key("namespace ns {\n__device__ int f(int);\n}"),
            key("namespace ns {\n__device__ int g(int);\n}")
        );
        assert!(!unit_names("__device__ int f(int);").is_type);
    }
}
