//! The PTX lexer: turns source text into tokens with their line and column.
//!
//! Built on `logos`. Tokens carry no values: the parser reads numbers and names from the source
//! slice, so lexing allocates nothing. Whitespace and comments are skipped; newlines (also those
//! inside block comments) are counted so every token knows its 1-based line and byte column.
//!
//! The lexer is pulled one token at a time by the parser, which may also take raw text straight
//! from the source (the verbatim body of a `.section`, the tail of a `.loc`) and then resume.

use logos::{Lexer, Logos, Skip};

/// Line bookkeeping carried by the lexer.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LineState {
    /// 1-based current line.
    pub line: u32,
    /// Byte offset where the current line starts.
    pub line_start: usize,
}

impl Default for LineState {
    fn default() -> Self {
        LineState {
            line: 1,
            line_start: 0,
        }
    }
}

/// Counts a newline.
fn newline(lex: &mut Lexer<'_, Tok>) -> Skip {
    lex.extras.line = lex.extras.line.saturating_add(1);
    lex.extras.line_start = lex.span().end;
    Skip
}

/// Counts the newlines inside a block comment.
fn block_comment(lex: &mut Lexer<'_, Tok>) -> Skip {
    let start = lex.span().start;
    for (i, b) in lex.slice().bytes().enumerate() {
        if b == b'\n' {
            lex.extras.line = lex.extras.line.saturating_add(1);
            lex.extras.line_start = start + i + 1;
        }
    }
    Skip
}

/// The kinds of PTX tokens.
#[derive(Logos, Debug, Clone, Copy, PartialEq, Eq)]
#[logos(extras = LineState)]
#[logos(skip r"[ \t\r\x0B\x0C]+")]
#[logos(skip(r"//[^\n]*", allow_greedy = true))]
#[logos(skip(r"\n", newline))]
#[logos(skip(r"/\*([^*]|\*+[^*/])*\*+/", block_comment))]
pub(crate) enum Tok {
    /// A name: `ld`, `_Z3fooi`, `%r1`, `$L__BB0_2`, `__cudart_i2opi_f`.
    #[regex(r"[a-zA-Z][a-zA-Z0-9_$]*")]
    #[regex(r"[_$%][a-zA-Z0-9_$]+")]
    Ident,
    /// A dotted word: `.global`, `.shared::cta`, `.L2::cache_hint`, `.2d`.
    #[regex(r"\.[a-zA-Z0-9_$]+(::[a-zA-Z0-9_$]+)*")]
    DotWord,
    /// An integer literal: decimal, octal, `0x` hex or `0b` binary, optional `U` suffix.
    #[regex(r"[0-9]+[uU]?")]
    #[regex(r"0[xX][0-9a-fA-F]+[uU]?")]
    #[regex(r"0[bB][01]+[uU]?")]
    Int,
    /// `0fXXXXXXXX`: an f32 bit pattern.
    #[regex(r"0[fF][0-9a-fA-F]{8}")]
    HexF32,
    /// `0dXXXXXXXXXXXXXXXX`: an f64 bit pattern.
    #[regex(r"0[dD][0-9a-fA-F]{16}")]
    HexF64,
    /// A decimal floating-point literal: `1.5`, `2.0e-3`, `1e10`.
    #[regex(r"[0-9]+\.[0-9]+([eE][+-]?[0-9]+)?")]
    #[regex(r"[0-9]+[eE][+-]?[0-9]+")]
    DecFloat,
    /// A string literal with its quotes.
    #[regex(r#""([^"\\\n]|\\[^\n])*""#)]
    Str,
    /// `_`.
    #[token("_")]
    Underscore,
    /// `,`.
    #[token(",")]
    Comma,
    /// `;`.
    #[token(";")]
    Semi,
    /// `:`.
    #[token(":")]
    Colon,
    /// `{`.
    #[token("{")]
    LBrace,
    /// `}`.
    #[token("}")]
    RBrace,
    /// `(`.
    #[token("(")]
    LParen,
    /// `)`.
    #[token(")")]
    RParen,
    /// `[`.
    #[token("[")]
    LBracket,
    /// `]`.
    #[token("]")]
    RBracket,
    /// `<`.
    #[token("<")]
    Lt,
    /// `>`.
    #[token(">")]
    Gt,
    /// `+`.
    #[token("+")]
    Plus,
    /// `-`.
    #[token("-")]
    Minus,
    /// `@`.
    #[token("@")]
    At,
    /// `!`.
    #[token("!")]
    Bang,
    /// `=`.
    #[token("=")]
    Eq,
    /// `|`.
    #[token("|")]
    Pipe,
    /// Any other character or an unterminated string or comment (not produced by logos; the
    /// token stream maps lexing errors to it).
    Error,
    /// End of input (likewise produced by the token stream).
    End,
}

