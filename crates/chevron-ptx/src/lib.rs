//! chevron-ptx: the PTX front end and interpreter of chevron.
//!
//! Pure Rust, no `unsafe`. Layers, each in its own module:
//! - [`ir`]: the typed IR every other module reads and writes.
//! - [`parser`] (over the internal lexer): PTX text to [`ir::Module`], errors as [`ParseError`].
//! - [`printer`]: [`ir::Module`] back to PTX text.
//! - [`passes`]: rewriting passes over the IR (instrumentation).
//! - [`lowered`]: the instruction set the CPU device executes (interpreted or compiled), with
//!   what each instruction reads, writes and does.
//! - [`interp`]: the interpreter that runs PTX kernels on the CPU with GPU semantics, and the
//!   exact numeric semantics of PTX instructions.
#![forbid(unsafe_code)]

pub mod error;
pub mod interp;
pub mod ir;
mod lexer;
pub mod lowered;
pub mod parser;
pub mod passes;
pub mod printer;
pub mod symbols;

pub use error::ParseError;
pub use parser::{parse, parse_bytes, parses_on_this_thread};
pub use printer::print;
pub use symbols::{LookupError, ParamLayout, Symbol, SymbolKind, SymbolTable};
pub mod linker;

pub use linker::{link, LinkError};
