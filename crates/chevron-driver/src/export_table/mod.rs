//! `cuGetExportTable`: the private function tables NVIDIA's CUDA runtime asks the driver for.
//!
//! A runtime linked into the program (nvcc's default, `libcudart_static.a`) resolves the
//! documented driver API through `cuGetProcAddress`, then asks `cuGetExportTable(&table,
//! &uuid)` for undocumented tables (context-local storage, tools TLS and callback hooks,
//! module-from-fatbin helpers, …) that it calls while it registers fatbins and launches
//! kernels. A 16-byte UUID names each table, an array of function pointers (other projects
//! describe the first word of most as the table's size in bytes).
//!
//! chevron serves none of these tables yet: every request prints one line naming the UUID,
//! the table's name where it is known ([`known`]), and the caller (object and offset of the
//! return address, [`caller`]), and returns `CUDA_ERROR_NOT_SUPPORTED`, never a pointer the
//! runtime would call into. `chevron exec` refuses such a program up front
//! (`program_runtime.rs`); run under the driver library directly, CUDA 13.0's runtime
//! stops after its first two table requests, one such line each (see `docs/driver.md`,
//! "Statically linked runtimes").

pub mod caller;
pub mod known;

use std::ffi::c_void;
use std::fmt;

use crate::result::{entry, CUresult, DriverError, INVALID_VALUE, NOT_SUPPORTED};

/// `CUuuid`: 16 bytes, printed as CUDA's tools print them (`{xxxxxxxx-xxxx-…}`, bytes in
/// memory order).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(C)]
pub struct Uuid(pub [u8; 16]);

impl fmt::Display for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = &self.0;
        write!(f, "{{")?;
        for (i, byte) in b.iter().enumerate() {
            if matches!(i, 4 | 6 | 8 | 10) {
                write!(f, "-")?;
            }
            write!(f, "{byte:02x}")?;
        }
        write!(f, "}}")
    }
}

/// The one-line report of a request for the table `uuid` that chevron does not serve.
pub fn refusal(uuid: &Uuid, caller: &str) -> String {
    let name = known::name(uuid).unwrap_or("an unknown table");
    format!(
        "table {uuid} ({name}) requested from {caller} is not served by chevron \
         (a statically linked NVIDIA runtime; build with `nvcc -cudart shared`)"
    )
}

/// The body of `cuGetExportTable` for the caller `caller`.
fn get_export_table(table: *mut *const c_void, uuid: *const Uuid, caller: &str) -> CUresult {
    entry("cuGetExportTable", || {
        if table.is_null() || uuid.is_null() {
            return Err(DriverError::new(
                INVALID_VALUE,
                "the table or UUID pointer is NULL",
            ));
        }
        // SAFETY: non-NULL; a `CUuuid` by the API's contract (16 bytes, any alignment).
        let uuid = unsafe { uuid.read_unaligned() };
        // SAFETY: non-NULL; writable by the API's contract. No table: NULL, never a pointer
        // the caller could call through.
        unsafe { table.write(std::ptr::null()) };
        Err(DriverError::new(NOT_SUPPORTED, refusal(&uuid, caller)))
    })
}

/// `cuGetExportTable`: every table is refused with `CUDA_ERROR_NOT_SUPPORTED` and one line
/// naming it and its caller; NULL arguments are `CUDA_ERROR_INVALID_VALUE`.
///
/// # Safety
/// `table` must be NULL or writable; `uuid` NULL or 16 readable bytes.
#[no_mangle]
#[inline(never)]
pub unsafe extern "C" fn cuGetExportTable(
    table: *mut *const c_void,
    uuid: *const Uuid,
) -> CUresult {
    let caller = caller::describe(caller::return_address());
    get_export_table(table, uuid, &caller)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CUDART_INTERFACE: Uuid = Uuid([
        0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d,
        0xf9,
    ]);

    #[test]
    fn a_table_request_is_refused_with_a_line_naming_it() {
        let mut table: *const c_void = std::ptr::dangling();
        let unknown = Uuid([0xab; 16]);
        assert_eq!(
            get_export_table(&mut table, &unknown, "here"),
            NOT_SUPPORTED
        );
        assert!(
            table.is_null(),
            "a refused table leaves NULL, never a callable pointer"
        );
        let line = refusal(&unknown, "prog+0x10");
        assert_eq!(
            line,
            "table {abababab-abab-abab-abab-abababababab} (an unknown table) requested from \
             prog+0x10 is not served by chevron (a statically linked NVIDIA runtime; build \
             with `nvcc -cudart shared`)"
        );
        assert!(refusal(&CUDART_INTERFACE, "x").contains("(CUDART_INTERFACE:"));
    }

    #[test]
    fn null_arguments_are_invalid_values() {
        let mut table: *const c_void = std::ptr::null();
        assert_eq!(
            get_export_table(std::ptr::null_mut(), &Uuid([0; 16]), "x"),
            INVALID_VALUE
        );
        assert_eq!(
            get_export_table(&mut table, std::ptr::null(), "x"),
            INVALID_VALUE
        );
    }

    #[test]
    fn the_exported_entry_names_its_caller_and_refuses() {
        let mut table: *const c_void = std::ptr::null();
        // SAFETY: both pointers are valid.
        let code = unsafe { cuGetExportTable(&mut table, &CUDART_INTERFACE) };
        assert_eq!(code, NOT_SUPPORTED);
    }
}
