//! CUDA modules and their functions.
//!
//! Modules are loaded with `cuModuleLoadDataEx` in the device's context, with an error log
//! buffer so that a PTX JIT failure is reported in full. Functions are resolved once per name
//! and cached; each caches its attributes and carries its name as an interned `'static` string
//! that streams record, allocation-free, as the last kernel launched.

use std::any::Any;
use std::collections::HashMap;
use std::ffi::{c_int, c_void, CString};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use super::context::DeviceState;
use super::sys::{self, function_attribute, CUfunction, CUmodule};
use crate::backend::{self, DevicePtr};
use crate::code_object::{CodeObject, CodeObjectKind};
use crate::error::{Error, Result};

/// Size of the JIT error and info log buffers.
const JIT_LOG_BYTES: usize = 64 * 1024;

/// A loaded `CUmodule`; unloaded when the last of it and its functions is dropped.
struct ModuleHandle {
    state: Arc<DeviceState>,
    module: CUmodule,
}

// SAFETY: a CUmodule is an opaque driver handle usable from any thread.
unsafe impl Send for ModuleHandle {}
// SAFETY: as above; the driver synchronizes concurrent use of the handle.
unsafe impl Sync for ModuleHandle {}

impl Drop for ModuleHandle {
    fn drop(&mut self) {
        if let Ok(_entered) = self.state.enter() {
            // SAFETY: `module` is loaded and unloaded once, after all its functions are gone.
            unsafe { (self.state.driver.cuModuleUnload)(self.module) };
        }
    }
}

/// A module of one device.
pub(crate) struct CudaModule {
    handle: Arc<ModuleHandle>,
    functions: Mutex<HashMap<String, Arc<CudaFunction>>>,
}

impl CudaModule {
    pub(crate) fn load(state: &Arc<DeviceState>, object: &CodeObject) -> Result<CudaModule> {
        // PTX needs a trailing NUL; ELF images are copied into 8-byte-aligned storage.
        let ptx;
        let aligned: Vec<u64>;
        let data: *const c_void = match object.kind() {
            CodeObjectKind::Ptx => {
                ptx = CString::new(object.ptx_text()?).map_err(|_| Error::CodeObject {
                    source_name: object.source_name().into(),
                    message: "PTX text contains a NUL byte".into(),
                })?;
                ptx.as_ptr().cast()
            }
            CodeObjectKind::Cubin | CodeObjectKind::Fatbin => {
                let bytes = object.bytes();
                let mut words = vec![0u64; bytes.len().div_ceil(8)];
                bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..bytes.len()]
                    .copy_from_slice(bytes);
                aligned = words;
                aligned.as_ptr().cast()
            }
        };
        let mut error_log = vec![0u8; JIT_LOG_BYTES];
        let mut options: [c_int; 2] = [
            sys::CU_JIT_ERROR_LOG_BUFFER,
            sys::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        ];
        let mut values: [*mut c_void; 2] = [
            error_log.as_mut_ptr().cast(),
            JIT_LOG_BYTES as *mut c_void, // sizes are passed as the pointer's value
        ];
        let _entered = state.enter()?;
        let mut module: CUmodule = std::ptr::null_mut();
        // SAFETY: the context is current; `data` points to a complete image (NUL-terminated
        // PTX or an aligned ELF/fatbin) alive for the call; the option arrays hold 2 entries
        // and the log buffer JIT_LOG_BYTES bytes.
        let code = unsafe {
            (state.driver.cuModuleLoadDataEx)(
                &mut module,
                data,
                options.len() as u32,
                options.as_mut_ptr(),
                values.as_mut_ptr(),
            )
        };
        if code != sys::CUDA_SUCCESS {
            let log_end = error_log.iter().position(|&b| b == 0).unwrap_or(0);
            let log = String::from_utf8_lossy(&error_log[..log_end])
                .trim()
                .to_string();
            if !sys::CODE_OBJECT_ERRORS.contains(&code) {
                return Err(state.error("cuModuleLoadDataEx", code, log));
            }
            let err = state.error("cuModuleLoadDataEx", code, String::new());
            return Err(Error::CodeObject {
                source_name: object.source_name().into(),
                message: if log.is_empty() {
                    err.to_string()
                } else {
                    format!("{err}\n{log}")
                },
            });
        }
        Ok(CudaModule {
            handle: Arc::new(ModuleHandle {
                state: Arc::clone(state),
                module,
            }),
            functions: Mutex::new(HashMap::new()),
        })
    }
}

