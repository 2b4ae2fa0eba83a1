//! Splits a complete unit of REPL input into its top-level statements and sorts them: device
//! code (compiled by NVRTC), launches, and host statements (run by the REPL or refused with a
//! message), so that definitions and a launch may share one line.

use super::input::Input;

/// Words that open device code: CUDA C++ that NVRTC compiles.
const DEVICE_WORDS: &[&str] = &[
    "__global__",
    "__device__",
    "__constant__",
    "__managed__",
    "__host__",
    "__forceinline__",
    "__noinline__",
    "template",
    "struct",
    "class",
    "union",
    "enum",
    "namespace",
    "typedef",
    "using",
    "static_assert",
    "constexpr",
    "const",
    "extern",
    "inline",
    "static",
];

/// The inputs a complete unit holds, in order; consecutive device statements form one snippet.
pub fn sort(unit: &str) -> Vec<Input> {
    let mut inputs: Vec<Input> = Vec::new();
    for statement in statements(unit) {
        let input = classify(&statement);
        match (inputs.last_mut(), input) {
            (Some(Input::Snippet(code)), Input::Snippet(more)) => {
                code.push('\n');
                code.push_str(&more);
            }
            (_, input) => inputs.push(input),
        }
    }
    inputs
}

/// What one top-level statement is.
fn classify(statement: &str) -> Input {
    let first = first_word(statement);
    if statement.starts_with('#') || DEVICE_WORDS.contains(&first) {
        return Input::Snippet(statement.to_string());
    }
    if is_launch(statement) {
        return Input::Launch(statement.to_string());
    }
    Input::Host(statement.to_string())
}

/// `NAME<<<` or `NAME<T, N><<<` at the start.
fn is_launch(statement: &str) -> bool {
    statement.split_once("<<<").is_some_and(|(name, _)| {
        let name = name.trim();
        !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_alphanumeric() || "_:<>, *".contains(c))
    })
}

/// The identifier (or keyword) a statement opens with.
pub fn first_word(statement: &str) -> &str {
    let end = statement
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(statement.len());
    &statement[..end]
}

/// The top-level statements of `unit`, trimmed: each ends at a `;` outside brackets, or at the
/// `}` closing a top-level block (with a `;` right after it; a `struct`/`class`/`union`/`enum`
/// body goes on to its `;`, which may follow declarators).
pub fn statements(unit: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut depth = 0i64;
    let mut chars = unit.chars().peekable();
    while let Some(c) = chars.next() {
        current.push(c);
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    current.push(c);
                    if c == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                current.push(chars.next().unwrap_or('*'));
                let mut star = false;
                for c in chars.by_ref() {
                    current.push(c);
                    if star && c == '/' {
                        break;
                    }
                    star = c == '*';
                }
            }
            '"' | '\'' => {
                while let Some(inner) = chars.next() {
                    current.push(inner);
                    if inner == '\\' {
                        if let Some(escaped) = chars.next() {
                            current.push(escaped);
                        }
                    } else if inner == c {
                        break;
                    }
                }
            }
            '\n' if depth == 0 && current.trim_start().starts_with('#') => {
                finish(&mut out, &mut current);
            }
            '{' | '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            '}' => {
                depth -= 1;
                let aggregate = matches!(
                    first_word(current.trim_start()),
                    "struct" | "class" | "union" | "enum" | "typedef"
                );
                if depth == 0 && !aggregate {
                    while chars
                        .peek()
                        .is_some_and(|c| c.is_whitespace() && *c != '\n')
                    {
                        chars.next();
                    }
                    if chars.peek() == Some(&';') {
                        current.push(';');
                        chars.next();
                    }
                    finish(&mut out, &mut current);
                }
            }
            ';' if depth == 0 => finish(&mut out, &mut current),
            _ => {}
        }
    }
    finish(&mut out, &mut current);
    out
}

fn finish(out: &mut Vec<String>, current: &mut String) {
    let statement = current.trim();
    if !statement.is_empty() && statement != ";" {
        out.push(statement.to_string());
    }
    current.clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_definition_and_a_launch_on_one_line() {
        let inputs = sort("__global__ void k(int *o) { o[0] = 1; } k<<<1, 1>>>(o); int n = 4; :x");
        assert_eq!(
            inputs,
            [
                Input::Snippet("__global__ void k(int *o) { o[0] = 1; }".into()),
                Input::Launch("k<<<1, 1>>>(o);".into()),
                Input::Host("int n = 4;".into()),
                Input::Host(":x".into()),
            ]
        );
    }

    #[test]
    fn device_code_stays_together() {
        let unit = "struct P { int a; } p;\n__device__ int g = 1;\ntemplate <int N> __global__ \
                    void t(int *v) { v[0] = N; }";
        assert_eq!(sort(unit), [Input::Snippet(unit.to_string())]);
        assert_eq!(
            statements("for (int i = 0; i < 4; i++) { k<<<1, 1>>>(v); } printf(\"}\");"),
            [
                "for (int i = 0; i < 4; i++) { k<<<1, 1>>>(v); }",
                "printf(\"}\");"
            ]
        );
    }
}
