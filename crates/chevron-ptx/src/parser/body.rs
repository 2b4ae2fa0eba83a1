//! Function bodies: statements, labels, nested blocks, declarations, `.loc` and `.pragma`.

use super::Parser;
use crate::error::ParseError;
use crate::ir::{Guard, Linkage, StateSpace, Statement};
use crate::lexer::Tok;

impl Parser<'_> {
    /// Parses statements up to and including the `}` closing the current block.
    pub(crate) fn statements(&mut self) -> Result<Vec<Statement>, ParseError> {
        let mut statements = Vec::new();
        loop {
            match self.kind() {
                Tok::RBrace => {
                    self.bump();
                    return Ok(statements);
                }
                Tok::End => return Err(self.error("`}`", "unterminated function body")),
                Tok::Semi => self.bump(),
                Tok::LBrace => {
                    self.enter()?;
                    self.bump();
                    let scope = self.registers.mark();
                    let inner = self.statements()?;
                    self.registers.leave(scope);
                    self.leave();
                    statements.push(Statement::Block(inner));
                }
                Tok::DotWord => self.body_directive(&mut statements)?,
                Tok::At => {
                    let span = self.span();
                    self.bump();
                    let negated = self.eat(Tok::Bang);
                    let register = self.name("a predicate register")?.to_string();
                    let guard = Guard { register, negated };
                    let opcode = self.name("an opcode")?;
                    let inst = self.instruction(Some(guard), opcode, span)?;
                    statements.push(Statement::Instruction(inst));
                }
                Tok::Ident => {
                    let span = self.span();
                    let word = self.take();
                    if self.eat(Tok::Colon) {
                        if self.at_word(".callprototype") {
                            statements.push(self.call_prototype(word.to_string())?);
                        } else if self.at_word(".branchtargets") || self.at_word(".calltargets") {
                            statements.push(self.targets(word.to_string())?);
                        } else {
                            statements.push(Statement::Label(word.to_string()));
                        }
                    } else {
                        let inst = self.instruction(None, word, span)?;
                        statements.push(Statement::Instruction(inst));
                    }
                }
                _ => return Err(self.error("an instruction, label or directive", "bad statement")),
            }
        }
    }

    /// Parses a directive inside a body: `.loc`, `.pragma` or a declaration.
    fn body_directive(&mut self, statements: &mut Vec<Statement>) -> Result<(), ParseError> {
        match self.text() {
            ".loc" => {
                self.bump();
                statements.push(self.loc()?);
            }
            ".pragma" => {
                self.bump();
                statements.push(Statement::Pragma(self.pragma_strings()?));
            }
            word if word == ".align" || StateSpace::from_word(&word[1..]).is_some() => {
                let span = self.span();
                let variables = self.variables(Linkage::Internal, span)?;
                statements.extend(variables.into_iter().map(Statement::Variable));
            }
            _ => {
                return Err(self.error(
                    "an instruction, label or directive",
                    "unknown directive in function body",
                ))
            }
        }
        Ok(())
    }

    /// Parses `.branchtargets l1, l2;` or `.calltargets f1, f2;` after `label:`.
    fn targets(&mut self, label: String) -> Result<Statement, ParseError> {
        let calls = self.at_word(".calltargets");
        self.bump();
        let mut targets = Vec::new();
        loop {
            targets.push(self.name("a label or function name")?.to_string());
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::Semi, "`;`")?;
        Ok(if calls {
            Statement::CallTargets { label, targets }
        } else {
            Statement::BranchTargets { label, targets }
        })
    }

    /// Parses `file line col[, extra…]` after `.loc`; the rest of the line is kept verbatim.
    fn loc(&mut self) -> Result<Statement, ParseError> {
        let file = self.u32_int("a file index")?;
        let line = self.u32_int("a line number")?;
        // The column is the last token read through the lexer: the text after it, up to the end
        // of the line or a comment, is the verbatim extra.
        if !self.at(Tok::Int) {
            return Err(self.error("a column number", "expected a column number"));
        }
        let col = match super::literal::int_value(self.text()).and_then(|v| u32::try_from(v).ok()) {
            Some(col) => col,
            None => return Err(self.error("a column number", "column number out of range")),
        };
        let raw = self.stream.remainder();
        let line_len = raw.find('\n').unwrap_or(raw.len());
        let mut len = line_len;
        for marker in ["//", "/*"] {
            if let Some(at) = raw[..line_len].find(marker) {
                len = len.min(at);
            }
        }
        let extra = raw[..len].trim().to_string();
        self.stream.skip_raw(len);
        self.bump();
        Ok(Statement::Loc {
            file,
            line,
            col,
            extra,
        })
    }
}
