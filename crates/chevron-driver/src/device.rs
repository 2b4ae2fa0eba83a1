//! Devices: count, handles, names, UUIDs, memory, attributes and compute capability.
//!
//! A `CUdevice` is the ordinal of a device of the runtime's state, so it equals the runtime's
//! device number. Attributes share their numbering with the runtime's `cudaDeviceAttr` and are
//! answered by the runtime (features chevron's devices lack read 0).

use std::ffi::{c_char, c_int};

use cudart::state;

use crate::context::{checked_device, device_count};
use crate::result::{entry, runtime, store, CUresult, DriverError, INVALID_VALUE};

/// The number of devices.
#[no_mangle]
pub extern "C" fn cuDeviceGetCount(count: *mut c_int) -> CUresult {
    entry("cuDeviceGetCount", || {
        store(count, device_count()? as c_int, "count")
    })
}

/// Device number `ordinal`.
#[no_mangle]
pub extern "C" fn cuDeviceGet(device: *mut c_int, ordinal: c_int) -> CUresult {
    entry("cuDeviceGet", || {
        let ordinal = checked_device(ordinal)?;
        store(device, ordinal as c_int, "device")
    })
}

/// Writes `text` into the caller's buffer of `len` bytes, NUL-terminated (truncated to fit).
fn write_c_string(out: *mut c_char, len: c_int, text: &str) -> Result<(), DriverError> {
    let len = usize::try_from(len).unwrap_or(0);
    if out.is_null() || len == 0 {
        return Err(DriverError::new(
            INVALID_VALUE,
            "an empty or NULL name buffer",
        ));
    }
    let bytes = &text.as_bytes()[..text.len().min(len - 1)];
    // SAFETY: `out` holds `len` writable bytes by contract; we write at most len - 1 + 1.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), out.cast::<u8>(), bytes.len());
        *out.add(bytes.len()) = 0;
    }
    Ok(())
}

/// The device's name.
#[no_mangle]
pub extern "C" fn cuDeviceGetName(name: *mut c_char, len: c_int, device: c_int) -> CUresult {
    entry("cuDeviceGetName", || {
        let ordinal = checked_device(device)?;
        write_c_string(name, len, state::device(ordinal)?.device.name())
    })
}

/// A stable identifier of the device: a hash of chevron's device label, the same every run.
#[no_mangle]
pub extern "C" fn cuDeviceGetUuid_v2(uuid: *mut [u8; 16], device: c_int) -> CUresult {
    entry("cuDeviceGetUuid", || {
        let ordinal = checked_device(device)?;
        let bytes = state::device(ordinal)?.device.uuid()?;
        store(uuid, bytes, "uuid")
    })
}

/// The device's memory size in bytes.
#[no_mangle]
pub extern "C" fn cuDeviceTotalMem_v2(bytes: *mut usize, device: c_int) -> CUresult {
    entry("cuDeviceTotalMem", || {
        let ordinal = checked_device(device)?;
        let total = state::device(ordinal)?.device.total_memory();
        store(bytes, total as usize, "bytes")
    })
}

/// One attribute (`CUdevice_attribute`, numbered as the runtime's `cudaDeviceAttr`).
#[no_mangle]
pub extern "C" fn cuDeviceGetAttribute(
    value: *mut c_int,
    attribute: c_int,
    device: c_int,
) -> CUresult {
    entry("cuDeviceGetAttribute", || {
        checked_device(device)?;
        if value.is_null() {
            return Err(DriverError::new(INVALID_VALUE, "pi is NULL"));
        }
        if attribute == MEMORY_POOLS_SUPPORTED {
            // The runtime's pools (cudaMallocAsync, cudaMemPool*) are served; the driver's
            // (cuMemPool*, cuMemAllocFromPoolAsync) are not, so driver clients such as Numba
            // must not take the pool path.
            return store(value, 0, "pi");
        }
        runtime(cudart::device::cudaDeviceGetAttribute(
            value, attribute, device,
        ))
    })
}

/// `CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED`.
const MEMORY_POOLS_SUPPORTED: c_int = 115;

/// The compute capability chevron's device reports.
#[no_mangle]
pub extern "C" fn cuDeviceComputeCapability(
    major: *mut c_int,
    minor: *mut c_int,
    device: c_int,
) -> CUresult {
    entry("cuDeviceComputeCapability", || {
        let ordinal = checked_device(device)?;
        let (ma, mi) = state::device(ordinal)?.device.compute_capability();
        store(major, ma as c_int, "major")?;
        store(minor, mi as c_int, "minor")
    })
}

/// The device's PCI bus id: a GPU's driver's, `0000:00:NN.0` for the CPU device (NN its
/// ordinal).
#[no_mangle]
pub extern "C" fn cuDeviceGetPCIBusId(id: *mut c_char, len: c_int, device: c_int) -> CUresult {
    entry("cuDeviceGetPCIBusId", || {
        let ordinal = checked_device(device)?;
        let bus_id = state::device(ordinal)?.device.pci_bus_id()?;
        write_c_string(id, len, &bus_id)
    })
}

forward! {
    /// The device whose PCI bus id is `id` (compared without case, as the driver's upper-case
    /// hex and a user's lower-case both name it): the runtime's `cudaDeviceGetByPCIBusId`.
    cuDeviceGetByPCIBusId => cudart::device::cudaDeviceGetByPCIBusId,
        (device: *mut c_int, id: *const c_char);
    /// An attribute of the link between two devices (`CUdevice_P2PAttribute` has
    /// `cudaDeviceP2PAttr`'s values): 0 for each, as chevron's devices never address each
    /// other's memory.
    cuDeviceGetP2PAttribute => cudart::device_queries::cudaDeviceGetP2PAttribute,
        (value: *mut c_int, attr: c_int, src: c_int, dst: c_int);
}
