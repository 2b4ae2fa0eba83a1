//! `cuLink*`: linking PTX at run time (PTX inputs, and the PTX of fatbin inputs) with
//! chevron-ptx's linker. The linked image handed back is PTX text, which `cuModuleLoadData`
//! takes like any other code object; cubin, object and library inputs are refused with
//! `CUDA_ERROR_NOT_SUPPORTED` naming the input (chevron links PTX, not SASS), except CUDA's
//! device runtime library `libcudadevrt.a`, whose grid-synchronisation functions chevron
//! provides as PTX (`chevron_ptx::linker::DEVICE_RUNTIME_PTX`).

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::Mutex;

use chevron::code_object::{parse_fatbin, EntryKind};
use cudart::state::lock;

use crate::context::check_initialised;
use crate::result::{
    entry, store, CUresult, DriverError, DriverResult, FILE_NOT_FOUND, INVALID_HANDLE,
    INVALID_IMAGE, INVALID_PTX, INVALID_VALUE, NOT_SUPPORTED,
};

/// `CU_JIT_INPUT_PTX`, `CU_JIT_INPUT_FATBINARY`, `CU_JIT_INPUT_LIBRARY`.
const INPUT_PTX: c_int = 1;
const INPUT_FATBINARY: c_int = 2;
const INPUT_LIBRARY: c_int = 4;

/// chevron's PTX for the functions of CUDA's device runtime library (`libcudadevrt.a`, machine
/// code only) that Numba's cooperative groups call: linked in place of the archive.
const DEVICE_RUNTIME: &str = chevron_ptx::linker::DEVICE_RUNTIME_PTX;

/// Whether library input `name` is CUDA's device runtime library.
fn is_device_runtime(name: &str) -> bool {
    std::path::Path::new(name)
        .file_name()
        .is_some_and(|file| file == "libcudadevrt.a")
}

/// `CU_JIT_MAX_REGISTERS`: its value is the number itself, in the pointer.
const OPTION_MAX_REGISTERS: c_int = 0;

/// A link in progress: the inputs' parsed PTX, then the linked text.
#[derive(Default)]
struct Linker {
    modules: Vec<chevron_ptx::ir::Module>,
    linked: Option<Vec<u8>>,
    /// `CU_JIT_MAX_REGISTERS`, written into the linked kernels as `.maxnreg`.
    max_registers: Option<u32>,
}

/// The `CU_JIT_MAX_REGISTERS` option among `count` options.
///
/// # Safety
/// `options` and `values` are NULL or valid for `count` reads.
unsafe fn max_registers_option(
    count: c_uint,
    options: *const c_int,
    values: *const *mut c_void,
) -> Option<u32> {
    if options.is_null() || values.is_null() {
        return None;
    }
    (0..count as usize)
        // SAFETY: `count` readable options and values (caller).
        .find(|&i| unsafe { *options.add(i) } == OPTION_MAX_REGISTERS)
        // SAFETY: as above.
        .map(|i| unsafe { *values.add(i) } as usize as u32)
        .filter(|&n| n > 0)
}

/// Gives every kernel of `module` at most `limit` registers (`.maxnreg`).
fn limit_registers(module: &mut chevron_ptx::ir::Module, limit: u32) {
    use chevron_ptx::ir::{FunctionDirective, FunctionKind, Item};
    for item in &mut module.items {
        let Item::Function(function) = item else {
            continue;
        };
        if function.kind != FunctionKind::Entry || function.body.is_none() {
            continue;
        }
        let mut found = false;
        for directive in &mut function.directives {
            if let FunctionDirective::Performance { name, values } = directive {
                if name == "maxnreg" {
                    found = true;
                    values.iter_mut().for_each(|n| *n = (*n).min(limit));
                }
            }
        }
        if !found {
            function.directives.push(FunctionDirective::Performance {
                name: "maxnreg".into(),
                values: vec![limit],
            });
        }
    }
}

static LINKERS: Mutex<Option<HashMap<usize, Box<Linker>>>> = Mutex::new(None);

fn with_linker<T>(
    handle: *mut c_void,
    f: impl FnOnce(&mut Linker) -> DriverResult<T>,
) -> DriverResult<T> {
    let mut linkers = lock(&LINKERS);
    let linker = linkers
        .as_mut()
        .and_then(|l| l.get_mut(&(handle as usize)))
        .ok_or_else(|| {
            DriverError::new(
                INVALID_HANDLE,
                format!("{handle:p} is not a live CUlinkState"),
            )
        })?;
    f(linker)
}

fn label(name: *const c_char) -> String {
    if name.is_null() {
        return "input".into();
    }
    // SAFETY: non-NULL, NUL-terminated by the API's contract.
    unsafe { CStr::from_ptr(name) }
        .to_string_lossy()
        .into_owned()
}

