//! Device management and errors: `cudaGetDeviceCount`, `cudaSetDevice`, `cudaGetDevice`,
//! `cudaGetDeviceProperties`, `cudaDeviceGetAttribute`, `cudaSetDeviceFlags`,
//! `cudaDeviceSynchronize`, `cudaDeviceReset`, the versions, and `cudaGetLastError`,
//! `cudaPeekAtLastError`, `cudaGetErrorName`, `cudaGetErrorString`.

use std::ffi::{c_char, c_int, c_uint, CStr};

use chevron::DeviceInfo;

use crate::abi::cudaDeviceProp;
use crate::errors::{self, cudaError_t, guard, CudaError, CudaResult, INVALID_VALUE};
use crate::memory::store;
use crate::{mirror, state};

/// The CUDA version chevron's ABI follows (13.0), as `cudaRuntimeGetVersion` encodes it.
const CUDA_VERSION: c_int = 13000;

/// The number of devices the program sees.
#[no_mangle]
pub extern "C" fn cudaGetDeviceCount(count: *mut c_int) -> cudaError_t {
    guard("cudaGetDeviceCount", || {
        store(count, state::devices()?.len() as c_int, "count")
    })
}

/// Makes `device` current for the calling thread.
#[no_mangle]
pub extern "C" fn cudaSetDevice(device: c_int) -> cudaError_t {
    guard("cudaSetDevice", || {
        state::set_current(usize::try_from(device).unwrap_or(usize::MAX))
    })
}

/// Fails with `cudaErrorInvalidValue` unless `flags` are one scheduling policy (auto, spin,
/// yield, blocking sync) and any of map-host, local-memory resize and sync-memops.
pub(crate) fn check_device_flags(flags: c_uint) -> CudaResult {
    if flags & !0x9f != 0 || !matches!(flags & 0x7, 0 | 1 | 2 | 4) {
        return Err(CudaError::new(
            crate::errors::INVALID_VALUE,
            format!("flags {flags:#x} are not cudaDeviceSchedule*/cudaDevice* flags"),
        ));
    }
    Ok(())
}

/// The calling thread's current device.
#[no_mangle]
pub extern "C" fn cudaGetDevice(device: *mut c_int) -> cudaError_t {
    guard("cudaGetDevice", || {
        store(device, state::current_ordinal() as c_int, "device")
    })
}

/// Accepts device flags (scheduling and mapping flags change nothing on chevron's devices).
#[no_mangle]
pub extern "C" fn cudaSetDeviceFlags(flags: c_uint) -> cudaError_t {
    guard("cudaSetDeviceFlags", || {
        check_device_flags(flags)?;
        state::current().map(drop)
    })
}

/// Waits for all work on the current device and reports its faults.
#[no_mangle]
pub extern "C" fn cudaDeviceSynchronize() -> cudaError_t {
    guard("cudaDeviceSynchronize", || {
        state::current()?.device.synchronize()?;
        mirror::pull_all()
    })
}

/// Restores the current device as CUDA documents: its work is waited for (a fault is dropped),
/// its device allocations are freed, its streams and captures forgotten, and the sticky error
/// cleared, so the next call starts afresh.
#[no_mangle]
pub extern "C" fn cudaDeviceReset() -> cudaError_t {
    guard("cudaDeviceReset", || {
        let ordinal = state::current_ordinal();
        let forgotten = state::reset_device(ordinal)?;
        crate::graphs::forget_captures(&forgotten);
        crate::memory::free_device_allocations(ordinal);
        // The streams of before are gone: this forgets them (and reports no fault of theirs).
        let _ = state::device(ordinal)?.device.synchronize();
        errors::clear_sticky();
        let _ = errors::take_last_error();
        Ok(())
    })
}

/// Succeeds, as NVIDIA's runtime does when no profiler is attached.
#[no_mangle]
pub extern "C" fn cudaProfilerStart() -> cudaError_t {
    errors::SUCCESS
}

/// Succeeds, as NVIDIA's runtime does when no profiler is attached.
#[no_mangle]
pub extern "C" fn cudaProfilerStop() -> cudaError_t {
    errors::SUCCESS
}

/// The CUDA driver version chevron answers for (13.0).
#[no_mangle]
pub extern "C" fn cudaDriverGetVersion(version: *mut c_int) -> cudaError_t {
    guard("cudaDriverGetVersion", || {
        store(version, CUDA_VERSION, "driverVersion")
    })
}

/// The runtime version (13.0).
#[no_mangle]
pub extern "C" fn cudaRuntimeGetVersion(version: *mut c_int) -> cudaError_t {
    guard("cudaRuntimeGetVersion", || {
        store(version, CUDA_VERSION, "runtimeVersion")
    })
}

