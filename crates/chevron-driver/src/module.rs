//! Modules and libraries: code objects (PTX, cubin, fatbin) loaded on the current context's
//! device, their functions (`CUfunction`, and `CUkernel` of libraries: the same handle) and
//! globals.
//!
//! A handle is the address of a registered entry, looked up on every use, so an unloaded
//! module's handles are `CUDA_ERROR_INVALID_HANDLE`; each thread caches the function it
//! resolved last, valid until the next unload. A library (`cuLibraryLoadData`) is a
//! module loaded on the current context's device (device 0 without one).

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use chevron::code_object::{
    parse_fatbin, select_entry, CodeObject, CodeObjectKind, CodeTargets, EntryKind,
};
use chevron::{Kernel, Module};
use chevron_ptx::ir;
use cudart::state::{self, lock};

use crate::context::{check_initialised, current};
use crate::image::image_bytes;
use crate::kernel_resources::KernelResources;
use crate::memory::CUdeviceptr;
use crate::relocatable::linked_module;
use crate::result::{
    entry, require, store, CUresult, DriverError, DriverResult, FILE_NOT_FOUND, INVALID_HANDLE,
    INVALID_VALUE, NOT_FOUND, NO_BINARY_FOR_GPU,
};

/// A loaded module.
pub struct ModuleEntry {
    /// The device ordinal it is loaded on.
    pub ordinal: usize,
    module: Module,
    functions: Mutex<HashMap<String, Arc<FunctionEntry>>>,
    versions: (c_int, c_int),
    /// The PTX the device runs, when it runs PTX (its kernels' resources are read from it).
    ptx: Option<Arc<ir::Module>>,
}

/// A kernel of a loaded module.
pub struct FunctionEntry {
    /// The device ordinal.
    pub ordinal: usize,
    /// The kernel.
    pub kernel: Kernel,
    /// Its name, for `cuFuncGetName`.
    pub name: CString,
    /// The module's handle.
    pub module: usize,
    /// The PTX and binary versions of the code the device runs (`CU_FUNC_ATTRIBUTE_PTX_VERSION`,
    /// `_BINARY_VERSION`): CUB picks its tuning policies by the PTX version.
    pub versions: (c_int, c_int),
    /// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` as set (-1: never set).
    pub max_dynamic_shared: AtomicI32,
    /// Local, constant and register figures from the PTX (zeros for a GPU binary).
    pub resources: KernelResources,
}

static MODULES: Mutex<Option<HashMap<usize, Arc<ModuleEntry>>>> = Mutex::new(None);
static FUNCTIONS: RwLock<Option<HashMap<usize, Arc<FunctionEntry>>>> = RwLock::new(None);

/// Unloads so far: a thread's cached function is valid while this has not moved.
static UNLOADS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// The function this thread resolved last, with the unload count it was resolved at: a
    /// launch loop resolves its handle without a lock or a map lookup.
    static LAST_FUNCTION: RefCell<Option<(usize, u64, Arc<FunctionEntry>)>> =
        const { RefCell::new(None) };
}

/// Modules unloaded so far: what was resolved from a function handle stays valid while this
/// has not moved.
#[inline]
pub fn unloads() -> u64 {
    UNLOADS.load(Ordering::Acquire)
}

/// The live function (or library kernel) `handle`.
pub fn function(handle: *mut c_void) -> DriverResult<Arc<FunctionEntry>> {
    let unloads = UNLOADS.load(Ordering::Acquire);
    let cached = LAST_FUNCTION.with(|last| match &*last.borrow() {
        Some((at, seen, function)) if *at == handle as usize && *seen == unloads => {
            Some(Arc::clone(function))
        }
        _ => None,
    });
    if let Some(function) = cached {
        return Ok(function);
    }
    let registered = FUNCTIONS
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .and_then(|f| f.get(&(handle as usize)).cloned());
    // The read lock is released before a runtime kernel is adopted (which registers it).
    let function = registered
        .or_else(|| crate::runtime_functions::adopt(handle))
        .ok_or_else(|| {
            DriverError::new(
                INVALID_HANDLE,
                format!("{handle:p} is not a CUfunction of a loaded module"),
            )
        })?;
    LAST_FUNCTION.with(|last| {
        *last.borrow_mut() = Some((handle as usize, unloads, Arc::clone(&function)));
    });
    Ok(function)
}

