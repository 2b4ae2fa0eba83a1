//! Device-side `printf`: `vprintf(format, args)` as the CUDA device runtime defines it. The
//! format string is a C string in device memory; the arguments are packed in a buffer, each at
//! the next multiple of its size (ints and chars as 4 bytes, `long`s, pointers and doubles —
//! floats are promoted — as 8). Output is collected per block and handed to the launch's printf
//! sink as it fills ([`PRINTF_FLUSH_BYTES`]), or returned with the launch.
//!
//! Field widths and precisions are capped at [`FIELD_LIMIT`] and one call's output at
//! [`CALL_OUTPUT_LIMIT`] (a GPU drops records larger than its printf buffer), so formatting is
//! linear in what is printed and bounded whatever the format string asks for.

use crate::interp::block::Block;
use crate::interp::exec::{resolve_generic, Launch};
use crate::interp::fault::ExecFault;
use crate::interp::warp::Warp;

/// Longest C string read from device memory.
const MAX_STRING: usize = 1 << 16;
/// Largest field width or precision honoured; larger ones are clamped.
pub(crate) const FIELD_LIMIT: usize = 4096;
/// Most bytes one `printf` call prints; the rest of the call's output is dropped.
pub(crate) const CALL_OUTPUT_LIMIT: usize = 1 << 20;
/// A block's buffered output is handed to the launch's printf sink once it holds this much.
pub(crate) const PRINTF_FLUSH_BYTES: usize = 64 << 10;

