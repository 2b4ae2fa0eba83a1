//! `mgpuModuleLoad`, `mgpuModuleLoadJIT`, `mgpuModuleUnload`, `mgpuModuleGetFunction`.
//!
//! A module keeps a copy of its code object and loads it on each device that launches one of
//! its kernels (first on the default device, at load time, so errors show early). Functions
//! are cached by name per module, so the `mgpuModuleGetFunction` that precedes every launch
//! is one hash lookup and always returns the same handle.
//!
//! LLVM ≤ 20 loads and unloads the module around every launch, right after an asynchronous
//! launch. Loading a module on CUDA while a kernel runs waits for the device, so a program whose
//! kernels wait for each other (upstream's `concurrent-kernels` test) would hang. An unloaded
//! module therefore stays in a small cache of recent code objects, and loading the very same
//! bytes again reuses it (its `.global` variables keep their values, as within one load).

use std::collections::HashMap;
use std::ffi::{c_char, c_void, CStr};
use std::sync::{Arc, Mutex, RwLock};

use chevron::code_object::{CodeObject, IN_MEMORY};
use chevron::{Device, Kernel, Module};

use super::{default_device, guard, FUNCTIONS, MODULES};
use crate::api::lookup_with;
use crate::error::{CapiError, CapiResult};

/// A code object loaded through `mgpuModuleLoad[JIT]`.
pub struct MgpuModule {
    /// Read once; loaded on each device from here without reading it again.
    code: CodeObject,
    loaded: Mutex<Vec<Module>>,
    functions: Mutex<HashMap<String, u64>>,
}

impl MgpuModule {
    /// The module loaded on `device` (loading it there on first use).
    fn on(&self, device: &Device) -> CapiResult<Module> {
        let mut loaded = lock(&self.loaded);
        if let Some(module) = loaded.iter().find(|m| m.device().same_device(device)) {
            return Ok(module.clone());
        }
        let module = Module::from_code_object(device, &self.code)?;
        loaded.push(module.clone());
        Ok(module)
    }
}

/// A kernel name of a module, resolved on each device that launches it.
pub struct MgpuFunction {
    module: Arc<MgpuModule>,
    name: String,
    kernels: RwLock<Vec<Kernel>>,
}

impl MgpuFunction {
    /// The kernel name as the program gave it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The kernel resolved on `device`.
    pub(crate) fn kernel_for(&self, device: &Device) -> CapiResult<Kernel> {
        {
            let kernels = self.kernels.read().unwrap_or_else(|e| e.into_inner());
            if let Some(kernel) = kernels.iter().find(|k| k.device().same_device(device)) {
                return Ok(kernel.clone());
            }
        }
        let kernel = self.module.on(device)?.kernel(&self.name)?;
        let mut kernels = self.kernels.write().unwrap_or_else(|e| e.into_inner());
        kernels.push(kernel.clone());
        Ok(kernel)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// How many unloaded modules stay loaded for reuse.
const RECENT_CAPACITY: usize = 8;

/// Modules unloaded most recently (newest last), still loaded on their devices.
static RECENT: Mutex<Vec<Arc<MgpuModule>>> = Mutex::new(Vec::new());

/// The code object and the devices' modules of a recently unloaded module with exactly these
/// bytes, taken out of the cache.
fn reuse_recent(image: &[u8]) -> Option<(CodeObject, Vec<Module>)> {
    let mut recent = lock(&RECENT);
    let i = recent.iter().rposition(|m| m.code.bytes() == image)?;
    let module = recent.remove(i);
    let loaded = lock(&module.loaded).clone();
    Some((module.code.clone(), loaded))
}

fn load(image: Vec<u8>) -> CapiResult<*mut c_void> {
    let (code, loaded) =
        reuse_recent(&image).unwrap_or_else(|| (CodeObject::read(image, IN_MEMORY), Vec::new()));
    let module = Arc::new(MgpuModule {
        code,
        loaded: Mutex::new(loaded),
        functions: Mutex::new(HashMap::new()),
    });
    module.on(&default_device()?)?;
    Ok(MODULES.insert(module) as usize as *mut c_void)
}

/// Loads a cubin or fatbin of `size` bytes (PTX is accepted too). Returns NULL on failure.
///
/// # Safety
/// `data` points to `size` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn mgpuModuleLoad(data: *mut c_void, size: usize) -> *mut c_void {
    guard("mgpuModuleLoad", std::ptr::null_mut(), || {
        if data.is_null() || size == 0 {
            return Err(CapiError::invalid(format!(
                "empty code object ({size} bytes at {data:?})"
            )));
        }
        if !chevron::ffi::c_array_fits::<u8>(size) {
            return Err(CapiError::invalid(format!("{size} bytes is not a size")));
        }
        // SAFETY: `size` readable bytes by the caller's contract.
        let bytes = unsafe { std::slice::from_raw_parts(data as *const u8, size) };
        load(bytes.to_vec())
    })
}

/// Loads NUL-terminated PTX text. `opt_level` is accepted and ignored (chevron's backends pick
/// their own optimization). Returns NULL on failure.
///
/// # Safety
/// `data` points to a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn mgpuModuleLoadJIT(data: *mut c_void, opt_level: i32) -> *mut c_void {
    let _ = opt_level;
    guard("mgpuModuleLoadJIT", std::ptr::null_mut(), || {
        if data.is_null() {
            return Err(CapiError::invalid("the PTX pointer is NULL"));
        }
        // SAFETY: NUL-terminated by the caller's contract.
        let text = unsafe { CStr::from_ptr(data as *const c_char) };
        load(text.to_bytes().to_vec())
    })
}

