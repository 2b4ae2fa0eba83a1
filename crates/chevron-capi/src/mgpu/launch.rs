//! `mgpuLaunchKernel`, `mgpuLaunchClusterKernel` and `mgpuTensorMapEncodeTiledMemref`.
//!
//! `params` follows `cuLaunchKernel`'s convention: one pointer per parameter, each to the
//! value in the caller's stack frame. The backend copies the values during the call; when
//! host-shared or registered memory exists, 8-byte values are first copied here so that host
//! addresses can be replaced by their device mirrors ([`super::host_memory`]).

use std::ffi::c_void;

use chevron::{Kernel, LaunchConfig, Stream};

use super::host_memory;
use super::{guard, lookup, stream_or_default, FUNCTIONS};
use crate::error::{CapiError, CapiResult};

/// Argument lists up to this long are handled without allocating.
const STACK_ARGS: usize = 64;

fn dimension(what: &str, value: i64) -> CapiResult<u32> {
    u32::try_from(value).ok().filter(|&v| v > 0).ok_or_else(|| {
        CapiError::invalid(format!("{what} = {value} is not a positive 32-bit size"))
    })
}

/// The launch configuration of the six dimensions and the dynamic shared memory.
fn config(grid: [i64; 3], block: [i64; 3], smem: i32) -> CapiResult<LaunchConfig> {
    let names = ["x", "y", "z"];
    let mut config = LaunchConfig {
        grid: [1; 3],
        block: [1; 3],
        shared_bytes: u32::try_from(smem)
            .map_err(|_| CapiError::invalid(format!("dynamic shared memory {smem} is negative")))?,
    };
    for axis in 0..3 {
        config.grid[axis] = dimension(&format!("grid {}", names[axis]), grid[axis])?;
        config.block[axis] = dimension(&format!("block {}", names[axis]), block[axis])?;
    }
    Ok(config)
}

/// Launches `kernel` on `stream` with the argument pointers `params` (`count` of them).
///
/// # Safety
/// `params` holds `count` pointers to readable values of the parameters' sizes.
unsafe fn enqueue(
    kernel: &Kernel,
    stream: &Stream,
    config: LaunchConfig,
    params: &[*mut c_void],
) -> CapiResult<()> {
    let layout = match kernel.params() {
        Some(layout) if host_memory::any() => layout,
        _ => {
            // SAFETY: forwarded from the caller (count checked against the layout by
            // launch_raw).
            unsafe { kernel.launch_raw(stream, config, params, &[])? };
            return Ok(());
        }
    };
    let sizes: Vec<u32> = layout.iter().map(|l| l.size).collect();
    if sizes.len() != params.len() {
        return Err(CapiError::new(
            crate::status::chevron_status::CHEVRON_ERROR_ARGUMENT,
            format!("takes {} parameters, got {}", sizes.len(), params.len()),
        ));
    }
    // Copies of the 8-byte values, which may be host addresses to translate.
    let mut words = [0u64; STACK_ARGS];
    let mut heap_words: Vec<u64>;
    let words: &mut [u64] = if params.len() <= STACK_ARGS {
        &mut words[..params.len()]
    } else {
        heap_words = vec![0; params.len()];
        &mut heap_words
    };
    let mut wide: Vec<usize> = Vec::new();
    for (i, (&ptr, &size)) in params.iter().zip(&sizes).enumerate() {
        if size == 8 && !ptr.is_null() {
            // SAFETY: `ptr` points to the 8-byte value of parameter i (caller's contract).
            words[i] = unsafe { (ptr as *const u64).read_unaligned() };
            wide.push(i);
        }
    }
    let mut values: Vec<u64> = wide.iter().map(|&i| words[i]).collect();
    let bases = host_memory::translate(stream.device(), &mut values)?;
    for (&i, &v) in wide.iter().zip(&values) {
        words[i] = v;
    }
    let mut pointers: Vec<*mut c_void> = params.to_vec();
    for &i in &wide {
        pointers[i] = (&mut words[i]) as *mut u64 as *mut c_void;
    }
    // SAFETY: each pointer points to the caller's value or to its (translated) copy in
    // `words`, alive for the call.
    let launched = unsafe { kernel.launch_raw(stream, config, &pointers, &[]) };
    host_memory::finish(&bases, launched.as_ref().ok());
    launched?;
    Ok(())
}