/// Registers `function` under `handle` (a handle the runtime handed out, see
/// `crate::runtime_functions`); the one registered first stays.
pub(crate) fn register_function(handle: usize, function: FunctionEntry) -> Arc<FunctionEntry> {
    let mut functions = FUNCTIONS.write().unwrap_or_else(|e| e.into_inner());
    Arc::clone(
        functions
            .get_or_insert_with(HashMap::new)
            .entry(handle)
            .or_insert_with(|| Arc::new(function)),
    )
}

fn module_entry(handle: *mut c_void) -> DriverResult<Arc<ModuleEntry>> {
    lock(&MODULES)
        .as_ref()
        .and_then(|m| m.get(&(handle as usize)).cloned())
        .ok_or_else(|| {
            DriverError::new(
                INVALID_HANDLE,
                format!("{handle:p} is not a loaded CUmodule or CUlibrary"),
            )
        })
}

/// Loads `bytes` (named `source` in errors) on the current context's device and returns its
/// handle.
pub fn load(bytes: &[u8], source: &str) -> DriverResult<*mut c_void> {
    let ordinal = current_ordinal()?;
    let device = &state::device(ordinal)?.device;
    let code = CodeObject::read(bytes, source);
    let targets = device.code_targets();
    let runs = code.for_targets(&targets);
    if let Err(error) = &runs {
        if has_no_code_for(&code, &targets) {
            return Err(DriverError::new(
                NO_BINARY_FOR_GPU,
                format!("no code in it runs on {}: {error}", device.label()),
            ));
        }
    }
    let module = Module::from_code_object(device, &code)?;
    let ptx = runs.ok().and_then(|runs| runs.ptx().ok().cloned());
    Ok(insert(ordinal, module, code_versions(bytes, device), ptx))
}

/// Loads the code object at `image` (a device link's wrapper of `-rdc=true` code through
/// [`linked_module`], anything else through [`load`]) and returns the module's handle.
///
/// # Safety
/// `image` is a whole code object (see [`image_bytes`]).
unsafe fn load_image(image: *const c_void, source: &str) -> DriverResult<*mut c_void> {
    let ordinal = current_ordinal()?;
    // SAFETY: forwarded from the caller.
    if let Some((module, versions)) = unsafe { linked_module(image, ordinal, source) }? {
        return Ok(insert(ordinal, module, versions, None));
    }
    // SAFETY: forwarded from the caller.
    let bytes = unsafe { image_bytes(image) }?;
    load(bytes, source)
}

/// The device ordinal modules load on: the current context's, else 0.
fn current_ordinal() -> DriverResult<usize> {
    check_initialised()?;
    Ok(current()?.map_or(0, |c| c.ordinal))
}

/// Registers `module`, loaded on device `ordinal` and running code of PTX and binary
/// `versions` (its PTX, when the device runs PTX, for the function attributes), and returns
/// its handle.
fn insert(
    ordinal: usize,
    module: Module,
    versions: (c_int, c_int),
    ptx: Option<Arc<ir::Module>>,
) -> *mut c_void {
    let entry = Arc::new(ModuleEntry {
        ordinal,
        module,
        functions: Mutex::new(HashMap::new()),
        versions,
        ptx,
    });
    let handle = Arc::as_ptr(&entry) as *mut c_void;
    lock(&MODULES)
        .get_or_insert_with(HashMap::new)
        .insert(handle as usize, entry);
    handle
}

/// Whether `code` is well formed yet holds nothing a device with `targets` runs: a cubin on a
/// device that runs PTX only, or a fatbin none of whose entries it takes. CUDA reports that as
/// `CUDA_ERROR_NO_BINARY_FOR_GPU` ("no kernel image available that is suitable for the device").
fn has_no_code_for(code: &CodeObject, targets: &CodeTargets) -> bool {
    match code.kind() {
        CodeObjectKind::Cubin => targets.cubin_archs.is_none(),
        CodeObjectKind::Fatbin => parse_fatbin(code.bytes())
            .is_ok_and(|entries| select_entry(&entries, targets).is_none()),
        _ => false,
    }
}

