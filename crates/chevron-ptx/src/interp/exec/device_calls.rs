//! The device runtime's functions, one lane at a time: parameter buffers, launches, streams
//! and the thread's last error (what they share per grid is in `interp/device_runtime.rs`).
//!
//! ABI, as nvcc calls them: `cudaGetParameterBufferV2(func, dim3 grid, dim3 block, unsigned
//! shared)` returns a 64-byte-aligned global buffer (NULL on failure, the error then kept for
//! `cudaGetLastError`) that the caller fills with the child's parameters at the offsets of a
//! host launch; `cudaLaunchDeviceV2(buffer, stream)` launches it and returns a `cudaError_t`.
//! The older pair passes the alignment and size (`cudaGetParameterBuffer`) and the whole
//! configuration at launch (`cudaLaunchDevice`). A launch takes the buffer back, failed or not.
//! `dim3` arguments are 12-byte `.param` aggregates.

use super::calls::arg_value;
use super::memory_ops::{resolve_generic, store};
use super::Launch;
use crate::interp::block::Block;
use crate::interp::device_runtime::{check_config, code, ChildLaunch, Prepared};
use crate::interp::fault::ExecFault;
use crate::interp::grid::LaunchConfig;
use crate::interp::inst::{Call, CallSlot, DeviceCall};
use crate::interp::memory::{FUNCTION_WINDOW, WINDOW_SIZE};
use crate::interp::warp::Warp;

/// Alignment of a parameter buffer (CUDA's device runtime: 64 bytes).
const BUFFER_ALIGN: u64 = 64;

/// `cudaStreamNonBlocking`, the one flag device code may create streams with.
const STREAM_NON_BLOCKING: u64 = 1;

/// Runs device-runtime function `kind` for `lane`; its return value.
pub(super) fn run(
    kind: DeviceCall,
    call: &Call,
    w: &mut Warp,
    b: &mut Block,
    l: &Launch<'_>,
    lane: usize,
) -> Result<u64, ExecFault> {
    let arg = |w: &Warp, i: usize| call.args.get(i).map_or(0, |a| arg_value(w, *a, lane));
    let thread = w.index * 32 + lane as u32;
    let (value, error) = match kind {
        DeviceCall::GetParameterBufferV2 => {
            let config = launch_config(w, call, 1, l, lane);
            match kernel_at(l, arg(w, 0)) {
                Some(kernel) => {
                    let size = l.program.functions[kernel as usize].param_size;
                    buffer(l, size, BUFFER_ALIGN, Some((kernel, config)))
                }
                None => (0, code::INVALID_DEVICE_FUNCTION),
            }
        }
        DeviceCall::GetParameterBuffer => {
            let (align, size) = (arg(w, 0), arg(w, 1));
            if align.is_power_of_two() {
                buffer(l, size, align.max(BUFFER_ALIGN), None)
            } else {
                (0, code::INVALID_VALUE)
            }
        }
        DeviceCall::LaunchDeviceV2 => {
            let error = launch_v2(l, arg(w, 0), arg(w, 1));
            (u64::from(error), error)
        }
        DeviceCall::LaunchDevice => {
            let config = launch_config(w, call, 2, l, lane);
            let error = launch_v1(l, arg(w, 0), arg(w, 1), config, arg(w, 5));
            (u64::from(error), error)
        }
        DeviceCall::GetLastError => {
            let error = b.last_errors.remove(&thread).unwrap_or(code::SUCCESS);
            return Ok(u64::from(error));
        }
        DeviceCall::PeekAtLastError => {
            let error = b.last_errors.get(&thread).copied().unwrap_or(code::SUCCESS);
            return Ok(u64::from(error));
        }
        DeviceCall::StreamCreateWithFlags => {
            let (at, flags) = (arg(w, 0), arg(w, 1));
            let error = if at == 0 || flags != STREAM_NON_BLOCKING {
                code::INVALID_VALUE
            } else {
                let handle = l.children.create_stream();
                store(w, b, l, resolve_generic(at), 8, lane, at, handle)?;
                code::SUCCESS
            };
            (u64::from(error), error)
        }
        DeviceCall::StreamDestroy => {
            let error = if l.children.destroy_stream(arg(w, 0)) {
                code::SUCCESS
            } else {
                code::INVALID_RESOURCE_HANDLE
            };
            (u64::from(error), error)
        }
        DeviceCall::GetDevice => {
            let at = arg(w, 0);
            let error = if at == 0 {
                code::INVALID_VALUE
            } else {
                let device = u64::from(l.memory.device_index());
                store(w, b, l, resolve_generic(at), 4, lane, at, device)?;
                code::SUCCESS
            };
            (u64::from(error), error)
        }
    };
    if error != code::SUCCESS {
        b.last_errors.insert(thread, error);
    }
    Ok(value)
}

