//! The error the PTX parser returns: where, what was found, what was expected.

use thiserror::Error;

/// A PTX syntax error.
///
/// Displays as ``line L, column C: MESSAGE (found `X`, expected Y)``.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("line {line}, column {col}: {message} (found `{found}`, expected {expected})")]
pub struct ParseError {
    /// 1-based line of the offending token.
    pub line: u32,
    /// 1-based column (in bytes) of the offending token.
    pub col: u32,
    /// The offending token as written (shortened when long), or `end of input`.
    pub found: String,
    /// What the parser expected there.
    pub expected: String,
    /// What went wrong.
    pub message: String,
}

/// Longest excerpt of the offending token kept in [`ParseError::found`].
const FOUND_MAX_CHARS: usize = 40;

impl ParseError {
    /// Builds an error, shortening `found` to a readable excerpt.
    pub(crate) fn new(
        line: u32,
        col: u32,
        found: &str,
        expected: impl Into<String>,
        message: impl Into<String>,
    ) -> ParseError {
        let found = if found.chars().count() > FOUND_MAX_CHARS {
            let mut short: String = found.chars().take(FOUND_MAX_CHARS).collect();
            short.push('…');
            short
        } else {
            found.to_string()
        };
        ParseError {
            line,
            col,
            found,
            expected: expected.into(),
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_position_token_and_expectation() {
        let err = ParseError::new(3, 7, "}", "`;`", "unterminated instruction");
        assert_eq!(
            err.to_string(),
            "line 3, column 7: unterminated instruction (found `}`, expected `;`)"
        );
    }

    #[test]
    fn long_tokens_are_shortened() {
        let long = "x".repeat(100);
        let err = ParseError::new(1, 1, &long, "a name", "bad");
        assert!(err.found.chars().count() <= FOUND_MAX_CHARS + 1);
        assert!(err.found.ends_with('…'));
    }
}
