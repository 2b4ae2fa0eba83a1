//! Relocatable device code (`nvcc -rdc=true`) on devices the linked image has no code for.
//!
//! nvcc's device link step registers one fatbin holding the *linked* SASS, and hands the
//! runtime the translation units' own fatbins alongside (the wrapper's version 2 field, for
//! JIT linking). A GPU of an architecture the linked SASS was built for loads it; the CPU
//! device, and a GPU of another architecture (nvcc's default builds `sm_75` only), take each
//! unit's PTX and link them with chevron-ptx's linker, so device functions and globals resolve
//! across units (a GPU's driver then JIT-compiles the linked PTX). Each unit's PTX is read as
//! a code object (parsed once), and the linked module is handed on as IR, never printed and
//! parsed again. The unit of CUDA's device runtime library (`-lcudadevrt`, pulled in by
//! device-side launches) is replaced by chevron's (`chevron_ptx::linker::is_device_runtime`).

use chevron::code_object::{parse_fatbin, CodeObject, CodeObjectKind, EntryKind};

use crate::errors::{CudaError, CudaResult, NO_KERNEL_IMAGE_FOR_DEVICE};

/// Links the PTX of the relocatable fatbins `units` into one PTX module. `user` names the
/// kernel or variable that needed it, for messages.
pub fn link_ptx(units: &[&[u8]], user: &str) -> CudaResult<chevron_ptx::ir::Module> {
    let fail = |message: String| {
        CudaError::new(
            NO_KERNEL_IMAGE_FOR_DEVICE,
            format!("`{user}`: linking the relocatable device code: {message}"),
        )
    };
    let mut modules = Vec::with_capacity(units.len());
    for (index, unit) in units.iter().enumerate() {
        let entries = parse_fatbin(unit).map_err(|e| fail(format!("unit {index}: {e}")))?;
        let ptx = entries
            .iter()
            .filter(|entry| entry.kind == EntryKind::Ptx)
            .max_by_key(|entry| entry.arch)
            .ok_or_else(|| {
                fail(format!(
                    "unit {index} holds no PTX: rebuild with nvcc's default, which embeds PTX, \
                     or add -gencode arch=compute_XX,code=compute_XX"
                ))
            })?;
        let text = ptx
            .ptx_text()
            .map_err(|e| fail(format!("unit {index}: {e}")))?;
        let name = format!("unit {index}");
        let code = CodeObject::read_as(CodeObjectKind::Ptx, text.as_bytes(), &name);
        let module = code.ptx().map_err(|e| fail(e.to_string()))?;
        if chevron_ptx::linker::is_device_runtime(module) {
            // `-lcudadevrt`: its code calls NVIDIA's driver; chevron's stands in for it, and
            // the device-side launches stay external for the device to serve.
            let stand_in = chevron_ptx::parse(chevron_ptx::linker::DEVICE_RUNTIME_PTX)
                .map_err(|e| fail(format!("chevron's device runtime: {e}")))?;
            modules.push(stand_in);
            continue;
        }
        modules.push(chevron_ptx::ir::Module::clone(module));
    }
    chevron_ptx::link(&modules).map_err(|e| fail(e.to_string()))
}
