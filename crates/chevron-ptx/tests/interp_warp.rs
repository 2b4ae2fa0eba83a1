//! Interpreter tests: warp collectives and divergence.

mod interp_common;

use interp_common::*;

/// Writes one row of 32 results per collective: out[row * 32 + lane].
const WARP: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry collectives(.param .u64 out)
{
    .reg .pred %p<6>;
    .reg .b32 %r<20>;
    .reg .b64 %rd<6>;

    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %laneid;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    add.u32 %r2, %r1, 1;

    // row 0: butterfly sum of lane+1 over the full warp
    shfl.sync.bfly.b32 %r3, %r2, 16, 31, -1;
    add.u32 %r3, %r3, %r2;
    shfl.sync.bfly.b32 %r4, %r3, 8, 31, -1;
    add.u32 %r3, %r3, %r4;
    shfl.sync.bfly.b32 %r4, %r3, 4, 31, -1;
    add.u32 %r3, %r3, %r4;
    shfl.sync.bfly.b32 %r4, %r3, 2, 31, -1;
    add.u32 %r3, %r3, %r4;
    shfl.sync.bfly.b32 %r4, %r3, 1, 31, -1;
    add.u32 %r3, %r3, %r4;
    st.global.u32 [%rd3], %r3;

    // row 1: ballot of odd lanes
    and.b32 %r5, %r1, 1;
    setp.eq.u32 %p1, %r5, 1;
    vote.sync.ballot.b32 %r6, %p1, -1;
    st.global.u32 [%rd3+128], %r6;

    // row 2: vote.any(lane == 5) * 2 + vote.all(lane < 32) + 4 * vote.uni(odd)
    setp.eq.u32 %p2, %r1, 5;
    vote.sync.any.pred %p3, %p2, -1;
    setp.lt.u32 %p2, %r1, 32;
    vote.sync.all.pred %p4, %p2, -1;
    vote.sync.uni.pred %p5, %p1, -1;
    selp.u32 %r7, 2, 0, %p3;
    selp.u32 %r8, 1, 0, %p4;
    add.u32 %r7, %r7, %r8;
    selp.u32 %r8, 4, 0, %p5;
    add.u32 %r7, %r7, %r8;
    st.global.u32 [%rd3+256], %r7;

    // row 3: match.any of lane & 3
    and.b32 %r9, %r1, 3;
    match.any.sync.b32 %r10, %r9, -1;
    st.global.u32 [%rd3+384], %r10;

    // row 4: redux.sync.add of lane, row 5: redux.sync.min.s32 of (10 - lane)
    redux.sync.add.u32 %r11, %r1, -1;
    st.global.u32 [%rd3+512], %r11;
    sub.s32 %r12, 10, %r1;
    redux.sync.min.s32 %r13, %r12, -1;
    st.global.u32 [%rd3+640], %r13;

    // row 6: activemask inside a branch taken by lanes < 10 (others write 0)
    mov.u32 %r14, 0;
    setp.ge.u32 %p1, %r1, 10;
    @%p1 bra SKIP;
    activemask.b32 %r14;
SKIP:
    st.global.u32 [%rd3+768], %r14;

    // row 7: shfl.up by 1 with its predicate: value from lane-1, or 1000 + lane when invalid
    shfl.sync.up.b32 %r15|%p2, %r1, 1, 0, -1;
    add.u32 %r16, %r1, 1000;
    selp.u32 %r15, %r15, %r16, %p2;
    st.global.u32 [%rd3+896], %r15;

    // row 8: elect.sync leader
    elect.sync %r17|%p3, -1;
    selp.u32 %r18, 1, 0, %p3;
    add.u32 %r17, %r17, %r18;
    st.global.u32 [%rd3+1024], %r17;
    ret;
}
"#;

#[test]
fn warp_collectives_over_the_full_warp() {
    let (memory, program) = load(WARP);
    let out = upload_u32(&memory, &[0; 32 * 9]);
    let kernel = program.kernel("collectives").unwrap();
    let params = Params::new().u64(out).build(&kernel);
    program
        .launch(&kernel, &config([1, 1, 1], [32, 1, 1], 1), &params)
        .unwrap();
    let r = download_u32(&memory, out, 32 * 9);
    let row = |k: usize| &r[k * 32..(k + 1) * 32];
    assert!(row(0).iter().all(|&v| v == 528), "{:?}", row(0));
    assert!(row(1).iter().all(|&v| v == 0xAAAA_AAAA));
    assert!(row(2).iter().all(|&v| v == 3));
    for lane in 0..32 {
        assert_eq!(
            row(3)[lane],
            0x1111_1111 << (lane & 3),
            "match.any lane {lane}"
        );
        assert_eq!(row(4)[lane], 496);
        assert_eq!(row(5)[lane] as i32, 10 - 31);
        assert_eq!(
            row(6)[lane],
            if lane < 10 { 0x3ff } else { 0 },
            "activemask lane {lane}"
        );
        let up = if lane == 0 { 1000 } else { lane as u32 - 1 };
        assert_eq!(row(7)[lane], up, "shfl.up lane {lane}");
        assert_eq!(
            row(8)[lane],
            if lane == 0 { 1 } else { 0 },
            "elect lane {lane}"
        );
    }
}

