//! Registers carried across barriers and shuffles four threads at a time, against the
//! interpreter: values a region between two wait points neither reads nor writes stay in the
//! group's saved layout (its resume does not load them, its wait does not store them again),
//! values it only reads are not stored again, and groups go from one to the next without the
//! group loop's dispatch. Groups part on their data inside such regions (their threads leave
//! for the scalar code, which must get those values from the saved layout) and come back at
//! the next barrier from the scalar code's layout; warps go from shuffle to shuffle in one
//! call. Every output word must be the interpreter's.

mod common;

use chevron_cpu_jit::CompiledKernel;
use chevron_ptx::interp::LaunchConfig;
use common::{Setup, HEADER};

const KERNELS: &str = r#"
// Thread g: a = x[g] and values made from it before the first barrier, used only at the end;
// regions in between that part groups when a & sel is set, a shuffle region, and a loop of
// barriers. out[g] (64 bits) = a mix of everything, its address made again at the end (so
// that a value carried wrongly gives a wrong word, not a fault the interpreter would redo).
.visible .entry regions(.param .u64 x, .param .u64 out, .param .u32 sel)
{
    .shared .align 4 .b32 s[256];
    .reg .pred %p<8>; .reg .b32 %r<40>; .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [x]; ld.param.u32 %r30, [sel];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r10, [%rd4];
    mul.lo.s32 %r11, %r10, 3;
    mul.wide.u32 %rd10, %r10, 65537;
    add.s32 %r12, %r2, 5;
    cvt.rn.f32.u32 %r31, %r10;
    mov.u32 %r5, s; shl.b32 %r13, %r1, 2; add.s32 %r13, %r5, %r13;
    st.shared.u32 [%r13], %r10;
    bar.sync 0;
    and.b32 %r14, %r10, %r30;
    setp.ne.u32 %p1, %r14, 0;
    @%p1 bra SKIP1;
    ld.shared.u32 %r15, [%r13]; add.s32 %r15, %r15, 1; st.shared.u32 [%r13], %r15;
SKIP1:
    bar.sync 0;
    ld.shared.u32 %r16, [%r13]; add.s32 %r16, %r16, %r11; st.shared.u32 [%r13], %r16;
    bar.sync 0;
    shfl.sync.down.b32 %r22, %r16, 1, 31, -1;
    and.b32 %r23, %r22, %r30;
    setp.ne.u32 %p2, %r23, 0;
    @%p2 bra SKIP2;
    add.s32 %r22, %r22, 9;
SKIP2:
    shfl.sync.bfly.b32 %r24, %r22, 2, 31, -1;
    bar.sync 0;
    bar.sync 0;
    mov.u32 %r17, 0;
LOOP:
    ld.shared.u32 %r18, [%r13]; xor.b32 %r18, %r18, %r17; st.shared.u32 [%r13], %r18;
    bar.sync 0;
    add.s32 %r17, %r17, 1;
    setp.lt.u32 %p3, %r17, 3;
    @%p3 bra LOOP;
    ld.shared.u32 %r19, [%r13];
    add.s32 %r19, %r19, %r10; add.s32 %r19, %r19, %r11; add.s32 %r19, %r19, %r12;
    add.s32 %r19, %r19, %r24;
    cvt.rzi.u32.f32 %r32, %r31; xor.b32 %r19, %r19, %r32;
    cvt.u64.u32 %rd12, %r19; add.s64 %rd12, %rd12, %rd10;
    ld.param.u64 %rd2, [out];
    mov.u32 %r33, %tid.x; mov.u32 %r34, %ctaid.x; mad.lo.s32 %r35, %r34, %r3, %r33;
    mul.wide.u32 %rd6, %r35, 8; add.s64 %rd5, %rd2, %rd6;
    st.global.u64 [%rd5], %rd12;
    ret;
}

