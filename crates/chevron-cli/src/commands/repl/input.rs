//! Turns REPL lines into inputs: `:commands`, launches and CUDA C++ snippets.
//!
//! CUDA C++ is accumulated until its braces and parentheses balance and it ends with `}` or `;`;
//! a preprocessor line stands alone. A complete unit is split into device code, launches and
//! host statements (`units.rs`). A line starting with `:` and a command's name is that command
//! even while a unit is partly entered (the unit stays pending).

use super::units;

/// One complete input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// `:name rest`.
    Command(String),
    /// `NAME<<<…>>>(…);`.
    Launch(String),
    /// CUDA C++ to compile.
    Snippet(String),
    /// A host-side statement: run when it is in the REPL's host subset, else refused.
    Host(String),
}

/// Collects lines until they form an input.
#[derive(Debug, Default)]
pub struct Accumulator {
    pending: String,
}

impl Accumulator {
    /// Whether a unit is partly entered.
    pub fn is_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Drops a partly entered unit.
    pub fn clear(&mut self) {
        self.pending.clear();
    }

    /// Adds one line; returns the inputs it completes, in order (none while a unit is
    /// unfinished).
    pub fn feed(&mut self, line: &str) -> Vec<Input> {
        let trimmed = line.trim();
        if let Some(command) = trimmed.strip_prefix(':') {
            let name = command.split_whitespace().next().unwrap_or("");
            if !command.starts_with(':') && (self.pending.is_empty() || usage(name).is_some()) {
                return vec![Input::Command(command.trim().to_string())];
            }
        }
        if self.pending.is_empty() {
            if trimmed.is_empty() || trimmed.starts_with("//") {
                return Vec::new();
            }
            if trimmed.starts_with('#') {
                return vec![Input::Snippet(trimmed.to_string())];
            }
        }
        self.pending.push_str(line);
        self.pending.push('\n');
        if !is_complete(&self.pending) {
            return Vec::new();
        }
        let unit = std::mem::take(&mut self.pending);
        units::sort(unit.trim())
    }
}

/// How the command `name` is used, when `name` is one.
pub fn usage(name: &str) -> Option<&'static str> {
    Some(match name {
        "quit" | "q" | "exit" => ":quit",
        "help" | "h" => ":help",
        "buf" => ":buf NAME TYPE[COUNT]=zeros|fill:V|iota|file:PATH",
        "print" => ":print NAME [COUNT]",
        "save" => ":save NAME PATH",
        "symbols" => ":symbols",
        "device" => ":device ID",
        "load" => ":load FILE.cu",
        "time" => ":time on|off",
        _ => return None,
    })
}

/// Balanced `{}`/`()` outside strings and comments, ending in `}` or `;`.
fn is_complete(text: &str) -> bool {
    let mut depth = 0i64;
    let mut chars = text.chars().peekable();
    let mut last = None;
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
                continue;
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut star = false;
                for c in chars.by_ref() {
                    if star && c == '/' {
                        break;
                    }
                    star = c == '*';
                }
                continue;
            }
            '"' | '\'' => {
                while let Some(inner) = chars.next() {
                    if inner == '\\' {
                        chars.next();
                    } else if inner == c {
                        break;
                    }
                }
            }
            '{' | '(' => depth += 1,
            '}' | ')' => depth -= 1,
            _ => {}
        }
        if !c.is_whitespace() {
            last = Some(c);
        }
    }
    depth <= 0 && matches!(last, Some('}' | ';'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_complete_when_balanced() {
        let mut input = Accumulator::default();
        assert_eq!(input.feed("__global__ void k(int *out) {"), []);
        assert!(input.is_pending());
        assert_eq!(input.feed("  out[0] = 1; // }"), []);
        assert_eq!(
            input.feed(":symbols"),
            [Input::Command("symbols".into())],
            "a command inside an unfinished unit"
        );
        assert_eq!(input.feed("  : 2;"), [], "not a command: C++ goes on");
        assert_eq!(
            input.feed("}"),
            [Input::Snippet(
                "__global__ void k(int *out) {\n  out[0] = 1; // }\n  : 2;\n}".into()
            )]
        );
        assert_eq!(
            input.feed("#include <cuda_fp16.h>"),
            [Input::Snippet("#include <cuda_fp16.h>".into())]
        );
        assert_eq!(
            input.feed(":print out 4"),
            [Input::Command("print out 4".into())]
        );
        assert_eq!(
            input.feed("k<<<1, 32>>>(out);"),
            [Input::Launch("k<<<1, 32>>>(out);".into())]
        );
        assert_eq!(input.feed("__device__ int g = 3"), []);
        input.clear();
        assert!(!input.is_pending());
    }
}
