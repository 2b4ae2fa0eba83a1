//! Source positions of decoded instructions, from the `.file` and `.loc` debug directives that
//! `nvcc -lineinfo` (or `-G`) and clang's `-gline-tables-only` emit.
//!
//! A `.loc file line col` applies to every instruction after it up to the next `.loc`. nvcc marks
//! an inlined callee's instructions `.loc F L C, function_name $L__info_stringN, inlined_at F2
//! L2 C2`: the callee's name is a C string in the module's `.debug_str` section under that label,
//! and the `inlined_at` position is the call in the enclosing function. Each instruction's
//! position is a list of [`SourceFrame`]s, innermost first: its own line (in the inlined callee
//! where there is one), then each call site it was inlined at.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use crate::ir::{self, Item, Statement};

/// A position in a source file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SourcePosition {
    /// The file as the `.file` directive names it (often an absolute path).
    pub file: Arc<str>,
    /// The line, from 1.
    pub line: u32,
    /// The column, from 1; 0 when the compiler did not say.
    pub column: u32,
}

impl SourcePosition {
    /// The file's name without its directories.
    pub fn file_name(&self) -> &str {
        self.file.rsplit(['/', '\\']).next().unwrap_or(&self.file)
    }
}

impl fmt::Display for SourcePosition {
    /// `file.cu:14` or `file.cu:14:5`, the file without its directories.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file_name(), self.line)?;
        if self.column != 0 {
            write!(f, ":{}", self.column)?;
        }
        Ok(())
    }
}

/// One frame of an instruction's source position: where it is, and in which source function when
/// that is an inlined callee (`None`: the PTX function itself).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SourceFrame {
    /// The position.
    pub position: SourcePosition,
    /// The inlined function this frame is in (demangled where it was mangled).
    pub function: Option<String>,
}

/// The source frames of every decoded instruction of a program, per function.
#[derive(Debug, Default)]
pub(crate) struct SourceMap {
    /// Per function, per instruction: its frames (shared between instructions of one `.loc`).
    frames: Vec<Vec<Option<Arc<[SourceFrame]>>>>,
    /// Whether any function carries line information.
    any: bool,
}

impl SourceMap {
    /// Reads the positions of every instruction of `functions` (in the order the decoder numbers
    /// them: statements in order, nested blocks in place).
    pub fn new(module: &ir::Module, functions: &[&ir::Function]) -> SourceMap {
        let mut files: HashMap<u32, Arc<str>> = HashMap::new();
        let mut strings = HashMap::new();
        for item in &module.items {
            match item {
                Item::File { index, path, .. } => {
                    files.insert(*index, Arc::from(path.as_str()));
                }
                Item::Section { name, body } if name == ".debug_str" => {
                    strings = debug_strings(body);
                }
                _ => {}
            }
        }
        let mut map = SourceMap::default();
        for function in functions {
            let mut positions = Vec::new();
            if let Some(body) = &function.body {
                let mut current: Option<Arc<[SourceFrame]>> = None;
                super::program::walk(body, &mut |statement| match statement {
                    Statement::Loc {
                        file,
                        line,
                        col,
                        extra,
                    } => {
                        current = frames(&files, &strings, (*file, *line, *col), extra);
                    }
                    Statement::Instruction(_) => positions.push(current.clone()),
                    _ => {}
                });
            }
            map.any |= positions.iter().any(Option::is_some);
            map.frames.push(positions);
        }
        map
    }

    /// The frames of instruction `pc` of function `function` (empty without line information).
    pub fn frames(&self, function: u32, pc: usize) -> &[SourceFrame] {
        self.frames
            .get(function as usize)
            .and_then(|f| f.get(pc))
            .and_then(Option::as_deref)
            .unwrap_or(&[])
    }

    /// Whether the module carries line information at all.
    pub fn has_lines(&self) -> bool {
        self.any
    }
}