// The same with the output's address carried from the top (a value carried wrongly there
// faults, and the interpreter's run of the block hides it; the values are not).
.visible .entry regions_carried(.param .u64 x, .param .u64 out, .param .u32 sel)
{
    .shared .align 4 .b32 s[256];
    .reg .pred %p<8>; .reg .b32 %r<40>; .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [out]; ld.param.u32 %r30, [sel];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r10, [%rd4];
    mul.lo.s32 %r11, %r10, 3;
    mul.wide.u32 %rd10, %r10, 65537;
    add.s32 %r12, %r2, 5;
    cvt.rn.f32.u32 %r31, %r10;
    mov.u32 %r5, s; shl.b32 %r13, %r1, 2; add.s32 %r13, %r5, %r13;
    st.shared.u32 [%r13], %r10;
    bar.sync 0;
    and.b32 %r14, %r10, %r30;
    setp.ne.u32 %p1, %r14, 0;
    @%p1 bra SKIP1;
    ld.shared.u32 %r15, [%r13]; add.s32 %r15, %r15, 1; st.shared.u32 [%r13], %r15;
SKIP1:
    bar.sync 0;
    ld.shared.u32 %r16, [%r13]; add.s32 %r16, %r16, %r11; st.shared.u32 [%r13], %r16;
    bar.sync 0;
    shfl.sync.down.b32 %r22, %r16, 1, 31, -1;
    and.b32 %r23, %r22, %r30;
    setp.ne.u32 %p2, %r23, 0;
    @%p2 bra SKIP2;
    add.s32 %r22, %r22, 9;
SKIP2:
    shfl.sync.bfly.b32 %r24, %r22, 2, 31, -1;
    bar.sync 0;
    bar.sync 0;
    mov.u32 %r17, 0;
LOOP:
    ld.shared.u32 %r18, [%r13]; xor.b32 %r18, %r18, %r17; st.shared.u32 [%r13], %r18;
    bar.sync 0;
    add.s32 %r17, %r17, 1;
    setp.lt.u32 %p3, %r17, 3;
    @%p3 bra LOOP;
    ld.shared.u32 %r19, [%r13];
    add.s32 %r19, %r19, %r10; add.s32 %r19, %r19, %r11; add.s32 %r19, %r19, %r12;
    add.s32 %r19, %r19, %r24;
    cvt.rzi.u32.f32 %r32, %r31; xor.b32 %r19, %r19, %r32;
    cvt.u64.u32 %rd12, %r19; add.s64 %rd12, %rd12, %rd10;
    mul.wide.u32 %rd6, %r4, 8; add.s64 %rd5, %rd2, %rd6;
    st.global.u64 [%rd5], %rd12;
    ret;
}
"#;

#[test]
fn registers_carried_across_regions_match() {
    let s = Setup::of(&format!("{HEADER}{KERNELS}"));
    for name in ["regions", "regions_carried"] {
        check(&s, name);
    }
}

fn check(s: &Setup, name: &str) {
    let handle = s.program.kernel(name).unwrap();
    let kernel = CompiledKernel::compile(
        &s.program,
        &handle,
        &chevron_cpu_jit::CompileOptions::default(),
    )
    .expect("compiles");
    assert_eq!(
        kernel.vector(),
        Ok(()),
        "{name} runs four threads at a time"
    );
    let blocks = 3u32;
    let threads = blocks as usize * 64;
    let input: Vec<u8> = (0..threads as u32)
        .flat_map(|i| (i.wrapping_mul(2_654_435_761) >> 7).to_le_bytes())
        .collect();
    let out_bytes = 8 * threads;
    let cfg = LaunchConfig {
        grid: [blocks, 1, 1],
        block: [64, 1, 1],
        dynamic_shared: 0,
        threads: 2,
    };
    // sel 0: no group parts; 1, 4, 0x10: some groups part (on a, then on the shuffled value).
    for sel in [0u32, 1, 4, 0x10] {
        let run = |use_compiled: bool| {
            let kernel = (&handle, use_compiled.then_some(&kernel));
            s.run_in_out(kernel, &cfg, &input, out_bytes, &[sel])
        };
        let want = run(false);
        assert_eq!(run(true), want, "{name} sel {sel:#x}");
    }
}