/// The PTX and binary versions of what `device` runs of `bytes`: the fatbin entry it selects
/// (for a cubin, the newest PTX entry not newer than it), else the device's architecture.
fn code_versions(bytes: &[u8], device: &chevron::Device) -> (c_int, c_int) {
    let (major, minor) = device.compute_capability();
    let arch = major * 10 + minor;
    let entries = parse_fatbin(bytes).unwrap_or_default();
    let Some(chosen) = select_entry(&entries, &device.code_targets()).map(|i| &entries[i]) else {
        return (arch as c_int, arch as c_int);
    };
    let (ptx, binary) = if chosen.kind == EntryKind::Ptx {
        (chosen.arch, arch)
    } else {
        let ptx = entries
            .iter()
            .filter(|e| e.kind == EntryKind::Ptx && e.arch <= chosen.arch)
            .map(|e| e.arch)
            .max();
        (ptx.unwrap_or(chosen.arch), chosen.arch)
    };
    (ptx as c_int, binary as c_int)
}

fn name_of<'a>(name: *const c_char) -> DriverResult<&'a str> {
    if name.is_null() {
        return Err(DriverError::new(INVALID_VALUE, "name is NULL"));
    }
    // SAFETY: non-NULL, NUL-terminated by the API's contract.
    unsafe { CStr::from_ptr(name) }
        .to_str()
        .map_err(|_| DriverError::new(INVALID_VALUE, "name is not UTF-8"))
}

fn get_function(module: *mut c_void, name: *const c_char) -> DriverResult<*mut c_void> {
    let entry = module_entry(module)?;
    let name = name_of(name)?;
    let mut functions = lock(&entry.functions);
    if let Some(found) = functions.get(name) {
        return Ok(Arc::as_ptr(found) as *mut c_void);
    }
    let kernel = entry.module.kernel(name).map_err(|error| {
        DriverError::new(
            NOT_FOUND,
            format!("no kernel `{name}` in the module: {error}"),
        )
    })?;
    let resources = entry
        .ptx
        .as_deref()
        .and_then(|ptx| KernelResources::of(ptx, kernel.name(), kernel.max_threads_per_block()))
        .unwrap_or_default();
    let function = Arc::new(FunctionEntry {
        ordinal: entry.ordinal,
        resources,
        kernel,
        name: CString::new(name).unwrap_or_default(),
        module: module as usize,
        versions: entry.versions,
        max_dynamic_shared: AtomicI32::new(-1),
    });
    let handle = Arc::as_ptr(&function) as *mut c_void;
    FUNCTIONS
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert_with(HashMap::new)
        .insert(handle as usize, Arc::clone(&function));
    functions.insert(name.to_owned(), function);
    Ok(handle)
}

fn unload(module: *mut c_void) -> DriverResult {
    let entry = lock(&MODULES)
        .as_mut()
        .and_then(|m| m.remove(&(module as usize)))
        .ok_or_else(|| {
            DriverError::new(INVALID_HANDLE, format!("{module:p} is not a loaded module"))
        })?;
    let mut functions = FUNCTIONS.write().unwrap_or_else(|e| e.into_inner());
    if let Some(functions) = functions.as_mut() {
        for function in lock(&entry.functions).values() {
            functions.remove(&(Arc::as_ptr(function) as usize));
        }
    }
    UNLOADS.fetch_add(1, Ordering::Release);
    Ok(())
}

fn get_global(
    dptr: *mut CUdeviceptr,
    bytes: *mut usize,
    module: *mut c_void,
    name: *const c_char,
) -> DriverResult {
    let entry = module_entry(module)?;
    let name = name_of(name)?;
    let global = entry.module.global(name).map_err(|error| {
        DriverError::new(
            NOT_FOUND,
            format!("no global `{name}` in the module: {error}"),
        )
    })?;
    if !dptr.is_null() {
        store(dptr, global.ptr, "dptr")?;
    }
    if !bytes.is_null() {
        store(bytes, global.size as usize, "bytes")?;
    }
    Ok(())
}

