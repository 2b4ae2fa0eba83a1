//! The REPL's host subset: what host-side C++ it runs itself, since NVRTC compiles device code
//! only. Declarations of scalars (`int n = 4;`) and of device buffers (`float x[256];`,
//! `int v[3] = {1, 2, 3};`), assignments to scalars, `for` loops of launches, `printf`, and
//! `cudaDeviceSynchronize()` (a no-op: every launch is waited for). Scalars may stand for numbers
//! in launches, loop bounds and printf. Any other host statement gets one line saying what the
//! REPL accepts, never NVRTC's errors about host code.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::input::Input;
use super::launch::{cpp_element_type, split_top_level};
use super::printf::{self, Value};
use super::session::{Flow, Repl};
use super::units;
use crate::commands::run::prepare;
use crate::spec::{ArgSpec, ElementType};

/// A host scalar: its type and its value, written as a C literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostScalar {
    /// The element type its C++ type maps to.
    pub ty: ElementType,
    /// The value.
    pub text: String,
}

/// What the REPL takes, for the message refusing other host code.
const ACCEPTED: &str = "the REPL runs launches, scalars and buffers (`int n = 4;`, \
    `float x[256];`), `for` loops of launches and printf; device code needs __global__, \
    __device__ or __constant__ (:help)";

/// `TYPE NAME`, `TYPE *NAME`, `TYPE NAME[COUNT]` with an optional `= INIT`.
#[derive(Debug, PartialEq, Eq)]
struct Declaration<'a> {
    cpp: String,
    name: &'a str,
    pointer: bool,
    count: Option<&'a str>,
    init: Option<&'a str>,
}

impl Repl {
    /// Runs one host statement, or refuses it in one line.
    pub(super) fn host(&mut self, text: &str, interrupted: &AtomicBool) -> Result<Flow, String> {
        let statement = text.trim().trim_end_matches(';').trim();
        match units::first_word(statement) {
            "for" => return self.host_loop(statement, interrupted),
            "printf" => return self.host_printf(statement),
            "cudaDeviceSynchronize" if statement.ends_with("()") => return Ok(Flow::Continue),
            _ => {}
        }
        if let Some(declaration) = declaration(statement) {
            self.declare(&declaration)?;
            return Ok(Flow::Continue);
        }
        if let Some((name, value)) = statement.split_once('=') {
            let name = name.trim();
            if let Some(ty) = self.scalars.get(name).map(|s| s.ty) {
                let text = self.number(value.trim(), ty)?;
                self.scalars
                    .insert(name.to_string(), HostScalar { ty, text });
                return Ok(Flow::Continue);
            }
        }
        Err(format!(
            "host code is not run: `{}`; {ACCEPTED}",
            short(statement)
        ))
    }

    /// `statement` (a launch) with host scalars replaced by their values after the name.
    pub(super) fn substitute(&self, statement: &str) -> String {
        let Some((name, rest)) = statement.split_once("<<<") else {
            return statement.to_string();
        };
        let mut out = format!("{name}<<<");
        let mut word = String::new();
        for c in rest.chars().chain(std::iter::once('\0')) {
            if c.is_alphanumeric() || c == '_' || c == '.' {
                word.push(c);
                continue;
            }
            match self.scalars.get(&word) {
                Some(scalar) if !word.starts_with(|c: char| c.is_ascii_digit()) => {
                    out.push_str(&scalar.text)
                }
                _ => out.push_str(&word),
            }
            word.clear();
            if c != '\0' {
                out.push(c);
            }
        }
        out
    }

    fn declare(&mut self, declaration: &Declaration<'_>) -> Result<(), String> {
        let Declaration { cpp, name, .. } = declaration;
        let ty = cpp_element_type(cpp).ok_or_else(|| {
            format!("`{cpp}` is not a scalar type the REPL knows (int, float, double, …)")
        })?;
        if declaration.pointer {
            return Err(format!(
                "host pointers are not kept: declare a device buffer as `{cpp} {name}[N];` (or \
                 `:buf {name} {ty}[N]=zeros`) and pass its name to kernels"
            ));
        }
        let Some(count) = declaration.count else {
            let text = self.number(declaration.init.unwrap_or("0"), ty)?;
            self.buffers.remove(*name);
            self.scalars
                .insert(name.to_string(), HostScalar { ty, text });
            return Ok(());
        };
        let values = match declaration.init {
            Some(init) => {
                let list = init
                    .trim()
                    .strip_prefix('{')
                    .and_then(|l| l.strip_suffix('}'))
                    .ok_or_else(|| format!("`{name}`: an array takes `= {{v, …}}`"))?;
                split_top_level(list)
                    .into_iter()
                    .filter(|v| !v.is_empty())
                    .map(|v| self.number(&v, ty))
                    .collect::<Result<Vec<_>, _>>()?
            }
            None => Vec::new(),
        };
        let count = match count.trim() {
            "" => values.len() as u64,
            count => self.number(count, ElementType::U64)?.parse().unwrap_or(0),
        };
        if count == 0 || (values.len() as u64) > count {
            return Err(format!(
                "`{name}`: {count} elements, {} initial values",
                values.len()
            ));
        }
        let spec = ArgSpec::parse(&format!("{ty}[{count}]=zeros"))?;
        let prepared = prepare(&self.device, &self.stream, &spec)?;
        if !values.is_empty() {
            let mut bytes = Vec::new();
            for value in &values {
                bytes.extend(ty.encode(value)?);
            }
            bytes.resize(count as usize * ty.size(), 0);
            if let super::super::run::Prepared::Buffer { buffer, .. } = &prepared {
                buffer.copy_from_host(&bytes).map_err(|e| e.to_string())?;
            }
        }
        self.scalars.remove(*name);
        self.buffers.insert(name.to_string(), prepared);
        Ok(())
    }

