//! What the compiler's module constructors register: fatbins, kernels by host-stub address and
//! variables by host-shadow address, with lazy loading.
//!
//! Nothing is loaded at registration: a fatbin becomes a chevron [`Module`] the first time one
//! of its kernels or variables is used on a device, on that device. A kernel's entry keeps its
//! device name and, once loaded, the checked [`Kernel`] per device; `__cudaGetKernel` hands out
//! the entry's address as the `cudaKernel_t`. `__cudaUnregisterFatBinary` (run at exit or
//! `dlclose`) drops the fatbin's entries and modules.

use std::collections::HashMap;
use std::ffi::{c_void, CStr};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use chevron::code_object::{
    check_fatbin, container_extent, parse_fatbin, readable_from, select_entry, CodeObject,
    CodeObjectKind, CodeTargets, EntryKind, IN_MEMORY,
};
use chevron::{GlobalVar, Kernel, Module};

use crate::errors::{
    CudaError, CudaResult, INVALID_DEVICE_FUNCTION, INVALID_KERNEL_IMAGE, INVALID_SYMBOL,
    NO_KERNEL_IMAGE_FOR_DEVICE,
};
use crate::state::{self, lock};

/// `__fatBinC_Wrapper_t`'s magic number.
const WRAPPER_MAGIC: u32 = 0x466243b1;
/// `__fatBinC_Wrapper_t`'s size: two `int`s and two pointers.
const WRAPPER_SIZE: usize = 8 + 2 * size_of::<usize>();

/// One registered fatbin.
pub struct FatBinary {
    /// The fatbin container, in the program's read-only data (valid until unregistered), or why
    /// it is corrupted (reported when it is loaded).
    image: Result<&'static [u8], String>,
    /// With `-rdc=true`: the translation units' own fatbins (see [`crate::linked`]).
    units: Vec<&'static [u8]>,
    /// The module per device ordinal, once loaded.
    modules: Mutex<HashMap<usize, Module>>,
    /// The container read once, shared by every device's load (its entries are decoded, and
    /// PTX parsed, once).
    code: OnceLock<CodeObject>,
    /// With `-rdc=true`, on devices that run PTX: the units linked once, handed on as IR.
    linked: OnceLock<CodeObject>,
}

/// A kernel registered by `__cudaRegisterFunction`; a `cudaKernel_t` points to one.
pub struct KernelEntry {
    /// The fatbin defining it.
    pub fatbin: Arc<FatBinary>,
    /// The device symbol (mangled) name.
    pub name: String,
    /// The kernel per device ordinal, once loaded (sized at the first launch, so that
    /// registration does not start the devices).
    loaded: OnceLock<Vec<OnceLock<Kernel>>>,
}

/// A variable registered by `__cudaRegisterVar`.
pub struct VarEntry {
    /// The fatbin defining it.
    pub fatbin: Arc<FatBinary>,
    /// The device symbol name.
    pub name: String,
    /// Its size as the compiler registered it.
    pub size: usize,
}

#[derive(Default)]
struct Registry {
    stubs: HashMap<usize, Arc<KernelEntry>>,
    vars: HashMap<usize, Arc<VarEntry>>,
}

static REGISTRY: RwLock<Option<Registry>> = RwLock::new(None);

fn write() -> std::sync::RwLockWriteGuard<'static, Option<Registry>> {
    REGISTRY.write().unwrap_or_else(|e| e.into_inner())
}

fn read() -> std::sync::RwLockReadGuard<'static, Option<Registry>> {
    REGISTRY.read().unwrap_or_else(|e| e.into_inner())
}