/// The thread's last error, cleared (a sticky error stays).
#[no_mangle]
pub extern "C" fn cudaGetLastError() -> cudaError_t {
    errors::take_last_error()
}

/// The thread's last error, left in place.
#[no_mangle]
pub extern "C" fn cudaPeekAtLastError() -> cudaError_t {
    errors::peek_last_error()
}

/// `cudaErrorInvalidValue` and friends.
#[no_mangle]
pub extern "C" fn cudaGetErrorName(error: cudaError_t) -> *const c_char {
    static UNRECOGNIZED: &CStr = c"cudaErrorUnknown";
    match errors::describe(error) {
        Some((name, _)) => static_c_str(name),
        None => UNRECOGNIZED.as_ptr(),
    }
}

/// CUDA's text for `error`.
#[no_mangle]
pub extern "C" fn cudaGetErrorString(error: cudaError_t) -> *const c_char {
    static UNRECOGNIZED: &CStr = c"unrecognized error code";
    match errors::describe(error) {
        Some((_, text)) => static_c_str(text),
        None => UNRECOGNIZED.as_ptr(),
    }
}

/// A NUL-terminated copy of a static string, made once and kept for the process.
fn static_c_str(text: &'static str) -> *const c_char {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static STRINGS: Mutex<Option<HashMap<&'static str, std::ffi::CString>>> = Mutex::new(None);
    let mut strings = state::lock(&STRINGS);
    let map = strings.get_or_insert_with(HashMap::new);
    map.entry(text)
        .or_insert_with(|| std::ffi::CString::new(text).unwrap_or_default())
        .as_ptr()
}

fn device_of(device: c_int) -> CudaResult<&'static chevron::Device> {
    let ordinal = usize::try_from(device)
        .map_err(|_| CudaError::new(errors::INVALID_DEVICE, format!("device {device}")))?;
    Ok(&state::device(ordinal)?.device)
}

/// The largest `cudaDeviceAttr` value of CUDA 13.0 chevron answers for.
const LAST_ATTRIBUTE: c_int = 150;

/// One `cudaDeviceAttr` of `device`: on a GPU the driver's answer (`cuDeviceGetAttribute`:
/// `CUdevice_attribute` has the same values), else the CPU device's ([`cpu_attribute`]).
pub(crate) fn attribute(device: &chevron::Device, attribute: c_int) -> CudaResult<c_int> {
    if !(1..=LAST_ATTRIBUTE).contains(&attribute) {
        return Err(CudaError::new(
            INVALID_VALUE,
            format!("{attribute} is not a cudaDeviceAttr"),
        ));
    }
    match device.driver_attribute(attribute) {
        Some(answer) => Ok(answer?),
        None => Ok(cpu_attribute(device.info(), attribute)),
    }
}

/// The CPU device's answer to `cudaDeviceAttr` `attribute` (0, absent, for features it does
/// not have).
fn cpu_attribute(info: &DeviceInfo, attribute: c_int) -> c_int {
    let int = |v: u32| v.min(i32::MAX as u32) as c_int;
    match attribute {
        1 => int(info.max_threads_per_block),
        2..=4 => int(info.max_block_dim[attribute as usize - 2]),
        5..=7 => int(info.max_grid_dim[attribute as usize - 5]),
        8 => int(info.max_shared_per_block),
        9 => 65536,
        10 => int(info.warp_size),
        // cudaDevAttrMaxPitch: NVIDIA's devices' 2^31-1.
        11 => i32::MAX,
        12 | 82 => 65536,
        13 => 1_000_000,
        14 => 512,
        // cudaDevAttrGpuOverlap: each stream has its own worker, so a copy on one stream
        // overlaps a kernel on another.
        15 => 1,
        16 => int(info.multiprocessors),
        // Can map host memory, concurrent kernels, unified addressing, managed memory,
        // cooperative launches, memory pools.
        19 | 31 | 41 | 83 | 95 | 115 => 1,
        36 => 1_000_000,
        37 => 256,
        39 => 2048,
        40 => 1,
        75 => int(info.compute_capability.0),
        76 => int(info.compute_capability.1),
        // cudaDevAttrStreamPrioritiesSupported: the CPU device's streams all run alike.
        78 => 0,
        // cudaDevAttrClusterLaunch: thread-block clusters run (interpreted), as on sm_90 GPUs;
        // programs check it before a cluster launch and take a path without clusters at 0.
        120 => 1,
        81 | 97 => int(info.max_shared_per_block_optin),
        106 => 32,
        // cudaDevAttrPciDeviceId: the `NN` of the device's bus id `0000:00:NN.0`.
        34 => int(info.ordinal),
        // Texture and surface limits: those of an H200, which the CPU device's arrays and
        // objects follow (its own bound is memory).
        other => cpu_texture_limit(other),
    }
}