/// # Safety
/// As [`mgpuLaunchKernel`].
#[allow(clippy::too_many_arguments)]
unsafe fn launch(
    call: &str,
    function: *mut c_void,
    grid: [i64; 3],
    block: [i64; 3],
    smem: i32,
    stream: *mut c_void,
    params: *mut *mut c_void,
    count: Option<usize>,
) {
    guard(call, (), || {
        let function = lookup(&FUNCTIONS, function)?;
        let name = function.name().to_string();
        let launched = (|| -> CapiResult<()> {
            let stream = stream_or_default(stream)?;
            let kernel = function.kernel_for(stream.device())?;
            let config = config(grid, block, smem)?;
            let expected = kernel.params().map(|p| p.len());
            let n = match (expected, count) {
                (Some(n), Some(c)) if n != c => {
                    return Err(CapiError::new(
                        crate::status::chevron_status::CHEVRON_ERROR_ARGUMENT,
                        format!("takes {n} parameters, the caller passes {c}"),
                    ))
                }
                (Some(n), _) | (None, Some(n)) => n,
                (None, None) => {
                    return Err(CapiError::invalid(
                        "the parameter count is unknown (the code object does not describe it)",
                    ))
                }
            };
            let pointers: &[*mut c_void] = if n == 0 {
                &[]
            } else if params.is_null() {
                return Err(CapiError::invalid(format!(
                    "`params` is NULL for {n} parameters"
                )));
            } else {
                // SAFETY: `params` holds one pointer per parameter (caller's contract).
                unsafe { std::slice::from_raw_parts(params, n) }
            };
            // SAFETY: forwarded from the caller.
            unsafe { enqueue(&kernel, &stream, config, pointers) }
        })();
        launched.map_err(|mut e| {
            if !e.message.contains(&format!("`{name}")) {
                e.message = format!("kernel `{name}`: {}", e.message);
            }
            e
        })
    });
}

/// Launches `function` with `gridX×gridY×gridZ` blocks of `blockX×blockY×blockZ` threads and
/// `smem` bytes of dynamic shared memory on `stream`. `params` holds `params_count` pointers
/// to the argument values (copied during the call); `extra` must be NULL.
///
/// # Safety
/// `params` holds one pointer per kernel parameter, each to a readable value of the
/// parameter's size.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn mgpuLaunchKernel(
    function: *mut c_void,
    grid_x: i64,
    grid_y: i64,
    grid_z: i64,
    block_x: i64,
    block_y: i64,
    block_z: i64,
    smem: i32,
    stream: *mut c_void,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
    params_count: usize,
) {
    if !extra.is_null() {
        guard("mgpuLaunchKernel", (), || {
            Err(CapiError::invalid(
                "`extra` is not supported (must be NULL)",
            ))
        });
        return;
    }
    // SAFETY: forwarded from the caller.
    unsafe {
        launch(
            "mgpuLaunchKernel",
            function,
            [grid_x, grid_y, grid_z],
            [block_x, block_y, block_z],
            smem,
            stream,
            params,
            Some(params_count),
        )
    }
}

/// Launches with thread-block clusters. LLVM 19–22 pass 14 arguments (no parameter count, which
/// is never read here). Clusters of one block run as ordinary launches; larger clusters are
/// not supported by chevron's launch path yet and are reported.
///
/// # Safety
/// As [`mgpuLaunchKernel`].
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn mgpuLaunchClusterKernel(
    function: *mut c_void,
    cluster_x: i64,
    cluster_y: i64,
    cluster_z: i64,
    grid_x: i64,
    grid_y: i64,
    grid_z: i64,
    block_x: i64,
    block_y: i64,
    block_z: i64,
    smem: i32,
    stream: *mut c_void,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) {
    if [cluster_x, cluster_y, cluster_z] != [1, 1, 1] || !extra.is_null() {
        let name = lookup(&FUNCTIONS, function)
            .map(|f| f.name().to_string())
            .unwrap_or_else(|_| "?".into());
        guard("mgpuLaunchClusterKernel", (), || {
            Err(CapiError::invalid(format!(
                "kernel `{name}`: clusters of ({cluster_x}, {cluster_y}, {cluster_z}) blocks are \
                 not supported by chevron's launch path (only clusters of one block)"
            )))
        });
        return;
    }
    // SAFETY: forwarded from the caller.
    unsafe {
        launch(
            "mgpuLaunchClusterKernel",
            function,
            [grid_x, grid_y, grid_z],
            [block_x, block_y, block_z],
            smem,
            stream,
            params,
            None,
        )
    }
}

/// Would build a TMA descriptor (`CUtensorMap`) for a memref: not supported by chevron's
/// backends yet; reports the error and returns NULL.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn mgpuTensorMapEncodeTiledMemref(
    rank: i64,
    ranked_desc: *mut c_void,
    data_type: i64,
    interleave: i64,
    swizzle: i64,
    l2_promotion: i64,
    oob_fill: i64,
    box_dims: *mut i64,
) -> *mut c_void {
    let _ = (
        ranked_desc,
        data_type,
        interleave,
        swizzle,
        l2_promotion,
        oob_fill,
        box_dims,
    );
    guard(
        "mgpuTensorMapEncodeTiledMemref",
        std::ptr::null_mut(),
        || {
            Err(CapiError::invalid(format!(
                "TMA descriptors (nvgpu.tma.create.descriptor, rank {rank}) are not supported by \
             chevron: no backend encodes CUtensorMap yet"
            )))
        },
    )
}
