//! Four threads at a time at four unrelated shared addresses (a scatter whose threads may
//! write one word, the later thread's value staying; a gather after a barrier), shifts by an
//! amount in a register (the same in the four threads; 0, inside, at and past the width),
//! and a scatter with one bad address, against the interpreter.

mod common;

use chevron_cpu_jit::CompiledKernel;
use chevron_ptx::interp::{LaunchConfig, LaunchHooks};
use common::{words, Setup, HEADER};

const KERNELS: &str = r#"
// Thread g of T (blocks of one warp): v = x[g]; out[k * T + g] = the k-th result.
.visible .entry apart(.param .u64 x, .param .u64 out, .param .u32 amount)
{
    .shared .align 4 .b32 tile[64];
    .shared .align 8 .b64 wide[64];
    .reg .b32 %r<24>; .reg .b64 %rd<20>;
    ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [out]; ld.param.u32 %r1, [amount];
    mov.u32 %r2, %tid.x; mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x;
    mad.lo.s32 %r5, %r3, %r4, %r2;
    mul.wide.u32 %rd3, %r5, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r6, [%rd4];
    shl.b32 %r7, %r6, %r1; shr.u32 %r8, %r6, %r1; shr.s32 %r9, %r6, %r1;
    mul.wide.s32 %rd5, %r6, -7;
    shl.b64 %rd6, %rd5, %r1; shr.u64 %rd7, %rd5, %r1; shr.s64 %rd8, %rd5, %r1;
    // Scatter: word v >> 28 & 3 of the tile (threads of a group collide), then the
    // doubleword v >> 4 & 15.
    mov.u32 %r10, tile; shr.u32 %r11, %r6, 28; and.b32 %r11, %r11, 3; shl.b32 %r12, %r11, 2; add.s32 %r13, %r10, %r12;
    st.shared.u32 [%r13], %r5;
    mov.u32 %r14, wide; shr.u32 %r15, %r6, 4; and.b32 %r15, %r15, 15;
    shl.b32 %r16, %r15, 3; add.s32 %r17, %r14, %r16;
    st.shared.u64 [%r17], %rd5;
    bar.sync 0;
    // Gather: word v >> 8 & 15, doubleword v >> 12 & 15.
    shr.u32 %r18, %r6, 8; and.b32 %r18, %r18, 15; shl.b32 %r18, %r18, 2; add.s32 %r18, %r10, %r18;
    ld.shared.u32 %r19, [%r18];
    shr.u32 %r20, %r6, 12; and.b32 %r20, %r20, 15; shl.b32 %r20, %r20, 3; add.s32 %r20, %r14, %r20;
    ld.shared.u64 %rd9, [%r20];
    mov.u32 %r21, %nctaid.x; mul.lo.s32 %r21, %r21, %r4;
    mul.wide.u32 %rd10, %r21, 4; mul.wide.u32 %rd11, %r21, 8;
    add.s64 %rd12, %rd2, %rd3;
    st.global.u32 [%rd12], %r7; add.s64 %rd12, %rd12, %rd10;
    st.global.u32 [%rd12], %r8; add.s64 %rd12, %rd12, %rd10;
    st.global.u32 [%rd12], %r9; add.s64 %rd12, %rd12, %rd10;
    st.global.u32 [%rd12], %r19; add.s64 %rd12, %rd12, %rd10;
    mul.wide.u32 %rd15, %r21, 16; add.s64 %rd16, %rd2, %rd15;
    mul.wide.u32 %rd13, %r5, 8; add.s64 %rd14, %rd16, %rd13;
    st.global.u64 [%rd14], %rd6; add.s64 %rd14, %rd14, %rd11;
    st.global.u64 [%rd14], %rd7; add.s64 %rd14, %rd14, %rd11;
    st.global.u64 [%rd14], %rd8; add.s64 %rd14, %rd14, %rd11;
    st.global.u64 [%rd14], %rd9;
    ret;
}

// out[x[t]] = y[x[t] ^ 1] + t: a global gather and scatter through each thread's index.
.visible .entry global_apart(.param .u64 x, .param .u64 y, .param .u64 out)
{
    .reg .b32 %r<6>; .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [y]; ld.param.u64 %rd3, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd4, %r1, 4; add.s64 %rd5, %rd1, %rd4;
    ld.global.u32 %r2, [%rd5];
    xor.b32 %r3, %r2, 1;
    mul.wide.u32 %rd6, %r3, 4; add.s64 %rd7, %rd2, %rd6;
    ld.global.u32 %r4, [%rd7];
    add.s32 %r5, %r4, %r1;
    mul.wide.u32 %rd8, %r2, 4; add.s64 %rd9, %rd3, %rd8;
    st.global.u32 [%rd9], %r5;
    ret;
}

// tile[x[t]] = t: a bad index faults.
.visible .entry scatter(.param .u64 x)
{
    .shared .align 4 .b32 tile[32];
    .reg .b32 %r<6>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [x];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r2, [%rd3];
    mov.u32 %r3, tile; shl.b32 %r4, %r2, 2; add.s32 %r5, %r3, %r4;
    st.shared.u32 [%r5], %r1;
    ret;
}
"#;

