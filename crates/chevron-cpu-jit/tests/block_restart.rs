//! A worker's later blocks start as its first does (`launch.rs`: the worker keeps its block
//! context and starts each later block again): shared memory zeroed and every thread at its
//! start (through a loop long enough to call the host for fuel), and a fault in a later block
//! reported as the interpreter reports it.

mod common;

use chevron_ptx::interp::LaunchHooks;
use common::{compile, config, read_words, Setup, HEADER};

/// Each thread reads its shared word before writing it (0 in every block), runs a loop of
/// `n` passes (not counted: it burns fuel), writes its block's number into the word, waits,
/// and stores what it read plus its neighbour's word and its loop's sum.
const KERNELS: &str = r#"
.visible .entry leftovers(.param .u64 out, .param .u32 n)
{
    .reg .pred %p<2>; .reg .b32 %r<16>; .reg .b64 %rd<4>;
    .shared .align 4 .b32 tile[64];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
    ld.param.u32 %r4, [n];
    mov.u32 %r5, tile;
    shl.b32 %r6, %r1, 2; add.s32 %r7, %r5, %r6;
    ld.shared.u32 %r8, [%r7];
    mov.u32 %r9, 0; mov.u32 %r10, 0;
LOOP:
    add.s32 %r10, %r10, %r9;
    add.s32 %r9, %r9, 1;
    setp.lt.u32 %p1, %r9, %r4;
    @%p1 bra LOOP;
    add.s32 %r11, %r2, 1;
    st.shared.u32 [%r7], %r11;
    bar.sync 0;
    add.s32 %r12, %r1, 1; rem.u32 %r12, %r12, %r3;
    shl.b32 %r12, %r12, 2; add.s32 %r12, %r5, %r12;
    ld.shared.u32 %r13, [%r12];
    add.s32 %r14, %r8, %r13; add.s32 %r14, %r14, %r10;
    mad.lo.s32 %r15, %r2, %r3, %r1;
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r15, 4; add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r14;
    ret;
}

.visible .entry past_the_end(.param .u64 out, .param .u32 n)
{
    .reg .b32 %r<6>; .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r4, 4; add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r4;
    ret;
}
"#;

const BLOCKS: u32 = 8;
const THREADS: u32 = 64;

fn params(out: u64, n: u32) -> Vec<u8> {
    let mut p = out.to_le_bytes().to_vec();
    p.extend(n.to_le_bytes());
    p
}

#[test]
fn later_blocks_start_with_zeroed_shared_memory_and_threads_at_their_start() {
    let s = Setup::of(&format!("{HEADER}{KERNELS}"));
    let n = 5000u32;
    let sum = n * (n - 1) / 2;
    let want: Vec<u32> = (0..BLOCKS * THREADS)
        .map(|i| (i / THREADS + 1) + sum)
        .collect();
    let handle = s.program.kernel("leftovers").unwrap();
    let hooks = LaunchHooks::default();
    for checks in [true, false] {
        let compiled = compile(&s.program, "leftovers", checks);
        for workers in [1, 3] {
            let cfg = config(BLOCKS, THREADS, workers);
            let out = s
                .memory
                .alloc(u64::from(4 * BLOCKS * THREADS), 256)
                .unwrap();
            compiled.launch(&cfg, &params(out, n), &hooks).unwrap();
            let got = read_words(&s.memory, out, (BLOCKS * THREADS) as usize);
            assert_eq!(got, want, "checks {checks}, {workers} workers");
            s.program
                .launch_with(&handle, &cfg, &params(out, n), &hooks)
                .unwrap();
            assert_eq!(read_words(&s.memory, out, got.len()), want, "interpreted");
        }
    }
}

#[test]
fn a_fault_in_a_later_block_is_the_interpreters_report() {
    let s = Setup::of(&format!("{HEADER}{KERNELS}"));
    let handle = s.program.kernel("past_the_end").unwrap();
    let compiled = compile(&s.program, "past_the_end", true);
    let hooks = LaunchHooks::default();
    let cfg = config(BLOCKS, THREADS, 1);
    // Room for five blocks and a half: block 5's thread 32 stores past the end.
    let words = 5 * THREADS + THREADS / 2;
    let out = s.memory.alloc(u64::from(4 * words), 256).unwrap();
    let interpreted = s
        .program
        .launch_with(&handle, &cfg, &params(out, 0), &hooks)
        .unwrap_err();
    let compiled_fault = compiled.launch(&cfg, &params(out, 0), &hooks).unwrap_err();
    assert_eq!(interpreted.to_string(), compiled_fault.to_string());
    assert!(
        interpreted
            .to_string()
            .contains("block (5, 0, 0), thread (32, 0, 0)"),
        "{interpreted}"
    );
}