/// Reads a decimal field (width or precision), saturating, clamped to [`FIELD_LIMIT`].
fn field(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<usize> {
    let mut value: Option<usize> = None;
    while let Some(digit) = chars.peek().and_then(|d| d.to_digit(10)) {
        let so_far = value.unwrap_or(0);
        value = Some(so_far.saturating_mul(10).saturating_add(digit as usize));
        chars.next();
    }
    value.map(|v| v.min(FIELD_LIMIT))
}

fn byte(w: &mut Warp, b: &Block, l: &Launch<'_>, lane: usize, addr: u64) -> Result<u8, ExecFault> {
    let loc = resolve_generic(addr);
    Ok(crate::interp::exec::load_at(w, b, l, loc, 1, lane, addr)? as u8)
}

/// Reads the NUL-terminated string at generic address `addr`.
pub(crate) fn c_string(
    w: &mut Warp,
    b: &Block,
    l: &Launch<'_>,
    lane: usize,
    addr: u64,
) -> Result<String, ExecFault> {
    string_at(&mut |a| byte(w, b, l, lane, a), addr)
}

/// The NUL-terminated string at generic address `addr`, its bytes read through `byte`.
fn string_at<E>(byte: &mut dyn FnMut(u64) -> Result<u8, E>, addr: u64) -> Result<String, E> {
    if addr == 0 {
        return Ok("(null)".to_string());
    }
    let mut bytes = Vec::new();
    while bytes.len() < MAX_STRING {
        let c = byte(addr.wrapping_add(bytes.len() as u64))?;
        if c == 0 {
            break;
        }
        bytes.push(c);
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The little-endian word of `len` bytes at `addr`, read through `byte`.
fn word<E>(byte: &mut dyn FnMut(u64) -> Result<u8, E>, addr: u64, len: u64) -> Result<u64, E> {
    let mut v = 0u64;
    for i in 0..len {
        v |= u64::from(byte(addr.wrapping_add(i))?) << (8 * i);
    }
    Ok(v)
}

/// A conversion specification: flags, width, precision, length and conversion letter.
#[derive(Debug, Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: Option<usize>,
    precision: Option<usize>,
    long: bool,
    conv: char,
}

/// Executes `vprintf` for one lane, appending the text to the block's output. Returns the
/// number of arguments consumed.
pub(crate) fn vprintf(
    w: &mut Warp,
    b: &mut Block,
    l: &Launch<'_>,
    lane: usize,
    format: u64,
    args: u64,
) -> Result<u64, ExecFault> {
    let (out, count) = {
        let block = &*b;
        format_vprintf(&mut |a| byte(w, block, l, lane, a), format, args)?
    };
    b.printf.push_str(&out);
    if b.printf.len() >= PRINTF_FLUSH_BYTES {
        l.flush_printf(&mut b.printf);
    }
    Ok(count)
}

/// What `vprintf(format, args)` prints, and the number of arguments it consumed: the format
/// string and the argument buffer (generic addresses) read byte by byte through `byte`, whose
/// error (a fault) ends the call. The interpreter's `vprintf` and compiled code's (the CPU
/// compiler's call out of generated code) both format through it.
pub fn format_vprintf<E>(
    byte: &mut dyn FnMut(u64) -> Result<u8, E>,
    format: u64,
    args: u64,
) -> Result<(String, u64), E> {
    let fmt = string_at(byte, format)?;
    let mut out = String::new();
    let mut offset = 0u64;
    let mut count = 0u64;
    let mut next_arg = |byte: &mut dyn FnMut(u64) -> Result<u8, E>, size: u64| -> Result<u64, E> {
        offset = offset.next_multiple_of(size);
        let v = word(byte, args.wrapping_add(offset), size)?;
        offset += size;
        count += 1;
        Ok(v)
    };
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        if out.len() >= CALL_OUTPUT_LIMIT {
            break;
        }
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut spec = Spec::default();
        while let Some(&f) = chars.peek() {
            match f {
                '-' => spec.left = true,
                '+' => spec.plus = true,
                ' ' => spec.space = true,
                '#' => spec.alt = true,
                '0' => spec.zero = true,
                _ => break,
            }
            chars.next();
        }
        if chars.peek() == Some(&'*') {
            chars.next();
            let v = next_arg(byte, 4)? as u32 as i32;
            spec.left |= v < 0;
            spec.width = Some((v.unsigned_abs() as usize).min(FIELD_LIMIT));
        } else {
            spec.width = field(&mut chars);
        }
        if chars.peek() == Some(&'.') {
            chars.next();
            if chars.peek() == Some(&'*') {
                chars.next();
                let v = next_arg(byte, 4)? as u32 as i32;
                spec.precision = (v >= 0).then_some((v as usize).min(FIELD_LIMIT));
            } else {
                spec.precision = Some(field(&mut chars).unwrap_or(0));
            }
        }
        while let Some(&m) = chars.peek() {
            match m {
                'l' | 'z' | 'j' | 't' | 'L' | 'q' => spec.long = true,
                'h' => {}
                _ => break,
            }
            chars.next();
        }
        let Some(conv) = chars.next() else { break };
        spec.conv = conv;
        let size = if spec.long { 8 } else { 4 };
        let body = match conv {
            '%' => {
                out.push('%');
                continue;
            }
            'd' | 'i' => {
                let v = next_arg(byte, size)?;
                let v = if spec.long {
                    v as i64
                } else {
                    i64::from(v as u32 as i32)
                };
                integer(&spec, v < 0, u128::from(v.unsigned_abs()), 10, false)
            }
            'u' | 'x' | 'X' | 'o' => {
                let v = next_arg(byte, size)?;
                let v = if spec.long { v } else { u64::from(v as u32) };
                let radix = match conv {
                    'o' => 8,
                    'u' => 10,
                    _ => 16,
                };
                integer(&spec, false, u128::from(v), radix, conv == 'X')
            }
            'c' => char::from(next_arg(byte, 4)? as u8).to_string(),
            's' => {
                let ptr = next_arg(byte, 8)?;
                let mut s = string_at(byte, ptr)?;
                if let Some(p) = spec.precision {
                    s = s.chars().take(p).collect();
                }
                s
            }
            'p' => format!("0x{:x}", next_arg(byte, 8)?),
            'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'a' | 'A' => {
                float(&spec, f64::from_bits(next_arg(byte, 8)?))
            }
            'n' => {
                next_arg(byte, 8)?;
                continue;
            }
            other => {
                out.push('%');
                out.push(other);
                continue;
            }
        };
        pad(&mut out, &spec, body);
    }
    if out.len() > CALL_OUTPUT_LIMIT {
        let mut end = CALL_OUTPUT_LIMIT;
        while !out.is_char_boundary(end) {
            end -= 1;
        }
        out.truncate(end);
    }
    Ok((out, count))
}

