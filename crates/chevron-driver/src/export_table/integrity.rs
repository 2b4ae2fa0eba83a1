//! `{d4082055-bde6-704b-8d34-ba123c66e1f2}`: the runtime's integrity check of the driver.
//!
//! Entry 1 is `(runtime_version: u32, unix_seconds: u64, out: *mut [u64; 2]) -> CUresult`.
//! The runtime compares `out` with the value it expects and, when they differ, fails every
//! call with `cudaErrorSoftwareValidityNotEstablished` (103). The expected value, as ZLUDA's
//! `dark_api` crate describes it: for a `runtime_version` ending in 0 or 1 two constants;
//! otherwise HMAC-MD2 ([`md2::hmac`]) under a fixed key of the 48 bytes (driver version,
//! runtime version, process id, `pthread_self` truncated to 32 bits, the CUDART_INTERFACE
//! table's address, this table's address, this entry's address, `unix_seconds`), followed by
//! 28 bytes per device (UUID, PCI domain, bus and device numbers). Verified by CUDA 13.0's
//! `libcudart_static.a` accepting the answer (`scripts/test.d/static-runtime.sh`).

use std::ffi::c_int;

use super::md2;
use crate::result::{CUresult, INVALID_VALUE, SUCCESS};

/// The HMAC key (the result of a first pass of the runtime's that takes no input).
const KEY: [u8; 16] = [
    0x14, 0x6A, 0xDD, 0xAE, 0x53, 0xA9, 0xA7, 0x52, 0xAA, 0x08, 0x41, 0x36, 0x0B, 0xF5, 0x5A, 0x9F,
];

/// What the hash covers besides the devices.
pub struct Inputs {
    /// `cuDriverGetVersion`'s value.
    pub driver_version: u32,
    /// The runtime's version, as it passed it.
    pub runtime_version: u32,
    /// The process id.
    pub process: u32,
    /// `pthread_self()`, truncated.
    pub thread: u32,
    /// The CUDART_INTERFACE table's address.
    pub cudart_table: usize,
    /// This table's address.
    pub integrity_table: usize,
    /// This entry's address.
    pub entry: usize,
    /// The time the runtime passed.
    pub unix_seconds: u64,
}

/// One device's part: UUID and PCI domain, bus and device numbers.
pub struct DeviceIdentity {
    /// `cuDeviceGetUuid`.
    pub uuid: [u8; 16],
    /// PCI domain, bus and device numbers.
    pub pci: [i32; 3],
}

/// The value the runtime expects.
pub fn expected(inputs: &Inputs, devices: &[DeviceIdentity]) -> [u64; 2] {
    match inputs.runtime_version % 10 {
        0 => return [0x3341_181C_03CB_675C, 0x8ED3_83AA_1F4C_D1E8],
        1 => return [0x1841_181C_03CB_675C, 0x8ED3_83AA_1F4C_D1E8],
        _ => {}
    }
    let mut message = Vec::with_capacity(48 + 28 * devices.len());
    for word in [
        inputs.driver_version,
        inputs.runtime_version,
        inputs.process,
        inputs.thread,
    ] {
        message.extend_from_slice(&word.to_le_bytes());
    }
    for address in [inputs.cudart_table, inputs.integrity_table, inputs.entry] {
        message.extend_from_slice(&(address as u64).to_le_bytes());
    }
    message.extend_from_slice(&inputs.unix_seconds.to_le_bytes());
    for device in devices {
        message.extend_from_slice(&device.uuid);
        for number in device.pci {
            message.extend_from_slice(&number.to_le_bytes());
        }
    }
    let digest = md2::hmac(&KEY, &message);
    [
        u64::from_le_bytes(digest[..8].try_into().expect("8 bytes")),
        u64::from_le_bytes(digest[8..].try_into().expect("8 bytes")),
    ]
}

extern "C" {
    fn pthread_self() -> usize;
}

/// The devices as the hash covers them, through the driver's own queries.
fn devices() -> Vec<DeviceIdentity> {
    let count = crate::context::device_count().unwrap_or(0);
    (0..count as c_int)
        .map(|device| {
            let mut uuid = [0u8; 16];
            crate::device::cuDeviceGetUuid_v2(&mut uuid, device);
            // CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, _PCI_BUS_ID, _PCI_DEVICE_ID.
            let pci = [50, 33, 34].map(|attribute| {
                let mut value = 0;
                crate::device::cuDeviceGetAttribute(&mut value, attribute, device);
                value
            });
            DeviceIdentity { uuid, pci }
        })
        .collect()
}

/// Entry 1.
pub(crate) extern "C" fn integrity_check(
    runtime_version: u32,
    unix_seconds: u64,
    out: *mut [u64; 2],
) -> CUresult {
    if out.is_null() {
        return INVALID_VALUE;
    }
    let inputs = Inputs {
        driver_version: crate::context::DRIVER_VERSION as u32,
        runtime_version,
        process: std::process::id(),
        // SAFETY: pthread_self has no preconditions.
        thread: unsafe { pthread_self() } as u32,
        cudart_table: super::tables::CUDART_INTERFACE.address(),
        integrity_table: super::tables::INTEGRITY_CHECK.address(),
        entry: super::tables::INTEGRITY_CHECK.0[1] as usize,
        unix_seconds,
    };
    // SAFETY: non-NULL; 16 writable bytes by the table's contract.
    unsafe { out.write_unaligned(expected(&inputs, &devices())) };
    SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(runtime_version: u32) -> Inputs {
        Inputs {
            driver_version: 13000,
            runtime_version,
            process: 7,
            thread: 9,
            cudart_table: 0x1000,
            integrity_table: 0x2000,
            entry: 0x3000,
            unix_seconds: 1_700_000_000,
        }
    }

    #[test]
    fn versions_ending_in_0_or_1_expect_constants() {
        assert_eq!(expected(&inputs(13000), &[])[0], 0x3341_181C_03CB_675C);
        assert_eq!(expected(&inputs(12081), &[])[0], 0x1841_181C_03CB_675C);
    }

    #[test]
    fn the_hash_covers_the_time_and_the_devices() {
        let device = DeviceIdentity {
            uuid: [3; 16],
            pci: [0, 1, 0],
        };
        let base = expected(&inputs(13002), &[]);
        assert_ne!(base, expected(&inputs(13002), &[device]));
        let mut later = inputs(13002);
        later.unix_seconds += 1;
        assert_ne!(base, expected(&later, &[]));
    }

    #[test]
    fn a_null_result_pointer_is_an_invalid_value() {
        assert_eq!(
            integrity_check(13002, 0, std::ptr::null_mut()),
            INVALID_VALUE
        );
    }
}
