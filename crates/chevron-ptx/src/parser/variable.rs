//! Variable declarations (module scope and inside bodies, `.reg` included) and initializers.

use super::function::vector_width;
use super::Parser;
use crate::error::ParseError;
use crate::ir::{Initializer, Linkage, ScalarType, Span, StateSpace, Variable};
use crate::lexer::Tok;

/// Largest total size of a declared array, in bytes (1 TiB): beyond any real device.
const MAX_ARRAY_BYTES: u64 = 1 << 40;

/// Most dimensions an array declaration may have.
const MAX_ARRAY_DIMS: usize = 8;

impl<'a> Parser<'a> {
    /// Parses `space [.align n] [.vN] type name[<N>][dims][= init][, name…];`, the current token
    /// being the first qualifier. Returns one variable per declared name.
    pub(crate) fn variables(
        &mut self,
        linkage: Linkage,
        span: Span,
    ) -> Result<Vec<Variable>, ParseError> {
        let outer = self.set_context("declaration", "");
        let mut space = None;
        let mut align = None;
        let mut vector = None;
        let mut ty = None;
        let mut attributes = Vec::new();
        while self.at(Tok::DotWord) {
            let word = &self.text()[1..];
            if word == "align" {
                self.bump();
                align = Some(self.u32_int("an alignment")?);
                continue;
            }
            if word == "attribute" {
                self.bump();
                self.expect(Tok::LParen, "`(`")?;
                loop {
                    let attribute = self.expect(Tok::DotWord, "an attribute such as `.managed`")?;
                    attributes.push(attribute[1..].to_string());
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
                self.expect(Tok::RParen, "`)`")?;
                continue;
            }
            if let Some(s) = StateSpace::from_word(word) {
                space = Some(s);
            } else if let Some(t) = ScalarType::from_word(word) {
                ty = Some(t);
            } else if let Some(n) = vector_width(word) {
                vector = Some(n);
            } else {
                return Err(self.error(
                    "a state space, type, `.align` or `.vN`",
                    "unknown directive or declaration qualifier",
                ));
            }
            self.bump();
        }
        let Some(space) = space else {
            return Err(self.error("a state space such as `.global`", "expected a declaration"));
        };
        let Some(ty) = ty else {
            return Err(self.error("a type such as `.b32`", "declaration lacks a type"));
        };
        let element_size = ty.size().saturating_mul(u32::from(vector.unwrap_or(1)));
        let mut variables = Vec::new();
        loop {
            let name_text = self.name("a variable name")?;
            self.set_context("declaration of", name_text);
            let name = name_text.to_string();
            let range = if self.eat(Tok::Lt) {
                let n = self.u32_int("a register count")?;
                self.expect(Tok::Gt, "`>`")?;
                Some(n)
            } else {
                None
            };
            let array = self.array_dims(element_size)?;
            let init = if self.eat(Tok::Eq) {
                Some(self.initializer()?)
            } else {
                None
            };
            if space == StateSpace::Reg {
                self.registers.declare(&name, range);
            }
            variables.push(Variable {
                linkage,
                space,
                align,
                vector,
                ty,
                name,
                range,
                array,
                init,
                attributes: attributes.clone(),
                span,
            });
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::Semi, "`;`")?;
        self.context = outer;
        Ok(variables)
    }

    /// Parses array dimensions `[n][m]…` (`[]` is unsized), checking the total size.
    pub(crate) fn array_dims(&mut self, element_size: u32) -> Result<Vec<Option<u64>>, ParseError> {
        let mut dims = Vec::new();
        let mut total = u64::from(element_size.max(1));
        while self.at(Tok::LBracket) {
            if dims.len() == MAX_ARRAY_DIMS {
                return Err(self.error(
                    "fewer array dimensions",
                    format!("more than {MAX_ARRAY_DIMS} array dimensions"),
                ));
            }
            self.bump();
            if self.eat(Tok::RBracket) {
                dims.push(None);
                continue;
            }
            let n = self.unsigned_int()?;
            total = total.saturating_mul(n.max(1));
            if total > MAX_ARRAY_BYTES {
                return Err(self.error("a smaller array", "array larger than 1 TiB"));
            }
            self.expect(Tok::RBracket, "`]`")?;
            dims.push(Some(n));
        }
        Ok(dims)
    }

    /// Parses an initializer: a number, `{…}`, `sym`, `sym+off`, `generic(sym)[+off]`, or a
    /// mask such as `0xFF00(generic(sym)+4)`.
    fn initializer(&mut self) -> Result<Initializer, ParseError> {
        match self.kind() {
            Tok::Int if self.next_is_paren() => {
                let mask = self.unsigned_int()?;
                self.enter()?;
                self.expect(Tok::LParen, "`(`")?;
                let value = Box::new(self.initializer()?);
                self.expect(Tok::RParen, "`)`")?;
                self.leave();
                Ok(Initializer::Mask { mask, value })
            }
            Tok::LBrace => {
                self.enter()?;
                self.bump();
                let mut items = Vec::new();
                if !self.eat(Tok::RBrace) {
                    loop {
                        items.push(self.initializer()?);
                        if self.eat(Tok::RBrace) {
                            break;
                        }
                        self.expect(Tok::Comma, "`,` or `}`")?;
                    }
                }
                self.leave();
                Ok(Initializer::Array(items))
            }
            Tok::Ident if self.text() == "generic" => {
                self.bump();
                self.expect(Tok::LParen, "`(`")?;
                let symbol = self.name("a symbol")?.to_string();
                self.expect(Tok::RParen, "`)`")?;
                let offset = self.symbol_offset()?;
                Ok(Initializer::Address {
                    symbol,
                    generic: true,
                    offset,
                })
            }
            Tok::Ident => {
                let symbol = self.take().to_string();
                let offset = self.symbol_offset()?;
                Ok(Initializer::Address {
                    symbol,
                    generic: false,
                    offset,
                })
            }
            _ if self.at_number() => Ok(Initializer::Immediate(self.immediate()?)),
            _ => Err(self.error("a number, symbol or `{`", "expected an initializer")),
        }
    }

    /// Parses an optional `+n`/`-n`/`+-n` after a symbol; 0 when absent.
    pub(crate) fn symbol_offset(&mut self) -> Result<i64, ParseError> {
        Ok(self.written_offset()?.unwrap_or(0))
    }

    /// Parses an optional `+n`/`-n`/`+-n` after a symbol; `None` when absent.
    pub(crate) fn written_offset(&mut self) -> Result<Option<i64>, ParseError> {
        if self.eat(Tok::Plus) || self.at(Tok::Minus) {
            Ok(Some(self.signed_int()?))
        } else {
            Ok(None)
        }
    }

    /// Whether the text right after the current token starts with `(` (a mask operator).
    fn next_is_paren(&self) -> bool {
        self.stream.remainder().trim_start().starts_with('(')
    }
}