/// The frames of one `.loc`: its own position, then each `inlined_at` call site.
fn frames(
    files: &HashMap<u32, Arc<str>>,
    strings: &HashMap<String, String>,
    (file, line, column): (u32, u32, u32),
    extra: &str,
) -> Option<Arc<[SourceFrame]>> {
    let position = |file: u32, line: u32, column: u32| {
        Some(SourcePosition {
            file: Arc::clone(files.get(&file)?),
            line,
            column,
        })
    };
    if line == 0 {
        return None;
    }
    let mut function = None;
    let mut result = Vec::new();
    let mut inner = position(file, line, column)?;
    let mut words = extra
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty());
    while let Some(word) = words.next() {
        match word {
            "function_name" => {
                function = words.next().map(|label| {
                    let name = strings.get(label).cloned().unwrap_or(label.to_string());
                    crate::symbols::demangle(&name).unwrap_or(name)
                });
            }
            "inlined_at" => {
                let mut number = || words.next().and_then(|w| w.parse::<u32>().ok());
                let (Some(f), Some(l), Some(c)) = (number(), number(), number()) else {
                    break;
                };
                let Some(outer) = position(f, l, c) else {
                    break;
                };
                result.push(SourceFrame {
                    position: std::mem::replace(&mut inner, outer),
                    function: function.take(),
                });
            }
            _ => {}
        }
    }
    result.push(SourceFrame {
        position: inner,
        function,
    });
    Some(result.into())
}

/// The C strings of a `.debug_str` section body, by label: `$L__info_string0: .b8 95,90,…,0`.
fn debug_strings(body: &str) -> HashMap<String, String> {
    let mut strings = HashMap::new();
    let mut label: Option<String> = None;
    let mut bytes = Vec::new();
    let mut finish = |label: &mut Option<String>, bytes: &mut Vec<u8>| {
        if let Some(name) = label.take() {
            let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
            strings.insert(name, String::from_utf8_lossy(&bytes[..end]).into_owned());
        }
        bytes.clear();
    };
    for raw in body.lines() {
        let line = raw.trim();
        if let Some(name) = line.strip_suffix(':') {
            finish(&mut label, &mut bytes);
            label = Some(name.trim().to_string());
        } else if let Some(values) = line.strip_prefix(".b8") {
            bytes.extend(
                values
                    .split(',')
                    .filter_map(|v| v.trim().trim_end_matches(';').parse::<u8>().ok()),
            );
        }
    }
    finish(&mut label, &mut bytes);
    strings
}

/// `kernel.cu:14:5 (in `get(float const*, int)`, inlined at kernel.cu:8:5)`: the first frame and
/// where it was inlined; empty without frames.
pub(crate) fn describe(frames: &[SourceFrame]) -> String {
    let Some((first, outer)) = frames.split_first() else {
        return String::new();
    };
    let mut text = first.position.to_string();
    let mut notes = Vec::new();
    if let Some(function) = &first.function {
        notes.push(format!("in `{function}`"));
    }
    for frame in outer {
        match &frame.function {
            Some(function) => notes.push(format!("inlined at {} in `{function}`", frame.position)),
            None => notes.push(format!("inlined at {}", frame.position)),
        }
    }
    if !notes.is_empty() {
        text.push_str(&format!(" ({})", notes.join(", ")));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_strings_are_read_by_label() {
        let body = "\n$L__info_string0:\n.b8 95,90,51,103,101,116,80,75,102,105,0\n\n";
        let strings = debug_strings(body);
        assert_eq!(strings["$L__info_string0"], "_Z3getPKfi");
    }

    #[test]
    fn inlined_frames_list_the_callee_then_the_call_site() {
        let files = HashMap::from([(1, Arc::from("/src/a.cu"))]);
        let strings = HashMap::from([("$L__info_string0".to_string(), "_Z3getPKfi".to_string())]);
        let extra = ", function_name $L__info_string0, inlined_at 1 8 5";
        let frames = frames(&files, &strings, (1, 3, 5), extra).unwrap();
        assert_eq!(
            describe(&frames),
            "a.cu:3:5 (in `get(float const*, int)`, inlined at a.cu:8:5)"
        );
        assert_eq!(frames[1].position.line, 8);
        assert_eq!(&*frames[0].position.file, "/src/a.cu");
    }

    #[test]
    fn unknown_files_and_line_zero_give_no_position() {
        let files = HashMap::from([(1, Arc::from("a.cu"))]);
        assert!(frames(&files, &HashMap::new(), (2, 3, 0), "").is_none());
        assert!(frames(&files, &HashMap::new(), (1, 0, 0), "").is_none());
        let plain = frames(&files, &HashMap::new(), (1, 3, 0), "").unwrap();
        assert_eq!(describe(&plain), "a.cu:3");
    }
}
