//! What a module may declare: the per-function limits a GPU's PTX compiler enforces, and the
//! ones the interpreter adds so that a short module cannot make it allocate without bound.
//!
//! Declarations are checked while a function is decoded, before anything is allocated for it:
//! kernel parameter space and local memory per thread fail with the words `ptxas` uses on a GPU,
//! virtual registers (which a GPU's compiler spills, but the interpreter keeps for every lane of
//! every call level) against [`MAX_REGISTERS`].

use crate::interp::fault::LoadError;

/// Kernel parameter space, as on sm_70 and later GPUs (CUDA 12.1+): 32,764 bytes.
pub const MAX_PARAM_BYTES: u64 = 32_764;
/// Local memory per thread a GPU allows (512 KiB).
pub const MAX_LOCAL_BYTES: u64 = 512 << 10;
/// Virtual registers one function may declare. A warp keeps `32 × 8` bytes per register and
/// call level, so this bounds one warp's register file at 16 MiB per level.
pub const MAX_REGISTERS: u32 = 1 << 16;

/// `Entry function 'k'` or `Function 'f'`, as `ptxas` names them.
fn ptxas_name(function: &str, kernel: bool) -> String {
    if kernel {
        format!("Entry function '{function}'")
    } else {
        format!("Function '{function}'")
    }
}

/// Checks a kernel's parameter space.
pub(crate) fn check_param_space(function: &str, line: u32, bytes: u64) -> Result<(), LoadError> {
    if bytes <= MAX_PARAM_BYTES {
        return Ok(());
    }
    Err(LoadError::new(
        Some(function),
        line,
        format!(
            "{} uses too much parameter space ({bytes:#x} bytes, {MAX_PARAM_BYTES:#x} max)",
            ptxas_name(function, true)
        ),
    ))
}

/// Checks a function's local frame (`.local` variables and `.param` space of calls).
pub(crate) fn check_local(
    function: &str,
    kernel: bool,
    line: u32,
    bytes: u64,
) -> Result<(), LoadError> {
    if bytes <= MAX_LOCAL_BYTES {
        return Ok(());
    }
    Err(LoadError::new(
        Some(function),
        line,
        format!(
            "{} uses too much local data ({bytes:#x} bytes, {MAX_LOCAL_BYTES:#x} max)",
            ptxas_name(function, kernel)
        ),
    ))
}

/// Checks a function's virtual register count.
pub(crate) fn check_registers(function: &str, line: u32, count: u32) -> Result<(), LoadError> {
    if count <= MAX_REGISTERS {
        return Ok(());
    }
    Err(LoadError::new(
        Some(function),
        line,
        format!(
            "`{function}` declares {} registers, more than the {MAX_REGISTERS} the CPU device \
             runs per function",
            if count == u32::MAX {
                "4294967295 or more".to_string()
            } else {
                count.to_string()
            }
        ),
    ))
}
