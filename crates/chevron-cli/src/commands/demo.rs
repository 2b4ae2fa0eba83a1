//! `chevron demo`: chevron's main job end to end. Loads PTX that NVRTC produced (embedded from
//! the corpus), launches two kernels by name — one by its demangled C++ signature — on the best
//! device present, checks the results against the host and shows what happened.

use std::io::Write;
use std::time::Instant;

use chevron::{Buffer, Device, LaunchConfig, Module};

use super::{pick_device, runtime};
use crate::output::{CommandResult, Failure};

const REDUCE_PTX: &str = include_str!("../../../../corpus/nvrtc/compute_80/reduce.ptx");
const MATMUL_PTX: &str = include_str!("../../../../corpus/nvrtc/compute_80/matmul.ptx");

/// Runs the demo.
pub fn run(device: Option<&str>, out: &mut dyn Write) -> CommandResult {
    let runtime = runtime()?;
    let device = pick_device(&runtime, device)?;
    writeln!(out, "device: {device}")?;
    for status in runtime.backends() {
        if let Some(why) = &status.unavailable {
            writeln!(out, "  ({} unavailable: {why})", status.backend.as_str())?;
        }
    }
    out.flush()?;
    let scan_ok = scan(device, out)?;
    let matmul_ok = matmul(device, out)?;
    if scan_ok && matmul_ok {
        writeln!(out, "all results match the host")?;
        Ok(())
    } else {
        Err("results differ from the host (see above)".into())
    }
}

/// What one launch did, and how many results matched.
struct Outcome<'a> {
    kernel: &'a str,
    config: LaunchConfig,
    millis: f64,
    mismatches: usize,
    total: usize,
}

/// One launch's summary lines.
fn report(out: &mut dyn Write, outcome: &Outcome) -> Result<bool, Failure> {
    let Outcome {
        kernel,
        config,
        millis,
        mismatches,
        total,
    } = *outcome;
    let verdict = if mismatches == 0 {
        format!("{total}/{total} results match the host")
    } else {
        format!("MISMATCH: {mismatches} of {total} results differ from the host")
    };
    writeln!(
        out,
        "kernel {kernel}\n  grid {:?} block {:?} shared {} B\n  {millis:.3} ms (launch to completion), {verdict}",
        config.grid, config.block, config.shared_bytes
    )?;
    out.flush()?;
    Ok(mismatches == 0)
}

fn scan(device: &Device, out: &mut dyn Write) -> Result<bool, Failure> {
    const BLOCK: usize = 128;
    let n = 8 * BLOCK;
    let input: Vec<i32> = (0..n as i32).map(|i| (i * 7919) % 1000 - 500).collect();
    let module = Module::from_ptx(device, REDUCE_PTX)?;
    let kernel = module.kernel("block_scan<int, 128>(int const*, int*, int)")?;
    let input_buf = Buffer::from_slice(device, &input)?;
    let output = Buffer::<i32>::zeroed(device, n)?;
    let stream = device.create_stream()?;
    let config = LaunchConfig::new((n / BLOCK) as u32, BLOCK as u32);
    let start = Instant::now();
    kernel
        .launch(&stream, config, (&input_buf, &output, n as i32))?
        .wait()?;
    let millis = start.elapsed().as_secs_f64() * 1e3;
    let got = output.to_vec()?;
    let mut expected = Vec::with_capacity(n);
    for block in input.chunks(BLOCK) {
        let mut sum = 0i32;
        expected.extend(block.iter().map(|v| {
            sum += v;
            sum
        }));
    }
    let mismatches = got.iter().zip(&expected).filter(|(a, b)| a != b).count();
    report(
        out,
        &Outcome {
            kernel: kernel.display_name(),
            config,
            millis,
            mismatches,
            total: n,
        },
    )
}

fn matmul(device: &Device, out: &mut dyn Write) -> Result<bool, Failure> {
    const DIM: usize = 64;
    // Small integers: every product and sum is exact in f32, so the check is exact.
    let a: Vec<f32> = (0..DIM * DIM).map(|i| ((i * 3) % 7) as f32 - 3.0).collect();
    let b: Vec<f32> = (0..DIM * DIM)
        .map(|i| ((i * 5) % 11) as f32 - 5.0)
        .collect();
    let module = Module::from_ptx(device, MATMUL_PTX)?;
    let kernel = module.kernel("matmul_tiled")?;
    let a_buf = Buffer::from_slice(device, &a)?;
    let b_buf = Buffer::from_slice(device, &b)?;
    let c_buf = Buffer::<f32>::zeroed(device, DIM * DIM)?;
    let stream = device.create_stream()?;
    let tiles = (DIM / 16) as u32;
    let config = LaunchConfig::new((tiles, tiles), (16, 16));
    let dim = DIM as i32;
    let start = Instant::now();
    kernel
        .launch(&stream, config, (&a_buf, &b_buf, &c_buf, dim, dim, dim))?
        .wait()?;
    let millis = start.elapsed().as_secs_f64() * 1e3;
    let got = c_buf.to_vec()?;
    let mut mismatches = 0;
    for row in 0..DIM {
        for col in 0..DIM {
            let want: f32 = (0..DIM).map(|k| a[row * DIM + k] * b[k * DIM + col]).sum();
            if got[row * DIM + col] != want {
                mismatches += 1;
            }
        }
    }
    report(
        out,
        &Outcome {
            kernel: kernel.display_name(),
            config,
            millis,
            mismatches,
            total: DIM * DIM,
        },
    )
}