/// Lanes 16..31 exit; the rest reduce with a 16-lane member mask and 16-wide segments.
const PARTIAL: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry partial(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;

    mov.u32 %r1, %tid.x;
    and.b32 %r1, %r1, 31;
    setp.ge.u32 %p1, %r1, 16;
    @%p1 exit;
    add.u32 %r2, %r1, 1;
    mov.u32 %r3, 8;
LOOP:
    shfl.sync.down.b32 %r4, %r2, %r3, 4127, 65535;
    add.u32 %r2, %r2, %r4;
    shr.u32 %r3, %r3, 1;
    setp.ne.u32 %p1, %r3, 0;
    @%p1 bra LOOP;
    ld.param.u64 %rd1, [out];
    mov.u32 %r5, %tid.x;
    mul.wide.u32 %rd2, %r5, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
"#;

#[test]
fn shuffle_reduction_with_a_partial_member_mask() {
    let (memory, program) = load(PARTIAL);
    let out = upload_u32(&memory, &[0; 64]);
    let kernel = program.kernel("partial").unwrap();
    let params = Params::new().u64(out).build(&kernel);
    program
        .launch(&kernel, &config([1, 1, 1], [64, 1, 1], 1), &params)
        .unwrap();
    let r = download_u32(&memory, out, 64);
    assert_eq!(r[0], 136);
    assert_eq!(r[32], 136);
    assert_eq!(r[16], 0);
}

/// Divergent halves each run a full-mask shuffle: the warp must reconverge to exchange values.
const DIVERGENT: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry diverge(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;

    mov.u32 %r1, %laneid;
    and.b32 %r2, %r1, 1;
    setp.eq.u32 %p1, %r2, 0;
    @%p1 bra EVEN;
    mul.lo.u32 %r3, %r1, 100;
    bra JOIN;
EVEN:
    mul.lo.u32 %r3, %r1, 10;
JOIN:
    shfl.sync.idx.b32 %r4, %r3, 3, 31, -1;
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r4;
    ret;
}
"#;

#[test]
fn divergent_paths_reconverge_before_a_collective() {
    let (memory, program) = load(DIVERGENT);
    let out = upload_u32(&memory, &[0; 32]);
    let kernel = program.kernel("diverge").unwrap();
    let params = Params::new().u64(out).build(&kernel);
    let report = program
        .launch(&kernel, &config([1, 1, 1], [32, 1, 1], 1), &params)
        .unwrap();
    assert!(download_u32(&memory, out, 32).iter().all(|&v| v == 300));
    // Reconverged: the shuffle and everything after it ran once for 32 lanes.
    assert!(
        report.lane_instructions < 32 * 16,
        "{}",
        report.lane_instructions
    );
}

/// Every lane takes a global spin lock (held by a lane of the same warp while the others spin).
const SPIN_LOCK: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry locked(.param .u64 lock, .param .u64 counter)
{
    .reg .pred %p1;
    .reg .b32 %r<4>;
    .reg .b64 %rd<3>;

    ld.param.u64 %rd1, [lock];
    ld.param.u64 %rd2, [counter];
SPIN:
    atom.global.cas.b32 %r1, [%rd1], 0, 1;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra SPIN;
    ld.volatile.global.u32 %r2, [%rd2];
    add.u32 %r2, %r2, 1;
    st.volatile.global.u32 [%rd2], %r2;
    membar.gl;
    atom.global.exch.b32 %r3, [%rd1], 0;
    ret;
}
"#;

#[test]
fn lanes_spinning_on_a_lock_held_by_their_own_warp_make_progress() {
    for threads in [1, 2] {
        let (memory, program) = load(SPIN_LOCK);
        let (lock, counter) = (upload_u32(&memory, &[0]), upload_u32(&memory, &[0]));
        let kernel = program.kernel("locked").unwrap();
        let params = Params::new().u64(lock).u64(counter).build(&kernel);
        program
            .launch(&kernel, &config([4, 1, 1], [64, 1, 1], threads), &params)
            .unwrap();
        assert_eq!(download_u32(&memory, counter, 1)[0], 4 * 64);
    }
}