fn add(linker: &mut Linker, kind: c_int, bytes: &[u8], name: &str) -> DriverResult {
    let text = match kind {
        INPUT_PTX => {
            String::from_utf8_lossy(bytes.strip_suffix(b"\0").unwrap_or(bytes)).into_owned()
        }
        INPUT_FATBINARY => {
            let entries = parse_fatbin(bytes)
                .map_err(|e| DriverError::new(INVALID_IMAGE, format!("{name}: {e}")))?;
            let ptx = entries
                .iter()
                .filter(|e| e.kind == EntryKind::Ptx)
                .max_by_key(|e| e.arch)
                .ok_or_else(|| {
                    DriverError::new(INVALID_IMAGE, format!("{name}: the fatbin holds no PTX"))
                })?;
            ptx.ptx_text()
                .map_err(|e| DriverError::new(INVALID_IMAGE, format!("{name}: {e}")))?
        }
        INPUT_LIBRARY if is_device_runtime(name) => DEVICE_RUNTIME.to_string(),
        other => {
            return Err(DriverError::new(
                NOT_SUPPORTED,
                format!(
                    "{name}: CUjitInputType {other} (chevron links PTX and the PTX of fatbins, \
                     not cubins, objects or libraries)"
                ),
            ))
        }
    };
    let module = chevron_ptx::parse(&text)
        .map_err(|e| DriverError::new(INVALID_PTX, format!("{name}: {e}")))?;
    linker.modules.push(module);
    linker.linked = None;
    Ok(())
}

/// Starts a link. Of the JIT options, `CU_JIT_MAX_REGISTERS` is kept (as `.maxnreg` on the
/// linked kernels); the others change nothing on chevron's devices.
///
/// # Safety
/// `options` and `values` are NULL or valid for `count` reads.
#[no_mangle]
pub unsafe extern "C" fn cuLinkCreate_v2(
    count: c_uint,
    options: *mut c_int,
    values: *mut *mut c_void,
    out: *mut *mut c_void,
) -> CUresult {
    entry("cuLinkCreate", || {
        check_initialised()?;
        if out.is_null() {
            return Err(DriverError::new(INVALID_VALUE, "stateOut is NULL"));
        }
        let linker = Box::new(Linker {
            // SAFETY: forwarded from the caller.
            max_registers: unsafe { max_registers_option(count, options, values) },
            ..Linker::default()
        });
        let handle = &*linker as *const Linker as *mut c_void;
        lock(&LINKERS)
            .get_or_insert_with(HashMap::new)
            .insert(handle as usize, linker);
        store(out, handle, "stateOut")
    })
}

/// Adds an input from memory.
///
/// # Safety
/// `data` holds `size` readable bytes.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cuLinkAddData_v2(
    handle: *mut c_void,
    kind: c_int,
    data: *mut c_void,
    size: usize,
    name: *const c_char,
    count: c_uint,
    options: *mut c_int,
    values: *mut *mut c_void,
) -> CUresult {
    let _ = (count, options, values);
    entry("cuLinkAddData", || {
        if data.is_null() || size == 0 {
            return Err(DriverError::new(INVALID_VALUE, "no data"));
        }
        if !chevron::ffi::c_array_fits::<u8>(size) {
            return Err(DriverError::new(
                INVALID_VALUE,
                format!("size {size} is more than memory holds"),
            ));
        }
        // SAFETY: `size` readable bytes, by contract.
        let bytes = unsafe { std::slice::from_raw_parts(data.cast::<u8>(), size) };
        with_linker(handle, |linker| add(linker, kind, bytes, &label(name)))
    })
}

/// Adds an input file.
#[no_mangle]
pub extern "C" fn cuLinkAddFile_v2(
    handle: *mut c_void,
    kind: c_int,
    path: *const c_char,
    count: c_uint,
    options: *mut c_int,
    values: *mut *mut c_void,
) -> CUresult {
    let _ = (count, options, values);
    entry("cuLinkAddFile", || {
        if path.is_null() {
            return Err(DriverError::new(INVALID_VALUE, "path is NULL"));
        }
        let name = label(path);
        // The handle first: a dead link state is that, whatever the file.
        with_linker(handle, |linker| {
            let bytes = std::fs::read(&name)
                .map_err(|e| DriverError::new(FILE_NOT_FOUND, format!("{name}: {e}")))?;
            add(linker, kind, &bytes, &name)
        })
    })
}

/// Links the inputs; the image (PTX text) stays valid until `cuLinkDestroy`.
#[no_mangle]
pub extern "C" fn cuLinkComplete(
    handle: *mut c_void,
    image: *mut *mut c_void,
    size: *mut usize,
) -> CUresult {
    entry("cuLinkComplete", || {
        with_linker(handle, |linker| {
            if linker.modules.is_empty() {
                return Err(DriverError::new(
                    INVALID_VALUE,
                    "nothing was added to the link",
                ));
            }
            let mut linked = chevron_ptx::link(&linker.modules)
                .map_err(|e| DriverError::new(INVALID_PTX, format!("linking: {e}")))?;
            if let Some(limit) = linker.max_registers {
                limit_registers(&mut linked, limit);
            }
            let mut text = chevron_ptx::print(&linked).into_bytes();
            text.push(0);
            let bytes = linker.linked.insert(text);
            store(image, bytes.as_mut_ptr().cast(), "cubinOut")?;
            store(size, bytes.len(), "sizeOut")
        })
    })
}

/// Ends a link and frees its image.
#[no_mangle]
pub extern "C" fn cuLinkDestroy(handle: *mut c_void) -> CUresult {
    entry("cuLinkDestroy", || {
        lock(&LINKERS)
            .as_mut()
            .and_then(|l| l.remove(&(handle as usize)))
            .map(drop)
            .ok_or_else(|| {
                DriverError::new(
                    INVALID_HANDLE,
                    format!("{handle:p} is not a live CUlinkState"),
                )
            })
    })
}
