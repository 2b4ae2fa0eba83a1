//! The REPL's host `printf`: C's conversions (`%d %i %u %x %X %o %c %s %f %e %g %%`, with flags,
//! width and precision; length modifiers are accepted and ignored) over numbers and strings.

/// One argument of a host `printf`.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// An integer.
    Int(i128),
    /// A floating-point number.
    Float(f64),
    /// A string literal's text.
    Str(String),
}

impl Value {
    fn as_int(&self) -> Result<i128, String> {
        match self {
            Value::Int(v) => Ok(*v),
            Value::Float(v) => Ok(*v as i128),
            Value::Str(s) => Err(format!("`\"{s}\"` is not a number")),
        }
    }

    fn as_float(&self) -> Result<f64, String> {
        match self {
            Value::Int(v) => Ok(*v as f64),
            Value::Float(v) => Ok(*v),
            Value::Str(s) => Err(format!("`\"{s}\"` is not a number")),
        }
    }
}

/// The text of a C string literal (`"a\n"` gives `a` and a newline).
pub fn string_literal(text: &str) -> Option<String> {
    let inner = text.trim().strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            '0' => '\0',
            other => other,
        });
    }
    Some(out)
}

/// Formats `format` with `args` as C's printf does.
pub fn format(format: &str, args: &[Value]) -> Result<String, String> {
    let mut out = String::new();
    let mut args = args.iter();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut flags = String::new();
        while let Some(&f) = chars.peek().filter(|f| "-+ 0#".contains(**f)) {
            flags.push(f);
            chars.next();
        }
        let width = digits(&mut chars);
        let precision = if chars.peek() == Some(&'.') {
            chars.next();
            Some(digits(&mut chars).unwrap_or(0))
        } else {
            None
        };
        while chars.peek().is_some_and(|c| "hlLzjt".contains(*c)) {
            chars.next();
        }
        let conversion = chars
            .next()
            .ok_or("printf: the format ends inside a conversion")?;
        if conversion == '%' {
            out.push('%');
            continue;
        }
        let arg = args
            .next()
            .ok_or_else(|| format!("printf: no argument for `%{conversion}`"))?;
        let text = match conversion {
            'd' | 'i' => signed(arg.as_int()?, &flags),
            'u' => (arg.as_int()? as u64).to_string(),
            'x' => format!("{:x}", arg.as_int()? as u64),
            'X' => format!("{:X}", arg.as_int()? as u64),
            'o' => format!("{:o}", arg.as_int()? as u64),
            'c' => char::from_u32(arg.as_int()? as u32)
                .unwrap_or('?')
                .to_string(),
            's' => match arg {
                Value::Str(s) => s.clone(),
                other => return Err(format!("printf: `%s` takes a string, not {other:?}")),
            },
            'f' | 'F' => signed_float(
                format!("{:.*}", precision.unwrap_or(6), arg.as_float()?),
                &flags,
            ),
            'e' | 'E' => signed_float(exponent(arg.as_float()?, precision.unwrap_or(6)), &flags),
            'g' | 'G' => signed_float(general(arg.as_float()?, precision.unwrap_or(6)), &flags),
            other => return Err(format!("printf: `%{other}` is not supported")),
        };
        out.push_str(&pad(text, width.unwrap_or(0), &flags));
    }
    if args.next().is_some() {
        return Err("printf: more arguments than conversions".into());
    }
    Ok(out)
}

fn digits(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<usize> {
    let mut text = String::new();
    while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
        text.push(d);
        chars.next();
    }
    text.parse().ok()
}

fn signed(value: i128, flags: &str) -> String {
    signed_float(value.to_string(), flags)
}

fn signed_float(text: String, flags: &str) -> String {
    if text.starts_with('-') {
        text
    } else if flags.contains('+') {
        format!("+{text}")
    } else if flags.contains(' ') {
        format!(" {text}")
    } else {
        text
    }
}

fn pad(text: String, width: usize, flags: &str) -> String {
    let len = text.chars().count();
    if len >= width {
        return text;
    }
    let fill = width - len;
    if flags.contains('-') {
        format!("{text}{}", " ".repeat(fill))
    } else if flags.contains('0') {
        let (sign, digits) = match text.strip_prefix(['-', '+', ' ']) {
            Some(rest) => (&text[..1], rest),
            None => ("", text.as_str()),
        };
        format!("{sign}{}{digits}", "0".repeat(fill))
    } else {
        format!("{}{text}", " ".repeat(fill))
    }
}

/// `%e`: `1.500000e+00`.
fn exponent(value: f64, precision: usize) -> String {
    if !value.is_finite() {
        return value.to_string();
    }
    let text = format!("{value:.precision$e}");
    let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    format!(
        "{mantissa}e{}{:02}",
        if exp < 0 { '-' } else { '+' },
        exp.abs()
    )
}

/// `%g`: `%e` or `%f` by the exponent, without trailing zeros.
fn general(value: f64, precision: usize) -> String {
    let precision = precision.max(1);
    if value == 0.0 || !value.is_finite() {
        return value.to_string();
    }
    let exp = value.abs().log10().floor() as i32;
    let trim = |text: String| -> String {
        if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            text
        }
    };
    if exp < -4 || exp >= precision as i32 {
        let text = exponent(value, precision - 1);
        let (mantissa, exp) = text.split_once('e').unwrap_or((&text, ""));
        format!("{}e{exp}", trim(mantissa.to_string()))
    } else {
        trim(format!(
            "{:.*}",
            (precision as i32 - 1 - exp) as usize,
            value
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_as_c_does() {
        let args = [
            Value::Int(42),
            Value::Float(2.5),
            Value::Float(0.0001234),
            Value::Str("ok".into()),
            Value::Int(-7),
            Value::Float(1234567.0),
        ];
        assert_eq!(
            format("n=%5d x=%.2f e=%e s=%-3s| %03d%%", &args[..5]).unwrap(),
            "n=   42 x=2.50 e=1.234000e-04 s=ok | -07%"
        );
        assert_eq!(
            format("%g %g", &[args[2].clone(), args[5].clone()]).unwrap(),
            "0.0001234 1.23457e+06"
        );
        assert_eq!(string_literal(r#""a\tb\n""#).unwrap(), "a\tb\n");
        assert!(format("%d", &[]).is_err());
        assert!(format("%d", &args[..2]).is_err());
    }
}
