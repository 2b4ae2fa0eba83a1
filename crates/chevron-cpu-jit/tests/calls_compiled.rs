//! Kernels that call device functions, compiled with the calls inlined, against the
//! interpreter: `.param` arguments and results (scalars and a struct by value), `.reg`
//! parameters, nested and guarded calls, several `ret`s, a callee's local array (zeroed at each
//! call), a barrier inside a callee; the interpreter's report for an access past a callee's
//! frame; and the calls the compiler refuses, with their reasons.

mod common;

use chevron_ptx::interp::LaunchHooks;
use common::{compile, config, load, read_words, HEADER};

const KERNELS: &str = r#"
// r = a * 3 + b, through .param slots.
.func (.param .b32 r) mad3(.param .b32 a, .param .b32 b)
{
    .reg .b32 %r<4>;
    ld.param.b32 %r1, [a]; ld.param.b32 %r2, [b];
    mad.lo.s32 %r3, %r1, 3, %r2;
    st.param.b32 [r], %r3;
    ret;
}

// Two returns: |x| for negatives leaves early.
.func (.param .b32 r) magnitude(.param .b32 x)
{
    .reg .pred %p<2>; .reg .b32 %r<3>;
    ld.param.b32 %r1, [x];
    setp.lt.s32 %p1, %r1, 0;
    @%p1 bra NEG;
    st.param.b32 [r], %r1;
    ret;
NEG:
    neg.s32 %r2, %r1;
    st.param.b32 [r], %r2;
    ret;
}

// A local array filled up to n (< 8) and summed over all 8 slots: slots past n must read 0 at
// every call. Calls mad3 (nested).
.func (.param .b32 r) scratch_sum(.param .b32 n, .param .b32 seed)
{
    .local .align 4 .b8 buf[32];
    .reg .pred %p<2>; .reg .b32 %r<12>; .reg .b64 %rd<4>;
    ld.param.b32 %r1, [n]; ld.param.b32 %r2, [seed];
    mov.u64 %rd1, buf;
    mov.u32 %r3, 0;
FILL:
    setp.ge.u32 %p1, %r3, %r1;
    @%p1 bra SUM;
    {
    .param .b32 pa; .param .b32 pb; .param .b32 pr;
    st.param.b32 [pa], %r3; st.param.b32 [pb], %r2;
    call.uni (pr), mad3, (pa, pb);
    ld.param.b32 %r4, [pr];
    }
    mul.wide.u32 %rd2, %r3, 4; add.s64 %rd3, %rd1, %rd2;
    st.local.u32 [%rd3], %r4;
    add.s32 %r3, %r3, 1;
    bra FILL;
SUM:
    mov.u32 %r5, 0; mov.u32 %r3, 0;
ADD:
    mul.wide.u32 %rd2, %r3, 4; add.s64 %rd3, %rd1, %rd2;
    ld.local.u32 %r6, [%rd3];
    add.s32 %r5, %r5, %r6;
    add.s32 %r3, %r3, 1;
    setp.lt.u32 %p1, %r3, 8;
    @%p1 bra ADD;
    st.param.b32 [r], %r5;
}

// Old-style register parameters and result.
.func (.reg .b32 %out) twice(.reg .b32 %in)
{
    add.s32 %out, %in, %in;
    ret;
}

// A struct of three words by value, returned with its fields swapped around.
.func (.param .align 4 .b8 out[12]) rotate(.param .align 4 .b8 in[12])
{
    .reg .b32 %r<4>;
    ld.param.b32 %r1, [in]; ld.param.b32 %r2, [in+4]; ld.param.b32 %r3, [in+8];
    st.param.b32 [out], %r2; st.param.b32 [out+4], %r3; st.param.b32 [out+8], %r1;
    ret;
}

