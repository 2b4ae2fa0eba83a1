//! `mgpuLaunchKernel` and `mgpuLaunchClusterKernel`.
//!
//! `params` follows `cuLaunchKernel`'s convention: one pointer per parameter, each to the
//! value in the caller's stack frame. The backend copies the values during the call; when
//! host-shared or registered memory exists, values of 8 bytes or more are first copied here so
//! that host addresses among their 8-byte words (pointer arguments, and pointers inside
//! by-value aggregates such as a memref descriptor passed whole) can be replaced by their
//! device mirrors ([`super::host_memory`]).

use std::ffi::c_void;

use chevron::{Kernel, LaunchConfig, Stream};

use std::sync::atomic::Ordering;

use super::host_memory;
use super::{guard, lookup, stream_or_default, DEFAULT_DEVICE, FUNCTIONS, STREAMS};
use crate::api::launch_cache::{self, Validated};
use crate::error::{CapiError, CapiResult};

/// Axis `axis` of the `what` dimensions (grid, block, cluster) as a positive `u32`; the message
/// is only formatted on failure (this runs on every launch).
fn dimension(what: &str, axis: usize, value: i64) -> CapiResult<u32> {
    u32::try_from(value).ok().filter(|&v| v > 0).ok_or_else(|| {
        let name = ["x", "y", "z"][axis];
        CapiError::invalid(format!(
            "{what} {name} = {value} is not a positive 32-bit size"
        ))
    })
}

/// The launch configuration of the six dimensions and the dynamic shared memory.
fn config(grid: [i64; 3], block: [i64; 3], smem: i32) -> CapiResult<LaunchConfig> {
    let mut config = LaunchConfig {
        grid: [1; 3],
        block: [1; 3],
        shared_bytes: u32::try_from(smem)
            .map_err(|_| CapiError::invalid(format!("dynamic shared memory {smem} is negative")))?,
    };
    for axis in 0..3 {
        config.grid[axis] = dimension("grid", axis, grid[axis])?;
        config.block[axis] = dimension("block", axis, block[axis])?;
    }
    Ok(config)
}

/// The 8 bytes of `bytes` at `at`.
fn word(bytes: &[u8], at: usize) -> [u8; 8] {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    word
}

