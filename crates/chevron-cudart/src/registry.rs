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

use chevron::code_object::{parse_fatbin, select_entry, CodeTargets, EntryKind};
use chevron::{GlobalVar, Kernel, Module};

use crate::errors::{
    CudaError, CudaResult, INVALID_DEVICE_FUNCTION, INVALID_SYMBOL, NO_KERNEL_IMAGE_FOR_DEVICE,
};
use crate::state::{self, lock};

/// `__fatBinC_Wrapper_t`'s magic number.
const WRAPPER_MAGIC: u32 = 0x466243b1;
/// A fatbin container's magic number.
const FATBIN_MAGIC: u32 = 0xBA55ED50;

/// One registered fatbin.
pub struct FatBinary {
    /// The fatbin container, in the program's read-only data (valid until unregistered).
    image: &'static [u8],
    /// With `-rdc=true`: the translation units' own fatbins (see [`crate::linked`]).
    units: Vec<&'static [u8]>,
    /// The module per device ordinal, once loaded.
    modules: Mutex<HashMap<usize, Module>>,
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

/// Reads a `__fatBinC_Wrapper_t` and returns the fatbin it points to.
///
/// # Safety
/// `wrapper` is NULL or points to a fatbin wrapper whose data stays mapped until unregistered.
pub unsafe fn register_fatbin(wrapper: *const c_void) -> CudaResult<Arc<FatBinary>> {
    if wrapper.is_null() {
        return Err(CudaError::new(
            crate::errors::INVALID_KERNEL_IMAGE,
            "a NULL fatbin wrapper",
        ));
    }
    // SAFETY: the wrapper is `{ int magic; int version; const u64 *data; void *units; }`.
    let (magic, version, data, units) = unsafe {
        let words = wrapper as *const u32;
        let pointers = wrapper as *const *const u8;
        (
            *words,
            *words.add(1),
            *pointers.add(1),
            *pointers.add(2) as *const *const u8,
        )
    };
    if magic != WRAPPER_MAGIC || data.is_null() {
        return Err(CudaError::new(
            crate::errors::INVALID_KERNEL_IMAGE,
            format!("not a fatbin wrapper (magic {magic:#x})"),
        ));
    }
    // SAFETY: forwarded from the caller.
    let image = unsafe { container(data) }?;
    let mut unit_images = Vec::new();
    if version == 2 && !units.is_null() {
        // SAFETY: version 2's last field is a NULL-terminated array of the units' fatbins.
        unsafe {
            let mut at = units;
            while !(*at).is_null() {
                unit_images.push(container(*at)?);
                at = at.add(1);
            }
        }
    }
    Ok(Arc::new(FatBinary {
        image,
        units: unit_images,
        modules: Mutex::new(HashMap::new()),
    }))
}

/// The fatbin container starting at `data`.
///
/// # Safety
/// `data` points to a fatbin container that stays mapped until unregistration.
unsafe fn container(data: *const u8) -> CudaResult<&'static [u8]> {
    // SAFETY: a fatbin starts with `{ u32 magic; u16 version; u16 header_size; u64 fat_size }`.
    let (fat_magic, header_size, fat_size) = unsafe {
        (
            *(data as *const u32),
            *(data.add(6) as *const u16),
            (data.add(8) as *const u64).read_unaligned(),
        )
    };
    if fat_magic != FATBIN_MAGIC {
        return Err(CudaError::new(
            crate::errors::INVALID_KERNEL_IMAGE,
            format!("the wrapper's data is not a fatbin (magic {fat_magic:#x})"),
        ));
    }
    let len = usize::from(header_size) + fat_size as usize;
    // SAFETY: the container is `header_size + fat_size` bytes, mapped until unregistration.
    Ok(unsafe { std::slice::from_raw_parts(data, len) })
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
        let device = &state::device(ordinal)?.device;
        let ptx_only = device.code_targets().runs_ptx_only();
        if ptx_only && !self.units.is_empty() {
            let ptx = crate::linked::link_ptx(&self.units, user)?;
            let module = Module::from_ptx(device, &ptx)?;
            modules.insert(ordinal, module.clone());
            return Ok(module);
        }
        let module = Module::from_fatbin(device, self.image).map_err(|error| {
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
    /// as absent.
    pub fn code_versions(&self, targets: &CodeTargets) -> CodeVersions {
        let images = std::iter::once(self.image).chain(self.units.iter().copied());
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
