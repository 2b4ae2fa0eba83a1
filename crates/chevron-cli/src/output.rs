//! How a command ends: [`Failure`] (a one-line error, or a closed pipe that ends quietly) and
//! the checked writes to stdout every command goes through.
//!
//! Output is never written with `println!`, which panics when stdout is closed or full: each
//! command writes to a [`std::io::Write`] and `?` turns a write error into a [`Failure`].

use std::fmt;
use std::io::{self, Write};

/// Why a command stopped.
#[derive(Debug)]
pub enum Failure {
    /// An error: printed after `chevron: error:`, exit code 2.
    Message(String),
    /// The reader of stdout went away (`chevron inspect F | head -c 1`): stop quietly.
    ClosedPipe,
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure::Message(message)
    }
}

impl From<&str> for Failure {
    fn from(message: &str) -> Failure {
        Failure::Message(message.to_string())
    }
}

impl From<chevron::Error> for Failure {
    fn from(error: chevron::Error) -> Failure {
        Failure::Message(error.to_string())
    }
}

impl From<io::Error> for Failure {
    /// A failed write to stdout.
    fn from(error: io::Error) -> Failure {
        if error.kind() == io::ErrorKind::BrokenPipe {
            Failure::ClosedPipe
        } else {
            Failure::Message(format!("writing the output: {error}"))
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Message(message) => f.write_str(message),
            Failure::ClosedPipe => f.write_str("the output was closed"),
        }
    }
}

/// A command's result.
pub type CommandResult = Result<(), Failure>;

/// Where commands write: stdout, buffered; [`Output::finish`] reports a failed final flush.
pub struct Output {
    stdout: io::BufWriter<io::Stdout>,
}

impl Output {
    /// Buffered stdout.
    pub fn stdout() -> Output {
        Output {
            stdout: io::BufWriter::new(io::stdout()),
        }
    }

    /// Flushes what is buffered, reporting a write error.
    pub fn finish(mut self) -> CommandResult {
        self.stdout.flush()?;
        Ok(())
    }
}

impl Write for Output {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.stdout.write(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.stdout.flush()
    }
}

/// Writes one line on stderr; a closed or full stderr is ignored (there is nowhere left to say
/// so).
pub fn report_error(message: &str) {
    let _ = writeln!(
        io::stderr(),
        "chevron: error: {}",
        escape_controls(message, "\n")
    );
}

/// `text` with its control characters (but those in `keep`) written as escapes (`\x1b`, `\r`,
/// `\u{9b}`), so that input quoted in a message cannot drive the terminal that shows it.
pub fn escape_controls(text: &str, keep: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if !c.is_control() || keep.contains(c) {
            out.push(c);
            continue;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape_controls;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(
            escape_controls("a\u{1b}[2Jb\r\tc\u{9b}d\ne", "\n"),
            "a\\x1b[2Jb\\r\\tc\\u{9b}d\ne"
        );
        assert_eq!(escape_controls("x\ny", ""), "x\\ny");
    }
}
