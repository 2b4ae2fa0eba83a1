//! `cuGetExportTable`: the private function tables NVIDIA's CUDA runtime asks the driver for.
//!
//! A runtime linked into the program (nvcc's default, `libcudart_static.a`) resolves the
//! documented driver API through `cuGetProcAddress`, then asks `cuGetExportTable(&table,
//! &uuid)` for undocumented tables (context-local storage, tools TLS and callback hooks,
//! module-from-fatbin helpers, …) that it calls while it registers fatbins and launches
//! kernels. A 16-byte UUID names each table, an array of function pointers (other projects
//! describe the first word of most as the table's size in bytes).
//!
//! chevron serves the tables CUDA 13.0's runtime needs ([`tables`]) over its own state: the
//! runtime's fatbins become chevron modules ([`cudart_interface`]), its per-context state is
//! kept by key ([`context_storage`]), its integrity check is answered ([`integrity`], with
//! [`md2`]) and the tools hooks and context checks report nothing enabled ([`tools`]). What
//! each entry does was learned from ZLUDA's `dark_api` crate (table layouts, signatures, the
//! integrity hash) and from a write-up of the CUDA 13.0 bootstrap order in another project's
//! documentation, and verified by running nvcc 13.0's default builds (`tests/static/`) on the
//! CPU device with outputs equal to the same sources built `-cudart shared`.
//!
//! `{f8cff951-…}`, which the runtime asks for first, and `{da9151d3-…}`, which NVRTC asks for,
//! are declined quietly (`CUDA_ERROR_NOT_SUPPORTED`; both go on without them). Any other table prints one
//! line naming the UUID, the caller (object and offset of the return address, [`caller`]) and
//! the runtime's CUDA version (as it passed it to `cuGetProcAddress`), and returns
//! `CUDA_ERROR_NOT_SUPPORTED`, never a pointer the runtime would call into; an entry of a
//! served table that chevron does not implement does the same when called ([`unserved`]).

pub mod caller;
pub mod context_storage;
pub mod cudart_interface;
pub mod integrity;
pub mod known;
pub mod md2;
pub mod tables;
pub mod tools;
pub mod unserved;

use std::ffi::c_void;
use std::fmt;

use std::sync::atomic::Ordering;

use crate::proc_address::REQUESTED_VERSION;
use crate::result::{entry, store, CUresult, DriverError, INVALID_VALUE, NOT_SUPPORTED};

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
pub fn refusal(uuid: &Uuid, caller: &str, runtime_version: i32) -> String {
    let name = known::name(uuid).unwrap_or("an unknown table");
    let runtime = match runtime_version {
        0 => "a CUDA runtime of unknown version".to_owned(),
        v => format!("the CUDA {}.{} runtime", v / 1000, v % 1000 / 10),
    };
    format!(
        "table {uuid} ({name}) requested by {runtime} from {caller} is not served by chevron \
         (a statically linked NVIDIA runtime; build with `nvcc -cudart shared`)"
    )
}

/// Tables their callers do without: the runtime's first request, and NVRTC's.
const DECLINED_QUIETLY: [usize; 2] = [0, 7];

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
        if let Some(served) = tables::served(&uuid) {
            return store(table, served, "table");
        }
        // No table: NULL, never a pointer the caller could call through.
        store(table, std::ptr::null(), "table")?;
        if DECLINED_QUIETLY
            .iter()
            .any(|&i| known::TABLES[i].0 == uuid.0)
        {
            return Err(DriverError::new(NOT_SUPPORTED, ""));
        }
        let version = REQUESTED_VERSION.load(Ordering::Relaxed);
        Err(DriverError::new(
            NOT_SUPPORTED,
            refusal(&uuid, caller, version),
        ))
    })
}

/// `cuGetExportTable`: the tables of [`tables`]; any other is refused with
/// `CUDA_ERROR_NOT_SUPPORTED` (one line naming it and its caller, but for the one declined
/// quietly); NULL arguments are `CUDA_ERROR_INVALID_VALUE`.
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

    const CUDART_INTERFACE: Uuid = Uuid(known::TABLES[1].0);

    #[test]
    fn an_unknown_table_is_refused_with_a_line_naming_it() {
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
        assert_eq!(
            refusal(&unknown, "prog+0x10", 13020),
            "table {abababab-abab-abab-abab-abababababab} (an unknown table) requested by the \
             CUDA 13.2 runtime from prog+0x10 is not served by chevron (a statically linked \
             NVIDIA runtime; build with `nvcc -cudart shared`)"
        );
        assert!(refusal(&unknown, "x", 0).contains("a CUDA runtime of unknown version"));
    }

    #[test]
    fn the_first_table_is_declined_and_the_runtimes_tables_are_served() {
        let mut table: *const c_void = std::ptr::dangling();
        for declined in DECLINED_QUIETLY {
            let uuid = Uuid(known::TABLES[declined].0);
            assert_eq!(get_export_table(&mut table, &uuid, "x"), NOT_SUPPORTED);
            assert!(table.is_null());
        }
        for (bytes, name) in &known::TABLES[1..7] {
            assert_eq!(
                get_export_table(&mut table, &Uuid(*bytes), "x"),
                0,
                "{name}"
            );
            assert!(!table.is_null(), "{name}");
        }
        get_export_table(&mut table, &CUDART_INTERFACE, "x");
        // SAFETY: the CUDART_INTERFACE table starts with its size in bytes.
        assert_eq!(unsafe { *table.cast::<usize>() }, 80);
    }

    #[test]
    fn an_unimplemented_entry_reports_itself_and_refuses() {
        let entry: extern "C" fn() -> CUresult = unserved::unserved::<1, 3>;
        assert_eq!(entry(), NOT_SUPPORTED);
        assert!(unserved::report(&CUDART_INTERFACE, 3, "prog+0x1")
            .starts_with("chevron: cuGetExportTable: entry 3 of table {6bd5fb6c-"));
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
}
