//! Atomics that compiled code performs with the interpreter's arithmetic (float adds, minima
//! and maxima, `inc`, `dec`, 16-bit forms) against the interpreter: per-thread slots for exact
//! rounding and flushing, shared and global counters under contention with order-free results.

mod common;

use std::sync::Arc;

use chevron_ptx::interp::{DeviceMemory, LaunchHooks, Program};
use common::{compile, config, load, read_words};

const HEADER: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

/// Words per thread in `slots`: f32 add, f32 min, f32 max, the f32 add's old value, f64 add
/// (two words), f16 add (half a word, with the rest).
const SLOT_WORDS: usize = 8;

const KERNELS: &str = r#"
// Thread i updates its own slots with xs[i] (no contention: exact results).
.visible .entry slots(.param .u64 xs, .param .u64 slots)
{
    .reg .b16 %h<4>; .reg .b32 %r<12>; .reg .f32 %f<8>; .reg .f64 %fd<4>; .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [xs]; ld.param.u64 %rd2, [slots];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.f32 %f1, [%rd4];
    mul.wide.u32 %rd5, %r4, 32; add.s64 %rd6, %rd2, %rd5;
    atom.global.add.f32 %f2, [%rd6], %f1;
    atom.global.min.f32 %f3, [%rd6+4], %f1;
    atom.global.max.f32 %f4, [%rd6+8], %f1;
    st.global.f32 [%rd6+12], %f2;
    cvt.f64.f32 %fd1, %f1;
    atom.global.add.f64 %fd2, [%rd6+16], %fd1;
    cvt.rn.f16.f32 %h1, %f1;
    atom.global.add.noftz.f16 %h2, [%rd6+24], %h1;
    ret;
}

// Counters under contention: inc and dec wrap at bounds, a shared f32 sum of small integers
// (exact in any order), a global u64 add.
.visible .entry counters(.param .u64 out)
{
    .shared .align 4 .f32 sum;
    .reg .pred %p<2>; .reg .b32 %r<12>; .reg .f32 %f<4>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra WAIT;
    mov.f32 %f1, 0f00000000;
    st.shared.f32 [sum], %f1;
WAIT:
    bar.sync 0;
    and.b32 %r2, %r1, 7;
    cvt.rn.f32.u32 %f2, %r2;
    atom.shared.add.f32 %f3, [sum], %f2;
    atom.global.inc.u32 %r3, [%rd1], 100;
    atom.global.dec.u32 %r4, [%rd1+4], 50;
    cvt.u64.u32 %rd2, %r1;
    atom.global.add.u64 %rd3, [%rd1+8], %rd2;
    bar.sync 0;
    @%p1 bra DONE;
    ld.shared.f32 %f1, [sum];
    atom.global.add.f32 %f3, [%rd1+16], %f1;
DONE:
    ret;
}
"#;

fn setup() -> (Arc<DeviceMemory>, Arc<Program>) {
    load(&format!("{HEADER}{KERNELS}"))
}

#[test]
fn float_and_half_atomics_round_and_flush_as_the_interpreter() {
    let (memory, program) = setup();
    let kernel = program.kernel("slots").unwrap();
    let compiled = compile(&program, &kernel.name, true);
    let threads = 256usize;
    let specials = [
        0.0f32,
        -0.0,
        f32::MIN_POSITIVE / 4.0, // subnormal: flushed by the f32 add
        -f32::MIN_POSITIVE / 3.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e30,
        65504.0,
        6e-8,
    ];
    let xs: Vec<f32> = (0..threads)
        .map(|i| {
            if i % 3 == 0 {
                specials[(i / 3) % specials.len()]
            } else {
                (i as f32 * 0.7311 - 90.0) * 1.37f32.powi(i as i32 % 9)
            }
        })
        .collect();
    // Starting slot contents: the same kinds of values, rotated.
    let start: Vec<u32> = (0..threads * SLOT_WORDS)
        .map(|w| {
            let v = specials[(w * 7 + 3) % specials.len()];
            match w % SLOT_WORDS {
                5 => 0x4000_0000, // high word of the f64 slot (2.0 when the low word is 0)
                4 => 0,
                6 => 0x3c00, // f16 1.0
                _ => v.to_bits(),
            }
        })
        .collect();
    let start_bytes: Vec<u8> = start.iter().flat_map(|w| w.to_le_bytes()).collect();
    let x_bytes: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut results = Vec::new();
    for use_compiled in [false, true] {
        let x = memory.alloc(x_bytes.len() as u64, 256).unwrap();
        memory.write(x, &x_bytes).unwrap();
        let slots = memory.alloc(start_bytes.len() as u64, 256).unwrap();
        memory.write(slots, &start_bytes).unwrap();
        let p: Vec<u8> = [x, slots].iter().flat_map(|v| v.to_le_bytes()).collect();
        let cfg = config(2, 128, 2);
        if use_compiled {
            compiled.launch(&cfg, &p, &LaunchHooks::default()).unwrap();
        } else {
            program.launch(&kernel, &cfg, &p).unwrap();
        }
        results.push(read_words(&memory, slots, start.len()));
    }
    assert_eq!(results[0], results[1]);
    // Thread 6 adds the subnormal x = MIN_POSITIVE / 4 (flushed) to its starting slot value.
    let t = 6;
    assert_eq!(xs[t], f32::MIN_POSITIVE / 4.0);
    let old = f32::from_bits(start[t * SLOT_WORDS]);
    assert_eq!(
        results[1][t * SLOT_WORDS + 3],
        old.to_bits(),
        "the old value"
    );
    let flushed = if old.is_subnormal() { 0.0 } else { old };
    assert_eq!(
        f32::from_bits(results[1][t * SLOT_WORDS]).to_bits(),
        (flushed + 0.0).to_bits(),
        "a subnormal operand adds as zero"
    );
}

#[test]
fn contended_counters_match() {
    let (memory, program) = setup();
    let kernel = program.kernel("counters").unwrap();
    let compiled = compile(&program, &kernel.name, true);
    let (blocks, threads) = (5u32, 96u32);
    let mut results = Vec::new();
    for use_compiled in [false, true] {
        let out = memory.alloc(24, 256).unwrap();
        memory.write(out, &[0u8; 24]).unwrap();
        let p = out.to_le_bytes();
        let cfg = config(blocks, threads, 2);
        if use_compiled {
            compiled.launch(&cfg, &p, &LaunchHooks::default()).unwrap();
        } else {
            program.launch(&kernel, &cfg, &p).unwrap();
        }
        results.push(read_words(&memory, out, 6));
    }
    assert_eq!(results[0], results[1]);
    let n = blocks * threads;
    // inc wraps to 0 after 100; dec from 0 goes to the bound 50 and counts down.
    assert_eq!(results[1][0], n % 101);
    assert_eq!(results[1][1], (51 - n % 51) % 51);
    let ids: u64 = u64::from(blocks) * (0..u64::from(threads)).sum::<u64>();
    assert_eq!(
        u64::from(results[1][2]) | u64::from(results[1][3]) << 32,
        ids
    );
    let per_block: f32 = (0..threads).map(|t| (t & 7) as f32).sum();
    assert_eq!(f32::from_bits(results[1][4]), per_block * blocks as f32);
}
