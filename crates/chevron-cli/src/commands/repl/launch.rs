//! `NAME<<<GRID, BLOCK[, SHARED]>>>(ARGS);`: parsing, and the type each literal argument takes.

use crate::spec::ElementType;

/// A parsed launch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchLine {
    /// The kernel query (name, `name<T, N>`, signature).
    pub kernel: String,
    /// Grid dimensions.
    pub grid: [u32; 3],
    /// Block dimensions.
    pub block: [u32; 3],
    /// Dynamic shared memory in bytes.
    pub shared: u32,
    /// The arguments as written: buffer names or literals.
    pub args: Vec<String>,
}

/// Parses a launch line.
pub fn parse_launch(text: &str) -> Result<LaunchLine, String> {
    let text = text.trim().trim_end_matches(';').trim();
    let bad = |why: &str| format!("launch `{text}`: {why}");
    let (kernel, rest) = text
        .split_once("<<<")
        .ok_or_else(|| bad("expected NAME<<<GRID, BLOCK>>>(ARGS);"))?;
    let (config, rest) = rest.split_once(">>>").ok_or_else(|| bad("missing `>>>`"))?;
    let args = rest
        .trim()
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(|| bad("expected (ARGS) after `>>>`"))?;
    let config = split_top_level(config);
    if !(2..=3).contains(&config.len()) {
        return Err(bad("expected <<<GRID, BLOCK[, SHARED]>>>"));
    }
    let shared = match config.get(2) {
        Some(text) => text
            .parse()
            .map_err(|_| bad(&format!("shared memory `{text}` is not a byte count")))?,
        None => 0,
    };
    Ok(LaunchLine {
        kernel: kernel.trim().to_string(),
        grid: dim3(&config[0]).map_err(|e| bad(&e))?,
        block: dim3(&config[1]).map_err(|e| bad(&e))?,
        shared,
        args: split_top_level(args)
            .into_iter()
            .filter(|a| !a.is_empty())
            .collect(),
    })
}

/// An integer or `dim3(x[, y[, z]])`.
fn dim3(text: &str) -> Result<[u32; 3], String> {
    let inner = text
        .strip_prefix("dim3")
        .map(str::trim)
        .and_then(|r| r.strip_prefix('('))
        .and_then(|r| r.strip_suffix(')'));
    let parts = match inner {
        Some(inner) => split_top_level(inner),
        None => vec![text.to_string()],
    };
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("`{text}` is not an integer or dim3(x, y, z)"));
    }
    let mut dims = [1u32; 3];
    for (dim, part) in dims.iter_mut().zip(&parts) {
        *dim = part
            .parse()
            .ok()
            .filter(|&d: &u32| d > 0)
            .ok_or_else(|| format!("`{part}` is not a positive integer"))?;
    }
    Ok(dims)
}

/// Splits at commas outside parentheses, braces, angle brackets and strings; parts trimmed.
pub fn split_top_level(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut current = String::new();
    let mut quoted = None;
    for c in text.chars() {
        match (quoted, c) {
            (Some(q), _) if c == q && !current.ends_with('\\') => quoted = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quoted = Some(c),
            (None, '(' | '<' | '{') => depth += 1,
            (None, ')' | '>' | '}') => depth -= 1,
            (None, ',') if depth == 0 => {
                parts.push(current.trim().to_string());
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.trim().is_empty() || !parts.is_empty() {
        parts.push(current.trim().to_string());
    }
    parts
}

/// The parameter types of a demangled signature (`k<int, 4>(float*, int)` gives
/// `["float*", "int"]`); `None` for an unmangled name.
pub fn parameter_types(signature: &str) -> Option<Vec<String>> {
    let open = signature.rfind('(')?;
    let inner = signature[open + 1..].strip_suffix(')')?;
    Some(split_top_level(inner))
}

/// The element type a literal argument is converted to: from the parameter's C++ type when
/// known, else from its size and whether the literal is written as a floating-point number.
pub fn literal_type(cpp: Option<&str>, size: u32, literal: &str) -> Result<ElementType, String> {
    use ElementType::*;
    if let Some(ty) = cpp.and_then(cpp_element_type) {
        return Ok(ty);
    }
    let float = literal.contains(['.', 'e', 'E']) && !literal.starts_with("0x");
    Ok(match (size, float) {
        (1, false) => I8,
        (2, false) => I16,
        (4, false) => I32,
        (8, false) => I64,
        (2, true) => F16,
        (4, true) => F32,
        (8, true) => F64,
        _ => {
            return Err(format!(
                "cannot pass literal `{literal}` as a {size}-byte parameter{}",
                cpp.map(|c| format!(" of type {c}")).unwrap_or_default()
            ))
        }
    })
}

/// The element type of a C++ scalar type (`unsigned int`, `float`, `__half`, …).
pub fn cpp_element_type(cpp: &str) -> Option<ElementType> {
    use ElementType::*;
    let words: Vec<&str> = cpp.split_whitespace().collect();
    Some(match words.join(" ").as_str() {
        "float" => F32,
        "double" => F64,
        "int" | "signed int" | "signed" | "int32_t" => I32,
        "unsigned int" | "unsigned" | "uint32_t" => U32,
        "long" | "long long" | "long int" | "long long int" | "int64_t" | "ptrdiff_t" => I64,
        "unsigned long" | "unsigned long long" | "unsigned long int" | "size_t" | "uint64_t" => U64,
        "short" | "int16_t" => I16,
        "unsigned short" | "uint16_t" => U16,
        "char" | "signed char" | "int8_t" => I8,
        "unsigned char" | "bool" | "uint8_t" => U8,
        "__half" | "half" => F16,
        "__nv_bfloat16" => Bf16,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launches_parse() {
        let launch = parse_launch("scale<<<dim3(2, 2), 128, 64>>>(x, 2.5f, 10);").unwrap();
        assert_eq!(launch.kernel, "scale");
        assert_eq!(launch.grid, [2, 2, 1]);
        assert_eq!(launch.block, [128, 1, 1]);
        assert_eq!(launch.shared, 64);
        assert_eq!(launch.args, ["x", "2.5f", "10"]);
        let template = parse_launch("k<int, 4><<<1, 32>>>();").unwrap();
        assert_eq!(template.kernel, "k<int, 4>");
        assert!(template.args.is_empty());
        assert!(parse_launch("k<<<0, 32>>>();").is_err());
        assert!(parse_launch("k<<<1>>>();").is_err());
    }

    #[test]
    fn literals_take_the_parameter_type() {
        let types = parameter_types("scale(float*, float, unsigned int)").unwrap();
        assert_eq!(types, ["float*", "float", "unsigned int"]);
        assert_eq!(
            literal_type(Some("float"), 4, "2").unwrap(),
            ElementType::F32
        );
        assert_eq!(literal_type(None, 8, "1.5").unwrap(), ElementType::F64);
        assert_eq!(literal_type(None, 4, "7").unwrap(), ElementType::I32);
        assert!(literal_type(None, 16, "7").is_err());
    }
}