/// Loads a code object from memory (PTX text, cubin or fatbin).
///
/// # Safety
/// `image` is a whole code object (see [`image_bytes`]).
#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadData(out: *mut *mut c_void, image: *const c_void) -> CUresult {
    entry("cuModuleLoadData", || {
        require(out, "module")?;
        // SAFETY: forwarded from the caller.
        store(
            out,
            unsafe { load_image(image, "cuModuleLoadData") }?,
            "module",
        )
    })
}

/// As [`cuModuleLoadData`]; the JIT options change nothing on chevron's devices.
///
/// # Safety
/// As [`cuModuleLoadData`].
#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadDataEx(
    out: *mut *mut c_void,
    image: *const c_void,
    count: c_uint,
    options: *mut c_int,
    values: *mut *mut c_void,
) -> CUresult {
    let _ = (count, options, values);
    // SAFETY: forwarded from the caller.
    unsafe { cuModuleLoadData(out, image) }
}

/// Loads a fatbin (or its wrapper).
///
/// # Safety
/// As [`cuModuleLoadData`].
#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadFatBinary(
    out: *mut *mut c_void,
    image: *const c_void,
) -> CUresult {
    // SAFETY: forwarded from the caller.
    unsafe { cuModuleLoadData(out, image) }
}

/// Loads a code object file.
#[no_mangle]
pub extern "C" fn cuModuleLoad(out: *mut *mut c_void, path: *const c_char) -> CUresult {
    entry("cuModuleLoad", || {
        require(out, "module")?;
        let path = name_of(path)?;
        let bytes = std::fs::read(path)
            .map_err(|error| DriverError::new(FILE_NOT_FOUND, format!("{path}: {error}")))?;
        store(out, load(&bytes, path)?, "module")
    })
}

/// The module loading mode: eager (`CU_MODULE_EAGER_LOADING`, 1), as chevron loads every
/// module's kernels when the module is loaded.
#[no_mangle]
pub extern "C" fn cuModuleGetLoadingMode(mode: *mut c_int) -> CUresult {
    entry("cuModuleGetLoadingMode", || store(mode, 1, "mode"))
}

/// Unloads a module; its functions' handles become invalid.
#[no_mangle]
pub extern "C" fn cuModuleUnload(module: *mut c_void) -> CUresult {
    entry("cuModuleUnload", || unload(module))
}

/// A kernel of a module by name.
#[no_mangle]
pub extern "C" fn cuModuleGetFunction(
    out: *mut *mut c_void,
    module: *mut c_void,
    name: *const c_char,
) -> CUresult {
    entry("cuModuleGetFunction", || {
        if out.is_null() {
            return Err(DriverError::new(INVALID_VALUE, "hfunc is NULL"));
        }
        store(out, get_function(module, name)?, "hfunc")
    })
}

/// A global variable of a module: its device address and size.
#[no_mangle]
pub extern "C" fn cuModuleGetGlobal_v2(
    dptr: *mut CUdeviceptr,
    bytes: *mut usize,
    module: *mut c_void,
    name: *const c_char,
) -> CUresult {
    entry("cuModuleGetGlobal", || {
        get_global(dptr, bytes, module, name)
    })
}

/// Loads a library from memory (a module on the current context's device).
///
/// # Safety
/// `code` as `image` of [`cuModuleLoadData`]; the option arrays are not read.
#[no_mangle]
pub unsafe extern "C" fn cuLibraryLoadData(
    out: *mut *mut c_void,
    code: *const c_void,
    jit_options: *mut c_int,
    jit_values: *mut *mut c_void,
    jit_count: c_uint,
    library_options: *mut c_int,
    library_values: *mut *mut c_void,
    library_count: c_uint,
) -> CUresult {
    let _ = (jit_options, jit_values, jit_count);
    let _ = (library_options, library_values, library_count);
    entry("cuLibraryLoadData", || {
        require(out, "library")?;
        // SAFETY: forwarded from the caller.
        store(
            out,
            unsafe { load_image(code, "cuLibraryLoadData") }?,
            "library",
        )
    })
}