    /// A literal or a host scalar as a literal of type `ty` (checked).
    fn number(&self, text: &str, ty: ElementType) -> Result<String, String> {
        let text = text.trim();
        let literal = match self.scalars.get(text) {
            Some(scalar) => scalar.text.clone(),
            None if text.starts_with("0x") || text.starts_with("0X") => text.to_string(),
            None => text
                .trim_end_matches(['f', 'F', 'u', 'U', 'l', 'L'])
                .to_string(),
        };
        let literal = match (ty.is_float(), literal.parse::<f64>()) {
            // C converts a floating-point value to an integer type by truncation.
            (false, Ok(v)) if literal.contains(['.', 'e', 'E']) => (v.trunc() as i128).to_string(),
            _ => literal,
        };
        ty.encode(&literal)
            .map_err(|e| format!("`{text}` is not a number or a host scalar ({e})"))?;
        Ok(literal)
    }

    fn value(&self, text: &str) -> Result<Value, String> {
        if let Some(string) = printf::string_literal(text) {
            return Ok(Value::Str(string));
        }
        let ty = match self.scalars.get(text.trim()) {
            Some(scalar) => scalar.ty,
            None if text.contains(['.', 'e', 'E']) && !text.contains(['x', 'X']) => {
                ElementType::F64
            }
            None => ElementType::I64,
        };
        let literal = self.number(text, ty)?;
        Ok(if ty.is_float() {
            Value::Float(
                literal
                    .parse()
                    .map_err(|_| format!("`{text}` is not a number"))?,
            )
        } else {
            Value::Int(parse_int(&literal).ok_or_else(|| format!("`{text}` is not an integer"))?)
        })
    }

    fn host_printf(&mut self, statement: &str) -> Result<Flow, String> {
        let args = statement["printf".len()..]
            .trim()
            .strip_prefix('(')
            .and_then(|a| a.strip_suffix(')'))
            .ok_or("printf: expected printf(\"FORMAT\", ARGS)")?;
        let args = split_top_level(args);
        let format = args
            .first()
            .and_then(|f| printf::string_literal(f))
            .ok_or("printf: the first argument must be a string literal")?;
        let values = args[1..]
            .iter()
            .map(|a| self.value(a))
            .collect::<Result<Vec<_>, _>>()?;
        print!("{}", printf::format(&format, &values)?);
        let _ = std::io::stdout().flush();
        Ok(Flow::Continue)
    }

