//! Interpreter tests on clang's CUDA output (`corpus/clang`), at -O0 (everything through local
//! memory and `.param` copies) and -O2, checked against host computations.
// Index loops mirror the CUDA sources' thread indexing.
#![allow(clippy::needless_range_loop)]

use chevron_ptx::interp::{DeviceMemory, LaunchConfig, Program};
use std::sync::Arc;

const FILES: [&str; 3] = [
    "kernels.sm_80.O0.ptx",
    "kernels.sm_80.O2.ptx",
    "kernels.sm_90.O3.ptx",
];

fn load(file: &str) -> (Arc<DeviceMemory>, Program) {
    let path = format!("{}/../../corpus/clang/{file}", env!("CARGO_MANIFEST_DIR"));
    let module = chevron_ptx::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
    let memory = Arc::new(DeviceMemory::new(3));
    let program = Program::load(&module, &memory).unwrap();
    (memory, program)
}

fn put(memory: &DeviceMemory, bytes: Vec<u8>) -> u64 {
    let addr = memory.alloc(bytes.len() as u64, 256).unwrap();
    memory.write(addr, &bytes).unwrap();
    addr
}

fn get(memory: &DeviceMemory, addr: u64, n: usize) -> Vec<[u8; 4]> {
    let mut bytes = vec![0u8; 4 * n];
    memory.read(addr, &mut bytes).unwrap();
    bytes.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect()
}

fn run(program: &Program, kernel: &str, grid: u32, block: u32, args: &[Vec<u8>]) {
    let handle = program.kernel(kernel).unwrap();
    let mut params = vec![0u8; handle.param_size as usize];
    for (arg, (offset, size)) in args.iter().zip(&handle.params) {
        params[*offset as usize..(*offset + *size) as usize].copy_from_slice(arg);
    }
    let config = LaunchConfig {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        dynamic_shared: 0,
        threads: 2,
    };
    program
        .launch(&handle, &config, &params)
        .unwrap_or_else(|f| panic!("{f}"));
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn i32s(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn clang_saxpy_reduction_and_warp_sum() {
    for file in FILES {
        let (memory, program) = load(file);
        let n = 300;
        let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
        let (dx, dy) = (put(&memory, f32s(&x)), put(&memory, f32s(&vec![1.0; n])));
        run(
            &program,
            "saxpy",
            3,
            128,
            &[
                3.0f32.to_le_bytes().to_vec(),
                dx.to_le_bytes().to_vec(),
                dy.to_le_bytes().to_vec(),
                (n as i32).to_le_bytes().to_vec(),
            ],
        );
        let y: Vec<f32> = get(&memory, dy, n)
            .into_iter()
            .map(f32::from_le_bytes)
            .collect();
        for i in 0..n {
            assert_eq!(y[i], 3.0 * x[i] + 1.0, "{file} saxpy {i}");
        }

        let dsum = put(&memory, f32s(&[0.0]));
        run(
            &program,
            "block_reduce",
            3,
            128,
            &[
                dx.to_le_bytes().to_vec(),
                dsum.to_le_bytes().to_vec(),
                (n as i32).to_le_bytes().to_vec(),
            ],
        );
        let sum = f32::from_le_bytes(get(&memory, dsum, 1)[0]);
        assert_eq!(sum, x.iter().sum::<f32>(), "{file} block_reduce");

        let v: Vec<i32> = (0..128).map(|i| i * 3 - 100).collect();
        let (dv, dws) = (put(&memory, i32s(&v)), put(&memory, i32s(&[0])));
        run(
            &program,
            "warp_sum",
            1,
            128,
            &[dv.to_le_bytes().to_vec(), dws.to_le_bytes().to_vec()],
        );
        assert_eq!(
            i32::from_le_bytes(get(&memory, dws, 1)[0]),
            v.iter().sum::<i32>(),
            "{file} warp_sum"
        );
    }
}

#[test]
fn clang_divergent_device_function_loop() {
    let steps = |mut n: i32| {
        let mut s = 0;
        while n > 1 {
            n = if n & 1 != 0 { 3 * n + 1 } else { n / 2 };
            s += 1;
        }
        s
    };
    for file in FILES {
        let (memory, program) = load(file);
        let n = 200;
        let dout = put(&memory, i32s(&vec![0; n]));
        run(
            &program,
            "collatz",
            2,
            128,
            &[
                dout.to_le_bytes().to_vec(),
                (n as i32).to_le_bytes().to_vec(),
            ],
        );
        let out: Vec<i32> = get(&memory, dout, n)
            .into_iter()
            .map(i32::from_le_bytes)
            .collect();
        for i in 0..n {
            assert_eq!(out[i], steps(i as i32 + 1), "{file} collatz {i}");
        }
        let (counter, _) = program.global_address("clang_counter").unwrap();
        let max = (1..=n as i32).map(steps).max().unwrap();
        assert_eq!(
            i32::from_le_bytes(get(&memory, counter, 1)[0]),
            max,
            "{file}"
        );
    }
}
