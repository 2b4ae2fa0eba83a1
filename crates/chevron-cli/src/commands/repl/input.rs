//! Turns REPL lines into inputs: `:commands`, launches and CUDA C++ snippets.
//!
//! CUDA C++ is accumulated until its braces and parentheses balance and it ends with `}` or `;`;
//! a preprocessor line stands alone. A complete unit holding `<<<` is a launch.

/// One complete input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// `:name rest`.
    Command(String),
    /// `NAME<<<…>>>(…);`.
    Launch(String),
    /// CUDA C++ to compile.
    Snippet(String),
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

    /// Adds one line; returns the input it completes, if any.
    pub fn feed(&mut self, line: &str) -> Option<Input> {
        let trimmed = line.trim();
        if self.pending.is_empty() {
            if trimmed.is_empty() || trimmed.starts_with("//") {
                return None;
            }
            if let Some(command) = trimmed.strip_prefix(':') {
                return Some(Input::Command(command.trim().to_string()));
            }
            if trimmed.starts_with('#') {
                return Some(Input::Snippet(trimmed.to_string()));
            }
        }
        self.pending.push_str(line);
        self.pending.push('\n');
        if !is_complete(&self.pending) {
            return None;
        }
        let unit = std::mem::take(&mut self.pending);
        let unit = unit.trim().to_string();
        Some(if unit.contains("<<<") {
            Input::Launch(unit)
        } else {
            Input::Snippet(unit)
        })
    }
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
        assert_eq!(input.feed("__global__ void k(int *out) {"), None);
        assert!(input.is_pending());
        assert_eq!(input.feed("  out[0] = 1; // }"), None);
        assert_eq!(
            input.feed("}"),
            Some(Input::Snippet(
                "__global__ void k(int *out) {\n  out[0] = 1; // }\n}".into()
            ))
        );
        assert_eq!(
            input.feed("#include <cuda_fp16.h>"),
            Some(Input::Snippet("#include <cuda_fp16.h>".into()))
        );
        assert_eq!(
            input.feed(":print out 4"),
            Some(Input::Command("print out 4".into()))
        );
        assert_eq!(
            input.feed("k<<<1, 32>>>(out);"),
            Some(Input::Launch("k<<<1, 32>>>(out);".into()))
        );
        assert_eq!(input.feed("__device__ int g = 3"), None);
        input.clear();
        assert!(!input.is_pending());
    }
}