fn pad(out: &mut String, spec: &Spec, body: String) {
    let width = spec.width.unwrap_or(0);
    let len = body.chars().count();
    if len >= width {
        out.push_str(&body);
        return;
    }
    let fill = width - len;
    let numeric = !matches!(spec.conv, 's' | 'c' | 'p');
    if spec.left {
        out.push_str(&body);
        out.extend(std::iter::repeat_n(' ', fill));
    } else if spec.zero
        && numeric
        && !(spec.precision.is_some() && "diuxXo".contains(spec.conv))
        && !body.contains("inf")
        && !body.contains("nan")
    {
        let sign_len = body.find(|c: char| c.is_ascii_alphanumeric()).unwrap_or(0);
        let prefix_len = if body[sign_len..].starts_with("0x") || body[sign_len..].starts_with("0X")
        {
            sign_len + 2
        } else {
            sign_len
        };
        out.push_str(&body[..prefix_len]);
        out.extend(std::iter::repeat_n('0', fill));
        out.push_str(&body[prefix_len..]);
    } else {
        out.extend(std::iter::repeat_n(' ', fill));
        out.push_str(&body);
    }
}

fn sign(spec: &Spec, negative: bool) -> &'static str {
    if negative {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    }
}

fn integer(spec: &Spec, negative: bool, magnitude: u128, radix: u32, upper: bool) -> String {
    let mut digits = match radix {
        8 => format!("{magnitude:o}"),
        16 if upper => format!("{magnitude:X}"),
        16 => format!("{magnitude:x}"),
        _ => magnitude.to_string(),
    };
    if let Some(p) = spec.precision {
        if p == 0 && magnitude == 0 {
            digits.clear();
        }
        if digits.len() < p {
            digits = "0".repeat(p - digits.len()) + &digits;
        }
    }
    let prefix = match (spec.alt, radix, magnitude) {
        (true, 16, m) if m != 0 => {
            if upper {
                "0X"
            } else {
                "0x"
            }
        }
        (true, 8, _) if !digits.starts_with('0') => "0",
        _ => "",
    };
    let sign = if "di".contains(spec.conv) {
        sign(spec, negative)
    } else {
        ""
    };
    format!("{sign}{prefix}{digits}")
}

