//! What a snippet declares for the snippets after it: its CUDA C++ with function bodies removed.
//!
//! A later snippet is compiled after a prelude of every earlier snippet's declarations, so it
//! calls earlier device functions and uses earlier globals without redeclaring them, while its
//! own compilation covers only its own code. The scanner splits the top level of a snippet into
//! units (preprocessor lines, declarations ending in `;`, definitions ending in `}`) and keeps:
//!
//! - preprocessor lines, types, typedefs, `using`, templates, and `inline`/`static`/`constexpr`
//!   functions, whole (later code needs their definitions);
//! - other function definitions as prototypes (`__device__ int f(int);`);
//! - `__device__`/`__constant__`/`__managed__` variable definitions as `extern` declarations
//!   without initializers;
//! - `namespace` and `extern "C"` blocks, with their contents treated the same way.
//!
//! `static` variables are internal to their snippet and left out.

/// The declarations of `source`, one unit per element, in source order.
pub fn declarations(source: &str) -> Vec<String> {
    let mut out = Vec::new();
    for unit in split_units(source) {
        declare_unit(&unit, &mut out);
    }
    out
}

/// One top-level unit: the text before its first top-level `{`, the braced body (with braces),
/// and what follows the body up to and including `;`.
#[derive(Debug, Default)]
struct Unit {
    header: String,
    body: Option<String>,
    trailer: String,
    preprocessor: bool,
}

fn declare_unit(unit: &Unit, out: &mut Vec<String>) {
    let header = unit.header.trim();
    if unit.preprocessor {
        out.push(header.to_string());
        return;
    }
    let words: Vec<&str> = header
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    let first = words.first().copied().unwrap_or("");
    let whole = || {
        format!(
            "{header} {}{}",
            unit.body.as_deref().unwrap_or(""),
            unit.trailer
        )
    };
    match &unit.body {
        Some(_) if depth_zero_position(header, '=').is_some() => {
            declare_statement(&whole(), &words, out)
        }
        Some(body) if first == "namespace" || header == "extern \"C\"" => {
            let inner = &body[1..body.len() - 1];
            let mut nested = Vec::new();
            for unit in split_units(inner) {
                declare_unit(&unit, &mut nested);
            }
            out.push(format!("{header} {{\n{}\n}}", nested.join("\n")));
        }
        Some(_) if is_function_header(header, &words) => {
            let keeps_body = words.iter().any(|w| {
                matches!(
                    *w,
                    "inline" | "static" | "constexpr" | "__forceinline__" | "__inline__"
                )
            });
            // A template is needed whole to be instantiated; a full specialization
            // (`template <>`) is an ordinary function.
            if keeps_body || (first == "template" && !is_full_specialization(header)) {
                out.push(whole());
            } else {
                out.push(format!("{header};"));
            }
        }
        Some(_) => out.push(whole()),
        None => declare_statement(header, &words, out),
    }
}

/// A definition whose header ends in a parameter list: a function (not a type, not a variable
/// with a braced initializer).
fn is_function_header(header: &str, words: &[&str]) -> bool {
    let types = ["struct", "class", "union", "enum", "typedef"];
    !words.iter().any(|w| types.contains(w))
        && depth_zero_position(header, '=').is_none()
        && last_significant(header) == Some(')')
}

/// A declaration ending in `;`.
fn declare_statement(statement: &str, words: &[&str], out: &mut Vec<String>) {
    let statement = statement.trim_end_matches(';').trim();
    if statement.is_empty() {
        return;
    }
    let first = words.first().copied().unwrap_or("");
    if first == "template" && !after_template(statement).starts_with('<') {
        // An explicit instantiation: its snippet defines the instance; later snippets
        // instantiate the template themselves where they need it.
        return;
    }
    let is_variable = words
        .iter()
        .any(|w| matches!(*w, "__device__" | "__constant__" | "__managed__"))
        && !matches!(first, "extern" | "typedef" | "using" | "template")
        && (depth_zero_position(statement, '=').is_some()
            || last_significant(statement) != Some(')'));
    if !is_variable {
        out.push(format!("{statement};"));
        return;
    }
    if words.contains(&"static") {
        return;
    }
    let declarators: Vec<String> = split_depth_zero(statement, ',')
        .into_iter()
        .map(|declarator| {
            let end = [
                depth_zero_position(&declarator, '='),
                depth_zero_position(&declarator, '{'),
            ]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(declarator.len());
            declarator[..end].trim().to_string()
        })
        .collect();
    out.push(format!("extern {};", declarators.join(", ")));
}

/// The text after a leading `template` keyword.
fn after_template(text: &str) -> &str {
    text.trim_start()
        .strip_prefix("template")
        .unwrap_or("")
        .trim_start()
}

/// `template <>`: an explicit (full) specialization.
fn is_full_specialization(header: &str) -> bool {
    after_template(header)
        .strip_prefix('<')
        .is_some_and(|rest| rest.trim_start().starts_with('>'))
}

fn last_significant(text: &str) -> Option<char> {
    text.trim_end().chars().last()
}

/// Byte position of `wanted` outside parentheses, brackets and braces (braces count only when
/// `wanted` is not one).
fn depth_zero_position(text: &str, wanted: char) -> Option<usize> {
    let mut depth = 0i32;
    for (index, c) in text.char_indices() {
        if c == wanted && depth == 0 {
            return Some(index);
        }
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
    }
    None
}

