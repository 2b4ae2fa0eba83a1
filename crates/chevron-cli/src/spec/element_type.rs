//! Element types of `--arg` specs: parsing one value into little-endian bytes, and decoding
//! saved elements back into JSON numbers.

use std::fmt;

use half::{bf16, f16};

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
    /// `f16`: IEEE binary16 (CUDA `__half`).
    F16,
    /// `bf16`: bfloat16 (CUDA `__nv_bfloat16`).
    Bf16,
    /// `f32`
    F32,
    /// `f64`
    F64,
    /// `b8`: raw bits; accepts any integer that fits in 8 bits, signed or not.
    B8,
    /// `b16`: raw bits (16).
    B16,
    /// `b32`: raw bits (32), e.g. `b32:0x3fc00000` for an `.f32` parameter's 1.5.
    B32,
    /// `b64`: raw bits (64).
    B64,
}

impl ElementType {
    /// The type a word such as `i32` or `bf16` names.
    pub fn parse(word: &str) -> Option<ElementType> {
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
            "f16" => F16,
            "bf16" => Bf16,
            "f32" => F32,
            "f64" => F64,
            "b8" => B8,
            "b16" => B16,
            "b32" => B32,
            "b64" => B64,
            _ => return None,
        })
    }

    /// Size of one element in bytes.
    pub fn size(self) -> usize {
        use ElementType::*;
        match self {
            I8 | U8 | B8 => 1,
            I16 | U16 | F16 | Bf16 | B16 => 2,
            I32 | U32 | F32 | B32 => 4,
            I64 | U64 | F64 | B64 => 8,
        }
    }

    /// Whether values of this type are floating-point numbers.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            ElementType::F16 | ElementType::Bf16 | ElementType::F32 | ElementType::F64
        )
    }

    /// Whether this is a raw-bits type (`b8` … `b64`).
    pub fn is_raw_bits(self) -> bool {
        matches!(
            self,
            ElementType::B8 | ElementType::B16 | ElementType::B32 | ElementType::B64
        )
    }

    /// Parses one value of this type into its little-endian bytes. Floating-point text is
    /// rounded to the nearest value of the type (ties to even); a finite number too large for
    /// the type is out of range (`inf` and `nan` are written as such).
    pub fn encode(self, text: &str) -> Result<Vec<u8>, String> {
        use ElementType::*;
        let bad = |e: &dyn fmt::Display| format!("`{text}` is not a valid {self}: {e}");
        let out_of_range = || {
            bad(&format!(
                "out of range (largest finite {self}: {})",
                self.max_finite()
            ))
        };
        let float = || text.parse::<f64>().map_err(|e| bad(&e));
        let bytes = match self {
            F16 => f16::from_f64(float()?).to_le_bytes().to_vec(),
            Bf16 => bf16::from_f64(float()?).to_le_bytes().to_vec(),
            F32 => text
                .parse::<f32>()
                .map_err(|e| bad(&e))?
                .to_le_bytes()
                .to_vec(),
            F64 => float()?.to_le_bytes().to_vec(),
            _ => {
                let value = parse_integer(text).map_err(|e| bad(&e))?;
                let bits = self.size() * 8;
                let (min, max) = if matches!(self, I8 | I16 | I32 | I64) {
                    (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
                } else if self.is_raw_bits() {
                    (-(1i128 << (bits - 1)), (1i128 << bits) - 1)
                } else {
                    (0, (1i128 << bits) - 1)
                };
                if value < min || value > max {
                    return Err(bad(&format!("out of range {min}..={max}")));
                }
                return Ok(value.to_le_bytes()[..self.size()].to_vec());
            }
        };
        let infinite = self.decode(&bytes)[0]
            .as_str()
            .is_some_and(|v| v.ends_with("inf"));
        if infinite && !names_infinity(text) {
            return Err(out_of_range());
        }
        Ok(bytes)
    }

    /// The largest finite value of a floating-point type (for messages).
    fn max_finite(self) -> String {
        match self {
            ElementType::F16 => format!("{:e}", f16::MAX.to_f64()),
            ElementType::Bf16 => format!("{:e}", bf16::MAX.to_f64()),
            ElementType::F32 => format!("{:e}", f32::MAX),
            _ => format!("{:e}", f64::MAX),
        }
    }

    /// `count` elements 0, 1, 2, … as little-endian bytes.
    #[cfg(test)]
    pub fn iota(self, count: usize) -> Vec<u8> {
        let mut out = Vec::new();
        self.iota_into(0, count as u64, &mut out);
        out
    }

    /// Appends elements `start`, `start + 1`, … (`count` of them) to `out`, as little-endian
    /// bytes.
    pub fn iota_into(self, start: u64, count: u64, out: &mut Vec<u8>) {
        out.reserve(count as usize * self.size());
        for i in start..start + count {
            // Indices beyond the type's range wrap, like a C cast.
            match self {
                ElementType::F16 => out.extend_from_slice(&f16::from_f64(i as f64).to_le_bytes()),
                ElementType::Bf16 => out.extend_from_slice(&bf16::from_f64(i as f64).to_le_bytes()),
                ElementType::F32 => out.extend_from_slice(&(i as f32).to_le_bytes()),
                ElementType::F64 => out.extend_from_slice(&(i as f64).to_le_bytes()),
                _ => out.extend_from_slice(&i.to_le_bytes()[..self.size()]),
            }
        }
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
                U8 | B8 => c[0].into(),
                U16 | B16 => u16::from_le_bytes([c[0], c[1]]).into(),
                U32 | B32 => u32::from_le_bytes(c.try_into().expect("4 bytes")).into(),
                U64 | B64 => u64::from_le_bytes(c.try_into().expect("8 bytes")).into(),
                F16 => float_json(f16::from_le_bytes([c[0], c[1]]).to_f64()),
                Bf16 => float_json(bf16::from_le_bytes([c[0], c[1]]).to_f64()),
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

/// Whether `text` spells an infinity (`inf`, `-Infinity`, …) rather than a number too large.
fn names_infinity(text: &str) -> bool {
    let magnitude = text.trim_start_matches(['+', '-']).to_ascii_lowercase();
    magnitude == "inf" || magnitude == "infinity"
}

/// A decimal or `0x` hexadecimal integer, optionally negative.
pub fn parse_integer(text: &str) -> Result<i128, String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_types_round_to_nearest_even() {
        assert_eq!(ElementType::F16.encode("1.5").unwrap(), vec![0x00, 0x3e]);
        assert_eq!(ElementType::Bf16.encode("-2").unwrap(), vec![0x00, 0xc0]);
        // 1 + 2^-11 is halfway between two binary16 values: ties go to the even one, 1.0.
        assert_eq!(
            ElementType::F16.encode("1.00048828125").unwrap(),
            vec![0x00, 0x3c]
        );
        // 1 + 3*2^-11 rounds up to 1 + 2^-9.
        assert_eq!(
            ElementType::F16.encode("1.00146484375").unwrap(),
            vec![0x02, 0x3c]
        );
        assert_eq!(
            ElementType::F16.decode(&[0x00, 0x3e, 0x00, 0xfc]),
            vec![serde_json::json!(1.5), serde_json::json!("-inf")]
        );
        assert_eq!(
            ElementType::Bf16.decode(&ElementType::Bf16.iota(3))[2],
            serde_json::json!(2.0)
        );
        assert!(ElementType::Bf16.encode("x").is_err());
    }

    #[test]
    fn integers_check_their_range() {
        assert_eq!(ElementType::I16.encode("-2").unwrap(), vec![0xfe, 0xff]);
        assert!(ElementType::U8
            .encode("256")
            .unwrap_err()
            .contains("out of range"));
        assert_eq!(parse_integer("-0x10").unwrap(), -16);
    }

    #[test]
    fn floats_too_large_are_out_of_range_but_infinity_is_accepted() {
        for (ty, text) in [
            (ElementType::F32, "1e400"),
            (ElementType::F32, "-3.5e38"),
            (ElementType::F64, "1e400"),
            (ElementType::F16, "65520"),
            (ElementType::Bf16, "1e39"),
        ] {
            let err = ty.encode(text).unwrap_err();
            assert!(err.contains("out of range"), "{ty}:{text}: {err}");
        }
        assert_eq!(
            ElementType::F32.encode("-inf").unwrap(),
            f32::NEG_INFINITY.to_le_bytes()
        );
        assert_eq!(
            ElementType::F64.encode("Infinity").unwrap(),
            f64::INFINITY.to_le_bytes()
        );
        assert_eq!(ElementType::F32.encode("1e-50").unwrap(), [0; 4]);
    }

    #[test]
    fn raw_bits_take_any_integer_of_their_size() {
        assert_eq!(
            ElementType::B32.encode("0x3fc00000").unwrap(),
            1.5f32.to_le_bytes()
        );
        assert_eq!(ElementType::B16.encode("-1").unwrap(), [0xff, 0xff]);
        assert!(ElementType::B8.encode("256").is_err());
        assert!(ElementType::B32.encode("1.5").is_err());
        assert_eq!(ElementType::parse("b64"), Some(ElementType::B64));
    }
}