    fn host_loop(&mut self, statement: &str, interrupted: &AtomicBool) -> Result<Flow, String> {
        let bad = |why: &str| {
            format!("for loop: {why} (the REPL runs `for (int i = A; i < B; i++) LAUNCH;`)")
        };
        let header = statement["for".len()..].trim_start();
        let close = closing_paren(header).ok_or_else(|| bad("unbalanced parentheses"))?;
        let parts: Vec<&str> = header[1..close].split(';').map(str::trim).collect();
        let [init, condition, step] = parts[..] else {
            return Err(bad("expected (INIT; CONDITION; STEP)"));
        };
        let body = header[close + 1..].trim();
        let body = match body.strip_prefix('{').and_then(|b| b.strip_suffix('}')) {
            Some(inner) => inner,
            None => body,
        };
        let (var, ty, start) = match declaration(init) {
            Some(d) if d.count.is_none() && !d.pointer => {
                let ty = cpp_element_type(&d.cpp).ok_or_else(|| bad("an integer loop variable"))?;
                (
                    d.name,
                    ty,
                    d.init.ok_or_else(|| bad("the variable needs a start"))?,
                )
            }
            _ => {
                let (name, start) = init.split_once('=').ok_or_else(|| bad("expected INIT"))?;
                (name.trim(), ElementType::I64, start)
            }
        };
        let int = |text: &str| -> Result<i128, String> {
            parse_int(&self.number(text, ElementType::I64)?).ok_or_else(|| bad("integer bounds"))
        };
        let start = int(start)?;
        let (op, bound) = ["<=", ">=", "!=", "<", ">"]
            .iter()
            .find_map(|op| {
                let (left, right) = condition.split_once(op)?;
                (left.trim() == var).then_some((*op, right))
            })
            .ok_or_else(|| bad(&format!("expected `{var} < BOUND`")))?;
        let bound = int(bound)?;
        let step = match step.replace(' ', "").as_str() {
            s if s == format!("{var}++") || s == format!("++{var}") => 1,
            s if s == format!("{var}--") || s == format!("--{var}") => -1,
            s => match s.strip_prefix(&format!("{var}+=")) {
                Some(k) => int(k)?,
                None => -int(s
                    .strip_prefix(&format!("{var}-="))
                    .ok_or_else(|| bad("expected i++ or i += K"))?)?,
            },
        };
        let holds = |i: i128| match op {
            "<" => i < bound,
            "<=" => i <= bound,
            ">" => i > bound,
            ">=" => i >= bound,
            _ => i != bound,
        };
        let ends = match op {
            "<" | "<=" => step > 0,
            ">" | ">=" => step < 0,
            _ => {
                step != 0
                    && (bound - start) % step == 0
                    && (bound - start).signum() == step.signum()
            }
        };
        if holds(start) && !ends {
            return Err(bad("the loop never ends"));
        }
        let body = units::sort(body);
        if body
            .iter()
            .any(|input| matches!(input, Input::Snippet(_) | Input::Command(_)))
        {
            return Err(bad(
                "its body holds launches, printf and loops only, no device code",
            ));
        }
        let saved = self.scalars.remove(var);
        let timing = std::mem::replace(&mut self.timing, false);
        let started = Instant::now();
        let mut i = start;
        let mut result = Ok(Flow::Continue);
        let mut iterations = 0u64;
        interrupted.store(false, Ordering::SeqCst);
        while holds(i) && result.is_ok() {
            self.scalars.insert(
                var.to_string(),
                HostScalar {
                    ty,
                    text: i.to_string(),
                },
            );
            for input in &body {
                result = match input {
                    Input::Launch(text) => self.launch(&self.substitute(text), interrupted),
                    Input::Host(text) => self.host(text, interrupted),
                    _ => Ok(Flow::Continue),
                }
                .map_err(|e| format!("{var} = {i}: {e}"));
                if result.is_err() {
                    break;
                }
            }
            if interrupted.swap(false, Ordering::SeqCst) && result.is_ok() {
                result = Err(format!("interrupted: the loop stopped at {var} = {i}"));
            }
            iterations += 1;
            i += step;
        }
        self.timing = timing;
        match saved {
            Some(scalar) => self.scalars.insert(var.to_string(), scalar),
            None => self.scalars.remove(var),
        };
        if result.is_ok() && self.timing {
            println!(
                "loop: {iterations} iterations in {:.3} ms",
                started.elapsed().as_secs_f64() * 1e3
            );
        }
        result
    }
}

/// `TYPE NAME[COUNT] = INIT` read as a declaration, when it is one.
fn declaration(statement: &str) -> Option<Declaration<'_>> {
    let (left, init) = match statement.split_once('=') {
        Some((left, init)) => (left.trim(), Some(init.trim())),
        None => (statement.trim(), None),
    };
    let (left, count) = match left.strip_suffix(']') {
        Some(rest) => {
            let (left, count) = rest.rsplit_once('[')?;
            (left.trim_end(), Some(count))
        }
        None => (left, None),
    };
    let split = left.rfind(|c: char| !(c.is_alphanumeric() || c == '_'))?;
    let (cpp, name) = (left[..split + 1].trim(), &left[split + 1..]);
    let pointer = cpp.ends_with('*');
    let cpp = cpp.trim_end_matches(['*', ' ']).to_string();
    let words_only = cpp
        .split_whitespace()
        .all(|w| w.chars().all(|c| c.is_alphanumeric() || c == '_'));
    (!name.is_empty()
        && !cpp.is_empty()
        && words_only
        && !name.starts_with(|c: char| c.is_ascii_digit()))
    .then_some(Declaration {
        cpp,
        name,
        pointer,
        count,
        init,
    })
}

/// The index of the `)` closing the `(` that `text` starts with.
fn closing_paren(text: &str) -> Option<usize> {
    let mut depth = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ if depth == 0 => return None,
            _ => {}
        }
    }
    None
}

fn parse_int(text: &str) -> Option<i128> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let magnitude = match digits.strip_prefix("0x").or(digits.strip_prefix("0X")) {
        Some(hex) => i128::from_str_radix(hex, 16).ok()?,
        None => digits.parse().ok()?,
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// The statement's first line, cut at 60 characters.
fn short(statement: &str) -> String {
    let line = statement.lines().next().unwrap_or("");
    match line.char_indices().nth(60) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None if statement.lines().nth(1).is_some() => format!("{line}…"),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_parse() {
        let d = declaration("unsigned int counts[n] = {1, 2}").unwrap();
        assert_eq!(
            d,
            Declaration {
                cpp: "unsigned int".into(),
                name: "counts",
                pointer: false,
                count: Some("n"),
                init: Some("{1, 2}")
            }
        );
        assert!(declaration("float *x").unwrap().pointer);
        assert_eq!(declaration("x = 3").map(|d| d.name), None);
        assert_eq!(declaration("cudaMalloc(&p, 4)"), None);
        assert_eq!(declaration("int main() { return 0; }"), None);
        assert_eq!(closing_paren("(a(b)) c"), Some(5));
        assert_eq!(short("int main() {\n}"), "int main() {…");
    }
}