/// The child configuration in arguments `first..first + 3` (grid, block, shared bytes); its
/// blocks run on as many host threads as the parent's.
fn launch_config(w: &Warp, call: &Call, first: usize, l: &Launch<'_>, lane: usize) -> LaunchConfig {
    LaunchConfig {
        grid: dim3(w, call.args.get(first), lane),
        block: dim3(w, call.args.get(first + 1), lane),
        dynamic_shared: call
            .args
            .get(first + 2)
            .map_or(0, |a| arg_value(w, *a, lane) as u32),
        threads: l.config.threads,
    }
}

/// A `dim3` argument: 12 bytes of the caller's frame (a register argument holds x and y).
fn dim3(w: &Warp, slot: Option<&CallSlot>, lane: usize) -> [u32; 3] {
    match slot {
        Some(CallSlot::Frame(offset)) => {
            let at = (w.frame_base[lane] + offset) as usize;
            let local = &w.local[lane];
            let mut bytes = [0u8; 12];
            let end = (at + 12).min(local.len());
            if at < end {
                bytes[..end - at].copy_from_slice(&local[at..end]);
            }
            let word = |i: usize| u32::from_le_bytes([0, 1, 2, 3].map(|k| bytes[4 * i + k]));
            [word(0), word(1), word(2)]
        }
        Some(slot) => {
            let value = arg_value(w, *slot, lane);
            [value as u32, (value >> 32) as u32, 1]
        }
        None => [0; 3],
    }
}

/// The kernel whose address is `func`, if it is one.
fn kernel_at(l: &Launch<'_>, func: u64) -> Option<u32> {
    if !(FUNCTION_WINDOW..FUNCTION_WINDOW + WINDOW_SIZE).contains(&func) || !func.is_multiple_of(16)
    {
        return None;
    }
    let index = u32::try_from((func - FUNCTION_WINDOW) / 16).ok()?;
    let function = l.program.functions.get(index as usize)?;
    (function.is_kernel && function.defined).then_some(index)
}

/// Hands out a parameter buffer of `size` bytes: (address or 0, error).
fn buffer(
    l: &Launch<'_>,
    size: u64,
    align: u64,
    launch: Option<(u32, LaunchConfig)>,
) -> (u64, u32) {
    match l.memory.alloc(size.max(1), align) {
        Ok(addr) => {
            l.children.prepare(addr, Prepared { size, launch });
            (addr, code::SUCCESS)
        }
        Err(_) => (0, code::MEMORY_ALLOCATION),
    }
}

/// `cudaLaunchDeviceV2(buffer, stream)`: the error code.
fn launch_v2(l: &Launch<'_>, buffer: u64, stream: u64) -> u32 {
    match l.children.take_prepared(buffer) {
        Some(Prepared {
            size,
            launch: Some((kernel, config)),
        }) => launch(l, kernel, config, buffer, size, stream),
        Some(_) => release(l, buffer, code::INVALID_VALUE),
        None => code::INVALID_VALUE,
    }
}

/// `cudaLaunchDevice(func, buffer, grid, block, shared, stream)`: the error code.
fn launch_v1(l: &Launch<'_>, func: u64, buffer: u64, config: LaunchConfig, stream: u64) -> u32 {
    let Some(prepared) = l.children.take_prepared(buffer) else {
        return code::INVALID_VALUE;
    };
    match kernel_at(l, func) {
        Some(kernel) => launch(l, kernel, config, buffer, prepared.size, stream),
        None => release(l, buffer, code::INVALID_DEVICE_FUNCTION),
    }
}

/// Frees a parameter buffer a launch took back and returns `error`.
fn release(l: &Launch<'_>, buffer: u64, error: u32) -> u32 {
    // The buffer was handed out by this grid; the program may have freed it itself.
    let _ = l.memory.free(buffer);
    error
}

/// Queues `kernel` as a child grid with the parameters in `buffer` (`size` bytes).
fn launch(
    l: &Launch<'_>,
    kernel: u32,
    config: LaunchConfig,
    buffer: u64,
    size: u64,
    stream: u64,
) -> u32 {
    let Some(tail) = l.children.stream_kind(stream) else {
        return release(l, buffer, code::INVALID_RESOURCE_HANDLE);
    };
    if let Err(error) = check_config(&config) {
        return release(l, buffer, error);
    }
    let param_size = l.program.functions[kernel as usize].param_size;
    if size < param_size {
        return release(l, buffer, code::INVALID_VALUE);
    }
    let mut params = vec![0u8; param_size as usize];
    if l.memory.read(buffer, &mut params).is_err() {
        return release(l, buffer, code::INVALID_VALUE);
    }
    if let Err(error) = l.children.admit() {
        return release(l, buffer, error);
    }
    l.children.push(ChildLaunch {
        kernel,
        config,
        params,
        tail,
    });
    release(l, buffer, code::SUCCESS)
}