/// Reads a `__fatBinC_Wrapper_t` and returns the fatbin it points to. Every read is bounded by
/// the memory holding what is read (see [`readable_from`]); a fatbin whose sizes run past it is
/// registered as corrupted, and loading it reports where.
///
/// # Safety
/// `wrapper` is NULL or points to a fatbin wrapper whose data stays mapped until unregistered.
pub unsafe fn register_fatbin(wrapper: *const c_void) -> CudaResult<Arc<FatBinary>> {
    let not_a_wrapper = |what: String| CudaError::new(INVALID_KERNEL_IMAGE, what);
    if wrapper.is_null() {
        return Err(not_a_wrapper("a NULL fatbin wrapper".into()));
    }
    // SAFETY: forwarded from the caller.
    let fields = unsafe { readable_from(wrapper.cast()) }
        .and_then(|bytes| bytes.get(..WRAPPER_SIZE))
        .ok_or_else(|| not_a_wrapper(format!("the fatbin wrapper {wrapper:p} is not readable")))?;
    // The wrapper is `{ int magic; int version; const u64 *data; void *units; }`.
    let word = |at: usize| u32::from_ne_bytes(fields[at..at + 4].try_into().unwrap_or_default());
    let (magic, version, data, units) = (
        word(0),
        word(4),
        pointer_at(fields, 8),
        pointer_at(fields, 16),
    );
    if magic != WRAPPER_MAGIC || data.is_null() {
        return Err(not_a_wrapper(format!(
            "not a fatbin wrapper (magic {magic:#x})"
        )));
    }
    // SAFETY: forwarded from the caller.
    let mut image = unsafe { container(data) };
    let mut unit_images = Vec::new();
    if version == 2 && !units.is_null() {
        // Version 2's last field is a NULL-terminated array of the units' fatbins.
        // SAFETY: forwarded from the caller.
        let array = unsafe { readable_from(units) }.unwrap_or_default();
        let pointers = array
            .chunks_exact(size_of::<usize>())
            .map(|p| pointer_at(p, 0));
        for unit in pointers.take_while(|p| !p.is_null()) {
            // SAFETY: forwarded from the caller.
            match unsafe { container(unit) } {
                Ok(bytes) => unit_images.push(bytes),
                Err(reason) => image = image.and(Err(reason)),
            }
        }
    }
    Ok(Arc::new(FatBinary {
        image,
        units: unit_images,
        modules: Mutex::new(HashMap::new()),
        code: OnceLock::new(),
        linked: OnceLock::new(),
    }))
}

/// The pointer stored at byte `at` of `bytes`.
fn pointer_at(bytes: &[u8], at: usize) -> *const u8 {
    let word = bytes.get(at..at + size_of::<usize>()).unwrap_or_default();
    usize::from_ne_bytes(word.try_into().unwrap_or_default()) as *const u8
}

/// The fatbin container starting at `data`, bounded by the memory holding it; why it is
/// corrupted when its sizes run past that memory.
///
/// # Safety
/// `data` points to memory that stays mapped until unregistration.
unsafe fn container(data: *const u8) -> Result<&'static [u8], String> {
    // SAFETY: forwarded from the caller.
    let Some(mapped) = (unsafe { readable_from(data) }) else {
        return Err(format!(
            "corrupted fatbin wrapper: its data {data:p} is not readable"
        ));
    };
    container_extent(mapped).map_err(|e| e.to_string())
}

/// Maps the host stub `stub` to the kernel `name` of `fatbin`.
pub fn register_function(fatbin: &Arc<FatBinary>, stub: usize, name: &CStr) {
    let entry = Arc::new(KernelEntry {
        fatbin: Arc::clone(fatbin),
        name: name.to_string_lossy().into_owned(),
        loaded: OnceLock::new(),
    });
    write()
        .get_or_insert_with(Registry::default)
        .stubs
        .insert(stub, entry);
}

/// Maps the host shadow `host` of a `__device__`/`__constant__` variable to its device name.
pub fn register_var(fatbin: &Arc<FatBinary>, host: usize, name: &CStr, size: usize) {
    let entry = Arc::new(VarEntry {
        fatbin: Arc::clone(fatbin),
        name: name.to_string_lossy().into_owned(),
        size,
    });
    write()
        .get_or_insert_with(Registry::default)
        .vars
        .insert(host, entry);
}

/// Drops everything registered for `fatbin`.
pub fn unregister(fatbin: &Arc<FatBinary>) {
    if let Some(registry) = write().as_mut() {
        registry
            .stubs
            .retain(|_, e| !Arc::ptr_eq(&e.fatbin, fatbin));
        registry.vars.retain(|_, v| !Arc::ptr_eq(&v.fatbin, fatbin));
    }
    lock(&fatbin.modules).clear();
}

/// The host stub registered for `entry` (0 when none is: a `cudaKernel_t` of a library).
pub fn stub_of(entry: &KernelEntry) -> usize {
    read()
        .as_ref()
        .and_then(|r| {
            r.stubs
                .iter()
                .find(|(_, e)| std::ptr::eq(Arc::as_ptr(e), entry))
                .map(|(&stub, _)| stub)
        })
        .unwrap_or(0)
}