// A barrier inside a callee: every thread stores, waits, then reads its neighbour.
.func (.param .b32 r) neighbour(.param .b32 v, .param .b32 tid)
{
    .shared .align 4 .b32 tile[128];
    .reg .b32 %r<8>;
    ld.param.b32 %r1, [v]; ld.param.b32 %r2, [tid];
    mov.u32 %r3, tile;
    shl.b32 %r4, %r2, 2; add.s32 %r5, %r3, %r4;
    st.shared.u32 [%r5], %r1;
    bar.sync 0;
    add.s32 %r6, %r2, 1; and.b32 %r6, %r6, 127; shl.b32 %r6, %r6, 2; add.s32 %r6, %r3, %r6;
    ld.shared.u32 %r7, [%r6];
    st.param.b32 [r], %r7;
    ret;
}

.visible .entry calls(.param .u64 xs, .param .u64 out)
{
    .local .align 4 .b8 st[12];
    .reg .pred %p<2>; .reg .b32 %r<24>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [xs]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r2, [%rd4];
    {
    .param .b32 p0; .param .b32 p1; .param .b32 ret0;
    st.param.b32 [p0], %r2; st.param.b32 [p1], %r1;
    call.uni (ret0), mad3, (p0, p1);
    ld.param.b32 %r3, [ret0];
    }
    {
    .param .b32 p0; .param .b32 ret0;
    st.param.b32 [p0], %r2;
    call.uni (ret0), magnitude, (p0);
    ld.param.b32 %r4, [ret0];
    }
    and.b32 %r5, %r2, 7;
    {
    .param .b32 p0; .param .b32 p1; .param .b32 ret0;
    st.param.b32 [p0], %r5; st.param.b32 [p1], %r1;
    call.uni (ret0), scratch_sum, (p0, p1);
    ld.param.b32 %r6, [ret0];
    }
    mov.u32 %r7, 0;
    and.b32 %r8, %r1, 1;
    setp.eq.u32 %p1, %r8, 0;
    @%p1 call.uni (%r7), twice, (%r2);
    st.local.u32 [st], %r1; st.local.u32 [st+4], %r2; st.local.u32 [st+8], %r3;
    {
    .param .align 4 .b8 p0[12]; .param .align 4 .b8 ret0[12];
    ld.local.u32 %r9, [st]; st.param.b32 [p0], %r9;
    ld.local.u32 %r9, [st+4]; st.param.b32 [p0+4], %r9;
    ld.local.u32 %r9, [st+8]; st.param.b32 [p0+8], %r9;
    call.uni (ret0), rotate, (p0);
    ld.param.b32 %r10, [ret0]; ld.param.b32 %r11, [ret0+4]; ld.param.b32 %r12, [ret0+8];
    }
    {
    .param .b32 p0; .param .b32 p1; .param .b32 ret0;
    st.param.b32 [p0], %r2; st.param.b32 [p1], %r1;
    call.uni (ret0), neighbour, (p0, p1);
    ld.param.b32 %r13, [ret0];
    }
    mul.wide.u32 %rd5, %r1, 32; add.s64 %rd6, %rd2, %rd5;
    st.global.v4.u32 [%rd6], {%r3, %r4, %r6, %r7};
    st.global.v4.u32 [%rd6+16], {%r10, %r11, %r12, %r13};
    ret;
}

// Reads word `index` of a callee's 4-word local array: past its frame for index >= 4.
.func (.param .b32 r) local_word(.param .b32 index)
{
    .local .align 4 .b8 arr[16];
    .reg .b32 %r<3>; .reg .b64 %rd<4>;
    ld.param.b32 %r1, [index];
    mov.u64 %rd1, arr;
    mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;
    ld.local.u32 %r2, [%rd3];
    st.param.b32 [r], %r2;
    ret;
}

.visible .entry past_the_frame(.param .u64 out, .param .u32 index)
{
    .reg .b32 %r<4>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [index];
    {
    .param .b32 p0; .param .b32 ret0;
    st.param.b32 [p0], %r1;
    call.uni (ret0), local_word, (p0);
    ld.param.b32 %r2, [ret0];
    }
    st.global.u32 [%rd1], %r2;
    ret;
}

.func (.param .b32 r) countdown(.param .b32 n)
{
    .reg .pred %p<2>; .reg .b32 %r<3>;
    ld.param.b32 %r1, [n];
    setp.eq.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    sub.s32 %r2, %r1, 1;
    {
    .param .b32 p0; .param .b32 ret0;
    st.param.b32 [p0], %r2;
    call.uni (ret0), countdown, (p0);
    }
DONE:
    st.param.b32 [r], %r1;
    ret;
}