/// Unloads a module: its functions become invalid; the code itself is released once the work
/// already submitted has passed (launches in flight finish).
#[no_mangle]
pub extern "C" fn mgpuModuleUnload(module: *mut c_void) {
    guard("mgpuModuleUnload", (), || {
        let handle = module as usize as u64;
        let removed = MODULES.remove(handle).map_err(|e| {
            CapiError::new(
                crate::status::chevron_status::CHEVRON_ERROR_INVALID_HANDLE,
                e.describe(MODULES.kind(), handle),
            )
        })?;
        FUNCTIONS.remove_where(|f| Arc::ptr_eq(&f.module, &removed));
        let mut recent = lock(&RECENT);
        if recent.len() == RECENT_CAPACITY {
            recent.remove(0);
        }
        recent.push(removed);
        Ok(())
    })
}

/// Returns the kernel `name` of `module` (the same handle on every call), or NULL.
///
/// # Safety
/// `name` points to a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn mgpuModuleGetFunction(
    module: *mut c_void,
    name: *const c_char,
) -> *mut c_void {
    guard("mgpuModuleGetFunction", std::ptr::null_mut(), || {
        if name.is_null() {
            return Err(CapiError::invalid("the kernel name is NULL"));
        }
        // SAFETY: NUL-terminated by the caller's contract.
        let name = unsafe { CStr::from_ptr(name) };
        let epoch = MODULES.removals() + FUNCTIONS.removals();
        if let Some(handle) = last_function::get(module, name, epoch) {
            return Ok(handle);
        }
        let found = function_of(module, name)?;
        last_function::set(module, name, epoch, found);
        Ok(found)
    })
}

/// The `CUfunction` handle of kernel `name` of `module`, registered on first use.
fn function_of(module: *mut c_void, name: &CStr) -> CapiResult<*mut c_void> {
    let name = name.to_string_lossy();
    {
        // The module is borrowed from its registry, not cloned (called before every launch).
        lookup_with(&MODULES, module, |module| {
            let mut functions = lock(&module.functions);
            if let Some(&handle) = functions.get(name.as_ref()) {
                return Ok(handle as usize as *mut c_void);
            }
            let function = Arc::new(MgpuFunction {
                module: Arc::clone(module),
                name: name.to_string(),
                kernels: RwLock::new(Vec::new()),
            });
            function.kernel_for(&default_device()?)?;
            let handle = FUNCTIONS.insert(function);
            functions.insert(name.into_owned(), handle);
            Ok(handle as usize as *mut c_void)
        })?
    }
}

/// The function a thread last looked up, so that MLIR's `mgpuModuleGetFunction` before every
/// launch costs no lock: valid while no module or function was released since (the epoch, the
/// sum of both registries' removal counts, has not moved).
mod last_function {
    use std::cell::RefCell;
    use std::ffi::{c_void, CStr, CString};

    struct Entry {
        module: usize,
        name: CString,
        epoch: u64,
        function: usize,
    }

    thread_local! {
        static LAST: RefCell<Option<Entry>> = const { RefCell::new(None) };
    }

    /// The cached handle of (`module`, `name`) when current at `epoch`.
    pub(super) fn get(module: *mut c_void, name: &CStr, epoch: u64) -> Option<*mut c_void> {
        LAST.try_with(|last| {
            let last = last.try_borrow().ok()?;
            let entry = last.as_ref()?;
            (entry.module == module as usize && entry.epoch == epoch && *entry.name == *name)
                .then_some(entry.function as *mut c_void)
        })
        .ok()
        .flatten()
    }

    /// Remembers `function` as the handle of (`module`, `name`) looked up at `epoch`.
    pub(super) fn set(module: *mut c_void, name: &CStr, epoch: u64, function: *mut c_void) {
        let _ = LAST.try_with(|last| {
            if let Ok(mut last) = last.try_borrow_mut() {
                *last = Some(Entry {
                    module: module as usize,
                    name: name.to_owned(),
                    epoch,
                    function: function as usize,
                });
            }
        });
    }
}