/// The registered kernel whose entry is at `handle` (what [`cudaGetFuncBySymbol`] and
/// `__cudaGetKernel` hand out), if one is.
///
/// [`cudaGetFuncBySymbol`]: crate::func_queries::cudaGetFuncBySymbol
pub fn entry_at(handle: *const c_void) -> Option<Arc<KernelEntry>> {
    read().as_ref().and_then(|r| {
        r.stubs
            .values()
            .find(|e| std::ptr::eq(Arc::as_ptr(e).cast(), handle))
            .cloned()
    })
}

/// The kernel entry of host stub `stub`.
pub fn kernel_entry(stub: *const c_void) -> CudaResult<Arc<KernelEntry>> {
    read()
        .as_ref()
        .and_then(|r| r.stubs.get(&(stub as usize)).cloned())
        .ok_or_else(|| {
            CudaError::new(
                INVALID_DEVICE_FUNCTION,
                format!("{stub:p} is not the host stub of a registered kernel"),
            )
        })
}

/// The variable registered for host shadow `symbol`.
pub fn var_entry(symbol: *const c_void) -> CudaResult<Arc<VarEntry>> {
    read()
        .as_ref()
        .and_then(|r| r.vars.get(&(symbol as usize)).cloned())
        .ok_or_else(|| {
            CudaError::new(
                INVALID_SYMBOL,
                format!("{symbol:p} is not a registered __device__ or __constant__ variable"),
            )
        })
}

impl FatBinary {
    /// The fatbin loaded on device `ordinal` (loading it on first use). `user` names the kernel
    /// or variable that needed it, for the error message.
    pub fn module(&self, ordinal: usize, user: &str) -> CudaResult<Module> {
        let mut modules = lock(&self.modules);
        if let Some(module) = modules.get(&ordinal) {
            return Ok(module.clone());
        }
        let corrupted = |reason: String| CudaError::new(INVALID_KERNEL_IMAGE, reason);
        let image = self.image.clone().map_err(corrupted)?;
        let device = &state::device(ordinal)?.device;
        let targets = device.code_targets();
        let ptx_only = targets.runs_ptx_only();
        // The linked image holds SASS for the architectures it was built for; a device of
        // another (or one that runs PTX only) gets the units' PTX linked, as NVIDIA's driver
        // JIT-links them.
        let runs_linked = parse_fatbin(image)
            .ok()
            .is_some_and(|entries| select_entry(&entries, &targets).is_some());
        if !self.units.is_empty() && (ptx_only || !runs_linked) {
            // The units are read only here, where they are linked (a device that runs the
            // linked image never reads them: `-lcudadevrt` alone brings a unit of many
            // compressed entries, tens of milliseconds to check).
            for unit in &self.units {
                check_fatbin(unit).map_err(|e| corrupted(e.to_string()))?;
            }
            let linked = match self.linked.get() {
                Some(linked) => linked,
                None => {
                    let ir = crate::linked::link_ptx(&self.units, user)?;
                    self.linked
                        .get_or_init(|| CodeObject::from_ptx_ir(ir, IN_MEMORY))
                }
            };
            let module = Module::from_code_object(device, linked)?;
            modules.insert(ordinal, module.clone());
            return Ok(module);
        }
        let code = self
            .code
            .get_or_init(|| CodeObject::read_as(CodeObjectKind::Fatbin, image, IN_MEMORY));
        if let Some(reason) = code.corruption() {
            return Err(corrupted(reason.to_string()));
        }
        let module = Module::from_code_object(device, code).map_err(|error| {
            if ptx_only {
                CudaError::new(
                    NO_KERNEL_IMAGE_FOR_DEVICE,
                    format!(
                        "`{user}` cannot run on {}: {error}; rebuild with nvcc's default, which \
                         embeds PTX, or add -gencode arch=compute_XX,code=compute_XX",
                        device.label()
                    ),
                )
            } else {
                CudaError::from(error)
            }
        })?;
        modules.insert(ordinal, module.clone());
        Ok(module)
    }
}

/// What a device runs of a fatbin, as `cudaFuncGetAttributes` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeVersions {
    /// The virtual architecture the code was compiled for (70 for `compute_70`): the PTX entry
    /// the device runs, or for a cubin the newest PTX entry not newer than it.
    pub ptx: Option<u32>,
    /// The cubin's architecture when the device runs a cubin.
    pub cubin: Option<u32>,
}

