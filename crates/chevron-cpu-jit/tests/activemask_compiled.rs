//! `activemask` after no loop, compiled as a ballot of the whole warp
//! (`codegen/activemask.rs`), against the interpreter: straight-line code gets the whole warp
//! without a block going to the interpreter; in divergent code the warp parts and the
//! interpreter gives its partial masks; inside or after a loop it stays interpreted.

mod common;

use common::{compile, config, Setup, HEADER};

const KERNELS: &str = r#"
// A ballot, then `activemask` in straight-line code after a branch that joins again.
.visible .entry joined(.param .u64 xs, .param .u64 out)
{
    .reg .pred %p<4>; .reg .b32 %r<12>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [xs]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;
    ld.global.u32 %r5, [%rd4];
    setp.gt.u32 %p1, %r5, 1000;
    vote.sync.ballot.b32 %r6, %p1, -1;
    @%p1 bra BIG;
    add.s32 %r5, %r5, 7;
    bra JOIN;
BIG:
    mul.lo.s32 %r5, %r5, 3;
JOIN:
    activemask.b32 %r7;
    xor.b32 %r8, %r7, %r6;
    add.s32 %r8, %r8, %r5;
    st.global.u32 [%rd5], %r8;
    ret;
}

// `activemask` where only the lanes below 12 run it: the interpreter's 0xfff.
.visible .entry divergent(.param .u64 xs, .param .u64 out)
{
    .reg .pred %p<2>; .reg .b32 %r<8>; .reg .b64 %rd<8>;
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4; add.s64 %rd5, %rd2, %rd3;
    and.b32 %r2, %r1, 31;
    setp.ge.u32 %p1, %r2, 12;
    @%p1 bra DONE;
    activemask.b32 %r3;
    st.global.u32 [%rd5], %r3;
DONE:
    ret;
}

// `activemask` after a loop whose trip count differs between lanes.
.visible .entry after_loop(.param .u64 xs, .param .u64 out)
{
    .reg .pred %p<2>; .reg .b32 %r<8>; .reg .b64 %rd<8>;
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x; mov.u32 %r4, 0;
    mul.wide.u32 %rd3, %r1, 4; add.s64 %rd5, %rd2, %rd3;
LOOP:
    add.s32 %r4, %r4, 1;
    setp.lt.u32 %p1, %r4, %r1;
    @%p1 bra LOOP;
    activemask.b32 %r3;
    st.global.u32 [%rd5], %r3;
    ret;
}
"#;

#[test]
fn straight_line_activemask_is_the_whole_warp_compiled() {
    let setup = Setup::of(&format!("{HEADER}{KERNELS}"));
    let handle = setup.program.kernel("joined").unwrap();
    let compiled = compile(&setup.program, "joined", true);
    let (grid, block) = (3u32, 96u32);
    let xs: Vec<u32> = (0..grid * block).map(|i| (i * 37) % 2000).collect();
    let cfg = config(grid, block, 2);
    let input = common::le_bytes(&xs);
    let run = |c| setup.run_in_out((&handle, c), &cfg, &input, 4 * xs.len(), &[]);
    let interpreted = run(None);
    assert_eq!(interpreted, run(Some(&compiled)));
    assert_eq!(compiled.blocks_interpreted(), 0);
    // Thread 0: its word is 0 (not above 1000), so 0 + 7 beside the full mask.
    let ballot0 = (0..32u32)
        .filter(|&i| xs[i as usize] > 1000)
        .fold(0u32, |m, i| m | 1 << i);
    assert_eq!(interpreted[0], (0xffff_ffff ^ ballot0).wrapping_add(7));
}

#[test]
fn divergent_activemask_is_the_interpreters_partial_mask() {
    let setup = Setup::of(&format!("{HEADER}{KERNELS}"));
    let handle = setup.program.kernel("divergent").unwrap();
    let compiled = compile(&setup.program, "divergent", true);
    let cfg = config(2, 64, 2);
    let run = |c| setup.run_in_out((&handle, c), &cfg, &[0; 4], 4 * 64, &[]);
    let interpreted = run(None);
    assert_eq!(interpreted, run(Some(&compiled)));
    assert_eq!(interpreted[3], 0xfff);
    assert_eq!(interpreted[40], 0xfff);
    assert_eq!(interpreted[20], 0xeeee_eeee);
}

#[test]
fn activemask_after_a_loop_stays_interpreted() {
    let setup = Setup::of(&format!("{HEADER}{KERNELS}"));
    let handle = setup.program.kernel("after_loop").unwrap();
    let why = chevron_cpu_jit::CompiledKernel::compile(
        &setup.program,
        &handle,
        &chevron_cpu_jit::CompileOptions::default(),
    )
    .unwrap_err();
    assert!(why.contains("`Activemask` is not compiled"), "{why}");
}