/// Loads a library from a file.
///
/// # Safety
/// The option arrays are not read.
#[no_mangle]
pub unsafe extern "C" fn cuLibraryLoadFromFile(
    out: *mut *mut c_void,
    path: *const c_char,
    jit_options: *mut c_int,
    jit_values: *mut *mut c_void,
    jit_count: c_uint,
    library_options: *mut c_int,
    library_values: *mut *mut c_void,
    library_count: c_uint,
) -> CUresult {
    let _ = (jit_options, jit_values, jit_count);
    let _ = (library_options, library_values, library_count);
    cuModuleLoad(out, path)
}

/// Unloads a library.
#[no_mangle]
pub extern "C" fn cuLibraryUnload(library: *mut c_void) -> CUresult {
    entry("cuLibraryUnload", || unload(library))
}

/// A kernel of a library by name.
#[no_mangle]
pub extern "C" fn cuLibraryGetKernel(
    out: *mut *mut c_void,
    library: *mut c_void,
    name: *const c_char,
) -> CUresult {
    entry("cuLibraryGetKernel", || {
        require(out, "pKernel")?;
        store(out, get_function(library, name)?, "pKernel")
    })
}

/// The module of a library (the same handle).
#[no_mangle]
pub extern "C" fn cuLibraryGetModule(out: *mut *mut c_void, library: *mut c_void) -> CUresult {
    entry("cuLibraryGetModule", || {
        module_entry(library)?;
        store(out, library, "pMod")
    })
}

/// A global variable of a library.
#[no_mangle]
pub extern "C" fn cuLibraryGetGlobal(
    dptr: *mut CUdeviceptr,
    bytes: *mut usize,
    library: *mut c_void,
    name: *const c_char,
) -> CUresult {
    entry("cuLibraryGetGlobal", || {
        get_global(dptr, bytes, library, name)
    })
}

/// The function of a library kernel in the current context (the same handle).
#[no_mangle]
pub extern "C" fn cuKernelGetFunction(out: *mut *mut c_void, kernel: *mut c_void) -> CUresult {
    entry("cuKernelGetFunction", || {
        function(kernel)?;
        store(out, kernel, "pFunc")
    })
}

/// A function's module.
#[no_mangle]
pub extern "C" fn cuFuncGetModule(out: *mut *mut c_void, func: *mut c_void) -> CUresult {
    entry("cuFuncGetModule", || {
        let function = function(func)?;
        store(out, function.module as *mut c_void, "hmod")
    })
}

/// A function's name.
#[no_mangle]
pub extern "C" fn cuFuncGetName(out: *mut *const c_char, func: *mut c_void) -> CUresult {
    entry("cuFuncGetName", || {
        let function = function(func)?;
        store(out, function.name.as_ptr(), "name")
    })
}

/// A library kernel's name.
#[no_mangle]
pub extern "C" fn cuKernelGetName(out: *mut *const c_char, kernel: *mut c_void) -> CUresult {
    cuFuncGetName(out, kernel)
}

/// A library kernel's library.
#[no_mangle]
pub extern "C" fn cuKernelGetLibrary(out: *mut *mut c_void, kernel: *mut c_void) -> CUresult {
    cuFuncGetModule(out, kernel)
}

/// Whether a function is loaded: always, once it has a handle.
#[no_mangle]
pub extern "C" fn cuFuncIsLoaded(state: *mut c_int, func: *mut c_void) -> CUresult {
    entry("cuFuncIsLoaded", || {
        function(func)?;
        store(state, 1, "state")
    })
}

/// Loads a function: nothing to do, it is loaded with its module.
#[no_mangle]
pub extern "C" fn cuFuncLoad(func: *mut c_void) -> CUresult {
    entry("cuFuncLoad", || function(func).map(drop))
}
