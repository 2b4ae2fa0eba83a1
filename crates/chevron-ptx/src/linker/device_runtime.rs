//! CUDA's device runtime library (`libcudadevrt.a`) as chevron links it. The archive's own
//! device code calls into NVIDIA's driver (`__cuda_syscall_…`), so it is never linked: its
//! grid-synchronisation functions come from chevron's PTX ([`DEVICE_RUNTIME_PTX`]), and its
//! launch, stream and error functions (`__cudaCDP2…`) stay external for the loader to serve
//! ([`super::DRIVER_PROVIDED`]; the CPU device's interpreter does).

use crate::ir::{Item, Module};

/// chevron's PTX for `cudaCGGetIntrinsicHandle` and `cudaCGSynchronize` (grid sync).
pub const DEVICE_RUNTIME_PTX: &str = include_str!("device_runtime.ptx");

/// Whether `module` is the device code of CUDA's `libcudadevrt.a` (it defines the device
/// runtime's launch function), which a link takes [`DEVICE_RUNTIME_PTX`] for.
pub fn is_device_runtime(module: &Module) -> bool {
    module.items.iter().any(|item| {
        matches!(item, Item::Function(f)
            if f.body.is_some() && f.name == "__cudaCDP2LaunchDeviceV2")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stand_in_parses_and_is_not_taken_for_the_archive() {
        let module = crate::parse(DEVICE_RUNTIME_PTX).unwrap();
        assert!(!is_device_runtime(&module));
        let archive = crate::parse(
            ".version 8.0\n.target sm_90\n.address_size 64\n\
             .visible .func (.param .b32 r) __cudaCDP2LaunchDeviceV2(.param .b64 a, .param .b64 b)\n\
             { st.param.b32 [r], 0; ret; }\n",
        )
        .unwrap();
        assert!(is_device_runtime(&archive));
    }
}
