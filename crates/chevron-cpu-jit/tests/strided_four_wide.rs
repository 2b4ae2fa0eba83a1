//! Strided accesses four threads at a time (a gather or a scatter: each thread's element a
//! multiple of the element's size from the next thread's, as when each thread reads four
//! consecutive words, or a transposed shared tile's column) against the interpreter: global
//! 32- and 64-bit loads and stores, shared ones with a positive and a negative stride across
//! a barrier, and the fault of an array that ends or is misaligned inside a group.

mod common;

use chevron_cpu_jit::CompiledKernel;
use chevron_ptx::interp::{LaunchConfig, LaunchHooks};
use common::{words, Setup, HEADER};

const KERNELS: &str = r#"
// Thread g of T: four words at x[4g..4g+4], a doubleword at x + 24g, a column of a 64 x 65
// shared tile written and read back reversed; out[4g..4g+4] and a doubleword at out + 16T + 24g.
.visible .entry strided(.param .u64 x, .param .u64 out)
{
    .shared .align 4 .b32 tile[4160];
    .reg .b32 %r<20>; .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd3, %r4, 16; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r5, [%rd4]; ld.global.u32 %r6, [%rd4+4];
    ld.global.u32 %r7, [%rd4+8]; ld.global.u32 %r8, [%rd4+12];
    add.s32 %r9, %r5, %r6; xor.b32 %r10, %r7, %r8;
    mul.wide.u32 %rd5, %r4, 24; add.s64 %rd6, %rd1, %rd5;
    ld.global.u64 %rd7, [%rd6];
    mov.u32 %r11, tile;
    mul.lo.s32 %r12, %r1, 260; add.s32 %r13, %r11, %r12;
    st.shared.u32 [%r13], %r9;
    st.shared.u32 [%r13+4], %r10;
    bar.sync 0;
    sub.s32 %r14, 63, %r1;
    mul.lo.s32 %r15, %r14, 260; add.s32 %r16, %r11, %r15;
    ld.shared.u32 %r17, [%r16];
    ld.shared.u32 %r18, [%r16+4];
    add.s64 %rd8, %rd2, %rd3;
    st.global.u32 [%rd8], %r17; st.global.u32 [%rd8+4], %r18;
    st.global.u32 [%rd8+8], %r9; st.global.u32 [%rd8+12], %r5;
    mov.u32 %r19, %nctaid.x; mul.lo.s32 %r19, %r19, %r3;
    mul.wide.u32 %rd9, %r19, 16; add.s64 %rd10, %rd2, %rd9; add.s64 %rd11, %rd10, %rd5;
    add.s64 %rd12, %rd7, %rd3;
    st.global.u64 [%rd11], %rd12;
    ret;
}

// out[4t] = t: every fourth word.
.visible .entry every_fourth(.param .u64 out)
{
    .reg .b32 %r<2>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 16; add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r1;
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
        block: [64, 1, 1],
        dynamic_shared: 0,
        threads: 2,
    }
}

#[test]
fn strided_global_and_shared_accesses_match() {
    let s = Setup::of(&format!("{HEADER}{KERNELS}"));
    for group_threads in common::GROUPS {
        let kernel = compiled(&s, "strided", group_threads);
        let handle = s.program.kernel("strided").unwrap();
        let threads = 3 * 64;
        let input: Vec<u8> = (0..6 * threads as u32)
            .flat_map(|i| (i.wrapping_mul(2_654_435_761) ^ (i >> 2)).to_le_bytes())
            .collect();
        let run = |use_compiled: bool| {
            let x = s.memory.alloc(input.len() as u64, 256).unwrap();
            s.memory.write(x, &input).unwrap();
            let out = s.memory.alloc(40 * threads, 256).unwrap();
            s.memory
                .write(out, &vec![0xee; 40 * threads as usize])
                .unwrap();
            let p: Vec<u8> = [x, out].iter().flat_map(|v| v.to_le_bytes()).collect();
            if use_compiled {
                kernel
                    .launch(&config(3), &p, &LaunchHooks::default())
                    .unwrap();
            } else {
                s.program.launch(&handle, &config(3), &p).unwrap();
            }
            let mut bytes = vec![0u8; 40 * threads as usize];
            s.memory.read(out, &mut bytes).unwrap();
            words(&bytes)
        };
        let want = run(false);
        // Thread 0's first word is thread 63's column sum; its third its own.
        assert_ne!(want[0], 0xeeee_eeee);
        assert_eq!(run(true), want);
    }
}

/// The interpreter's and the compiled code's fault reports for `every_fourth` with `out`
/// pointing `offset` bytes into a fresh allocation of `bytes` bytes, compiled with groups of
/// 4 threads (those of groups of 8, 16 and 32 must be the same).
fn both_faults(bytes: u64, offset: u64) -> [String; 2] {
    let s = Setup::of(&format!("{HEADER}{KERNELS}"));
    let mut reports = Vec::new();
    for group_threads in common::GROUPS {
        let kernel = compiled(&s, "every_fourth", group_threads);
        let handle = s.program.kernel("every_fourth").unwrap();
        let run = |use_compiled: bool| {
            let out = s.memory.alloc(bytes, 256).unwrap() + offset;
            let p = out.to_le_bytes();
            let fault = if use_compiled {
                kernel
                    .launch(&config(1), &p, &LaunchHooks::default())
                    .unwrap_err()
            } else {
                s.program.launch(&handle, &config(1), &p).unwrap_err()
            };
            fault
                .to_string()
                .split(' ')
                .map(|w| if w.contains("0x") { "ADDR" } else { w })
                .collect::<Vec<_>>()
                .join(" ")
        };
        let [want, got] = [run(false), run(true)];
        assert_eq!(want, got, "groups of {group_threads}");
        reports.push([want, got]);
    }
    reports.swap_remove(0)
}

#[test]
fn a_strided_array_that_ends_or_is_misaligned_inside_a_group_faults_as_interpreted() {
    // 40 words: thread 10 (the third of its group) writes word 40, the first past the end.
    let [want, got] = both_faults(160, 0);
    assert_eq!(want, got);
    assert!(want.contains("thread (10, 0, 0)"), "{want}");
    let [want, got] = both_faults(4096, 2);
    assert_eq!(want, got);
    assert!(want.to_lowercase().contains("align"), "{want}");
}
