//! The `--arg SPEC` language of `chevron run`.
//!
//! ```text
//! SPEC  TYPE:VALUE                      a scalar; TYPE is i8 i16 i32 i64 u8 u16 u32 u64 f32 f64
//!       TYPE[COUNT]=zeros               a device buffer of COUNT elements, zero-filled
//!       TYPE[COUNT]=fill:VALUE | =iota | =file:PATH   (PATH holds raw little-endian elements)
//! ```

use std::fmt;
use std::path::PathBuf;

/// An element type of a scalar or buffer argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementType {
    /// `i8`
    I8,
    /// `i16`
    I16,
    /// `i32`
    I32,
    /// `i64`
    I64,
    /// `u8`
    U8,
    /// `u16`
    U16,
    /// `u32`
    U32,
    /// `u64`
    U64,
    /// `f32`
    F32,
    /// `f64`
    F64,
}

impl ElementType {
    fn parse(word: &str) -> Option<ElementType> {
        use ElementType::*;
        Some(match word {
            "i8" => I8,
            "i16" => I16,
            "i32" => I32,
            "i64" => I64,
            "u8" => U8,
            "u16" => U16,
            "u32" => U32,
            "u64" => U64,
            "f32" => F32,
            "f64" => F64,
            _ => return None,
        })
    }

    /// Size of one element in bytes.
    pub fn size(self) -> usize {
        use ElementType::*;
        match self {
            I8 | U8 => 1,
            I16 | U16 => 2,
            I32 | U32 | F32 => 4,
            I64 | U64 | F64 => 8,
        }
    }

    /// Parses one value of this type into its little-endian bytes.
    pub fn encode(self, text: &str) -> Result<Vec<u8>, String> {
        use ElementType::*;
        let bad = |e: &dyn fmt::Display| format!("`{text}` is not a valid {self}: {e}");
        Ok(match self {
            F32 => text
                .parse::<f32>()
                .map_err(|e| bad(&e))?
                .to_le_bytes()
                .to_vec(),
            F64 => text
                .parse::<f64>()
                .map_err(|e| bad(&e))?
                .to_le_bytes()
                .to_vec(),
            _ => {
                let value = parse_integer(text).map_err(|e| bad(&e))?;
                let bits = self.size() * 8;
                let (min, max) = if matches!(self, I8 | I16 | I32 | I64) {
                    (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
                } else {
                    (0, (1i128 << bits) - 1)
                };
                if value < min || value > max {
                    return Err(bad(&format!("out of range {min}..={max}")));
                }
                value.to_le_bytes()[..self.size()].to_vec()
            }
        })
    }

    /// `count` elements 0, 1, 2, … as little-endian bytes.
    pub fn iota(self, count: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(count * self.size());
        for i in 0..count {
            // Indices beyond the type's range wrap, like a C cast.
            let bytes = match self {
                ElementType::F32 => (i as f32).to_le_bytes().to_vec(),
                ElementType::F64 => (i as f64).to_le_bytes().to_vec(),
                _ => (i as u128).to_le_bytes()[..self.size()].to_vec(),
            };
            out.extend_from_slice(&bytes);
        }
        out
    }

    /// Decodes little-endian elements into JSON numbers.
    pub fn decode(self, bytes: &[u8]) -> Vec<serde_json::Value> {
        use ElementType::*;
        bytes
            .chunks_exact(self.size())
            .map(|c| match self {
                I8 => (c[0] as i8).into(),
                I16 => i16::from_le_bytes([c[0], c[1]]).into(),
                I32 => i32::from_le_bytes(c.try_into().expect("4 bytes")).into(),
                I64 => i64::from_le_bytes(c.try_into().expect("8 bytes")).into(),
                U8 => c[0].into(),
                U16 => u16::from_le_bytes([c[0], c[1]]).into(),
                U32 => u32::from_le_bytes(c.try_into().expect("4 bytes")).into(),
                U64 => u64::from_le_bytes(c.try_into().expect("8 bytes")).into(),
                F32 => float_json(f32::from_le_bytes(c.try_into().expect("4 bytes")) as f64),
                F64 => float_json(f64::from_le_bytes(c.try_into().expect("8 bytes"))),
            })
            .collect()
    }
}

/// JSON has no NaN or infinity: those become strings.
fn float_json(value: f64) -> serde_json::Value {
    serde_json::Number::from_f64(value)
        .map(serde_json::Value::Number)
        .unwrap_or_else(|| serde_json::Value::String(value.to_string()))
}

fn parse_integer(text: &str) -> Result<i128, String> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let magnitude = if let Some(hex) = digits.strip_prefix("0x").or(digits.strip_prefix("0X")) {
        i128::from_str_radix(hex, 16)
    } else {
        digits.parse::<i128>()
    }
    .map_err(|e| e.to_string())?;
    Ok(if negative { -magnitude } else { magnitude })
}

impl fmt::Display for ElementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = format!("{self:?}").to_lowercase();
        f.write_str(&name)
    }
}

