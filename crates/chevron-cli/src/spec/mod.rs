//! The `--arg SPEC` language of `chevron run`.
//!
//! ```text
//! SPEC  TYPE:VALUE          a scalar; TYPE is i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64,
//!                           or b8 b16 b32 b64: raw bits for a parameter of any type of that size
//!       TYPE[COUNT]=zeros   a device buffer of COUNT elements, zero-filled
//!       TYPE[COUNT]=fill:VALUE | =iota | =file:PATH   (PATH holds raw little-endian elements)
//!       bytes:HEX           a by-value parameter of exactly these bytes, in memory order
//!                           (a struct: `bytes:0000c03f0a000000`)
//!       ptr:N               a 64-bit scalar holding the device address of buffer argument N
//!                           (one buffer passed twice, as MLIR's memref descriptors do)
//! ```

mod element_type;

use std::path::PathBuf;

pub use element_type::ElementType;

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
    /// `bytes:HEX`: raw bytes, passed by value.
    Bytes(Vec<u8>),
    /// `ptr:N`: the device address of buffer argument N.
    AddressOf(usize),
    /// `TYPE[COUNT]=INIT`.
    Buffer {
        /// Element type.
        ty: ElementType,
        /// Number of elements (their bytes fit in 64 bits: see [`ArgSpec::parse`]).
        count: u64,
        /// Initial contents.
        init: BufferInit,
    },
}

impl ArgSpec {
    /// The bytes of a buffer argument (their product was checked not to overflow); 0 for
    /// anything else.
    pub fn buffer_bytes(&self) -> u64 {
        match self {
            ArgSpec::Buffer { ty, count, .. } => count * ty.size() as u64,
            _ => 0,
        }
    }

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
            let count: u64 = spec[open + 1..close]
                .parse()
                .map_err(|_| err("COUNT must be an integer from 1 to 2^64-1"))?;
            if count == 0 {
                return Err(err("COUNT must be at least 1"));
            }
            if count.checked_mul(ty.size() as u64).is_none() {
                return Err(err(&format!(
                    "{count} elements of {} bytes are 2^64 bytes or more",
                    ty.size()
                )));
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
        if ty_word == "bytes" {
            return parse_hex(value).map(ArgSpec::Bytes).map_err(|e| err(&e));
        }
        if ty_word == "ptr" {
            let index = value
                .parse()
                .map_err(|_| err("N must be an argument position"))?;
            return Ok(ArgSpec::AddressOf(index));
        }
        let ty =
            ElementType::parse(ty_word).ok_or_else(|| err(&format!("unknown type `{ty_word}`")))?;
        let bytes = ty.encode(value).map_err(|e| err(&e))?;
        Ok(ArgSpec::Scalar { ty, bytes })
    }
}

/// Bytes written as pairs of hex digits (`0a1B`); at least one byte.
fn parse_hex(text: &str) -> Result<Vec<u8>, String> {
    if text.is_empty() || !text.len().is_multiple_of(2) || !text.is_ascii() {
        return Err("HEX must be a non-empty even number of hex digits".into());
    }
    (0..text.len())
        .step_by(2)
        .map(|i| {
            u8::from_str_radix(&text[i..i + 2], 16)
                .map_err(|_| format!("`{}` is not a hex byte", &text[i..i + 2]))
        })
        .collect()
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
    fn buffer_sizes_that_overflow_are_refused() {
        for spec in [
            "f32[4611686018427387904]=zeros",
            "u16[9223372036854775808]=file:EMPTY",
            "f64[2305843009213693952]=iota",
        ] {
            let err = ArgSpec::parse(spec).unwrap_err();
            assert!(err.contains("2^64 bytes or more"), "{spec}: {err}");
        }
        assert!(ArgSpec::parse("f32[18446744073709551616]=zeros")
            .unwrap_err()
            .contains("COUNT must be an integer"));
        let largest = ArgSpec::parse("u8[18446744073709551615]=zeros").unwrap();
        assert_eq!(largest.buffer_bytes(), u64::MAX);
    }

    #[test]
    fn raw_bytes_and_addresses() {
        assert_eq!(
            ArgSpec::parse("bytes:0000c03F0a").unwrap(),
            ArgSpec::Bytes(vec![0, 0, 0xc0, 0x3f, 0x0a])
        );
        assert!(ArgSpec::parse("bytes:abc").is_err());
        assert!(ArgSpec::parse("bytes:").is_err());
        assert!(ArgSpec::parse("bytes:zz").unwrap_err().contains("`zz`"));
        assert_eq!(ArgSpec::parse("ptr:3").unwrap(), ArgSpec::AddressOf(3));
        assert!(ArgSpec::parse("ptr:x").is_err());
        assert_eq!(
            ArgSpec::parse("f16[2]=fill:0.5").unwrap(),
            ArgSpec::Buffer {
                ty: ElementType::F16,
                count: 2,
                init: BufferInit::Fill(vec![0x00, 0x38])
            }
        );
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