impl FatBinary {
    /// What a device with `targets` runs of this fatbin (of the translation units' fatbins for
    /// `-rdc=true` code, when the linked image holds no code itself). Unreadable entries count
    /// as absent, and so does a corrupted fatbin.
    pub fn code_versions(&self, targets: &CodeTargets) -> CodeVersions {
        let images = self.image.iter().copied().chain(self.units.iter().copied());
        for image in images {
            let Ok(entries) = parse_fatbin(image) else {
                continue;
            };
            let Some(index) = select_entry(&entries, targets) else {
                continue;
            };
            let chosen = &entries[index];
            if chosen.kind == EntryKind::Ptx {
                return CodeVersions {
                    ptx: Some(chosen.arch),
                    cubin: None,
                };
            }
            let ptx = entries
                .iter()
                .filter(|e| e.kind == EntryKind::Ptx && e.arch <= chosen.arch)
                .map(|e| e.arch)
                .max();
            return CodeVersions {
                ptx,
                cubin: Some(chosen.arch),
            };
        }
        CodeVersions {
            ptx: None,
            cubin: None,
        }
    }
}

impl KernelEntry {
    /// The kernel on device `ordinal`, loading its fatbin there on first use.
    pub fn kernel(&self, ordinal: usize) -> CudaResult<&Kernel> {
        let slots = match self.loaded.get() {
            Some(slots) => slots,
            None => {
                let devices = state::devices()?.len();
                self.loaded
                    .get_or_init(|| (0..devices).map(|_| OnceLock::new()).collect())
            }
        };
        let slot = slots.get(ordinal).ok_or_else(|| {
            CudaError::new(
                INVALID_DEVICE_FUNCTION,
                format!("`{}`: no device {ordinal}", self.name),
            )
        })?;
        if let Some(kernel) = slot.get() {
            return Ok(kernel);
        }
        let kernel = self
            .fatbin
            .module(ordinal, &self.name)?
            .kernel(&self.name)?;
        Ok(slot.get_or_init(|| kernel))
    }
}

impl VarEntry {
    /// The variable's address and size on device `ordinal`.
    pub fn global(&self, ordinal: usize) -> CudaResult<GlobalVar> {
        Ok(self
            .fatbin
            .module(ordinal, &self.name)?
            .global(&self.name)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `__fatBinC_Wrapper_t` pointing at `data`.
    fn wrapper(data: *const u8) -> [usize; 3] {
        [WRAPPER_MAGIC as usize | 1 << 32, data as usize, 0]
    }

    fn container(header_size: u16, fat_size: u64) -> Vec<u8> {
        let mut bytes = 0xBA55_ED50u32.to_le_bytes().to_vec();
        bytes.extend_from_slice(&1u16.to_le_bytes());
        bytes.extend_from_slice(&header_size.to_le_bytes());
        bytes.extend_from_slice(&fat_size.to_le_bytes());
        bytes
    }

    fn registered_image(data: *const u8) -> Result<&'static [u8], String> {
        let wrapper = wrapper(data);
        // SAFETY: the wrapper and what it points to outlive the registration read here.
        let fatbin = unsafe { register_fatbin(wrapper.as_ptr().cast()) }.expect("registers");
        fatbin.image.clone()
    }

    #[test]
    fn sizes_past_the_mapping_register_as_corrupted() {
        let intact = container(16, 0);
        assert_eq!(registered_image(intact.as_ptr()).map(<[u8]>::len), Ok(16));
        for fat_size in [1 << 40, u64::MAX - 8] {
            let bytes = container(16, fat_size);
            let reason = registered_image(bytes.as_ptr()).map(<[u8]>::len);
            assert!(
                reason
                    .as_ref()
                    .is_err_and(|r| r.starts_with("corrupted fatbin at byte 6")),
                "{reason:?}"
            );
        }
        let reason = registered_image(16 as *const u8).map(<[u8]>::len);
        assert!(
            reason
                .as_ref()
                .is_err_and(|r| r.contains("is not readable")),
            "{reason:?}"
        );
    }

    #[test]
    fn an_unreadable_wrapper_is_refused() {
        // SAFETY: the address is never mapped; nothing is read from it.
        let error = unsafe { register_fatbin(64 as *const c_void) }
            .err()
            .unwrap();
        assert_eq!(error.code, INVALID_KERNEL_IMAGE);
    }
}
