//! `Module::kernel`: a kernel found in a module's symbols and resolved into a [`Kernel`]. It
//! lives with the launch layer, which sits above modules, so that `module/` never names a launch.

use chevron_ptx::symbols::LookupError;

use crate::error::{Error, Result};
use crate::launch::kernel::Kernel;
use crate::module::{kind_word, Module};

impl Module {
    /// Finds a kernel by exact (mangled) name, demangled signature, template instance or plain
    /// name when unambiguous, and resolves it.
    pub fn kernel(&self, query: &str) -> Result<Kernel> {
        if !self.shared.symbols_known {
            let function = self.backend().function(query)?;
            return Ok(Kernel::new(self.clone(), function, query.to_string(), None));
        }
        let symbols = self.symbols();
        let symbol = match symbols.find_kernel(query) {
            Ok(symbol) => symbol,
            Err(LookupError::NotFound { .. }) if symbols.find(query).is_ok() => {
                let other = symbols.find(query).expect("just found");
                return Err(Error::InvalidValue {
                    call: "Module::kernel",
                    message: format!(
                        "`{}` in {} is a {}, not a kernel",
                        other.display_name(),
                        self.shared.source_name,
                        kind_word(&other.kind)
                    ),
                });
            }
            Err(err) => return Err(self.lookup_error(err, "kernel", query)),
        };
        let function = self.backend().function(&symbol.name)?;
        Ok(Kernel::new(
            self.clone(),
            function,
            symbol.display_name().to_string(),
            Some(symbol.params.clone()),
        ))
    }
}