fn split_depth_zero(text: &str, separator: char) -> Vec<String> {
    let mut parts = Vec::new();
    let mut rest = text;
    while let Some(position) = depth_zero_position(rest, separator) {
        parts.push(rest[..position].to_string());
        rest = &rest[position + separator.len_utf8()..];
    }
    parts.push(rest.to_string());
    parts
}

/// Splits the top level of `source` into units; comments become spaces.
fn split_units(source: &str) -> Vec<Unit> {
    let chars: Vec<char> = source.chars().collect();
    let mut units = Vec::new();
    let mut current = Unit::default();
    let mut text = String::new();
    let mut depth = 0usize;
    let mut parens = 0usize;
    let mut at_line_start = true;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '#' && at_line_start && depth == 0 {
            let mut line = String::new();
            while i < chars.len() && chars[i] != '\n' {
                if chars[i] == '\\' && chars.get(i + 1) == Some(&'\n') {
                    line.push_str("\\\n");
                    i += 2;
                    continue;
                }
                line.push(chars[i]);
                i += 1;
            }
            units.push(Unit {
                header: line,
                preprocessor: true,
                ..Unit::default()
            });
            continue;
        }
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '/' && next == Some('*') {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                i += 1;
            }
            i += 2;
            text.push(' ');
            continue;
        }
        if c == '"' || c == '\'' {
            let start = i;
            i += 1;
            while i < chars.len() && chars[i] != c {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i = (i + 1).min(chars.len());
            text.extend(&chars[start..i]);
            at_line_start = false;
            continue;
        }
        if c == '\n' {
            at_line_start = true;
        } else if !c.is_whitespace() {
            at_line_start = false;
        }
        text.push(c);
        i += 1;
        match c {
            '(' => parens += 1,
            ')' => parens = parens.saturating_sub(1),
            '{' if depth == 0 && parens == 0 && current.body.is_none() => {
                text.pop();
                current.header = std::mem::take(&mut text);
                text.push('{');
                depth = 1;
            }
            '{' => depth += 1,
            '}' if depth == 1 => {
                depth = 0;
                current.body = Some(std::mem::take(&mut text));
                if !needs_semicolon(&current.header) {
                    units.push(std::mem::take(&mut current));
                }
            }
            '}' => depth = depth.saturating_sub(1),
            ';' if depth == 0 && parens == 0 => {
                if current.body.is_some() {
                    current.trailer = std::mem::take(&mut text);
                } else {
                    current.header = std::mem::take(&mut text);
                }
                units.push(std::mem::take(&mut current));
            }
            _ => {}
        }
    }
    if !text.trim().is_empty() || current.body.is_some() {
        if current.body.is_some() {
            current.trailer = text;
        } else {
            current.header = text;
        }
        units.push(current);
    }
    units
}

/// Whether a braced definition with this header continues to a `;` (types, initializers).
fn needs_semicolon(header: &str) -> bool {
    let words: Vec<&str> = header
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    let is_namespace = words.first() == Some(&"namespace") || header.trim() == "extern \"C\"";
    !is_namespace && !is_function_header(header.trim(), &words)
}

#[cfg(test)]
mod tests {
    use super::declarations;

    #[test]
    fn functions_become_prototypes_and_globals_extern() {
        let source = r#"
#include <cuda_fp16.h>
// a comment { with a brace
struct Pair { int a; int b; };
__device__ int counter = 5;
__constant__ float coef[4] = {1, 2, 3, 4};
static __device__ int hidden;
__device__ int add(int a, int b) { return a + b + counter; }
__forceinline__ __device__ int twice(int a) { return 2 * a; }
template <typename T> __device__ T sq(T x) { return x * x; }
extern "C" __global__ void k(int *out) { out[0] = add(1, 2); }
namespace ns { __device__ float half_of(float x) { return x / 2; } }
"#;
        let got = declarations(source);
        assert_eq!(
            got,
            [
                "#include <cuda_fp16.h>",
                "struct Pair { int a; int b; };",
                "extern __device__ int counter;",
                "extern __constant__ float coef[4];",
                "__device__ int add(int a, int b);",
                "__forceinline__ __device__ int twice(int a) { return 2 * a; }",
                "template <typename T> __device__ T sq(T x) { return x * x; }",
                "extern \"C\" __global__ void k(int *out);",
                "namespace ns {\n__device__ float half_of(float x);\n}",
            ]
        );
    }

    #[test]
    fn instantiations_are_left_to_their_snippet_and_specializations_become_prototypes() {
        let source = "template <typename T> __global__ void scale(T *x, T f) { x[0] *= f; }\n\
                      template __global__ void scale<float>(float *, float);\n\
                      template <> __device__ int pick<int>(int x) { return x; }";
        assert_eq!(
            declarations(source),
            [
                "template <typename T> __global__ void scale(T *x, T f) { x[0] *= f; }",
                "template <> __device__ int pick<int>(int x);",
            ]
        );
    }

    #[test]
    fn several_declarators_lose_their_initializers() {
        assert_eq!(
            declarations("__device__ int a = 1, b[2] = {3, 4}, c;"),
            ["extern __device__ int a, b[2], c;"]
        );
    }
}