/// The CPU device's texture and surface limits (cudaDevAttr 21–74 and 77), an H200's values;
/// 0 for any other attribute.
fn cpu_texture_limit(attribute: c_int) -> c_int {
    match attribute {
        21 | 22 | 56 => 131072,
        23 | 57 => 65536,
        24..=26 | 58..=60 => 16384,
        27 | 28 | 45 | 46 | 52 | 53 | 55 | 61 | 63 | 64 | 66 | 67 | 73 | 74 | 77 => 32768,
        29 | 43 | 62 | 65 => 2048,
        54 | 68 => 2046,
        30 | 14 => 512,
        47 | 48 => 8192,
        49 => 32768,
        51 => 32,
        69 => 1 << 28,
        70 => 131072,
        71 => 65000,
        72 => 2097120,
        _ => 0,
    }
}

/// Fills `prop` with `device`'s attributes (each as [`cudaDeviceGetAttribute`] answers it).
#[no_mangle]
pub extern "C" fn cudaGetDeviceProperties(prop: *mut cudaDeviceProp, device: c_int) -> cudaError_t {
    guard("cudaGetDeviceProperties", || {
        let device = device_of(device)?;
        let info = device.info();
        let a = |which: c_int| attribute(device, which);
        let size = |which: c_int| a(which).map(|v| v.max(0) as usize);
        let mut p = cudaDeviceProp::zeroed();
        for (slot, byte) in p.name.iter_mut().zip(info.name.bytes().take(255)) {
            *slot = byte as c_char;
        }
        p.totalGlobalMem = info.total_memory as usize;
        p.sharedMemPerBlock = size(8)?;
        p.regsPerBlock = a(12)?;
        p.warpSize = a(10)?;
        p.memPitch = size(11)?;
        p.maxThreadsPerBlock = a(1)?;
        p.maxThreadsDim = [a(2)?, a(3)?, a(4)?];
        p.maxGridSize = [a(5)?, a(6)?, a(7)?];
        p.totalConstMem = size(9)?;
        p.major = a(75)?;
        p.minor = a(76)?;
        p.textureAlignment = size(14)?;
        p.texturePitchAlignment = size(51)?;
        p.multiProcessorCount = a(16)?;
        p.integrated = a(18)?;
        p.canMapHostMemory = a(19)?;
        p.concurrentKernels = a(31)?;
        p.ECCEnabled = a(32)?;
        p.pciBusID = a(33)?;
        p.pciDeviceID = a(34)?;
        p.pciDomainID = a(50)?;
        p.tccDriver = a(35)?;
        p.asyncEngineCount = a(40)?;
        p.unifiedAddressing = a(41)?;
        p.memoryBusWidth = a(37)?;
        p.l2CacheSize = a(38)?;
        p.persistingL2CacheMaxSize = a(108)?;
        p.maxThreadsPerMultiProcessor = a(39)?;
        p.streamPrioritiesSupported = a(78)?;
        p.globalL1CacheSupported = a(79)?;
        p.localL1CacheSupported = a(80)?;
        p.sharedMemPerMultiprocessor = size(81)?;
        p.regsPerMultiprocessor = a(82)?;
        p.managedMemory = a(83)?;
        p.isMultiGpuBoard = a(84)?;
        p.multiGpuBoardGroupID = a(85)?;
        p.hostNativeAtomicSupported = a(86)?;
        p.pageableMemoryAccess = a(88)?;
        p.concurrentManagedAccess = a(89)?;
        p.computePreemptionSupported = a(90)?;
        p.canUseHostPointerForRegisteredMem = a(91)?;
        p.cooperativeLaunch = a(95)?;
        p.sharedMemPerBlockOptin = size(97)?;
        p.pageableMemoryAccessUsesHostPageTables = a(100)?;
        p.directManagedMemAccessFromHost = a(101)?;
        p.maxBlocksPerMultiProcessor = a(106)?;
        p.accessPolicyMaxWindowSize = a(109)?;
        p.reservedSharedMemPerBlock = size(111)?;
        p.hostRegisterSupported = a(99)?;
        p.memoryPoolsSupported = a(115)?;
        p.clusterLaunch = a(120)?;
        p.uuid.bytes = device.uuid()?.map(|b| b as c_char);
        // Function pointers are one address space with the host's on every device chevron
        // runs (NVIDIA's runtime reports 1 on GPUs; the CPU device calls them too).
        p.unifiedFunctionPointers = 1;
        p.maxTexture1D = a(21)?;
        p.maxTexture1DMipmap = a(77)?;
        p.maxTexture2D = [a(22)?, a(23)?];
        p.maxTexture2DMipmap = [a(73)?, a(74)?];
        p.maxTexture2DLinear = [a(70)?, a(71)?, a(72)?];
        p.maxTexture2DGather = [a(45)?, a(46)?];
        p.maxTexture3D = [a(24)?, a(25)?, a(26)?];
        p.maxTexture3DAlt = [a(47)?, a(48)?, a(49)?];
        p.maxTextureCubemap = a(52)?;
        p.maxTexture1DLayered = [a(42)?, a(43)?];
        p.maxTexture2DLayered = [a(27)?, a(28)?, a(29)?];
        p.maxTextureCubemapLayered = [a(53)?, a(54)?];
        p.maxSurface1D = a(55)?;
        p.maxSurface2D = [a(56)?, a(57)?];
        p.maxSurface3D = [a(58)?, a(59)?, a(60)?];
        p.maxSurface1DLayered = [a(61)?, a(62)?];
        p.maxSurface2DLayered = [a(63)?, a(64)?, a(65)?];
        p.maxSurfaceCubemap = a(66)?;
        p.maxSurfaceCubemapLayered = [a(67)?, a(68)?];
        p.surfaceAlignment = size(30)?;
        p.sparseCudaArraySupported = a(112)?;
        p.hostRegisterReadOnlySupported = a(113)?;
        p.timelineSemaphoreInteropSupported = a(114)?;
        p.gpuDirectRDMASupported = a(116)?;
        p.gpuDirectRDMAFlushWritesOptions = a(117)? as c_uint;
        p.gpuDirectRDMAWritesOrdering = a(118)?;
        p.memoryPoolSupportedHandleTypes = a(119)? as c_uint;
        p.deferredMappingCudaArraySupported = a(121)?;
        p.ipcEventSupported = a(125)?;
        p.deviceNumaConfig = a(130)?;
        p.deviceNumaId = a(131)?;
        p.mpsEnabled = a(133)?;
        p.hostNumaId = a(134)?;
        p.gpuPciDeviceID = a(139)? as c_uint;
        p.gpuPciSubsystemID = a(140)? as c_uint;
        p.hostNumaMultinodeIpcSupported = a(143)?;
        store(prop, p, "prop")
    })
}