/// One token: its kind, byte range and position.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Token {
    /// The kind.
    pub kind: Tok,
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset one past the last byte.
    pub end: usize,
    /// 1-based line.
    pub line: u32,
    /// 1-based byte column.
    pub col: u32,
}

/// A pull-based stream of tokens over a source text.
pub(crate) struct TokenStream<'a> {
    lex: Lexer<'a, Tok>,
}

impl<'a> TokenStream<'a> {
    /// Starts lexing `src`.
    pub fn new(src: &'a str) -> TokenStream<'a> {
        TokenStream {
            lex: Tok::lexer(src),
        }
    }

    /// The next token; [`Tok::End`] at (and after) the end of input.
    pub fn next_token(&mut self) -> Token {
        let kind = match self.lex.next() {
            Some(Ok(kind)) => kind,
            Some(Err(())) => Tok::Error,
            None => {
                let end = self.lex.source().len();
                return self.token_at(Tok::End, end, end);
            }
        };
        let span = self.lex.span();
        self.token_at(kind, span.start, span.end)
    }

    /// Builds a token at a byte range on the current line.
    fn token_at(&self, kind: Tok, start: usize, end: usize) -> Token {
        let col = start.saturating_sub(self.lex.extras.line_start) + 1;
        Token {
            kind,
            start,
            end,
            line: self.lex.extras.line,
            col: u32::try_from(col).unwrap_or(u32::MAX),
        }
    }

    /// The source text not yet lexed (everything after the last token returned).
    pub fn remainder(&self) -> &'a str {
        self.lex.remainder()
    }

    /// Skips `n` bytes of raw text (a prefix of [`TokenStream::remainder`]), counting its
    /// newlines.
    pub fn skip_raw(&mut self, n: usize) {
        let base = self.lex.span().end;
        let raw = &self.lex.remainder()[..n];
        for (i, b) in raw.bytes().enumerate() {
            if b == b'\n' {
                self.lex.extras.line = self.lex.extras.line.saturating_add(1);
                self.lex.extras.line_start = base + i + 1;
            }
        }
        self.lex.bump(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(Tok, String)> {
        let mut stream = TokenStream::new(src);
        let mut out = Vec::new();
        loop {
            let t = stream.next_token();
            if t.kind == Tok::End {
                return out;
            }
            out.push((t.kind, src[t.start..t.end].to_string()));
        }
    }

    #[test]
    fn names_words_and_numbers() {
        let toks = kinds("ld.global.L2::cache_hint.v4.f32 {%r1, _}, [%rd1+-8]; // c");
        let words: Vec<_> = toks.iter().map(|(_, s)| s.as_str()).collect();
        assert_eq!(
            words,
            [
                "ld",
                ".global",
                ".L2::cache_hint",
                ".v4",
                ".f32",
                "{",
                "%r1",
                ",",
                "_",
                "}",
                ",",
                "[",
                "%rd1",
                "+",
                "-",
                "8",
                "]",
                ";"
            ]
        );
        assert_eq!(toks[6].0, Tok::Ident);
        assert_eq!(toks[8].0, Tok::Underscore);
    }

    #[test]
    fn literal_kinds() {
        let toks = kinds("0f3F800000 0d3FF0000000000000 0x1Fu 017 0b101 1.5e3 7 $L__BB0_2");
        let got: Vec<_> = toks.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            got,
            [
                Tok::HexF32,
                Tok::HexF64,
                Tok::Int,
                Tok::Int,
                Tok::Int,
                Tok::DecFloat,
                Tok::Int,
                Tok::Ident
            ]
        );
    }

    #[test]
    fn positions_count_lines_and_block_comments() {
        let src = "a\n/* x\ny */ b\n  c";
        let mut stream = TokenStream::new(src);
        let a = stream.next_token();
        let b = stream.next_token();
        let c = stream.next_token();
        assert_eq!((a.line, a.col), (1, 1));
        assert_eq!((b.line, b.col), (3, 6));
        assert_eq!((c.line, c.col), (4, 3));
    }

    #[test]
    fn unknown_characters_are_error_tokens() {
        let toks = kinds("a # b");
        assert_eq!(toks[1].0, Tok::Error);
    }
}