/// How a buffer argument starts out.
#[derive(Debug, Clone, PartialEq)]
pub enum BufferInit {
    /// `=zeros`
    Zeros,
    /// `=fill:VALUE`: every element is this value (little-endian bytes of one element).
    Fill(Vec<u8>),
    /// `=iota`: 0, 1, 2, …
    Iota,
    /// `=file:PATH`: raw little-endian elements.
    File(PathBuf),
}

/// One `--arg`.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgSpec {
    /// `TYPE:VALUE`.
    Scalar {
        /// Its type.
        ty: ElementType,
        /// Its little-endian bytes.
        bytes: Vec<u8>,
    },
    /// `TYPE[COUNT]=INIT`.
    Buffer {
        /// Element type.
        ty: ElementType,
        /// Number of elements.
        count: usize,
        /// Initial contents.
        init: BufferInit,
    },
}

impl ArgSpec {
    /// Parses one SPEC.
    pub fn parse(spec: &str) -> Result<ArgSpec, String> {
        let err = |why: &str| format!("invalid --arg `{spec}`: {why}");
        if let Some(open) = spec.find('[') {
            let ty_word = &spec[..open];
            let ty = ElementType::parse(ty_word)
                .ok_or_else(|| err(&format!("unknown type `{ty_word}`")))?;
            let close = spec[open..]
                .find(']')
                .map(|i| open + i)
                .ok_or_else(|| err("missing `]`"))?;
            let count: usize = spec[open + 1..close]
                .parse()
                .map_err(|_| err("COUNT must be a non-negative integer"))?;
            if count == 0 {
                return Err(err("COUNT must be at least 1"));
            }
            let init = spec[close + 1..]
                .strip_prefix('=')
                .ok_or_else(|| err("expected `=zeros`, `=fill:VALUE`, `=iota` or `=file:PATH`"))?;
            let init = match init {
                "zeros" => BufferInit::Zeros,
                "iota" => BufferInit::Iota,
                _ => {
                    if let Some(value) = init.strip_prefix("fill:") {
                        BufferInit::Fill(ty.encode(value).map_err(|e| err(&e))?)
                    } else if let Some(path) = init.strip_prefix("file:") {
                        BufferInit::File(PathBuf::from(path))
                    } else {
                        return Err(err(
                            "expected `=zeros`, `=fill:VALUE`, `=iota` or `=file:PATH`",
                        ));
                    }
                }
            };
            return Ok(ArgSpec::Buffer { ty, count, init });
        }
        let (ty_word, value) = spec
            .split_once(':')
            .ok_or_else(|| err("expected TYPE:VALUE or TYPE[COUNT]=INIT"))?;
        let ty =
            ElementType::parse(ty_word).ok_or_else(|| err(&format!("unknown type `{ty_word}`")))?;
        let bytes = ty.encode(value).map_err(|e| err(&e))?;
        Ok(ArgSpec::Scalar { ty, bytes })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars() {
        assert_eq!(
            ArgSpec::parse("f32:2.5").unwrap(),
            ArgSpec::Scalar {
                ty: ElementType::F32,
                bytes: 2.5f32.to_le_bytes().to_vec()
            }
        );
        assert_eq!(
            ArgSpec::parse("i16:-2").unwrap(),
            ArgSpec::Scalar {
                ty: ElementType::I16,
                bytes: (-2i16).to_le_bytes().to_vec()
            }
        );
        assert_eq!(
            ArgSpec::parse("u64:0xff").unwrap(),
            ArgSpec::Scalar {
                ty: ElementType::U64,
                bytes: 255u64.to_le_bytes().to_vec()
            }
        );
        assert!(ArgSpec::parse("u8:256")
            .unwrap_err()
            .contains("out of range"));
        assert!(ArgSpec::parse("q32:1")
            .unwrap_err()
            .contains("unknown type `q32`"));
    }

    #[test]
    fn buffers() {
        assert_eq!(
            ArgSpec::parse("f32[4]=fill:1.5").unwrap(),
            ArgSpec::Buffer {
                ty: ElementType::F32,
                count: 4,
                init: BufferInit::Fill(1.5f32.to_le_bytes().to_vec())
            }
        );
        assert_eq!(
            ArgSpec::parse("i32[3]=file:/tmp/x.bin").unwrap(),
            ArgSpec::Buffer {
                ty: ElementType::I32,
                count: 3,
                init: BufferInit::File("/tmp/x.bin".into())
            }
        );
        assert!(ArgSpec::parse("i32[0]=zeros").is_err());
        assert!(ArgSpec::parse("i32[4]=ones").is_err());
        assert!(ArgSpec::parse("i32[4=zeros").is_err());
    }

    #[test]
    fn iota_and_decode() {
        let bytes = ElementType::I32.iota(3);
        let values = ElementType::I32.decode(&bytes);
        assert_eq!(
            values,
            vec![
                serde_json::json!(0),
                serde_json::json!(1),
                serde_json::json!(2)
            ]
        );
        let f = ElementType::F64.decode(&ElementType::F64.iota(2));
        assert_eq!(f[1], serde_json::json!(1.0));
    }
}