/// The device whose PCI bus id is `wanted`, compared without case (the driver writes upper-case
/// hex); `cudaErrorInvalidDevice` when none is.
fn by_pci_bus_id(wanted: &str) -> CudaResult<usize> {
    for (ordinal, device) in state::devices()?.iter().enumerate() {
        if device
            .device
            .pci_bus_id()?
            .eq_ignore_ascii_case(wanted.trim())
        {
            return Ok(ordinal);
        }
    }
    Err(CudaError::new(
        errors::INVALID_DEVICE,
        format!("no device has PCI bus id `{wanted}`"),
    ))
}

/// Writes `device`'s PCI bus id (at most `len` bytes, NUL included).
///
/// # Safety
/// `id` is NULL or holds `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn cudaDeviceGetPCIBusId(
    id: *mut c_char,
    len: c_int,
    device: c_int,
) -> cudaError_t {
    guard("cudaDeviceGetPCIBusId", || {
        let device = device_of(device)?;
        if id.is_null() || len <= 0 {
            return Err(CudaError::new(
                INVALID_VALUE,
                "pciBusId is NULL or len not positive",
            ));
        }
        let bus_id = device.pci_bus_id()?;
        let bytes = bus_id.as_bytes();
        let n = bytes.len().min(len as usize - 1);
        // SAFETY: `id` holds `len` writable bytes by the caller's contract; n + 1 <= len.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), id.cast::<u8>(), n);
            *id.add(n) = 0;
        }
        Ok(())
    })
}

/// The ordinal of the device with PCI bus id `id`.
///
/// # Safety
/// `id` is NULL or a NUL-terminated string; `device` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn cudaDeviceGetByPCIBusId(
    device: *mut c_int,
    id: *const c_char,
) -> cudaError_t {
    guard("cudaDeviceGetByPCIBusId", || {
        if id.is_null() || device.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "device or pciBusId is NULL"));
        }
        // SAFETY: non-NULL, NUL-terminated by the API's contract.
        let wanted = unsafe { std::ffi::CStr::from_ptr(id) }.to_string_lossy();
        let ordinal = by_pci_bus_id(&wanted)?;
        store(device, ordinal as c_int, "device")
    })
}

/// One attribute of `device` (see [`attribute`]).
#[no_mangle]
pub extern "C" fn cudaDeviceGetAttribute(
    value: *mut c_int,
    attribute: c_int,
    device: c_int,
) -> cudaError_t {
    guard("cudaDeviceGetAttribute", || {
        if value.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "value is NULL"));
        }
        let answer = self::attribute(device_of(device)?, attribute)?;
        store(value, answer, "value")
    })
}
