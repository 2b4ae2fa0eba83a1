//! Interpreter tests on Triton output (`corpus/triton`, sources in
//! `scripts/corpus/triton_corpus.py`): predicated vector loads, inline-asm idioms, warp and
//! shared-memory reductions as Triton emits them. Each kernel takes two trailing scratch
//! pointers, passed as null.

use chevron_ptx::interp::{DeviceMemory, LaunchConfig, Program};
use std::sync::Arc;

fn load(file: &str) -> (Arc<DeviceMemory>, Program) {
    let path = format!("{}/../../corpus/triton/{file}", env!("CARGO_MANIFEST_DIR"));
    let module = chevron_ptx::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
    let memory = Arc::new(DeviceMemory::new(0));
    let program = Program::load(&module, &memory).unwrap();
    (memory, program)
}

fn put(memory: &DeviceMemory, data: &[f32]) -> u64 {
    let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
    let addr = memory.alloc(bytes.len() as u64, 256).unwrap();
    memory.write(addr, &bytes).unwrap();
    addr
}

fn get(memory: &DeviceMemory, addr: u64, n: usize) -> Vec<f32> {
    let mut bytes = vec![0u8; 4 * n];
    memory.read(addr, &mut bytes).unwrap();
    bytes
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Runs `kernel` with parameter values (raw bytes) in order, then two null scratch pointers,
/// with the dynamic shared memory Triton's launcher would give (its reductions use it).
fn launch(program: &Program, kernel: &str, grid: u32, args: &[Vec<u8>]) {
    let handle = program.kernel(kernel).unwrap();
    let mut params = vec![0u8; handle.param_size as usize];
    for (arg, (offset, size)) in args.iter().zip(&handle.params) {
        params[*offset as usize..(*offset + *size) as usize].copy_from_slice(arg);
    }
    let config = LaunchConfig {
        grid: [grid, 1, 1],
        block: [128, 1, 1],
        dynamic_shared: 4096,
        threads: 2,
    };
    program
        .launch(&handle, &config, &params)
        .unwrap_or_else(|f| panic!("{f}"));
}

fn b(v: impl Into<u64>) -> Vec<u8> {
    v.into().to_le_bytes().to_vec()
}

fn b32(v: i32) -> Vec<u8> {
    v.to_le_bytes().to_vec()
}

fn close(a: f32, b: f32, tolerance: f32) -> bool {
    (a - b).abs() <= tolerance * b.abs().max(1e-6)
}

#[test]
fn triton_add() {
    for file in ["add.sm_80.ptx", "add.sm_90.ptx"] {
        let (memory, program) = load(file);
        let n = 2500;
        let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
        let y: Vec<f32> = (0..n).map(|i| 1000.0 - i as f32).collect();
        let (dx, dy, dout) = (
            put(&memory, &x),
            put(&memory, &y),
            put(&memory, &vec![0.0; 3072]),
        );
        launch(
            &program,
            "add_kernel",
            3,
            &[b(dx), b(dy), b(dout), b32(n as i32)],
        );
        let out = get(&memory, dout, 3072);
        for i in 0..3072 {
            assert_eq!(
                out[i],
                if i < n { x[i] + y[i] } else { 0.0 },
                "{file} element {i}"
            );
        }
    }
}

#[test]
fn triton_softmax() {
    let (memory, program) = load("softmax.sm_80.ptx");
    let (rows, cols) = (4usize, 1000usize);
    let input: Vec<f32> = (0..rows * cols)
        .map(|i| ((i * 7919) % 200) as f32 * 0.05 - 5.0)
        .collect();
    let (din, dout) = (put(&memory, &input), put(&memory, &vec![0.0; rows * cols]));
    let stride = b32(cols as i32);
    launch(
        &program,
        "softmax_kernel",
        rows as u32,
        &[b(dout), b(din), stride.clone(), stride, b32(cols as i32)],
    );
    let out = get(&memory, dout, rows * cols);
    for r in 0..rows {
        let row = &input[r * cols..(r + 1) * cols];
        let max = row.iter().cloned().fold(f32::MIN, f32::max);
        let den: f64 = row.iter().map(|&v| f64::from(v - max).exp()).sum();
        for c in 0..cols {
            let expected = (f64::from(row[c] - max).exp() / den) as f32;
            assert!(
                close(out[r * cols + c], expected, 1e-5),
                "row {r} col {c}: {} vs {expected}",
                out[r * cols + c]
            );
        }
    }
}

#[test]
fn triton_layer_norm() {
    let (memory, program) = load("layer_norm.sm_80.ptx");
    let (rows, cols) = (3usize, 500usize);
    let x: Vec<f32> = (0..rows * cols)
        .map(|i| ((i * 31) % 97) as f32 * 0.1)
        .collect();
    let w: Vec<f32> = (0..cols).map(|i| 1.0 + (i % 5) as f32 * 0.1).collect();
    let bias: Vec<f32> = (0..cols).map(|i| (i % 3) as f32 - 1.0).collect();
    let (dx, dy) = (put(&memory, &x), put(&memory, &vec![0.0; rows * cols]));
    let (dw, db) = (put(&memory, &w), put(&memory, &bias));
    let (dmean, drstd) = (put(&memory, &[0.0; 3]), put(&memory, &[0.0; 3]));
    let eps = 1e-5f32;
    launch(
        &program,
        "layer_norm_kernel",
        rows as u32,
        &[
            b(dx),
            b(dy),
            b(dw),
            b(db),
            b(dmean),
            b(drstd),
            b32(cols as i32),
            b32(cols as i32),
            eps.to_le_bytes().to_vec(),
        ],
    );
    let (y, mean, rstd) = (
        get(&memory, dy, rows * cols),
        get(&memory, dmean, rows),
        get(&memory, drstd, rows),
    );
    for r in 0..rows {
        let row = &x[r * cols..(r + 1) * cols];
        let m = row.iter().map(|&v| f64::from(v)).sum::<f64>() / cols as f64;
        let var = row.iter().map(|&v| (f64::from(v) - m).powi(2)).sum::<f64>() / cols as f64;
        let s = 1.0 / (var + f64::from(eps)).sqrt();
        assert!(close(mean[r], m as f32, 1e-5), "mean {r}");
        assert!(close(rstd[r], s as f32, 1e-5), "rstd {r}");
        for c in 0..cols {
            let expected =
                ((f64::from(row[c]) - m) * s * f64::from(w[c]) + f64::from(bias[c])) as f32;
            assert!(
                (y[r * cols + c] - expected).abs() < 1e-4,
                "y {r} {c}: {} vs {expected}",
                y[r * cols + c]
            );
        }
    }
}

#[test]
fn triton_matmul_with_ldmatrix_and_mma() {
    use chevron_ptx::interp::numeric::half::{f16_to_f32, f32_to_f16};
    use chevron_ptx::ir::Rounding;
    let (memory, program) = load("matmul.sm_80.ptx");
    let (m, n, k) = (96usize, 80usize, 48usize);
    let a: Vec<u16> = (0..m * k)
        .map(|i| f32_to_f16(((i * 7) % 11) as f32 * 0.25 - 1.0, Rounding::Rn, false))
        .collect();
    let bm: Vec<u16> = (0..k * n)
        .map(|i| f32_to_f16(((i * 5) % 13) as f32 * 0.125 - 0.5, Rounding::Rn, false))
        .collect();
    let put16 = |data: &[u16]| {
        let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
        let addr = memory.alloc(bytes.len() as u64, 256).unwrap();
        memory.write(addr, &bytes).unwrap();
        addr
    };
    let (da, db, dc) = (put16(&a), put16(&bm), put16(&vec![0; m * n]));
    let handle = program.kernel("matmul_kernel").unwrap();
    let values = [
        b(da),
        b(db),
        b(dc),
        b32(m as i32),
        b32(n as i32),
        b32(k as i32),
        b32(k as i32),
        b32(1),
        b32(n as i32),
        b32(1),
        b32(n as i32),
        b32(1),
    ];
    let mut params = vec![0u8; handle.param_size as usize];
    for (arg, (offset, size)) in values.iter().zip(&handle.params) {
        params[*offset as usize..(*offset + *size) as usize].copy_from_slice(arg);
    }
    let config = LaunchConfig {
        grid: [2, 2, 1],
        block: [128, 1, 1],
        dynamic_shared: 65536,
        threads: 2,
    };
    program
        .launch(&handle, &config, &params)
        .unwrap_or_else(|f| panic!("{f}"));
    let mut bytes = vec![0u8; 2 * m * n];
    memory.read(dc, &mut bytes).unwrap();
    let c: Vec<f32> = bytes
        .chunks(2)
        .map(|h| f16_to_f32(u16::from_le_bytes([h[0], h[1]])))
        .collect();
    for i in 0..m {
        for j in 0..n {
            let exact: f32 = (0..k)
                .map(|kk| f16_to_f32(a[i * k + kk]) * f16_to_f32(bm[kk * n + j]))
                .sum();
            let expected = f16_to_f32(f32_to_f16(exact, Rounding::Rn, false));
            assert!(
                (c[i * n + j] - expected).abs() <= 1e-3 * expected.abs().max(1.0),
                "C[{i}][{j}] = {} vs {expected}",
                c[i * n + j]
            );
        }
    }
}
