//! Interpreter tests: special registers over 3-D grids, producer/consumer barriers with
//! `bar.arrive`, the stack instructions, address-space predicates, carries, `brx.idx`.

mod interp_common;

use interp_common::*;

const MISC: &str = r#"
.version 8.0
.target sm_80
.address_size 64

// out[linear thread id * 8 + k]
.visible .entry specials(.param .u64 out)
{
    .reg .b32 %r<20>;
    .reg .b64 %rd<6>;

    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %tid.y;
    mov.u32 %r3, %tid.z;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %ntid.y;
    mov.u32 %r6, %ctaid.x;
    mov.u32 %r7, %ctaid.y;
    mov.u32 %r8, %ctaid.z;
    mov.u32 %r9, %nctaid.x;
    mov.u32 %r10, %nctaid.y;
    // linear block = (z * ny + y) * nx + x; linear thread in block = (tz * nty + ty) * ntx + tx
    mad.lo.u32 %r11, %r8, %r10, %r7;
    mad.lo.u32 %r11, %r11, %r9, %r6;
    mad.lo.u32 %r12, %r3, %r5, %r2;
    mad.lo.u32 %r12, %r12, %r4, %r1;
    mov.u32 %r13, %ntid.z;
    mul.lo.u32 %r14, %r4, %r5;
    mul.lo.u32 %r14, %r14, %r13;
    mad.lo.u32 %r15, %r11, %r14, %r12;
    mul.wide.u32 %rd1, %r15, 32;
    ld.param.u64 %rd2, [out];
    add.s64 %rd3, %rd2, %rd1;
    st.global.v4.u32 [%rd3], {%r1, %r2, %r3, %r6};
    mov.u32 %r16, %laneid;
    mov.u32 %r17, %warpid;
    mov.u32 %r18, %lanemask_lt;
    mov.u32 %r19, %nctaid.z;
    st.global.v4.u32 [%rd3+16], {%r16, %r17, %r18, %r19};
    ret;
}

// Warp 0 produces into shared memory and arrives; warp 1 waits at the same barrier, consumes.
.visible .entry producer_consumer(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .shared .align 4 .b8 data[128];

    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 31;
    shl.b32 %r3, %r2, 2;
    mov.u32 %r4, data;
    add.u32 %r4, %r4, %r3;
    setp.ge.u32 %p1, %r1, 32;
    @%p1 bra CONSUMER;
    mul.lo.u32 %r5, %r2, %r2;
    st.shared.u32 [%r4], %r5;
    bar.arrive 3, 64;
    ret;
CONSUMER:
    bar.sync 3, 64;
    ld.shared.u32 %r6, [%r4];
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r6;
    ret;
}

// alloca, stacksave/stackrestore, isspacep, 64-bit add through carries, brx.idx.
.visible .entry odds_and_ends(.param .u64 out)
{
    .reg .pred %p<4>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<12>;
    .shared .align 4 .b8 sh[4];

    ld.param.u64 %rd1, [out];
    stacksave.u64 %rd2;
    alloca.u64 %rd3, 64, 16;
    cvta.local.u64 %rd4, %rd3;
    mov.u32 %r1, 1234;
    st.u32 [%rd4+60], %r1;
    ld.local.u32 %r2, [%rd3+60];
    stackrestore.u64 %rd2;
    st.global.u32 [%rd1], %r2;
    isspacep.local %p1, %rd4;
    isspacep.global %p2, %rd1;
    mov.u64 %rd5, sh;
    cvta.shared.u64 %rd6, %rd5;
    isspacep.shared %p3, %rd6;
    selp.u32 %r3, 1, 0, %p1;
    selp.u32 %r4, 2, 0, %p2;
    selp.u32 %r5, 4, 0, %p3;
    add.u32 %r3, %r3, %r4;
    add.u32 %r3, %r3, %r5;
    st.global.u32 [%rd1+4], %r3;
    // 0x00000001_ffffffff + 0x00000002_00000003 through 32-bit halves
    mov.u32 %r6, -1;
    mov.u32 %r7, 1;
    mov.u32 %r8, 3;
    mov.u32 %r9, 2;
    add.cc.u32 %r10, %r6, %r8;
    addc.u32 %r11, %r7, %r9;
    st.global.v2.u32 [%rd1+8], {%r10, %r11};
    mov.u32 %r12, 2;
    ts: .branchtargets L0, L1, L2;
    brx.idx %r12, ts;
L0:
    mov.u32 %r13, 100;
    bra END;
L1:
    mov.u32 %r13, 101;
    bra END;
L2:
    mov.u32 %r13, 102;
END:
    st.global.u32 [%rd1+16], %r13;
    ret;
}
"#;

