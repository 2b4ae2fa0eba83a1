//! Numeric literals: integers (decimal, octal, hex, binary, `U` suffix, negation) and floats
//! (`0f`/`0d` bit patterns, decimal).

use super::Parser;
use crate::error::ParseError;
use crate::ir::Immediate;
use crate::lexer::Tok;

/// The value of an integer literal's text as an unsigned 64-bit number, if it fits.
pub(crate) fn int_value(text: &str) -> Option<u64> {
    let text = text.strip_suffix(['u', 'U']).unwrap_or(text);
    let bytes = text.as_bytes();
    if bytes.len() > 2 && bytes[0] == b'0' && matches!(bytes[1], b'x' | b'X') {
        u64::from_str_radix(&text[2..], 16).ok()
    } else if bytes.len() > 2 && bytes[0] == b'0' && matches!(bytes[1], b'b' | b'B') {
        u64::from_str_radix(&text[2..], 2).ok()
    } else if bytes.len() > 1 && bytes[0] == b'0' {
        u64::from_str_radix(&text[1..], 8).ok()
    } else {
        text.parse().ok()
    }
}

/// The immediate a float literal's text denotes.
fn float_value(kind: Tok, text: &str) -> Option<Immediate> {
    match kind {
        Tok::HexF32 => u32::from_str_radix(&text[2..], 16).ok().map(Immediate::F32),
        Tok::HexF64 => u64::from_str_radix(&text[2..], 16).ok().map(Immediate::F64),
        Tok::DecFloat => text
            .parse::<f64>()
            .ok()
            .map(|v| Immediate::F64(v.to_bits())),
        _ => None,
    }
}

/// Flips the sign of an immediate (two's complement for integers, sign bit for floats).
fn negate(imm: Immediate) -> Immediate {
    match imm {
        Immediate::Int(v) => Immediate::Int(v.wrapping_neg()),
        Immediate::F32(bits) => Immediate::F32(bits ^ 0x8000_0000),
        Immediate::F64(bits) => Immediate::F64(bits ^ 0x8000_0000_0000_0000),
    }
}

impl Parser<'_> {
    /// Whether the current token starts a number (a literal or a `-`).
    pub(crate) fn at_number(&self) -> bool {
        matches!(
            self.kind(),
            Tok::Int | Tok::HexF32 | Tok::HexF64 | Tok::DecFloat | Tok::Minus
        )
    }

    /// Parses a possibly negated numeric literal.
    pub(crate) fn immediate(&mut self) -> Result<Immediate, ParseError> {
        if self.eat(Tok::Minus) {
            return Ok(negate(self.immediate_unsigned()?));
        }
        self.immediate_unsigned()
    }

    /// Parses a numeric literal without sign.
    fn immediate_unsigned(&mut self) -> Result<Immediate, ParseError> {
        let value = match self.kind() {
            Tok::Int => int_value(self.text()).map(|v| Immediate::Int(v as i64)),
            kind @ (Tok::HexF32 | Tok::HexF64 | Tok::DecFloat) => float_value(kind, self.text()),
            _ => return Err(self.error("a number", "expected a number")),
        };
        let Some(value) = value else {
            return Err(self.error("a number that fits in 64 bits", "number out of range"));
        };
        self.bump();
        Ok(value)
    }

    /// Parses a possibly negated integer literal as a signed 64-bit value.
    pub(crate) fn signed_int(&mut self) -> Result<i64, ParseError> {
        let negative = self.eat(Tok::Minus);
        let value = self.unsigned_int()?;
        // Two's-complement pattern: `0xFFFFFFFFFFFFFFFF` is -1, as in PTX.
        let value = value as i64;
        Ok(if negative {
            value.wrapping_neg()
        } else {
            value
        })
    }

    /// Parses an unsigned integer literal.
    pub(crate) fn unsigned_int(&mut self) -> Result<u64, ParseError> {
        if !self.at(Tok::Int) {
            return Err(self.error("an integer", "expected an integer"));
        }
        match int_value(self.text()) {
            Some(v) => {
                self.bump();
                Ok(v)
            }
            None => Err(self.error("an integer that fits in 64 bits", "integer out of range")),
        }
    }

    /// Parses an integer literal that must fit in 32 bits.
    pub(crate) fn u32_int(&mut self, what: &str) -> Result<u32, ParseError> {
        if !self.at(Tok::Int) {
            return Err(self.error(what, format!("expected {what}")));
        }
        match int_value(self.text()).and_then(|v| u32::try_from(v).ok()) {
            Some(v) => {
                self.bump();
                Ok(v)
            }
            None => Err(self.error(what, format!("{what} out of range"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_bases_and_suffix() {
        assert_eq!(int_value("42"), Some(42));
        assert_eq!(int_value("0x1Fu"), Some(31));
        assert_eq!(int_value("017"), Some(15));
        assert_eq!(int_value("0b101"), Some(5));
        assert_eq!(int_value("0"), Some(0));
        assert_eq!(int_value("0xFFFFFFFFFFFFFFFF"), Some(u64::MAX));
        assert_eq!(int_value("18446744073709551616"), None);
        assert_eq!(int_value("09"), None);
    }

    #[test]
    fn floats_and_negation() {
        assert_eq!(
            float_value(Tok::HexF32, "0f3F800000"),
            Some(Immediate::F32(0x3F80_0000))
        );
        assert_eq!(
            float_value(Tok::DecFloat, "1.5"),
            Some(Immediate::F64(1.5f64.to_bits()))
        );
        assert_eq!(negate(Immediate::Int(1)), Immediate::Int(-1));
        assert_eq!(
            negate(Immediate::F32(0x3F80_0000)),
            Immediate::F32(0xBF80_0000)
        );
    }
}
