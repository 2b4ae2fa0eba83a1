//! Groups that part at a branch over a region ending in a store (`src/vector/masked.rs`), in
//! groups of 4, 8, 16 and 32 threads against the interpreter: `if (t < s)` and `if (t >= s)`
//! regions with loads at each thread's address, a load all threads share and 32- and 64-bit
//! stores, for bounds that part groups anywhere; threads that skip the region compute
//! addresses past the end (which must not fault); and a thread that runs it storing past
//! the end faults as interpreted, word for word.

mod common;

use chevron_ptx::interp::{LaunchConfig, LaunchHooks};
use common::{words, Setup, HEADER};

const KERNELS: &str = r#"
// Thread t < s: out[t] = x[t] + x[t + s] + x[0]; out64[t] = t; thread t >= s: nothing.
.visible .entry below(.param .u64 x, .param .u64 out, .param .u64 out64, .param .u32 s)
{
    .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [out]; ld.param.u64 %rd3, [out64];
    ld.param.u32 %r1, [s];
    mov.u32 %r2, %tid.x; mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x;
    mad.lo.s32 %r5, %r3, %r4, %r2;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra SKIP;
    mul.wide.u32 %rd4, %r5, 4; add.s64 %rd5, %rd1, %rd4;
    ld.global.u32 %r6, [%rd5];
    add.s32 %r7, %r5, %r1; mul.wide.u32 %rd6, %r7, 4; add.s64 %rd7, %rd1, %rd6;
    ld.global.u32 %r8, [%rd7];
    ld.global.u32 %r9, [%rd1];
    add.s32 %r6, %r6, %r8; add.s32 %r6, %r6, %r9;
    add.s64 %rd8, %rd2, %rd4; st.global.u32 [%rd8], %r6;
SKIP:
    setp.lt.u32 %p2, %r5, %r1;
    @!%p2 bra DONE;
    cvt.u64.u32 %rd9, %r5; mul.wide.u32 %rd10, %r5, 8; add.s64 %rd11, %rd3, %rd10;
    st.global.u64 [%rd11], %rd9;
DONE:
    ret;
}

// A shared tree step: thread t >= s keeps its word, t < s adds word t + s; out[t] = word t.
.visible .entry tree(.param .u64 x, .param .u64 out, .param .u32 s)
{
    .shared .align 4 .b32 cache[64];
    .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [out]; ld.param.u32 %r1, [s];
    mov.u32 %r2, %tid.x; mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x;
    mad.lo.s32 %r5, %r3, %r4, %r2;
    mul.wide.u32 %rd3, %r5, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r6, [%rd4];
    mov.u32 %r7, cache; shl.b32 %r8, %r2, 2; add.s32 %r8, %r7, %r8;
    st.shared.u32 [%r8], %r6;
    bar.sync 0;
    setp.ge.u32 %p1, %r2, %r1;
    @%p1 bra SKIP;
    shl.b32 %r9, %r1, 2; add.s32 %r9, %r8, %r9;
    ld.shared.u32 %r10, [%r9]; ld.shared.u32 %r11, [%r8];
    add.s32 %r11, %r11, %r10; st.shared.u32 [%r8], %r11;
SKIP:
    bar.sync 0;
    ld.shared.u32 %r12, [%r8];
    add.s64 %rd5, %rd2, %rd3; st.global.u32 [%rd5], %r12;
    ret;
}
"#;

/// Runs `name` on 3 blocks of 64 threads, interpreted and compiled in groups of
/// `group_threads`, with `x` holding `x_words` words and `s`: the outputs' words, or the
/// fault (addresses left out).
fn run(
    s: &Setup,
    name: &str,
    group_threads: u32,
    (x_words, bound): (usize, u32),
) -> [Result<Vec<u32>, String>; 2] {
    let kernel = common::compile_grouped(&s.program, name, group_threads);
    assert_eq!(kernel.vector(), Ok(()), "{name} runs in groups");
    let handle = s.program.kernel(name).unwrap();
    let cfg = LaunchConfig {
        grid: [3, 1, 1],
        block: [64, 1, 1],
        dynamic_shared: 0,
        threads: 2,
    };
    let n = 3 * 64;
    let launch = |use_compiled: bool| {
        let input: Vec<u8> = (0..x_words as u32)
            .flat_map(|i| (i.wrapping_mul(2_654_435_761) >> 5).to_le_bytes())
            .collect();
        let x = s.memory.alloc(input.len() as u64, 256).unwrap();
        s.memory.write(x, &input).unwrap();
        let out = s.memory.alloc(4 * n as u64, 256).unwrap();
        s.memory.write(out, &vec![0xee; 4 * n]).unwrap();
        let out64 = s.memory.alloc(8 * n as u64, 256).unwrap();
        s.memory.write(out64, &vec![0xee; 8 * n]).unwrap();
        let mut p: Vec<u8> = [x, out].iter().flat_map(|v| v.to_le_bytes()).collect();
        if name == "below" {
            p.extend(out64.to_le_bytes());
        }
        p.extend(bound.to_le_bytes());
        let result = if use_compiled {
            kernel.launch(&cfg, &p, &LaunchHooks::default())
        } else {
            s.program.launch(&handle, &cfg, &p)
        };
        result
            .map(|_| {
                let mut bytes = vec![0u8; 12 * n];
                s.memory.read(out, &mut bytes[..4 * n]).unwrap();
                s.memory.read(out64, &mut bytes[4 * n..]).unwrap();
                words(&bytes)
            })
            .map_err(|fault| {
                (fault.to_string().split(' '))
                    .map(|w| if w.contains("0x") { "ADDR" } else { w })
                    .collect::<Vec<_>>()
                    .join(" ")
            })
    };
    [launch(false), launch(true)]
}

#[test]
fn regions_that_part_groups_store_as_interpreted() {
    let s = Setup::of(&format!("{HEADER}{KERNELS}"));
    for group_threads in common::GROUPS {
        // x has 2s words: every thread t < s reads x[t + s], the last one x[2s - 1]; the
        // threads that skip the region have addresses past the end.
        for bound in [0u32, 1, 3, 5, 8, 13, 16, 30, 64, 100, 191, 192, 500] {
            let x_words = (2 * bound as usize).max(1);
            let [want, got] = run(&s, "below", group_threads, (x_words, bound));
            assert!(want.is_ok(), "{want:?}");
            assert_eq!(got, want, "groups of {group_threads}, s {bound}");
        }
        for bound in [1u32, 2, 4, 7, 16, 32] {
            let [want, got] = run(&s, "tree", group_threads, (192, bound));
            assert_eq!(got, want, "tree, groups of {group_threads}, s {bound}");
        }
    }
}

#[test]
fn a_thread_that_runs_the_region_past_the_end_faults_as_interpreted() {
    let s = Setup::of(&format!("{HEADER}{KERNELS}"));
    for group_threads in common::GROUPS {
        // x has 130 words and s = 70: thread 60 reads x[130], the first past the end.
        let [want, got] = run(&s, "below", group_threads, (130, 70));
        assert!(
            want.as_ref()
                .is_err_and(|f| f.contains("thread (60, 0, 0)")),
            "{want:?}"
        );
        assert_eq!(got, want, "groups of {group_threads}");
    }
}