/// C's `%e` body for a finite non-negative value: `d.ddde±XX`.
fn exponent_form(v: f64, precision: usize, upper: bool) -> String {
    let s = format!("{v:.precision$e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let e = if upper { 'E' } else { 'e' };
    format!(
        "{mantissa}{e}{}{:02}",
        if exp < 0 { '-' } else { '+' },
        exp.unsigned_abs()
    )
}

fn strip_zeros(s: String) -> String {
    if !s.contains('.') {
        return s;
    }
    let (mantissa, exp) = match s.find(['e', 'E']) {
        Some(i) => (s[..i].to_string(), s[i..].to_string()),
        None => (s.clone(), String::new()),
    };
    let mantissa = mantissa
        .trim_end_matches('0')
        .trim_end_matches('.')
        .to_string();
    mantissa + &exp
}

fn float(spec: &Spec, v: f64) -> String {
    let upper = spec.conv.is_ascii_uppercase();
    // C's printf (which formats CUDA's device printf on the host) writes `-nan` for a NaN with
    // the sign bit set, such as the 0xfff8000000000000 of a GPU's invalid f64 operation.
    let negative = v.is_sign_negative();
    let a = v.abs();
    let body = if v.is_nan() {
        "nan".to_string()
    } else if v.is_infinite() {
        "inf".to_string()
    } else {
        let p = spec.precision.unwrap_or(6);
        match spec.conv.to_ascii_lowercase() {
            'f' => format!("{a:.p$}"),
            'e' => exponent_form(a, p, upper),
            'a' => format!("{a:e}"),
            _ => {
                let p = p.max(1);
                let exp = if a == 0.0 {
                    0
                } else {
                    let s = format!("{a:.prec$e}", prec = p - 1);
                    s.split_once('e')
                        .and_then(|(_, e)| e.parse::<i32>().ok())
                        .unwrap_or(0)
                };
                let s = if exp < -4 || exp >= p as i32 {
                    exponent_form(a, p - 1, upper)
                } else {
                    format!("{a:.prec$}", prec = (p as i32 - 1 - exp).max(0) as usize)
                };
                if spec.alt {
                    s
                } else {
                    strip_zeros(s)
                }
            }
        }
    };
    let body = if upper { body.to_uppercase() } else { body };
    format!("{}{body}", sign(spec, negative))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Formats one conversion the way `vprintf` does, from its spec text (e.g. "08.3f").
    fn one(spec_text: &str, value: f64) -> String {
        let conv = spec_text.chars().last().unwrap_or('d');
        let body = &spec_text[..spec_text.len() - 1];
        let mut spec = Spec {
            conv,
            ..Spec::default()
        };
        let mut rest = body;
        while let Some(c) = rest.chars().next().filter(|c| "-+ #0".contains(*c)) {
            match c {
                '-' => spec.left = true,
                '+' => spec.plus = true,
                ' ' => spec.space = true,
                '#' => spec.alt = true,
                _ => spec.zero = true,
            }
            rest = &rest[1..];
        }
        let (width, precision) = match rest.split_once('.') {
            Some((w, p)) => (w, Some(p.parse().unwrap_or(0))),
            None => (rest, None),
        };
        spec.width = width.parse().ok();
        spec.precision = precision;
        let body = match conv {
            'd' | 'i' => integer(&spec, value < 0.0, value.abs() as u128, 10, false),
            'x' => integer(&spec, false, value as u128, 16, false),
            'X' => integer(&spec, false, value as u128, 16, true),
            'o' => integer(&spec, false, value as u128, 8, false),
            _ => float(&spec, value),
        };
        let mut out = String::new();
        pad(&mut out, &spec, body);
        out
    }

    #[test]
    fn conversions_match_c_printf() {
        let cases: &[(&str, f64, &str)] = &[
            ("d", -42.0, "-42"),
            ("5d", 42.0, "   42"),
            ("-5d", 42.0, "42   "),
            ("05d", -42.0, "-0042"),
            ("+d", 7.0, "+7"),
            (".3d", 7.0, "007"),
            ("x", 255.0, "ff"),
            ("#X", 255.0, "0XFF"),
            ("#o", 8.0, "010"),
            ("f", 1.5, "1.500000"),
            ("8.3f", -4.56789, "  -4.568"),
            ("08.2f", 4.56789, "00004.57"),
            ("e", 12345.678, "1.234568e+04"),
            (".2E", 0.000123, "1.23E-04"),
            ("g", 0.0001, "0.0001"),
            ("g", 123456789.0, "1.23457e+08"),
            ("g", 100.0, "100"),
            (".3g", 4.56789, "4.57"),
            ("#g", 1.0, "1.00000"),
            ("f", f64::INFINITY, "inf"),
            ("F", f64::NEG_INFINITY, "-INF"),
            ("5f", f64::NAN, "  nan"),
            ("5f", f64::from_bits(0xfff8_0000_0000_0000), " -nan"),
        ];
        for (spec, value, expected) in cases {
            assert_eq!(one(spec, *value), *expected, "%{spec} of {value}");
        }
    }

    #[test]
    fn fields_are_clamped_while_parsing() {
        let mut chars = "999999999999999999999999d".chars().peekable();
        assert_eq!(field(&mut chars), Some(FIELD_LIMIT));
        assert_eq!(chars.next(), Some('d'));
        let mut none = "d".chars().peekable();
        assert_eq!(field(&mut none), None);
    }
}