/// `kernel` compiled with groups of `group_threads` threads (it must have a vector function).
fn compiled(s: &Setup, kernel: &str, group_threads: u32) -> CompiledKernel {
    let compiled = common::compile_grouped(&s.program, kernel, group_threads);
    assert_eq!(
        compiled.vector(),
        Ok(()),
        "{kernel} runs four threads at a time"
    );
    compiled
}

fn config(grid: u32) -> LaunchConfig {
    LaunchConfig {
        grid: [grid, 1, 1],
        block: [32, 1, 1],
        dynamic_shared: 0,
        threads: 2,
    }
}

#[test]
fn scatters_gathers_and_shifts_by_a_register_match() {
    let s = Setup::of(&format!("{HEADER}{KERNELS}"));
    for group_threads in common::GROUPS {
        let kernel = compiled(&s, "apart", group_threads);
        let handle = s.program.kernel("apart").unwrap();
        let threads = 4 * 32;
        let input: Vec<u8> = (0..threads as u32)
            .flat_map(|i| (i.wrapping_mul(2_654_435_761) ^ (i << 28)).to_le_bytes())
            .collect();
        let out_bytes = 48 * threads as usize;
        for amount in [0u32, 5, 31, 32, 40, 63, 64, 1000] {
            let run = |use_compiled: bool| {
                let kernel = (&handle, use_compiled.then_some(&kernel));
                s.run_in_out(kernel, &config(4), &input, out_bytes, &[amount])
            };
            let want = run(false);
            assert!(!want.contains(&0xeeee_eeee), "every word written");
            assert_eq!(run(true), want, "amount {amount}");
        }
    }
}

#[test]
fn a_scatter_with_a_bad_address_faults_as_interpreted() {
    let s = Setup::of(&format!("{HEADER}{KERNELS}"));
    for group_threads in common::GROUPS {
        let kernel = compiled(&s, "scatter", group_threads);
        let handle = s.program.kernel("scatter").unwrap();
        // Thread 6 (the third of its group) indexes past the tile.
        let mut index: Vec<u32> = (0..32).map(|t| 31 - t).collect();
        index[6] = 32;
        let input: Vec<u8> = index.iter().flat_map(|v| v.to_le_bytes()).collect();
        let run = |use_compiled: bool| {
            let x = s.memory.alloc(128, 256).unwrap();
            s.memory.write(x, &input).unwrap();
            let p = x.to_le_bytes();
            let fault = if use_compiled {
                kernel
                    .launch(&config(1), &p, &LaunchHooks::default())
                    .unwrap_err()
            } else {
                s.program.launch(&handle, &config(1), &p).unwrap_err()
            };
            fault.to_string()
        };
        let want = run(false);
        assert!(want.contains("thread (6, 0, 0)"), "{want}");
        assert_eq!(run(true), want);
    }
}

#[test]
fn global_gathers_and_scatters_match_and_a_bad_index_faults_as_interpreted() {
    let s = Setup::of(&format!("{HEADER}{KERNELS}"));
    for group_threads in common::GROUPS {
        let kernel = compiled(&s, "global_apart", group_threads);
        let handle = s.program.kernel("global_apart").unwrap();
        let as_bytes = |v: &[u32]| v.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
        // A permutation of 32 indices (threads of one group far apart), then one past the end.
        let good: Vec<u32> = (0..32u32).map(|t| (t * 13 + 5) % 32).collect();
        let mut bad = good.clone();
        bad[9] = 32;
        let ys: Vec<u32> = (0..32u32).map(|i| i * 1000 + 7).collect();
        for index in [good, bad] {
            let run = |use_compiled: bool| {
                let x = s.memory.alloc(128, 256).unwrap();
                s.memory.write(x, &as_bytes(&index)).unwrap();
                let y = s.memory.alloc(128, 256).unwrap();
                s.memory.write(y, &as_bytes(&ys)).unwrap();
                let out = s.memory.alloc(128, 256).unwrap();
                s.memory.write(out, &[0xee; 128]).unwrap();
                let p: Vec<u8> = [x, y, out].iter().flat_map(|v| v.to_le_bytes()).collect();
                let result = if use_compiled {
                    kernel.launch(&config(1), &p, &LaunchHooks::default())
                } else {
                    s.program.launch(&handle, &config(1), &p)
                };
                let mut bytes = vec![0u8; 128];
                s.memory.read(out, &mut bytes).unwrap();
                (
                    result.map(|_| ()).map_err(|f| {
                        f.to_string()
                            .split(' ')
                            .map(|w| if w.contains("0x") { "ADDR" } else { w })
                            .collect::<Vec<_>>()
                            .join(" ")
                    }),
                    words(&bytes),
                )
            };
            let (want, got) = (run(false), run(true));
            match &want.0 {
                // The report only: the compiled run's stores before the fault stay (the
                // interpreter runs the block again from its start).
                Err(fault) => {
                    assert!(fault.contains("thread (9, 0, 0)"), "{fault}");
                    assert_eq!(got.0, want.0);
                }
                Ok(()) => assert_eq!(got, want),
            }
        }
    }
}
