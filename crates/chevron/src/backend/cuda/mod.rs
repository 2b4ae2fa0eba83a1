//! The CUDA backend: the driver API, loaded at run time through the table in `sys.rs`.
//!
//! | file | what |
//! |---|---|
//! | `sys.rs` | the curated table of driver entry points (`libcuda.so.1` via libloading) |
//! | `raw.rs` | the narrow public view of it for baselines: a few entry points, the handles behind a kernel and a stream |
//! | `error.rs` | driver return codes as chevron errors (names via `cuGetErrorName`) |
//! | `context.rs` | primary contexts and the push/pop that leaves the caller's context alone |
//! | `device.rs` | device attributes and object creation |
//! | `memory.rs` | allocation and the live-allocation table |
//! | `host_memory.rs` | the driver's pinned, managed and registered host memory |
//! | `module.rs` | module loading (with the JIT error log) and functions |
//! | `stream.rs` | launches, copies, fills, waits, and fault reports naming kernels |
//! | `event.rs` | events for tokens |
//! | `cluster.rs` | launches in thread-block clusters (`cuLaunchKernelEx`, sm_90+) |
//! | `tensor_map.rs` | TMA descriptors (`CUtensorMap`): the contract's `encode_tensor_map` |
//! | `texture.rs` | arrays, texture and surface objects (`cuArray3DCreate`, `cuTexObjectCreate`, `cuSurfObjectCreate`, `cuMemcpy3DAsync`) |
//! | `texture_types.rs` | their driver structures, translated from the contract's descriptions |

mod cluster;
mod context;
mod cooperative;
mod device;
mod error;
mod event;
mod graph;
mod graph_types;
mod host_function;
mod host_memory;
mod ld_cache;
mod memory;
mod module;
pub mod raw;
mod stream;
pub(crate) mod sys;
mod tensor_map;
mod texture;
pub mod texture_types;

use std::ffi::c_int;
use std::sync::Arc;

pub(crate) use device::CudaDevice;
pub(crate) use module::CudaFunction;
pub(crate) use stream::CudaStream;

use crate::backend::Device;
use crate::error::{Error, Result};

/// Discovers CUDA devices. A missing driver library or symbol, a failing `cuInit` or zero
/// devices is [`Error::Unavailable`] with the reason.
pub fn discover() -> Result<Vec<Arc<dyn Device>>> {
    let unavailable = |reason: String| Error::Unavailable {
        backend: "cuda",
        reason,
    };
    let driver = sys::driver().map_err(|reason| unavailable(reason.to_string()))?;
    // SAFETY: cuInit has no preconditions.
    let code = unsafe { (driver.cuInit)(0) };
    if code != sys::CUDA_SUCCESS {
        let (name, text) = error::describe(driver, code);
        return Err(unavailable(format!("cuInit failed: {name}: {text}")));
    }
    let mut count: c_int = 0;
    // SAFETY: `count` is a valid out-pointer.
    let code = unsafe { (driver.cuDeviceGetCount)(&mut count) };
    if code != sys::CUDA_SUCCESS {
        let (name, text) = error::describe(driver, code);
        return Err(unavailable(format!(
            "cuDeviceGetCount failed: {name}: {text}"
        )));
    }
    if count <= 0 {
        return Err(unavailable("the driver reports no CUDA device".into()));
    }
    let mut devices: Vec<Arc<dyn Device>> = Vec::new();
    for ordinal in 0..count as u32 {
        devices.push(Arc::new(CudaDevice::open(driver, ordinal)?));
    }
    Ok(devices)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovery_finds_devices_or_says_why_not() {
        match discover() {
            Ok(devices) => {
                assert!(!devices.is_empty());
                for (ordinal, device) in devices.iter().enumerate() {
                    let info = device.info();
                    assert_eq!(info.ordinal as usize, ordinal);
                    assert!(
                        info.warp_size > 0 && info.max_threads_per_block > 0,
                        "{info:?}"
                    );
                }
            }
            Err(Error::Unavailable { backend, reason }) => {
                assert_eq!(backend, "cuda");
                assert!(
                    reason.contains("libcuda")
                        || reason.starts_with("cu")
                        || reason.contains("CUDA"),
                    "unhelpful reason: {reason}"
                );
            }
            Err(other) => panic!("discovery failed with {other}"),
        }
    }
}
