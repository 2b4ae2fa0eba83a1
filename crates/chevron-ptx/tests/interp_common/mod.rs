//! Helpers shared by the interpreter tests: loading PTX, moving data, building parameters.
#![allow(dead_code)]

use std::sync::Arc;

use chevron_ptx::interp::{DeviceMemory, KernelHandle, LaunchConfig, Program};

/// Parses and loads a module into a fresh device memory.
pub fn load(ptx: &str) -> (Arc<DeviceMemory>, Program) {
    let module = chevron_ptx::parse(ptx).expect("test PTX parses");
    let memory = Arc::new(DeviceMemory::new(0));
    let program = Program::load(&module, &memory).expect("test PTX loads");
    (memory, program)
}

/// The error with which loading the module `ptx` fails (panics if it loads).
pub fn load_error(ptx: &str) -> String {
    let module = chevron_ptx::parse(ptx).expect("test PTX parses");
    let memory = Arc::new(DeviceMemory::new(0));
    Program::load(&module, &memory)
        .expect_err("the module must be refused")
        .to_string()
}

/// A launch configuration.
pub fn config(grid: [u32; 3], block: [u32; 3], threads: usize) -> LaunchConfig {
    LaunchConfig {
        grid,
        block,
        dynamic_shared: 0,
        threads,
    }
}

pub fn upload_f32(memory: &DeviceMemory, data: &[f32]) -> u64 {
    let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
    let addr = memory.alloc(bytes.len() as u64, 256).unwrap();
    memory.write(addr, &bytes).unwrap();
    addr
}

pub fn upload_u32(memory: &DeviceMemory, data: &[u32]) -> u64 {
    let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
    let addr = memory.alloc(bytes.len().max(1) as u64, 256).unwrap();
    memory.write(addr, &bytes).unwrap();
    addr
}

pub fn download_f32(memory: &DeviceMemory, addr: u64, n: usize) -> Vec<f32> {
    let mut bytes = vec![0u8; n * 4];
    memory.read(addr, &mut bytes).unwrap();
    bytes
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

pub fn download_u32(memory: &DeviceMemory, addr: u64, n: usize) -> Vec<u32> {
    let mut bytes = vec![0u8; n * 4];
    memory.read(addr, &mut bytes).unwrap();
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

pub fn download_u64(memory: &DeviceMemory, addr: u64, n: usize) -> Vec<u64> {
    let mut bytes = vec![0u8; n * 8];
    memory.read(addr, &mut bytes).unwrap();
    bytes
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Builds a parameter buffer from values in declaration order, at the kernel's offsets.
#[derive(Default)]
pub struct Params {
    values: Vec<Vec<u8>>,
}

impl Params {
    pub fn new() -> Self {
        Params::default()
    }
    pub fn u32(mut self, v: u32) -> Self {
        self.values.push(v.to_le_bytes().to_vec());
        self
    }
    pub fn f32(mut self, v: f32) -> Self {
        self.values.push(v.to_le_bytes().to_vec());
        self
    }
    pub fn u64(mut self, v: u64) -> Self {
        self.values.push(v.to_le_bytes().to_vec());
        self
    }
    pub fn build(self, kernel: &KernelHandle) -> Vec<u8> {
        let mut buffer = vec![0u8; kernel.param_size as usize];
        for (value, (offset, size)) in self.values.iter().zip(&kernel.params) {
            let n = value.len().min(*size as usize);
            buffer[*offset as usize..*offset as usize + n].copy_from_slice(&value[..n]);
        }
        buffer
    }
}
