//! The entries of a served table that chevron does not implement: each slot holds its own
//! instance of [`unserved`], which prints one line naming the table, the slot and the caller
//! and returns `CUDA_ERROR_NOT_SUPPORTED`, so a runtime that calls one never jumps through a
//! NULL pointer.

use super::{caller, known, Uuid};
use crate::result::{CUresult, NOT_SUPPORTED};

/// The one-line report of a call to entry `slot` of the table `uuid`.
pub fn report(uuid: &Uuid, slot: usize, caller: &str) -> String {
    let name = known::name(uuid).unwrap_or("an unknown table");
    format!(
        "chevron: cuGetExportTable: entry {slot} of table {uuid} ({name}), called from {caller}, \
         is not implemented by chevron (a statically linked NVIDIA runtime; build with \
         `nvcc -cudart shared`)"
    )
}

/// Slot `SLOT` of table `TABLE` (an index into [`known::TABLES`]). Callers pass whatever
/// arguments the runtime's signature has; none is read.
#[inline(never)]
pub extern "C" fn unserved<const TABLE: usize, const SLOT: usize>() -> CUresult {
    let caller = caller::describe(caller::return_address());
    let uuid = Uuid(known::TABLES[TABLE].0);
    eprintln!("{}", report(&uuid, SLOT, &caller));
    NOT_SUPPORTED
}
