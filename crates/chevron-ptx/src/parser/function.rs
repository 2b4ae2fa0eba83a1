//! Functions: `.entry`/`.func` signatures, parameters, performance directives, bodies and
//! `.callprototype` signatures.

use super::Parser;
use crate::error::ParseError;
use crate::ir::{
    Function, FunctionDirective, FunctionKind, Linkage, Param, PtrAttr, ScalarType, Span,
    StateSpace, Statement,
};
use crate::lexer::Tok;

/// Directives that take no values (`.explicitcluster`); any other directive between signature
/// and body must be followed by at least one number.
const VALUELESS_DIRECTIVES: &[&str] = &["explicitcluster", "blocksareclusters"];

impl<'a> Parser<'a> {
    /// Parses an `.entry` or `.func` (the current token) through its body or closing `;`.
    pub(crate) fn function(
        &mut self,
        linkage: Linkage,
        span: Span,
    ) -> Result<Function, ParseError> {
        let kind = if self.at_word(".entry") {
            FunctionKind::Entry
        } else {
            FunctionKind::Func
        };
        self.bump();
        self.set_context("function signature", "");
        let mut noreturn = self.eat_noreturn();
        let returns = if self.at(Tok::LParen) {
            self.param_list()?
        } else {
            Vec::new()
        };
        let name_text = self.name("a function name")?;
        self.set_context("function", name_text);
        let name = name_text.to_string();
        let params = if self.at(Tok::LParen) {
            self.param_list()?
        } else {
            Vec::new()
        };
        let mut directives = Vec::new();
        loop {
            noreturn |= self.eat_noreturn();
            if !self.at(Tok::DotWord) {
                break;
            }
            if self.at_word(".pragma") {
                self.bump();
                directives.push(FunctionDirective::Pragma(self.pragma_strings()?));
            } else {
                directives.push(self.performance_directive()?);
            }
        }
        let body = if self.eat(Tok::Semi) {
            None
        } else if self.at(Tok::LBrace) {
            self.registers.clear();
            for param in params.iter().chain(&returns) {
                if param.space == StateSpace::Reg {
                    self.registers.declare(&param.name, None);
                }
            }
            self.bump();
            self.enter()?;
            let body = self.statements()?;
            self.leave();
            Some(body)
        } else {
            return Err(self.error("`{` or `;`", "expected a function body or `;`"));
        };
        self.context = None;
        Ok(Function {
            kind,
            linkage,
            name,
            returns,
            params,
            noreturn,
            directives,
            body,
            span,
        })
    }

    /// Consumes `.noreturn` if present.
    fn eat_noreturn(&mut self) -> bool {
        if self.at_word(".noreturn") {
            self.bump();
            true
        } else {
            false
        }
    }

    /// Parses `.maxntid 256, 1, 1`-like directives.
    fn performance_directive(&mut self) -> Result<FunctionDirective, ParseError> {
        let name = self.text()[1..].to_string();
        self.bump();
        let mut values = Vec::new();
        if self.at(Tok::Int) {
            loop {
                values.push(self.u32_int("a directive value")?);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        } else if !VALUELESS_DIRECTIVES.contains(&name.as_str()) {
            return Err(self.error(
                "a number",
                format!("expected the value of .{name} (or a misplaced directive)"),
            ));
        }
        Ok(FunctionDirective::Performance { name, values })
    }

    /// Parses `( param, … )`.
    pub(crate) fn param_list(&mut self) -> Result<Vec<Param>, ParseError> {
        self.expect(Tok::LParen, "`(`")?;
        let mut params = Vec::new();
        if self.eat(Tok::RParen) {
            return Ok(params);
        }
        loop {
            params.push(self.param()?);
            if self.eat(Tok::RParen) {
                return Ok(params);
            }
            self.expect(Tok::Comma, "`,` or `)`")?;
        }
    }

    /// Parses one parameter: `.param .u64 .ptr .global .align 16 name`, `.reg .b32 r`,
    /// `.param .align 8 .b8 p[16]`, `.param .b32 _`.
    fn param(&mut self) -> Result<Param, ParseError> {
        let mut space = None;
        let mut align = None;
        let mut ty = None;
        let mut vector = None;
        let mut ptr: Option<PtrAttr> = None;
        while self.at(Tok::DotWord) {
            let word = &self.text()[1..];
            if word == "ptr" {
                self.bump();
                ptr = Some(PtrAttr {
                    space: None,
                    align: None,
                });
                continue;
            }
            if word == "align" {
                self.bump();
                let value = self.u32_int("an alignment")?;
                match ptr.as_mut() {
                    Some(attr) => attr.align = Some(value),
                    None => align = Some(value),
                }
                continue;
            }
            if let Some(s) = StateSpace::from_word(word) {
                match ptr.as_mut() {
                    Some(attr) => attr.space = Some(s),
                    None => space = Some(s),
                }
            } else if let Some(t) = ScalarType::from_word(word) {
                ty = Some(t);
            } else if let Some(n) = vector_width(word) {
                vector = Some(n);
            } else {
                return Err(self.error("a parameter type", "unknown parameter qualifier"));
            }
            self.bump();
        }
        let (Some(space), Some(ty)) = (space, ty) else {
            return Err(self.error(
                "`.param`/`.reg` and a type",
                "parameter lacks a state space or type",
            ));
        };
        let name = match self.kind() {
            Tok::Ident | Tok::Underscore => self.take().to_string(),
            _ => return Err(self.error("a parameter name", "expected a parameter name")),
        };
        let array = self.array_dims(ty.size().saturating_mul(u32::from(vector.unwrap_or(1))))?;
        Ok(Param {
            space,
            align,
            ty,
            vector,
            array,
            ptr,
            name,
        })
    }

    /// Parses `.callprototype (returns) _ (params) [.noreturn];` after `label:`.
    pub(crate) fn call_prototype(&mut self, label: String) -> Result<Statement, ParseError> {
        self.bump();
        let outer = self.set_context("call prototype", "");
        let returns = if self.at(Tok::LParen) {
            self.param_list()?
        } else {
            Vec::new()
        };
        self.expect(Tok::Underscore, "`_`")?;
        let params = if self.at(Tok::LParen) {
            self.param_list()?
        } else {
            Vec::new()
        };
        let noreturn = self.eat_noreturn();
        self.expect(Tok::Semi, "`;`")?;
        self.context = outer;
        Ok(Statement::CallPrototype {
            label,
            returns,
            params,
            noreturn,
        })
    }
}

/// The width of a `v2`/`v4`/`v8` word.
pub(crate) fn vector_width(word: &str) -> Option<u8> {
    match word {
        "v2" => Some(2),
        "v4" => Some(4),
        "v8" => Some(8),
        _ => None,
    }
}