impl backend::Module for CudaModule {
    fn function(&self, name: &str) -> Result<Arc<dyn backend::Function>> {
        let mut functions = self
            .functions
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(function) = functions.get(name) {
            return Ok(Arc::clone(function) as Arc<dyn backend::Function>);
        }
        let function = Arc::new(CudaFunction::resolve(&self.handle, name)?);
        functions.insert(name.to_string(), Arc::clone(&function));
        Ok(function)
    }

    fn global(&self, name: &str) -> Result<(DevicePtr, u64)> {
        let state = &self.handle.state;
        let c_name = symbol_name(name)?;
        let _entered = state.enter()?;
        let mut ptr: u64 = 0;
        let mut size: usize = 0;
        // SAFETY: the context is current, the module loaded, the name NUL-terminated.
        let code = unsafe {
            (state.driver.cuModuleGetGlobal)(
                &mut ptr,
                &mut size,
                self.handle.module,
                c_name.as_ptr(),
            )
        };
        match code {
            sys::CUDA_SUCCESS => Ok((ptr, size as u64)),
            sys::CUDA_ERROR_NOT_FOUND => Err(not_found("global", name)),
            code => Err(state.error("cuModuleGetGlobal", code, format!("global `{name}`"))),
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

fn symbol_name(name: &str) -> Result<CString> {
    CString::new(name).map_err(|_| Error::InvalidValue {
        call: "Module::function",
        message: format!("symbol name {name:?} contains a NUL byte"),
    })
}

fn not_found(what: &'static str, name: &str) -> Error {
    Error::NotFound {
        what,
        name: name.to_string(),
        scope: String::new(),
        candidates: Vec::new(),
    }
}

/// A kernel of a loaded module, resolved once.
pub(crate) struct CudaFunction {
    // Keeps the module loaded while the function can be launched (and gives its device).
    module: Arc<ModuleHandle>,
    pub(crate) function: CUfunction,
    /// The name, interned so that streams can keep a `'static` reference to it.
    pub(crate) name: &'static String,
    max_threads_per_block: u32,
    static_shared_bytes: u32,
    /// The current dynamic shared memory limit of the function.
    dynamic_shared_limit: AtomicU32,
}

// SAFETY: a CUfunction is an opaque driver handle usable from any thread.
unsafe impl Send for CudaFunction {}
// SAFETY: as above; the driver synchronizes concurrent use of the handle.
unsafe impl Sync for CudaFunction {}

impl CudaFunction {
    fn resolve(handle: &Arc<ModuleHandle>, name: &str) -> Result<CudaFunction> {
        let state = &handle.state;
        let c_name = symbol_name(name)?;
        let _entered = state.enter()?;
        let mut function: CUfunction = std::ptr::null_mut();
        // SAFETY: the context is current, the module loaded, the name NUL-terminated.
        let code = unsafe {
            (state.driver.cuModuleGetFunction)(&mut function, handle.module, c_name.as_ptr())
        };
        match code {
            sys::CUDA_SUCCESS => {}
            sys::CUDA_ERROR_NOT_FOUND => return Err(not_found("kernel", name)),
            code => {
                return Err(state.error("cuModuleGetFunction", code, format!("kernel `{name}`")))
            }
        }
        let attribute = |which: c_int, call_context: &str| -> Result<u32> {
            let mut value: c_int = 0;
            // SAFETY: `function` was just resolved; `value` is a valid out-pointer.
            let code = unsafe { (state.driver.cuFuncGetAttribute)(&mut value, which, function) };
            if code != sys::CUDA_SUCCESS {
                return Err(state.error(
                    "cuFuncGetAttribute",
                    code,
                    format!("kernel `{name}`: {call_context}"),
                ));
            }
            Ok(value.max(0) as u32)
        };
        Ok(CudaFunction {
            max_threads_per_block: attribute(
                function_attribute::MAX_THREADS_PER_BLOCK,
                "max threads",
            )?,
            static_shared_bytes: attribute(function_attribute::SHARED_SIZE_BYTES, "shared size")?,
            dynamic_shared_limit: AtomicU32::new(attribute(
                function_attribute::MAX_DYNAMIC_SHARED_SIZE_BYTES,
                "dynamic shared limit",
            )?),
            module: Arc::clone(handle),
            function,
            name: intern(name),
        })
    }

    /// Makes sure launches with `bytes` of dynamic shared memory are allowed (opt-in above the
    /// default limit). A relaxed load on the launch path; the driver call happens once.
    #[inline]
    pub(crate) fn allow_dynamic_shared(&self, bytes: u32) -> Result<()> {
        if bytes <= self.dynamic_shared_limit.load(Ordering::Relaxed) {
            return Ok(());
        }
        let state = &self.module.state;
        let _entered = state.enter()?;
        // SAFETY: `function` is live; the value was validated against the opt-in maximum by
        // the public layer (the driver rejects anything larger).
        let code = unsafe {
            (state.driver.cuFuncSetAttribute)(
                self.function,
                function_attribute::MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes as c_int,
            )
        };
        if code != sys::CUDA_SUCCESS {
            return Err(state.error(
                "cuFuncSetAttribute",
                code,
                format!(
                    "kernel `{}`: {bytes} bytes of dynamic shared memory",
                    self.name
                ),
            ));
        }
        self.dynamic_shared_limit
            .fetch_max(bytes, Ordering::Relaxed);
        Ok(())
    }
}

impl backend::Function for CudaFunction {
    fn name(&self) -> &str {
        self.name
    }

    fn max_threads_per_block(&self) -> u32 {
        self.max_threads_per_block
    }

    fn static_shared_bytes(&self) -> u32 {
        self.static_shared_bytes
    }

    fn active_blocks_per_multiprocessor(
        &self,
        block_threads: u32,
        dynamic_shared: u32,
    ) -> Result<Option<u32>> {
        let state = &self.module.state;
        let Some(occupancy) = state
            .driver
            .cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags
        else {
            return Ok(None);
        };
        let Ok(threads) = c_int::try_from(block_threads) else {
            return Ok(Some(0));
        };
        let blocks = std::cell::Cell::new(0 as c_int);
        // SAFETY: `function` is live and `blocks` a valid out-pointer; flags 0 is the default
        // calculation.
        let ask = || unsafe {
            occupancy(
                blocks.as_ptr(),
                self.function,
                threads,
                dynamic_shared as usize,
                0,
            )
        };
        let code = state.anywhere(ask);
        if code != sys::CUDA_SUCCESS {
            return Err(state.error(
                "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
                code,
                format!(
                    "kernel `{}`, blocks of {block_threads} threads, {dynamic_shared} bytes of \
                     dynamic shared memory",
                    self.name
                ),
            ));
        }
        Ok(Some(blocks.get().max(0) as u32))
    }

    fn max_active_clusters(
        &self,
        config: &backend::LaunchConfig,
        cluster: [u32; 3],
    ) -> Result<Option<u32>> {
        super::cluster::max_active_clusters(&self.module.state, self, config, cluster)
    }

    fn max_potential_cluster_size(&self, config: &backend::LaunchConfig) -> Result<Option<u32>> {
        super::cluster::max_potential_cluster_size(&self.module.state, self, config)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// One `'static` copy of each kernel name, so streams can record names without allocating or
/// holding a reference count. Names are few (one per distinct kernel name ever resolved).
fn intern(name: &str) -> &'static String {
    static NAMES: OnceLock<Mutex<HashMap<String, &'static String>>> = OnceLock::new();
    let mut names = NAMES
        .get_or_init(|| Mutex::new(HashMap::new()))
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(&interned) = names.get(name) {
        return interned;
    }
    let interned: &'static String = Box::leak(Box::new(name.to_string()));
    names.insert(name.to_string(), interned);
    interned
}