#[test]
fn special_registers_over_a_3d_grid() {
    let (memory, program) = load(MISC);
    let (grid, block) = ([2u32, 3, 2], [4u32, 2, 3]);
    let total = (2 * 3 * 2 * 4 * 2 * 3) as usize;
    let out = upload_u32(&memory, &vec![0; total * 8]);
    let kernel = program.kernel("specials").unwrap();
    let params = Params::new().u64(out).build(&kernel);
    program
        .launch(&kernel, &config(grid, block, 2), &params)
        .unwrap();
    let r = download_u32(&memory, out, total * 8);
    let mut seen = 0;
    for bz in 0..2 {
        for by in 0..3 {
            for bx in 0..2 {
                for tz in 0..3 {
                    for ty in 0..2 {
                        for tx in 0..4 {
                            let block_id = (bz * 3 + by) * 2 + bx;
                            let thread = (tz * 2 + ty) * 4 + tx;
                            let at = (block_id * 24 + thread) as usize * 8;
                            assert_eq!(&r[at..at + 4], &[tx, ty, tz, bx]);
                            let lane = thread % 32;
                            assert_eq!(
                                &r[at + 4..at + 8],
                                &[lane, thread / 32, (1u32 << lane) - 1, 2]
                            );
                            seen += 1;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(seen, total);
}

#[test]
fn bar_arrive_lets_a_producer_run_on() {
    let (memory, program) = load(MISC);
    let out = upload_u32(&memory, &[0; 32]);
    let kernel = program.kernel("producer_consumer").unwrap();
    let params = Params::new().u64(out).build(&kernel);
    program
        .launch(&kernel, &config([1, 1, 1], [64, 1, 1], 1), &params)
        .unwrap();
    let r = download_u32(&memory, out, 32);
    for (lane, v) in r.iter().enumerate() {
        assert_eq!(*v, (lane * lane) as u32);
    }
}

#[test]
fn stack_instructions_space_predicates_carries_and_indexed_branches() {
    let (memory, program) = load(MISC);
    let out = upload_u32(&memory, &[0; 5]);
    let kernel = program.kernel("odds_and_ends").unwrap();
    let params = Params::new().u64(out).build(&kernel);
    program
        .launch(&kernel, &config([1, 1, 1], [1, 1, 1], 1), &params)
        .unwrap();
    assert_eq!(download_u32(&memory, out, 5), vec![1234, 7, 2, 4, 102]);
}

const MBARRIER: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry mbar(.param .u64 out)
{
    .reg .pred %p<4>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<6>;
    .shared .align 8 .b64 bar;
    .shared .align 4 .b8 data[256];

    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra SKIP;
    mbarrier.init.shared.b64 [bar], 64;
SKIP:
    bar.sync 0;
    mov.u32 %r3, data;
    shl.b32 %r2, %r1, 2;
    add.u32 %r4, %r3, %r2;
    st.shared.u32 [%r4], %r1;
    mbarrier.arrive.shared.b64 %rd1, [bar];
WAIT:
    mbarrier.test_wait.shared.b64 %p2, [bar], %rd1;
    @!%p2 bra WAIT;
    xor.b32 %r5, %r1, 63;
    shl.b32 %r5, %r5, 2;
    add.u32 %r5, %r3, %r5;
    ld.shared.u32 %r6, [%r5];
    ld.param.u64 %rd2, [out];
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r6;
    mbarrier.try_wait.parity.shared.b64 %p3, [bar], 0;
    selp.u32 %r7, 1, 0, %p3;
    st.global.u32 [%rd4+256], %r7;
    ret;
}
"#;

#[test]
fn mbarrier_phases_order_shared_memory_between_warps() {
    let (memory, program) = load(MBARRIER);
    let out = upload_u32(&memory, &[7; 128]);
    let kernel = program.kernel("mbar").unwrap();
    let params = Params::new().u64(out).build(&kernel);
    program
        .launch(&kernel, &config([2, 1, 1], [64, 1, 1], 1), &params)
        .unwrap();
    let r = download_u32(&memory, out, 128);
    for t in 0..64 {
        assert_eq!(r[t], 63 - t as u32, "thread {t}");
        assert_eq!(r[64 + t], 1, "parity wait of thread {t}");
    }
}

const STRUCT_RETURN: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.func (.param .align 8 .b8 func_retval0[16]) make_pair(.param .b64 a, .param .b64 b)
{
    .reg .b64 %rd<3>;
    ld.param.b64 %rd1, [a];
    ld.param.b64 %rd2, [b];
    st.param.b64 [func_retval0+0], %rd1;
    st.param.b64 [func_retval0+8], %rd2;
    ret;
}

.visible .entry pairs(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b16 %h<3>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<6>;
    mov.u64 %rd1, 1111;
    mov.u64 %rd2, 2222;
    {
    .param .b64 param0;
    st.param.b64 [param0], %rd1;
    .param .b64 param1;
    st.param.b64 [param1], %rd2;
    .param .align 8 .b8 retval0[16];
    call.uni (retval0), make_pair, (param0, param1);
    ld.param.b64 %rd3, [retval0+0];
    ld.param.b64 %rd4, [retval0+8];
    }
    ld.param.u64 %rd5, [out];
    st.global.v2.u64 [%rd5], {%rd3, %rd4};
    mov.f32 %f1, 0fC0400000;
    mov.f32 %f2, 0f40000000;
    max.xorsign.abs.f32 %f3, %f1, %f2;
    st.global.f32 [%rd5+16], %f3;
    mov.b16 %h1, 0x4000;
    ex2.approx.f16 %h2, %h1;
    st.global.b16 [%rd5+20], %h2;
    ret;
}
"#;

#[test]
fn sixteen_byte_struct_returns_xorsign_and_half_exponentials() {
    let (memory, program) = load(STRUCT_RETURN);
    let out = upload_u32(&memory, &[0; 6]);
    let kernel = program.kernel("pairs").unwrap();
    let params = Params::new().u64(out).build(&kernel);
    program
        .launch(&kernel, &config([1, 1, 1], [1, 1, 1], 1), &params)
        .unwrap();
    assert_eq!(download_u64(&memory, out, 2), vec![1111, 2222]);
    let r = download_u32(&memory, out, 6);
    // max(|-3|, |2|) = 3 with sign(-3) xor sign(2) = negative.
    assert_eq!(f32::from_bits(r[4]), -3.0);
    // ex2(2.0) = 4.0 in f16 (0x4400).
    assert_eq!(r[5] & 0xffff, 0x4400);
}
