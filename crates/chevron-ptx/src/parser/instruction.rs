//! Instructions: opcode, modifiers (classified per the rules in [`crate::ir`]) and operands.

use super::Parser;
use crate::error::ParseError;
use crate::ir::{
    Address, AddressBase, Compare, Flag, Guard, Instruction, KnownOpcode, Modifier, Op, Opcode,
    Operand, RegisterRef, Rounding, ScalarType, Scope, Semantics, ShuffleMode, Span, StateSpace,
    VoteMode,
};
use crate::lexer::Tok;

impl<'a> Parser<'a> {
    /// Parses the rest of an instruction whose opcode word was just consumed.
    pub(crate) fn instruction(
        &mut self,
        guard: Option<Guard>,
        opcode: &'a str,
        span: Span,
    ) -> Result<Instruction, ParseError> {
        let outer = self.set_context("instruction", opcode);
        let opcode = Opcode::from_word(opcode);
        let mut modifiers = Vec::new();
        while self.at(Tok::DotWord) {
            modifiers.push(classify_modifier(&opcode, &self.text()[1..]));
            self.bump();
        }
        let mut operands = Vec::new();
        if !self.eat(Tok::Semi) {
            loop {
                let operand = self.operand()?;
                operands.push(if self.eat(Tok::Pipe) {
                    let name = self.name("a predicate register")?;
                    Operand::PredicatePair(Box::new(operand), self.register_ref(name))
                } else {
                    operand
                });
                if self.eat(Tok::Semi) {
                    break;
                }
                self.expect(Tok::Comma, "`,` or `;`")?;
            }
        }
        self.context = outer;
        Ok(Instruction {
            guard,
            opcode,
            modifiers,
            operands,
            span,
        })
    }

    /// Parses one operand.
    fn operand(&mut self) -> Result<Operand, ParseError> {
        match self.kind() {
            Tok::Bang => {
                self.bump();
                let name = self.name("a predicate register")?;
                Ok(Operand::Not(self.register_ref(name)))
            }
            Tok::LBrace => Ok(Operand::Vector(self.operand_list(Tok::RBrace, "`}`")?)),
            Tok::LParen => Ok(Operand::List(self.operand_list(Tok::RParen, "`)`")?)),
            Tok::LBracket => self.address(),
            Tok::Underscore => {
                self.bump();
                Ok(Operand::Sink)
            }
            Tok::Ident => {
                let name = self.take();
                if self.registers.contains(name) {
                    return Ok(Operand::Register(self.register_ref(name)));
                }
                match self.written_offset()? {
                    Some(offset) => Ok(Operand::SymbolOffset(name.to_string(), offset)),
                    None => Ok(Operand::Symbol(name.to_string())),
                }
            }
            _ if self.at_number() => Ok(Operand::Immediate(self.immediate()?)),
            _ => Err(self.error("an operand", "expected an operand")),
        }
    }

    /// Parses `open elem, elem… close` (the current token is the opening bracket).
    fn operand_list(&mut self, close: Tok, expected: &str) -> Result<Vec<Operand>, ParseError> {
        self.enter()?;
        self.bump();
        let mut items = Vec::new();
        if !self.eat(close) {
            loop {
                items.push(self.operand()?);
                if self.eat(close) {
                    break;
                }
                self.expect(Tok::Comma, &format!("`,` or {expected}"))?;
            }
        }
        self.leave();
        Ok(items)
    }

    /// Builds a register reference, reading a `.x`-style component if one follows.
    fn register_ref(&mut self, name: &str) -> RegisterRef {
        let component = if self.at(Tok::DotWord) {
            component_index(&self.text()[1..])
        } else {
            None
        };
        if component.is_some() {
            self.bump();
        }
        RegisterRef {
            name: name.to_string(),
            component,
        }
    }

    /// Parses `[base]`, `[base+n]`, `[base+-n]`, `[base-n]` or `[n]`, or a list such as
    /// `[%rd1, {%r1, %r2}]`.
    fn address(&mut self) -> Result<Operand, ParseError> {
        self.enter()?;
        self.bump();
        let (base, offset) = match self.kind() {
            Tok::Ident => {
                let name = self.take();
                let base = if self.registers.contains(name) {
                    AddressBase::Register(self.register_ref(name))
                } else {
                    AddressBase::Symbol(name.to_string())
                };
                (base, self.symbol_offset()?)
            }
            Tok::Int | Tok::Minus => (AddressBase::Absolute, self.signed_int()?),
            _ => return Err(self.error("a register, symbol or address", "bad address")),
        };
        let address = Address { base, offset };
        if !self.at(Tok::Comma) {
            self.expect(Tok::RBracket, "`]`")?;
            self.leave();
            return Ok(Operand::Address(address));
        }
        let first = match address {
            Address {
                base: AddressBase::Register(reg),
                offset: 0,
            } => Operand::Register(reg),
            Address {
                base: AddressBase::Symbol(name),
                offset: 0,
            } => Operand::Symbol(name),
            _ => return Err(self.error("`]`", "an offset address cannot start a list")),
        };
        let mut items = vec![first];
        while self.eat(Tok::Comma) {
            items.push(self.operand()?);
        }
        self.expect(Tok::RBracket, "`,` or `]`")?;
        self.leave();
        Ok(Operand::AddressList(items))
    }
}

/// The component index of `x`/`y`/`z`/`w` (or `r`/`g`/`b`/`a`).
fn component_index(word: &str) -> Option<u8> {
    match word {
        "x" | "r" => Some(0),
        "y" | "g" => Some(1),
        "z" | "b" => Some(2),
        "w" | "a" => Some(3),
        _ => None,
    }
}

/// Whether `.lo`/`.hi` after this opcode are comparisons rather than flags.
fn compares_with_lo_hi(opcode: &Opcode) -> bool {
    match opcode {
        Opcode::Known(k) => matches!(k, KnownOpcode::Setp | KnownOpcode::Set),
        Opcode::Other(word) => word.starts_with("vset"),
    }
}

/// Classifies a modifier word (without its dot) in the context of its opcode.
pub(crate) fn classify_modifier(opcode: &Opcode, word: &str) -> Modifier {
    if let Some(t) = ScalarType::from_word(word) {
        return Modifier::Type(t);
    }
    if let Some(s) = StateSpace::from_word(word) {
        return Modifier::Space(s);
    }
    if let Some(n) = super::function::vector_width(word) {
        return Modifier::Vector(n);
    }
    if matches!(word, "lo" | "hi") && compares_with_lo_hi(opcode) {
        if let Some(c) = Compare::from_word(word) {
            return Modifier::Compare(c);
        }
    }
    if let Some(f) = Flag::from_word(word) {
        return Modifier::Flag(f);
    }
    if let Some(r) = Rounding::from_word(word) {
        return Modifier::Rounding(r);
    }
    if let Some(c) = Compare::from_word(word) {
        return Modifier::Compare(c);
    }
    if let Some(o) = Op::from_word(word) {
        return Modifier::Op(o);
    }
    if let Some(s) = Semantics::from_word(word) {
        return Modifier::Semantics(s);
    }
    if let Some(s) = Scope::from_word(word) {
        return Modifier::Scope(s);
    }
    if let Some(m) = ShuffleMode::from_word(word) {
        return Modifier::Shuffle(m);
    }
    if let Some(m) = VoteMode::from_word(word) {
        return Modifier::Vote(m);
    }
    Modifier::Other(word.to_string())
}
