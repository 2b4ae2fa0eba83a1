//! The PTX parser: recursive descent from tokens into the [`crate::ir`] module.
//!
//! - `module`: the header (`.version`, `.target`, `.address_size`) and module-scope items.
//! - `function`: `.entry`/`.func` signatures, parameters, directives, `.callprototype`.
//! - `variable`: variable declarations and their initializers.
//! - `body`: statements of a function body: labels, blocks, declarations, `.loc`.
//! - `instruction`: instructions, modifier classification and operands.
//! - `literal`: integer and floating-point literals.
//!
//! The parser never panics on bad input: nesting is capped at [`MAX_DEPTH`], array sizes are
//! only recorded (never allocated), and every failure is a [`ParseError`] naming the line,
//! column, offending token and what was expected.
//!
//! Accepted: PTX ISA 7.0–9.x as NVRTC/nvcc, clang/LLVM NVPTX (MLIR included) and Triton emit
//! it, inline assembly included. Not accepted (no compiler of those emits them): general
//! constant expressions (`(4*8)`, `1 << 3`) beyond `sym±n`, `generic(sym)±n` and the `0xFF00(…)`
//! mask of initializers; `.texref`/`.samplerref`/`.surfref` variables (texture references, gone
//! since CUDA 12); `.attribute(.unified(…))` with arguments.

mod body;
mod function;
mod instruction;
mod literal;
mod module;
mod registers;
mod variable;

use crate::error::ParseError;
use crate::ir::{Module, Span};
use crate::lexer::{Tok, Token, TokenStream};

/// Deepest nesting of blocks, vector operands and initializer lists accepted.
pub const MAX_DEPTH: u32 = 256;

/// Parses a PTX module.
///
/// Bare names in operands are registers when a `.reg` declaration in scope names them (as
/// inline assembly writes `.reg .pred p;`), and symbols otherwise; `%`-names are registers.
///
/// ```
/// let module = chevron_ptx::parse(
///     ".version 8.0\n.target sm_80\n.address_size 64\n\
///      .visible .entry k(.param .u64 p)\n{\n\tret;\n}\n",
/// )?;
/// assert_eq!(module.target, ["sm_80"]);
/// let err = chevron_ptx::parse(".version 8.0\n.target sm_80\n.entry k() { mov.u32 %r1 }").unwrap_err();
/// assert_eq!((err.line, err.col, err.found.as_str()), (3, 26, "}"));
/// # Ok::<(), chevron_ptx::ParseError>(())
/// ```
pub fn parse(text: &str) -> Result<Module, ParseError> {
    PARSES.with(|count| count.set(count.get() + 1));
    // A byte-order mark is not PTX but editors add it.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    Parser::new(text).module()
}

thread_local! {
    /// How many times [`parse`] ran on this thread.
    static PARSES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many PTX texts [`parse`] (and [`parse_bytes`]) parsed on the calling thread so far. A
/// thread-local count, so a test can prove that a pipeline parses each text once whatever other
/// tests run beside it; counting costs one thread-local increment per parse.
pub fn parses_on_this_thread() -> u64 {
    PARSES.with(std::cell::Cell::get)
}

/// Parses a PTX module given as bytes; invalid UTF-8 is reported at its line and column.
pub fn parse_bytes(bytes: &[u8]) -> Result<Module, ParseError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse(text),
        Err(err) => {
            let valid = &bytes[..err.valid_up_to()];
            let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
            let line_start = valid.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let col = err.valid_up_to() - line_start + 1;
            let bad = &bytes[err.valid_up_to()..];
            let bad_len = err.error_len().unwrap_or(bad.len()).min(4);
            let found: Vec<String> = bad[..bad_len]
                .iter()
                .map(|b| format!("\\x{b:02x}"))
                .collect();
            Err(ParseError::new(
                u32::try_from(line).unwrap_or(u32::MAX),
                u32::try_from(col).unwrap_or(u32::MAX),
                &found.concat(),
                "UTF-8 text",
                "invalid UTF-8",
            ))
        }
    }
}

