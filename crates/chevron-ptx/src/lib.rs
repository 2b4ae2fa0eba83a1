//! chevron-ptx: the PTX front end and interpreter of chevron.
//!
//! Pure Rust, no `unsafe`. Layers, each in its own module:
//! - [`ir`]: the typed IR every other module reads and writes.
#![forbid(unsafe_code)]

pub mod ir;
pub mod symbols;

pub use symbols::{LookupError, ParamLayout, Symbol, SymbolKind, SymbolTable};
pub mod linker;

pub use linker::{link, LinkError};
