//! What the CPU backend tests share: devices with a fixed configuration, launching through the
//! contract, and a guard that turns a hang into a failure.
#![allow(dead_code)]

use std::ffi::c_void;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use chevron::backend::cpu::{discover_with, CpuConfig};
use chevron::backend::{Device, Function, LaunchConfig, Stream};
use chevron::code_object::{CodeObject, IN_MEMORY};
use chevron::Result;

/// `count` CPU devices, each launch running its blocks on `threads` threads.
pub fn devices(count: u32, threads: usize) -> Vec<Arc<dyn Device>> {
    discover_with(&CpuConfig {
        devices: count,
        threads,
        deterministic: false,
        memory_bytes: 1 << 30,
    })
    .expect("CPU devices")
}

/// One CPU device with two launch threads.
pub fn device() -> Arc<dyn Device> {
    devices(1, 2).remove(0)
}

/// Loads `ptx` on `device` and resolves `kernel`.
pub fn kernel(device: &Arc<dyn Device>, ptx: &str, kernel: &str) -> Arc<dyn Function> {
    let module = device
        .load_module(&CodeObject::read(ptx, IN_MEMORY))
        .expect("PTX loads");
    module.function(kernel).expect("kernel resolves")
}

/// A kernel argument: its value's bytes, kept alive while the launch copies them.
pub enum Arg {
    /// A 64-bit value (pointers, `u64`).
    U64(u64),
    /// A 32-bit value.
    U32(u32),
    /// A 32-bit float.
    F32(f32),
}

/// Launches `function` on `stream` with `args` through the contract.
pub fn launch(
    stream: &Arc<dyn Stream>,
    function: &Arc<dyn Function>,
    grid: u32,
    block: u32,
    args: &[Arg],
) -> Result<()> {
    let mut values: Vec<[u8; 8]> = args
        .iter()
        .map(|arg| {
            let mut bytes = [0u8; 8];
            match arg {
                Arg::U64(v) => bytes.copy_from_slice(&v.to_le_bytes()),
                Arg::U32(v) => bytes[..4].copy_from_slice(&v.to_le_bytes()),
                Arg::F32(v) => bytes[..4].copy_from_slice(&v.to_le_bytes()),
            }
            bytes
        })
        .collect();
    let pointers: Vec<*mut c_void> = values
        .iter_mut()
        .map(|value| value.as_mut_ptr().cast::<c_void>())
        .collect();
    let config = LaunchConfig {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        shared_bytes: 0,
    };
    // SAFETY: one pointer per parameter, each to an 8-byte value at least as large as the
    // parameter it stands for (the tests' kernels take u64, u32 and f32 parameters), alive
    // until the call returns.
    unsafe { stream.launch(function.as_ref(), &config, &pointers) }
}

/// Bytes of a `u32` slice.
pub fn bytes_of_u32(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Reads `count` `u32`s at `ptr` through `stream`.
pub fn read_u32(stream: &Arc<dyn Stream>, ptr: u64, count: usize) -> Result<Vec<u32>> {
    let mut bytes = vec![0u8; count * 4];
    stream.copy_to_host(&mut bytes, ptr)?;
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// Runs `f` on another thread; fails the test if it has not finished after `seconds` (a hang
/// guard, not a timing assertion).
pub fn finishes<T: Send + 'static>(seconds: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(f());
    });
    receiver
        .recv_timeout(Duration::from_secs(seconds))
        .expect("the work hung (or panicked)")
}

/// Stores one word 4 KiB past the pointer it is given.
pub const OUT_OF_BOUNDS: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.visible .entry oob_store(.param .u64 oob_store_param_0)
{
	.reg .b32 	%r<2>;
	.reg .b64 	%rd<3>;

	ld.param.u64 	%rd1, [oob_store_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, 1;
	st.global.u32 	[%rd2+4096], %r1;
	ret;
}
"#;
