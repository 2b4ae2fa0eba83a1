//! Interpreter tests on real compiler output: NVRTC-compiled kernels from `corpus/`, checked
//! against host computations of what their CUDA sources say.
// Index loops mirror the CUDA sources' thread indexing.
#![allow(clippy::needless_range_loop)]

mod interp_common;

use chevron_ptx::interp::{DeviceMemory, KernelHandle, LaunchConfig, LaunchReport, Program};
use std::sync::Arc;

/// A corpus module loaded on a fresh device.
struct Corpus {
    memory: Arc<DeviceMemory>,
    program: Program,
}

impl Corpus {
    fn load(file: &str) -> Corpus {
        let path = format!(
            "{}/../../corpus/nvrtc/compute_80/{file}",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).expect("corpus file exists");
        let module = chevron_ptx::parse(&text).expect("corpus PTX parses");
        let memory = Arc::new(DeviceMemory::new(0));
        let program = Program::load(&module, &memory).expect("corpus PTX loads");
        Corpus { memory, program }
    }

    fn put<T: Copy>(&self, data: &[T], to_bytes: impl Fn(T) -> Vec<u8>) -> u64 {
        let bytes: Vec<u8> = data.iter().flat_map(|v| to_bytes(*v)).collect();
        let addr = self.memory.alloc(bytes.len().max(1) as u64, 256).unwrap();
        self.memory.write(addr, &bytes).unwrap();
        addr
    }

    fn i32s(&self, data: &[i32]) -> u64 {
        self.put(data, |v| v.to_le_bytes().to_vec())
    }

    fn f32s(&self, data: &[f32]) -> u64 {
        self.put(data, |v| v.to_le_bytes().to_vec())
    }

    fn f64s(&self, data: &[f64]) -> u64 {
        self.put(data, |v| v.to_le_bytes().to_vec())
    }

    fn u64s(&self, data: &[u64]) -> u64 {
        self.put(data, |v| v.to_le_bytes().to_vec())
    }

    fn get_bytes(&self, addr: u64, n: usize) -> Vec<u8> {
        let mut out = vec![0u8; n];
        self.memory.read(addr, &mut out).unwrap();
        out
    }