/// Parser state: the token stream, the current token and the nesting depth.
pub(crate) struct Parser<'a> {
    /// The whole source.
    src: &'a str,
    /// Tokens after the current one.
    stream: TokenStream<'a>,
    /// The current (not yet consumed) token.
    tok: Token,
    /// Current nesting depth (blocks, braces, parentheses).
    depth: u32,
    /// What is being parsed, for error messages: a kind (`instruction`) and a name (`ld`).
    context: Option<(&'static str, &'a str)>,
    /// Registers declared without a `%` prefix in the function being parsed; they make bare
    /// names in operands registers rather than symbols.
    registers: registers::RegisterScope,
}

impl<'a> Parser<'a> {
    /// A parser positioned at the first token of `src`.
    pub(crate) fn new(src: &'a str) -> Parser<'a> {
        let mut stream = TokenStream::new(src);
        let tok = stream.next_token();
        Parser {
            src,
            stream,
            tok,
            depth: 0,
            context: None,
            registers: registers::RegisterScope::default(),
        }
    }

    /// The text of the current token.
    fn text(&self) -> &'a str {
        &self.src[self.tok.start..self.tok.end]
    }

    /// The kind of the current token.
    fn kind(&self) -> Tok {
        self.tok.kind
    }

    /// The span of the current token.
    fn span(&self) -> Span {
        Span {
            line: self.tok.line,
            col: self.tok.col,
        }
    }

    /// Moves to the next token.
    fn bump(&mut self) {
        self.tok = self.stream.next_token();
    }

    /// Consumes the current token, returning its text.
    fn take(&mut self) -> &'a str {
        let text = self.text();
        self.bump();
        text
    }

    /// Whether the current token is of `kind`.
    fn at(&self, kind: Tok) -> bool {
        self.tok.kind == kind
    }

    /// Whether the current token is the dotted word `word` (with its dot).
    fn at_word(&self, word: &str) -> bool {
        self.tok.kind == Tok::DotWord && self.text() == word
    }

    /// Consumes the current token if it is of `kind`.
    fn eat(&mut self, kind: Tok) -> bool {
        if self.at(kind) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// Consumes a token of `kind` or fails naming `expected`.
    fn expect(&mut self, kind: Tok, expected: &str) -> Result<&'a str, ParseError> {
        if self.at(kind) {
            Ok(self.take())
        } else if self.at(Tok::End) {
            Err(self.error(expected, "unexpected end of input"))
        } else {
            Err(self.error(expected, "unexpected token"))
        }
    }

    /// Consumes an identifier (a name) or fails naming `expected`.
    fn name(&mut self, expected: &str) -> Result<&'a str, ParseError> {
        self.expect(Tok::Ident, expected)
    }

    /// An error at the current token.
    fn error(&self, expected: &str, message: impl Into<String>) -> ParseError {
        let found = match self.tok.kind {
            Tok::End => "end of input",
            _ => self.text(),
        };
        let mut message = match self.tok.kind {
            Tok::Error => format!("unrecognised text; {}", message.into()),
            _ => message.into(),
        };
        match self.context {
            Some((what, "")) => message = format!("{message} in {what}"),
            Some((what, name)) => message = format!("{message} in {what} `{name}`"),
            None => {}
        }
        ParseError::new(self.tok.line, self.tok.col, found, expected, message)
    }

    /// Sets what is being parsed, returning the previous context to restore afterwards.
    fn set_context(
        &mut self,
        what: &'static str,
        name: &'a str,
    ) -> Option<(&'static str, &'a str)> {
        self.context.replace((what, name))
    }

    /// Enters one nesting level, failing beyond [`MAX_DEPTH`].
    fn enter(&mut self) -> Result<(), ParseError> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error(
                "less deeply nested input",
                format!("nesting deeper than {MAX_DEPTH} levels"),
            ));
        }
        self.depth += 1;
        Ok(())
    }

    /// Leaves one nesting level.
    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_utf8_is_located() {
        let err = parse_bytes(b".version 8.0\n.target \xff").unwrap_err();
        assert_eq!((err.line, err.col), (2, 9));
        assert_eq!(err.found, "\\xff");
    }

    #[test]
    fn error_names_end_of_input() {
        let err = parse(".version").unwrap_err();
        assert_eq!(err.found, "end of input");
        assert_eq!(err.line, 1);
    }
}