.visible .entry recursive(.param .u32 n)
{
    .reg .b32 %r<2>;
    ld.param.u32 %r1, [n];
    {
    .param .b32 p0; .param .b32 ret0;
    st.param.b32 [p0], %r1;
    call.uni (ret0), countdown, (p0);
    }
    ret;
}
"#;

#[test]
fn inlined_calls_give_the_interpreters_results() {
    let (memory, program) = load(&format!("{HEADER}{KERNELS}"));
    let handle = program.kernel("calls").unwrap();
    let compiled = compile(&program, "calls", true);
    let threads = 128usize;
    let xs: Vec<u32> = (0..threads as u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 3) ^ if i % 3 == 0 { 0x8000_0000 } else { 0 })
        .collect();
    let bytes: Vec<u8> = xs.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut results = Vec::new();
    for use_compiled in [false, true] {
        let x = memory.alloc(bytes.len() as u64, 256).unwrap();
        memory.write(x, &bytes).unwrap();
        let out = memory.alloc(32 * threads as u64, 256).unwrap();
        let p: Vec<u8> = [x, out].iter().flat_map(|v| v.to_le_bytes()).collect();
        let cfg = config(1, threads as u32, 1);
        if use_compiled {
            compiled.launch(&cfg, &p, &LaunchHooks::default()).unwrap();
        } else {
            program.launch(&handle, &cfg, &p).unwrap();
        }
        results.push(read_words(&memory, out, 8 * threads));
    }
    assert_eq!(results[0], results[1]);
    for (t, &x) in xs.iter().enumerate() {
        let got = &results[1][8 * t..8 * t + 8];
        let mad3 = x.wrapping_mul(3).wrapping_add(t as u32);
        let n = x & 7;
        let scratch: u32 = (0..n).map(|i| i * 3 + t as u32).sum();
        let twice = if t % 2 == 0 { x.wrapping_add(x) } else { 0 };
        let neighbour = xs[(t + 1) % threads];
        assert_eq!(
            got,
            [
                mad3,
                (x as i32).unsigned_abs(),
                scratch,
                twice,
                x,
                mad3,
                t as u32,
                neighbour
            ],
            "thread {t}"
        );
    }
}

#[test]
fn an_access_past_a_callees_frame_gives_the_interpreters_report() {
    let (memory, program) = load(&format!("{HEADER}{KERNELS}"));
    let handle = program.kernel("past_the_frame").unwrap();
    let compiled = compile(&program, "past_the_frame", true);
    let out = memory.alloc(4, 256).unwrap();
    let cfg = config(1, 32, 1);
    let mut faults = 0;
    for index in [3u32, 4, 5, 9, 1000] {
        let mut p = out.to_le_bytes().to_vec();
        p.extend(index.to_le_bytes());
        let want = program.launch(&handle, &cfg, &p).map_err(|f| f.to_string());
        let got = compiled
            .launch(&cfg, &p, &LaunchHooks::default())
            .map_err(|f| f.to_string());
        // The frame holds the array and the function's `.param` slots after it.
        match (want, got) {
            (Ok(_), Ok(_)) => assert!(index < 9, "index {index} is inside the frame"),
            (Err(want), Err(got)) => {
                assert!(index >= 4, "index {index} faults: {want}");
                assert_eq!(want, got, "index {index}");
                assert!(want.contains("past_the_frame"), "{want}");
                faults += 1;
            }
            (want, got) => panic!("index {index}: {want:?} against {got:?}"),
        }
    }
    assert_eq!(
        faults, 2,
        "indices 9 and 1000 are past the callee's stack top"
    );
}

#[test]
fn recursion_is_refused_with_its_reason() {
    let (_, program) = load(&format!("{HEADER}{KERNELS}"));
    let handle = program.kernel("recursive").unwrap();
    let why = chevron_cpu_jit::CompiledKernel::compile(
        &program,
        &handle,
        &chevron_cpu_jit::CompileOptions::default(),
    )
    .unwrap_err();
    assert!(why.contains("recursive call to `countdown`"), "{why}");
}