    fn get_i32(&self, addr: u64, n: usize) -> Vec<i32> {
        self.get_bytes(addr, 4 * n)
            .chunks(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    fn get_f32(&self, addr: u64, n: usize) -> Vec<f32> {
        self.get_bytes(addr, 4 * n)
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    fn get_f64(&self, addr: u64, n: usize) -> Vec<f64> {
        self.get_bytes(addr, 8 * n)
            .chunks(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    fn get_u64(&self, addr: u64, n: usize) -> Vec<u64> {
        self.get_bytes(addr, 8 * n)
            .chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    /// Launches `kernel` with parameters given as byte strings in declaration order.
    fn run(&self, kernel: &str, grid: u32, block: u32, args: &[Vec<u8>]) -> LaunchReport {
        self.run_shared(kernel, grid, block, 0, args)
    }

    /// Launches `kernel` with `shared` bytes of dynamic shared memory.
    fn run_shared(
        &self,
        kernel: &str,
        grid: u32,
        block: u32,
        shared: u32,
        args: &[Vec<u8>],
    ) -> LaunchReport {
        let handle: KernelHandle = self
            .program
            .kernel(kernel)
            .unwrap_or_else(|| panic!("kernel {kernel}"));
        let mut params = vec![0u8; handle.param_size as usize];
        for (arg, (offset, size)) in args.iter().zip(&handle.params) {
            assert_eq!(arg.len() as u64, *size, "parameter size of {kernel}");
            params[*offset as usize..(*offset + *size) as usize].copy_from_slice(arg);
        }
        let config = LaunchConfig {
            grid: [grid, 1, 1],
            block: [block, 1, 1],
            dynamic_shared: shared,
            threads: 2,
        };
        self.program
            .launch(&handle, &config, &params)
            .unwrap_or_else(|f| panic!("{f}"))
    }
}

fn p64(v: u64) -> Vec<u8> {
    v.to_le_bytes().to_vec()
}

fn p32(v: i32) -> Vec<u8> {
    v.to_le_bytes().to_vec()
}

#[test]
fn reductions_scans_and_barrier_predicates() {
    let c = Corpus::load("reduce.ptx");
    let n = 1000;
    let x: Vec<f32> = (0..n).map(|i| ((i * 37) % 101) as f32 * 0.25).collect();
    let (dx, dout) = (c.f32s(&x), c.f32s(&[0.0; 4]));
    c.run(
        "block_reduce_sum",
        4,
        256,
        &[p64(dx), p64(dout), p32(n as i32)],
    );
    let sums = c.get_f32(dout, 4);
    for b in 0..4 {
        let expected: f32 = x[b * 256..((b + 1) * 256).min(n)].iter().sum();
        assert!(
            (sums[b] - expected).abs() <= expected.abs() * 1e-6,
            "block {b}: {} vs {expected}",
            sums[b]
        );
    }

    let v: Vec<i32> = (0..300).map(|i| (i * 7919) % 1000 - 500).collect();
    let (dv, dmax) = (c.i32s(&v), c.i32s(&[0; 3]));
    c.run(
        "block_reduce_max_i32",
        3,
        128,
        &[p64(dv), p64(dmax), p32(300)],
    );
    let maxes = c.get_i32(dmax, 3);
    for b in 0..3 {
        let expected = *v[b * 128..((b + 1) * 128).min(300)].iter().max().unwrap();
        assert_eq!(maxes[b], expected);
    }

    let s: Vec<i32> = (0..256).map(|i| i % 5 - 2).collect();
    let (ds, dscan) = (c.i32s(&s), c.i32s(&[0; 256]));
    c.run(
        "_Z10block_scanIiLi128EEvPKT_PS0_i",
        2,
        128,
        &[p64(ds), p64(dscan), p32(256)],
    );
    let scan = c.get_i32(dscan, 256);
    for b in 0..2 {
        let mut acc = 0;
        for t in 0..128 {
            acc += s[b * 128 + t];
            assert_eq!(scan[b * 128 + t], acc, "scan {b}/{t}");
        }
    }

    let p: Vec<i32> = (0..200).map(|i| if i % 3 == 0 { 1 } else { -1 }).collect();
    let (dp, dpred) = (c.i32s(&p), c.i32s(&[9; 6]));
    c.run(
        "barrier_predicates",
        2,
        128,
        &[p64(dp), p64(dpred), p32(200)],
    );
    let preds = c.get_i32(dpred, 6);
    for b in 0..2 {
        let slice = &p[b * 128..((b + 1) * 128).min(200)];
        let count = slice.iter().filter(|&&v| v > 0).count() as i32;
        assert_eq!(
            &preds[3 * b..3 * b + 3],
            &[count, (count > 0) as i32, (count == 128) as i32]
        );
    }
}

#[test]
fn warp_shuffles_votes_and_matches() {
    let c = Corpus::load("warp.ptx");
    let input: Vec<i32> = (0..64).map(|i| i * 3 - 50).collect();
    let din = c.i32s(&input);
    let dout = c.i32s(&[0; 64 * 4]);
    c.run("shfl_all", 1, 64, &[p64(din), p64(dout)]);
    let out = c.get_i32(dout, 64 * 4);
    for t in 0..64usize {
        let (lane, base) = (t % 32, t - t % 32);
        let at = |l: usize| input[base + l];
        assert_eq!(
            out[4 * t],
            if lane + 3 < 32 {
                at(lane + 3)
            } else {
                at(lane)
            },
            "down {t}"
        );
        assert_eq!(
            out[4 * t + 1],
            if lane >= 5 { at(lane - 5) } else { at(lane) },
            "up {t}"
        );
        assert_eq!(out[4 * t + 2], at(lane ^ 1), "xor {t}");
        assert_eq!(out[4 * t + 3], at((lane + 7) & 31), "idx {t}");
    }

    let f: Vec<f32> = (0..32).map(|i| i as f32 * 1.5).collect();
    let (df, dfo) = (c.f32s(&f), c.f32s(&[0.0; 64]));
    c.run("shfl_width8", 1, 32, &[p64(df), p64(dfo)]);
    let fo = c.get_f32(dfo, 64);
    for t in 0..32 {
        let seg = t - t % 8;
        assert_eq!(
            fo[2 * t],
            if t % 8 + 1 < 8 { f[t + 1] } else { f[t] },
            "width8 down {t}"
        );
        assert_eq!(fo[2 * t + 1], f[seg], "width8 idx {t}");
    }

    let dpo = c.i32s(&[0; 32]);
    c.run("shfl_partial_mask", 1, 32, &[p64(din), p64(dpo)]);
    let po = c.get_i32(dpo, 32);
    let low: i32 = input[..16].iter().sum();
    for t in 0..32 {
        assert_eq!(po[t], if t < 16 { low } else { input[t] }, "partial {t}");
    }

    let d: Vec<f64> = (0..64).map(|i| i as f64 * 0.5).collect();
    let (dd, ddo) = (c.f64s(&d), c.f64s(&[0.0; 2]));
    c.run("warp_reduce_f64", 1, 64, &[p64(dd), p64(ddo)]);
    let sums = c.get_f64(ddo, 2);
    assert_eq!(
        sums,
        vec![d[..32].iter().sum::<f64>(), d[32..].iter().sum::<f64>()]
    );

    let v: Vec<i32> = (0..64)
        .map(|i| if i % 4 == 0 { 0 } else { i - 20 })
        .collect();
    let (dv, dvo) = (c.i32s(&v), c.i32s(&[0; 8]));
    c.run("votes", 1, 64, &[p64(dv), p64(dvo)]);
    let vo = c.get_i32(dvo, 8);
    for w in 0..2 {
        let lanes = &v[32 * w..32 * w + 32];
        let ballot = lanes
            .iter()
            .enumerate()
            .fold(0u32, |m, (i, &x)| m | (((x > 0) as u32) << i));
        assert_eq!(vo[4 * w] as u32, ballot);
        assert_eq!(vo[4 * w + 1], lanes.iter().any(|&x| x < 0) as i32);
        assert_eq!(vo[4 * w + 2], lanes.iter().all(|&x| x != 0) as i32);
        assert_eq!(vo[4 * w + 3] as u32, u32::MAX);
    }

    let dvd = c.i32s(&[0; 32]);
    c.run("vote_divergent", 1, 32, &[p64(din), p64(dvd)]);
    let vd = c.get_i32(dvd, 32);
    let odd_ballot = (0..32)
        .filter(|l| l % 2 == 1 && input[*l] > 10)
        .fold(0u32, |m, l| m | 1 << l);
    for t in 0..32 {
        assert_eq!(
            vd[t] as u32,
            if t % 2 == 1 { odd_ballot } else { 0 },
            "vote_divergent {t}"
        );
    }

    let m: Vec<i32> = (0..32).map(|i| i % 3).collect();
    let dm = c.i32s(&m);
    let (dany, dall, dpred) = (c.i32s(&[0; 32]), c.i32s(&[0; 32]), c.i32s(&[0; 32]));
    c.run(
        "match_lanes",
        1,
        32,
        &[p64(dm), p64(dany), p64(dall), p64(dpred)],
    );
    let any = c.get_i32(dany, 32);
    for t in 0..32 {
        let expected = (0..32)
            .filter(|l| m[*l] == m[t])
            .fold(0u32, |acc, l| acc | 1 << l);
        assert_eq!(any[t] as u32, expected, "match.any {t}");
    }
    assert!(c.get_i32(dall, 32).iter().all(|&x| x == 0));
    assert!(c.get_i32(dpred, 32).iter().all(|&x| x == 0));

    let dl = c.i32s(&[0; 64]);
    c.run("lane_ids", 1, 64, &[p64(dl)]);
    let ids = c.get_i32(dl, 64);
    for t in 0..64 {
        assert_eq!(ids[t], ((t % 32) | ((t / 32) << 8)) as i32);
    }
}

#[test]
fn atomics_of_every_kind() {
    let c = Corpus::load("atomics.ptx");
    let ctr = c.i32s(&[0, 0, 100, -100, -1, 0, 0, -1]);
    let uctr = c.i32s(&[0, 0, 1000, 0]);
    c.run("atomics_int", 1, 64, &[p64(ctr), p64(uctr), p32(3)]);
    let r = c.get_i32(ctr, 8);
    assert_eq!(&r[..7], &[192, -192, -16, 63, 0, -1, 0]);
    assert!((0..64).contains(&r[7]));
    let u = c.get_i32(uctr, 4);
    assert_eq!(u[0], 64 % 17);
    assert_eq!(u[2], 3);
    assert_eq!(u[3], 63);

    let n = 300;
    let (f, d) = (c.f32s(&[0.0; 3]), c.f64s(&[0.0; 2]));
    c.run("atomics_float", 2, 256, &[p64(f), p64(d), p32(n)]);
    let fr = c.get_f32(f, 3);
    let dr = c.get_f64(d, 2);
    assert_eq!(fr[0], n as f32);
    assert_eq!(fr[1], (0..n).map(|i| i as f32 * 0.5).sum::<f32>());
    assert_eq!(dr, vec![n as f64, (0..n).map(f64::from).sum::<f64>()]);

    let u = c.u64s(&[0, 0, u64::MAX, 0, u64::MAX, 0, 0, 0, 0]);
    let s = c.u64s(&[0, 0]);
    c.run("atomics_u64", 1, 128, &[p64(u), p64(s)]);
    let ur = c.get_u64(u, 9);
    assert_eq!(&ur[..4], &[128, 128 << 33, 100, 127]);
    assert_eq!(ur[4], 0);
    assert_eq!(ur[5], u64::MAX);
    assert_eq!(ur[6], 0);
    assert_eq!(ur[8], 42);
    assert_eq!(c.get_u64(s, 2), vec![(-127i64) as u64, 127]);

    let vals: Vec<f32> = (0..40)
        .map(|i| if i % 2 == 0 { 2.0 } else { 0.5 } * if i == 7 { 3.0 } else { 1.0 })
        .collect();
    let (prod, mx, din) = (c.f32s(&[1.0]), c.f64s(&[-1.0]), c.f32s(&vals));
    c.run(
        "atomics_cas_loop",
        2,
        32,
        &[p64(prod), p64(mx), p64(din), p32(40)],
    );
    assert_eq!(c.get_f32(prod, 1)[0], vals.iter().product::<f32>());
    assert_eq!(c.get_f64(mx, 1)[0], 2.0);

    let bytes: Vec<u8> = (0..5000u32).map(|i| (i * 31 % 256) as u8).collect();
    let din = c.put(&bytes, |b| vec![b]);
    let bins = c.i32s(&[0; 16]);
    c.run("histogram16", 4, 128, &[p64(din), p64(bins), p32(5000)]);
    let mut expected = [0i32; 16];
    for b in &bytes {
        expected[(b & 15) as usize] += 1;
    }
    assert_eq!(c.get_i32(bins, 16), expected.to_vec());
}

#[test]
fn device_functions_recursion_struct_returns_and_indirect_calls() {
    let c = Corpus::load("device_funcs.ptx");
    let n = 100;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.1).collect();
    let (dx, dy) = (c.f32s(&x), c.f32s(&vec![0.0; n]));
    let (dfact, dfib) = (c.u64s(&vec![0; n]), c.i32s(&vec![0; n]));
    c.run(
        "call_funcs",
        1,
        128,
        &[p64(dx), p64(dy), p64(dfact), p64(dfib), p32(n as i32)],
    );
    let y = c.get_f32(dy, n);
    let fact = c.get_u64(dfact, n);
    let fib = c.get_i32(dfib, n);
    let fib_ref = |k: usize| -> i32 {
        let (mut a, mut b) = (0, 1);
        for _ in 0..k {
            (a, b) = (b, a + b);
        }
        a
    };
    for i in 0..n {
        let xi = x[i];
        // NVRTC contracts (a * x + b) * x + c into two fused multiply-adds.
        assert_eq!(
            y[i],
            1.5f32.mul_add(xi, -2.0).mul_add(xi, 0.25),
            "poly3 {i}"
        );
        assert_eq!(
            fact[i],
            (1..=(i % 21) as u64).product::<u64>(),
            "factorial {i}"
        );
        assert_eq!(fib[i], fib_ref(i % 16), "fibonacci {i}");
    }

    let v = [5, -3, 17, 2, -8, 11];
    let (dv, dmm) = (c.i32s(&v), c.i32s(&[0; 2]));
    c.run("call_minmax", 1, 1, &[p64(dv), p32(6), p64(dmm)]);
    assert_eq!(c.get_i32(dmm, 2), vec![-8, 17]);

    let a: Vec<f32> = (0..64).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..64).map(|i| 40.0 - i as f32).collect();
    let (da, db, dout) = (c.f32s(&a), c.f32s(&b), c.f32s(&[0.0; 64]));
    for which in 0..3 {
        c.run(
            "call_indirect",
            1,
            64,
            &[p64(da), p64(db), p64(dout), p32(which), p32(64)],
        );
        let out = c.get_f32(dout, 64);
        for i in 0..64 {
            let expected = match which {
                0 => a[i] + b[i],
                1 => a[i] * b[i],
                _ => a[i].max(b[i]),
            };
            assert_eq!(out[i], expected, "op {which} element {i}");
        }
    }

    let dlocal = c.i32s(&[0; 64]);
    c.run("local_memory", 2, 32, &[p64(dlocal)]);
    let local = c.get_i32(dlocal, 64);
    for t in 0..64i32 {
        let buf: Vec<i32> = (0..64).map(|i| t.wrapping_mul(i) + (i ^ t)).collect();
        let mut s = 0i32;
        let mut i = 63;
        while i >= 0 {
            s = s.wrapping_add(buf[i as usize]);
            i -= (t & 3) + 1;
        }
        assert_eq!(local[t as usize], s, "local_memory {t}");
    }
}

#[test]
fn printf_formats_like_the_cuda_runtime() {
    let c = Corpus::load("printf.ptx");
    let report = c.run(
        "hello",
        2,
        2,
        &[
            p32(7),
            1.5f32.to_le_bytes().to_vec(),
            2.25f64.to_le_bytes().to_vec(),
        ],
    );
    let expected = "hello from block 0 thread 0 tag 7\n\
                    hello from block 0 thread 1 tag 7\n\
                    f=1.500000 d=2.250 s=str c=x ll=-1\n\
                    hello from block 1 thread 0 tag 7\n\
                    hello from block 1 thread 1 tag 7\n\
                    f=1.500000 d=2.250 s=str c=x ll=-1\n";
    assert_eq!(report.printf_output, expected);
}

#[test]
fn dynamic_shared_memory_globals_constants_and_generic_pointers() {
    let c = Corpus::load("memory_spaces.ptx");
    let n = 200;
    let input: Vec<i32> = (0..n).map(|i| i * 2 + 1).collect();
    // The kernel writes out[base + t] whenever its source is in range: room for whole blocks.
    let (din, dout) = (c.i32s(&input), c.i32s(&[0; 256]));
    c.run_shared(
        "reverse_dyn_smem",
        2,
        128,
        128 * 4,
        &[p64(din), p64(dout), p32(n)],
    );
    let out = c.get_i32(dout, n as usize);
    for i in 0..n as usize {
        let (base, t) = (i - i % 128, i % 128);
        let src = 127 - t;
        if base + src < n as usize {
            assert_eq!(out[i], input[base + src], "reverse {i}");
        }
    }

    let f: Vec<f32> = (0..64).map(|i| i as f32 - 20.0).collect();
    let (df, dfo, dc) = (c.f32s(&f), c.f32s(&[0.0; 64]), c.i32s(&[0; 64]));
    c.run_shared(
        "dyn_smem_two_arrays",
        1,
        64,
        64 * 8,
        &[p64(df), p64(dfo), p64(dc)],
    );
    let (fo, counts) = (c.get_f32(dfo, 64), c.get_i32(dc, 64));
    for t in 0..64 {
        assert_eq!(fo[t], f[63 - t]);
        assert_eq!(counts[t], (f[(t + 1) % 64] > 0.0) as i32);
    }

    let (lut, _) = c.program.global_address("const_lut").expect("const_lut");
    c.memory
        .write(
            lut,
            &[3i32, 5, 7, 9]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect::<Vec<u8>>(),
        )
        .unwrap();
    let x: Vec<f32> = (0..100).map(|i| i as f32).collect();
    let (dx, dy) = (c.f32s(&x), c.f32s(&[0.0; 100]));
    c.run("use_globals", 1, 128, &[p64(dx), p64(dy), p32(100)]);
    let y = c.get_f32(dy, 100);
    let coeffs = [1.0f32, 0.5, 0.25, 0.125, 2.0, 4.0, 8.0, 16.0];
    for i in 0..100 {
        let expected = x[i] * coeffs[i & 7] + (i & 15) as f32 + [3.0f32, 5.0, 7.0, 9.0][i & 3];
        assert_eq!(y[i], expected, "use_globals {i}");
    }
    let dcount = c.i32s(&[0]);
    c.run("read_counter", 1, 1, &[p64(dcount)]);
    assert_eq!(c.get_i32(dcount, 1)[0], 100);
    let (counter, size) = c.program.global_address("dev_counter").unwrap();
    assert_eq!(size, 4);
    assert_eq!(c.get_i32(counter, 1)[0], 100);

    let g: Vec<f32> = (0..32).map(|i| i as f32 + 0.5).collect();
    let (dg, dgo) = (c.f32s(&g), c.f32s(&[0.0; 32]));
    for use_shared in [0, 1] {
        c.run(
            "generic_pointers",
            1,
            32,
            &[p64(dg), p64(dgo), p32(use_shared)],
        );
        let out = c.get_f32(dgo, 32);
        for t in 0..32 {
            assert_eq!(
                out[t],
                if use_shared == 1 { 2.0 * g[t] } else { g[t] },
                "generic {use_shared} {t}"
            );
        }
    }
}

#[test]
fn cooperative_group_tiles() {
    let c = Corpus::load("coop_groups.ptx");
    let input: Vec<i32> = (0..300).map(|i| i % 17 - 8).collect();
    let (din, dout) = (c.i32s(&input), c.i32s(&[0]));
    c.run("cg_tile_reduce", 3, 128, &[p64(din), p64(dout), p32(300)]);
    assert_eq!(c.get_i32(dout, 1)[0], input.iter().sum::<i32>());

    let f: Vec<f32> = (0..64).map(|i| ((i * 13) % 29) as f32).collect();
    let (df, dmax) = (c.f32s(&f), c.f32s(&[0.0; 4]));
    c.run("cg_tile16_max", 1, 64, &[p64(df), p64(dmax)]);
    let maxes = c.get_f32(dmax, 4);
    for t in 0..4 {
        assert_eq!(
            maxes[t],
            f[16 * t..16 * t + 16]
                .iter()
                .cloned()
                .fold(f32::MIN, f32::max)
        );
    }
}

#[test]
fn structs_and_scalars_passed_by_value() {
    let c = Corpus::load("structs.ptx");
    // Params { float a; int n; double b; }: 16 bytes.
    let mut params = Vec::new();
    params.extend(2.5f32.to_le_bytes());
    params.extend(10i32.to_le_bytes());
    params.extend(0.125f64.to_le_bytes());
    let x: Vec<f32> = (0..10).map(|i| i as f32).collect();
    let (dx, dout) = (c.f32s(&x), c.f64s(&[0.0; 10]));
    c.run("params_by_value", 1, 32, &[params, p64(dx), p64(dout)]);
    let out = c.get_f64(dout, 10);
    for i in 0..10 {
        assert_eq!(out[i], f64::from(2.5 * x[i]) + 0.125);
    }

    let dmix = c.f64s(&[0.0; 7]);
    c.run(
        "mixed_scalars",
        1,
        1,
        &[
            vec![(-3i8) as u8],
            (-300i16).to_le_bytes().to_vec(),
            p32(70000),
            (-5_000_000_000i64).to_le_bytes().to_vec(),
            1.25f32.to_le_bytes().to_vec(),
            (-2.5f64).to_le_bytes().to_vec(),
            vec![200u8],
            p64(dmix),
        ],
    );
    assert_eq!(
        c.get_f64(dmix, 7),
        vec![-3.0, -300.0, 70000.0, -5e9, 1.25, -2.5, 200.0]
    );

    let table: Vec<u8> = (0..8i32).flat_map(|i| (i * i + 1).to_le_bytes()).collect();
    let idx: Vec<i32> = (0..20).map(|i| i * 3).collect();
    let (didx, dout) = (c.i32s(&idx), c.i32s(&[0; 20]));
    c.run(
        "table_lookup",
        1,
        32,
        &[table, p64(didx), p64(dout), p32(20)],
    );
    let out = c.get_i32(dout, 20);
    for i in 0..20 {
        let e = idx[i] & 7;
        assert_eq!(out[i], e * e + 1);
    }
}

#[test]
fn redux_async_copies_assertions_device_malloc_and_polling() {
    let c = Corpus::load("advanced.ptx");
    let v: Vec<i32> = (0..64).map(|i| (i * 37) % 50 - 20).collect();
    let (dv, dout) = (c.i32s(&v), c.i32s(&[0; 256]));
    c.run("warp_redux", 1, 64, &[p64(dv), p64(dout)]);
    let out = c.get_i32(dout, 256);
    for t in 0..64 {
        let warp = &v[t - t % 32..t - t % 32 + 32];
        let xor = warp.iter().fold(0u32, |acc, &x| acc ^ x as u32) as i32;
        let expected = [
            warp.iter().sum::<i32>(),
            *warp.iter().min().unwrap(),
            *warp.iter().max().unwrap(),
            xor,
        ];
        assert_eq!(&out[4 * t..4 * t + 4], &expected, "redux thread {t}");
    }

    let data: Vec<f32> = (0..256 * 4).map(|i| i as f32).collect();
    let (din, dcopy) = (c.f32s(&data), c.f32s(&[0.0; 256 * 4]));
    c.run("async_copy", 2, 128, &[p64(din), p64(dcopy)]);
    let copy = c.get_f32(dcopy, 256 * 4);
    for blk in 0..2 {
        for t in 0..128 {
            let src = (blk * 128 + 127 - t) * 4;
            let dst = (blk * 128 + t) * 4;
            assert_eq!(
                &copy[dst..dst + 4],
                &[data[src + 3], data[src + 2], data[src + 1], data[src]]
            );
        }
    }

    let (a, b) = (c.i32s(&[10, 20, 30, 40]), c.i32s(&[2, 5, 0, 4]));
    let dq = c.i32s(&[0; 4]);
    let handle = c.program.kernel("checked_divide").unwrap();
    let mut params = vec![0u8; handle.param_size as usize];
    for (arg, (offset, size)) in [p64(a), p64(b), p64(dq), p32(4)].iter().zip(&handle.params) {
        params[*offset as usize..(*offset + *size) as usize].copy_from_slice(arg);
    }
    let config = LaunchConfig {
        grid: [1, 1, 1],
        block: [4, 1, 1],
        dynamic_shared: 0,
        threads: 1,
    };
    let fault = c.program.launch(&handle, &config, &params).unwrap_err();
    assert_eq!(
        fault.kind,
        chevron_ptx::interp::FaultKind::AssertFailed,
        "{fault}"
    );
    assert_eq!(fault.thread, [2, 0, 0]);
    assert!(fault.detail.contains("b[i] != 0"), "{fault}");

    let slots = c.u64s(&[0; 8]);
    c.run("device_malloc", 1, 8, &[p64(slots), p32(5)]);
    let pointers = c.get_u64(slots, 8);
    for (t, &p) in pointers.iter().enumerate() {
        assert_ne!(p, 0);
        assert_eq!(
            c.get_i32(p, 5),
            (0..5).map(|i| t as i32 * i).collect::<Vec<_>>()
        );
    }
    c.run("device_free", 1, 8, &[p64(slots)]);
    assert!(c.memory.contains(pointers[0]).is_none());

    let (flag, fdata) = (c.i32s(&[0]), c.i32s(&[0; 4]));
    c.run("flag_handoff", 4, 32, &[p64(flag), p64(fdata)]);
    assert_eq!(c.get_i32(fdata, 4), vec![42, 43, 44, 45]);
}

#[test]
fn a_texture_fetch_through_a_handle_that_is_no_texture_object_faults_at_its_line() {
    let c = Corpus::load("advanced.ptx");
    let handle = c.program.kernel("texture_fetch").unwrap();
    let out = c.f32s(&[0.0; 32]);
    let not_a_texture = c.u64s(&[0; 16]);
    let params: Vec<u8> = [p64(not_a_texture), p64(out), p32(32)].concat();
    assert_eq!(params.len(), handle.param_size as usize);
    let config = LaunchConfig {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        dynamic_shared: 0,
        threads: 1,
    };
    let fault = c.program.launch(&handle, &config, &params).unwrap_err();
    assert_eq!(fault.kind, chevron_ptx::interp::FaultKind::OutOfBounds);
    assert!(fault.instruction.starts_with("tex."), "{fault}");
    assert!(
        fault.line > 0 && fault.to_string().contains("is not a live texture object"),
        "{fault}"
    );
    assert_eq!(c.get_f32(out, 32), vec![0.0; 32], "no lane stored a value");
}

#[test]
fn wmma_tensor_core_tiles() {
    use chevron_ptx::interp::numeric::half::{f16_to_f32, f32_to_f16};
    use chevron_ptx::ir::Rounding;
    let c = Corpus::load("tensor_cores.ptx");
    let a: Vec<u16> = (0..256)
        .map(|i| f32_to_f16(((i * 7) % 9) as f32 * 0.5 - 2.0, Rounding::Rn, false))
        .collect();
    let b: Vec<u16> = (0..256)
        .map(|i| f32_to_f16(((i * 3) % 7) as f32 * 0.25 - 0.5, Rounding::Rn, false))
        .collect();
    let (da, db) = (
        c.put(&a, |v| v.to_le_bytes().to_vec()),
        c.put(&b, |v| v.to_le_bytes().to_vec()),
    );
    let dc = c.f32s(&[0.0; 256]);
    c.run("wmma_f16_f32", 1, 32, &[p64(da), p64(db), p64(dc)]);
    let out = c.get_f32(dc, 256);
    for i in 0..16 {
        for j in 0..16 {
            // A row-major, B column-major (element (k, j) at j * 16 + k), C row-major.
            let expected: f32 = (0..16)
                .map(|k| f16_to_f32(a[i * 16 + k]) * f16_to_f32(b[j * 16 + k]))
                .sum();
            assert_eq!(out[i * 16 + j], expected, "wmma f16 C[{i}][{j}]");
        }
    }

    let fa: Vec<f32> = (0..256).map(|i| ((i * 5) % 11) as f32 - 5.0).collect();
    let fb: Vec<f32> = (0..256).map(|i| ((i * 3) % 13) as f32 * 0.5).collect();
    let (dfa, dfb, dfc) = (c.f32s(&fa), c.f32s(&fb), c.f32s(&[0.0; 256]));
    c.run("wmma_tf32", 1, 32, &[p64(dfa), p64(dfb), p64(dfc)]);
    let out = c.get_f32(dfc, 256);
    for i in 0..16 {
        for j in 0..16 {
            let expected: f32 = (0..16).map(|k| fa[i * 16 + k] * fb[k * 16 + j]).sum();
            assert_eq!(out[i * 16 + j], expected, "wmma tf32 C[{i}][{j}]");
        }
    }
}

#[test]
fn grid_wide_synchronisation_runs_all_blocks_together() {
    let c = Corpus::load("advanced.ptx");
    let input: Vec<i32> = (0..1000).map(|i| i % 13).collect();
    for threads in [1, 2] {
        let (din, partial, total) = (c.i32s(&input), c.i32s(&[0; 6]), c.i32s(&[0]));
        let handle = c.program.kernel("grid_sync_sum").unwrap();
        let mut params = vec![0u8; handle.param_size as usize];
        for (arg, (offset, size)) in [p64(din), p64(partial), p64(total), p32(1000)]
            .iter()
            .zip(&handle.params)
        {
            params[*offset as usize..(*offset + *size) as usize].copy_from_slice(arg);
        }
        let config = LaunchConfig {
            grid: [6, 1, 1],
            block: [64, 1, 1],
            dynamic_shared: 0,
            threads,
        };
        c.program
            .launch(&handle, &config, &params)
            .unwrap_or_else(|f| panic!("{f}"));
        assert_eq!(
            c.get_i32(total, 1)[0],
            input.iter().sum::<i32>(),
            "{threads} threads"
        );
    }
}
