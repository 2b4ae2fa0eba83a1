//! Interpreter throughput: lane-instructions per second of the CPU device on NVRTC-compiled
//! kernels from the corpus (a tiled matmul, saxpy and a shared-memory reduction), with one and
//! two worker threads, each result checked against a host computation.
//!
//! Run with `cargo run --release -p chevron-ptx --example interp_throughput`.

use std::sync::Arc;
use std::time::Instant;

use chevron_ptx::interp::{DeviceMemory, LaunchConfig, Program};

const MATMUL: &str = include_str!("../../../corpus/nvrtc/compute_80/matmul.ptx");
const ELEMENTWISE: &str = include_str!("../../../corpus/nvrtc/compute_80/elementwise.ptx");
const REDUCE: &str = include_str!("../../../corpus/nvrtc/compute_80/reduce.ptx");

fn upload(memory: &DeviceMemory, data: &[f32]) -> u64 {
    let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
    let addr = memory.alloc(bytes.len() as u64, 256).expect("alloc");
    memory.write(addr, &bytes).expect("write");
    addr
}

fn download(memory: &DeviceMemory, addr: u64, n: usize) -> Vec<f32> {
    let mut bytes = vec![0u8; n * 4];
    memory.read(addr, &mut bytes).expect("read");
    bytes
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// CPU time (user + system) this process has used, in seconds, from `/proc/self/stat` (Linux);
/// None elsewhere. Dividing by it gives a per-core rate that stays meaningful on a busy machine.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit(')').next()?.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Packs parameters at the kernel's offsets.
fn params(layout: &[(u64, u64)], size: u64, values: &[&[u8]]) -> Vec<u8> {
    let mut buffer = vec![0u8; size as usize];
    for ((offset, len), value) in layout.iter().zip(values) {
        buffer[*offset as usize..(*offset + *len) as usize]
            .copy_from_slice(&value[..*len as usize]);
    }
    buffer
}

/// Loads `ptx`, sets up a case with `setup` (which returns parameters, config and a checker),
/// launches it with 1 and 2 threads, and prints the rates.
fn bench(
    name: &str,
    ptx: &str,
    kernel: &str,
    setup: impl Fn(
        &DeviceMemory,
    ) -> (
        Vec<&'static [u8]>,
        Vec<Vec<u8>>,
        LaunchConfig,
        Box<dyn Fn(&DeviceMemory)>,
    ),
) {
    let module = chevron_ptx::parse(ptx).expect("corpus PTX parses");
    let memory = Arc::new(DeviceMemory::new(0));
    let program = Program::load(&module, &memory).expect("loads");
    let handle = program.kernel(kernel).expect("kernel exists");
    let (_, values, config, check) = setup(&memory);
    let refs: Vec<&[u8]> = values.iter().map(|v| v.as_slice()).collect();
    let buffer = params(&handle.params, handle.param_size, &refs);
    let mut rates = Vec::new();
    for threads in [1usize, 2] {
        let config = LaunchConfig {
            threads,
            ..config.clone()
        };
        // Warm up once, then time a few launches.
        program.launch(&handle, &config, &buffer).expect("launch");
        let start = Instant::now();
        let cpu_start = cpu_seconds();
        let mut lanes = 0;
        let mut runs = 0;
        while start.elapsed().as_secs_f64() < 2.0 || runs < 2 {
            lanes += program
                .launch(&handle, &config, &buffer)
                .expect("launch")
                .lane_instructions;
            runs += 1;
        }
        let rate = lanes as f64 / start.elapsed().as_secs_f64();
        let per_core = match (cpu_start, cpu_seconds()) {
            (Some(a), Some(b)) if b > a => {
                format!("{:>7.1} M per CPU-second", lanes as f64 / (b - a) / 1e6)
            }
            _ => String::new(),
        };
        rates.push(rate);
        println!(
            "{name:>8}  threads={threads}  {:>7.1} M lane-instructions/s wall  {per_core}  ({runs} launches)",
            rate / 1e6
        );
    }
    println!(
        "{name:>8}  wall-clock speed-up on 2 threads: {:.2}x",
        rates[1] / rates[0]
    );
    check(&memory);
}

fn main() {
    bench("matmul", MATMUL, "matmul_tiled", |memory| {
        let n = 128usize;
        let a: Vec<f32> = (0..n * n).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
        let b: Vec<f32> = (0..n * n).map(|i| ((i * 5) % 11) as f32 - 5.0).collect();
        let (da, db) = (upload(memory, &a), upload(memory, &b));
        let dc = upload(memory, &vec![0.0; n * n]);
        let dim = (n as i32).to_le_bytes().to_vec();
        let values = vec![
            da.to_le_bytes().to_vec(),
            db.to_le_bytes().to_vec(),
            dc.to_le_bytes().to_vec(),
            dim.clone(),
            dim.clone(),
            dim,
        ];
        let config = LaunchConfig {
            grid: [(n / 16) as u32, (n / 16) as u32, 1],
            block: [16, 16, 1],
            dynamic_shared: 0,
            threads: 1,
        };
        let check = Box::new(move |memory: &DeviceMemory| {
            let c = download(memory, dc, n * n);
            for i in (0..n).step_by(17) {
                for j in (0..n).step_by(13) {
                    let expected: f32 = (0..n).map(|k| a[i * n + k] * b[k * n + j]).sum();
                    assert_eq!(c[i * n + j], expected, "C[{i}][{j}]");
                }
            }
        });
        (
            Vec::new(),
            values,
            config,
            check as Box<dyn Fn(&DeviceMemory)>,
        )
    });
    bench("saxpy", ELEMENTWISE, "saxpy", |memory| {
        let n = 1 << 18;
        let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let dx = upload(memory, &x);
        let dy = upload(memory, &vec![1.0; n]);
        let values = vec![
            2.0f32.to_le_bytes().to_vec(),
            dx.to_le_bytes().to_vec(),
            dy.to_le_bytes().to_vec(),
            (n as i32).to_le_bytes().to_vec(),
        ];
        let config = LaunchConfig {
            grid: [(n / 256) as u32, 1, 1],
            block: [256, 1, 1],
            dynamic_shared: 0,
            threads: 1,
        };
        let check = Box::new(move |memory: &DeviceMemory| {
            // y grows by 2x every launch; only check that it stays a multiple of x's pattern.
            let y = download(memory, dy, 4);
            assert!(y[1] > y[0]);
        });
        (
            Vec::new(),
            values,
            config,
            check as Box<dyn Fn(&DeviceMemory)>,
        )
    });
    bench("reduce", REDUCE, "block_reduce_sum", |memory| {
        let n = 1 << 18;
        let x: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
        let dx = upload(memory, &x);
        let blocks = n / 256;
        let dout = upload(memory, &vec![0.0; blocks]);
        let values = vec![
            dx.to_le_bytes().to_vec(),
            dout.to_le_bytes().to_vec(),
            (n as i32).to_le_bytes().to_vec(),
        ];
        let config = LaunchConfig {
            grid: [blocks as u32, 1, 1],
            block: [256, 1, 1],
            dynamic_shared: 0,
            threads: 1,
        };
        let check = Box::new(move |memory: &DeviceMemory| {
            let out = download(memory, dout, blocks);
            for (b, v) in out.iter().enumerate() {
                let expected: f32 = x[b * 256..(b + 1) * 256].iter().sum();
                assert_eq!(*v, expected, "block {b}");
            }
        });
        (
            Vec::new(),
            values,
            config,
            check as Box<dyn Fn(&DeviceMemory)>,
        )
    });
}