/// Launches `kernel` on `stream` with the argument pointers `params` (`count` of them); a
/// launch of a shape that passed every check before (`validated`) skips them.
///
/// # Safety
/// `params` holds `count` pointers to readable values of the parameters' sizes.
unsafe fn enqueue(
    kernel: &Kernel,
    stream: &Stream,
    config: LaunchConfig,
    cluster: [u32; 3],
    params: &[*mut c_void],
    validated: &mut Validated,
) -> CapiResult<()> {
    let plain = cluster == [1, 1, 1] && !host_memory::any();
    if plain && validated.holds(&config, params.len(), |_| 0) && params.iter().all(|p| !p.is_null())
    {
        // SAFETY: this kernel, stream, configuration and count passed every check before; the
        // values are readable (the caller's contract) and non-NULL.
        unsafe { kernel.launch_raw_unchecked(stream, config, params) }?;
        return Ok(());
    }
    // SAFETY: forwarded from the caller of `enqueue`.
    let raw = |pointers: &[*mut c_void]| unsafe {
        if cluster == [1, 1, 1] {
            kernel.launch_raw(stream, config, pointers, &[])
        } else {
            kernel.launch_raw_cluster(stream, config, cluster, pointers, &[])
        }
    };
    let layout = match kernel.params() {
        Some(layout) if host_memory::any() => layout,
        _ => {
            // Count checked against the layout by launch_raw.
            raw(params)?;
            if plain {
                validated.remember(config, params.len(), |_| 0);
            }
            return Ok(());
        }
    };
    if layout.len() != params.len() {
        // The launch reports the mismatch, naming the parameters.
        raw(params)?;
        return Ok(());
    }
    // Copies of the arguments of 8 bytes or more, one after the other: each of their 8-byte
    // words may be a host address to translate (a pointer argument, or a pointer inside a
    // by-value aggregate such as a memref descriptor passed as one `.param .b8[40]`).
    let mut copies: Vec<u8> = Vec::new();
    let mut spans: Vec<(usize, usize, usize)> = Vec::new(); // (parameter, start, size)
    for (i, (&ptr, param)) in params.iter().zip(layout.iter()).enumerate() {
        let size = param.size as usize;
        if size >= 8 && !ptr.is_null() {
            // SAFETY: `ptr` points to the `size`-byte value of parameter i (caller's contract).
            let bytes = unsafe { std::slice::from_raw_parts(ptr as *const u8, size) };
            spans.push((i, copies.len(), size));
            copies.extend_from_slice(bytes);
        }
    }
    let word_starts = || {
        spans
            .iter()
            .flat_map(|&(_, start, size)| (start..start + size - 7).step_by(8))
    };
    let mut values: Vec<u64> = word_starts()
        .map(|at| u64::from_le_bytes(word(&copies, at)))
        .collect();
    let bases = host_memory::translate(stream.device(), &mut values)?;
    for (at, value) in word_starts().zip(&values) {
        copies[at..at + 8].copy_from_slice(&value.to_le_bytes());
    }
    let mut pointers: Vec<*mut c_void> = params.to_vec();
    let base = copies.as_mut_ptr();
    for &(i, start, _) in &spans {
        pointers[i] = base.wrapping_add(start) as *mut c_void;
    }
    // Each pointer points to the caller's value or to its (translated) copy in `copies`, alive
    // and untouched for the call.
    let launched = raw(&pointers);
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
    cluster: [i64; 3],
    grid: [i64; 3],
    block: [i64; 3],
    smem: i32,
    stream: *mut c_void,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
    count: Option<usize>,
) {
    guard(call, (), || {
        if !extra.is_null() {
            return Err(CapiError::invalid(
                "`extra` is not supported (must be NULL)",
            ));
        }
        // The null stream means the default device's: its index is part of the key.
        let default = if stream.is_null() {
            DEFAULT_DEVICE.load(Ordering::Relaxed) as u64
        } else {
            0
        };
        let key = [function as usize as u64, stream as usize as u64, default];
        let epoch = || FUNCTIONS.removals() + STREAMS.removals();
        let look_up = || {
            let function = lookup(&FUNCTIONS, function)?;
            let stream = stream_or_default(stream)?;
            Ok((function.kernel_for(stream.device())?, stream))
        };
        launch_cache::with_cached(key, epoch, look_up, |kernel, stream, validated| {
            let shape = Shape {
                cluster,
                grid,
                block,
                smem,
            };
            // SAFETY: forwarded from the caller.
            unsafe { launch_on(kernel, stream, shape, params, count, validated) }.map_err(
                |mut e| {
                    let name = kernel.name();
                    if !e.message.contains(&format!("`{name}")) {
                        e.message = format!("kernel `{name}`: {}", e.message);
                    }
                    e
                },
            )
        })
    });
}

/// The dimensions and dynamic shared memory of one launch, as the ABI passes them.
struct Shape {
    cluster: [i64; 3],
    grid: [i64; 3],
    block: [i64; 3],
    smem: i32,
}

/// Launches `kernel` on `stream` with the ABI's dimensions and argument pointers.
///
/// # Safety
/// As [`mgpuLaunchKernel`].
unsafe fn launch_on(
    kernel: &Kernel,
    stream: &Stream,
    Shape {
        cluster,
        grid,
        block,
        smem,
    }: Shape,
    params: *mut *mut c_void,
    count: Option<usize>,
    validated: &mut Validated,
) -> CapiResult<()> {
    let config = config(grid, block, smem)?;
    let mut blocks = [1u32; 3];
    for axis in 0..3 {
        blocks[axis] = dimension("cluster", axis, cluster[axis])?;
    }
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
    unsafe { enqueue(kernel, stream, config, blocks, pointers, validated) }
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
    // SAFETY: forwarded from the caller.
    unsafe {
        launch(
            "mgpuLaunchKernel",
            function,
            [1, 1, 1],
            [grid_x, grid_y, grid_z],
            [block_x, block_y, block_z],
            smem,
            stream,
            params,
            extra,
            Some(params_count),
        )
    }
}

/// Launches with thread-block clusters of `clusterX×clusterY×clusterZ` blocks. LLVM 19–22 pass
/// 14 arguments (no parameter count, which is never read here). On CUDA GPUs of compute
/// capability 9.0 or later this is `cuLaunchKernelEx` with the cluster dimension and the spread
/// scheduling policy, as upstream; the CPU device runs clusters of up to 8 blocks together
/// (interpreted); other devices run clusters of one block as ordinary launches and report
/// larger ones.
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
    // SAFETY: forwarded from the caller.
    unsafe {
        launch(
            "mgpuLaunchClusterKernel",
            function,
            [cluster_x, cluster_y, cluster_z],
            [grid_x, grid_y, grid_z],
            [block_x, block_y, block_z],
            smem,
            stream,
            params,
            extra,
            None,
        )
    }
}
