//! Interpreter tests: results that must equal NVIDIA's hardware where PTX leaves latitude or
//! nvcc relies on hardware behaviour (scripts/gpu/probes/collective_probe.h200.txt).

mod interp_common;

use interp_common::*;

/// Lanes 0..7 shuffle down by 16 and by 4 with the member mask 0xff; the other lanes skip.
const DIVERGED_SOURCE: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry diverged(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;

    mov.u32 %r1, %laneid;
    add.u32 %r2, %r1, 100;
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    setp.ge.u32 %p1, %r1, 8;
    @%p1 bra DONE;
    shfl.sync.down.b32 %r3, %r2, 16, 31, 255;
    st.global.u32 [%rd3], %r3;
    shfl.sync.down.b32 %r4, %r2, 4, 31, 255;
    st.global.u32 [%rd3+128], %r4;
    shfl.sync.up.b32 %r5, %r2, 2, 0, 255;
    st.global.u32 [%rd3+256], %r5;
DONE:
    ret;
}
"#;

#[test]
fn a_shuffle_from_a_lane_that_did_not_execute_it_reads_zero() {
    let (memory, program) = load(DIVERGED_SOURCE);
    let out = upload_u32(&memory, &[u32::MAX; 96]);
    let kernel = program.kernel("diverged").unwrap();
    let params = Params::new().u64(out).build(&kernel);
    program
        .launch(&kernel, &config([1, 1, 1], [32, 1, 1], 1), &params)
        .unwrap();
    let r = download_u32(&memory, out, 96);
    // The H200's answers (probe cases 0, 1 and 2).
    assert_eq!(r[..8], [0; 8]);
    assert_eq!(r[32..40], [104, 105, 106, 107, 0, 0, 0, 0]);
    assert_eq!(r[64..72], [100, 101, 100, 101, 102, 103, 104, 105]);
    assert!(r[8..32].iter().all(|&v| v == u32::MAX));
}

/// Warp-aggregated maxima: each lane's member mask is the lanes of its bucket (lane % 3).
const PER_LANE_MASK: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry buckets(.param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;

    mov.u32 %r1, %laneid;
    rem.u32 %r2, %r1, 3;
    match.any.sync.b32 %r3, %r2, -1;
    mul.lo.u32 %r4, %r1, 7;
    and.b32 %r4, %r4, 31;
    redux.sync.max.u32 %r5, %r4, %r3;
    redux.sync.add.u32 %r6, %r1, %r3;
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r5;
    st.global.u32 [%rd3+128], %r6;
    vote.sync.ballot.b32 %r7, 1, %r3;
    st.global.u32 [%rd3+256], %r7;
    ret;
}
"#;

#[test]
fn collectives_with_a_member_mask_per_lane_combine_each_lanes_own_mask() {
    let (memory, program) = load(PER_LANE_MASK);
    let out = upload_u32(&memory, &[0; 96]);
    let kernel = program.kernel("buckets").unwrap();
    let params = Params::new().u64(out).build(&kernel);
    program
        .launch(&kernel, &config([1, 1, 1], [32, 1, 1], 1), &params)
        .unwrap();
    let r = download_u32(&memory, out, 96);
    for lane in 0..32u32 {
        let bucket: Vec<u32> = (0..32).filter(|l| l % 3 == lane % 3).collect();
        let max = bucket.iter().map(|l| (l * 7) & 31).max().unwrap();
        let sum: u32 = bucket.iter().sum();
        let mask = bucket.iter().fold(0u32, |m, l| m | 1 << l);
        assert_eq!(r[lane as usize], max, "redux.max lane {lane}");
        assert_eq!(r[32 + lane as usize], sum, "redux.add lane {lane}");
        assert_eq!(r[64 + lane as usize], mask, "ballot lane {lane}");
    }
}

/// nvcc's shared addressing: a 32-bit register plus an offset whose sum wraps at 32 bits.
const WRAPPING_SHARED: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry wrap(.param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .shared .align 4 .b8 tile[256];

    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, tile;
    add.u32 %r4, %r3, %r2;
    st.shared.u32 [%r4], %r1;
    bar.sync 0;
    // tile + 4 * tid - 16 as (tile + 4 * tid + 0xfffffff0) + 16 ... the sum wraps to tid's slot
    add.u32 %r5, %r4, -64;
    ld.shared.u32 %r6, [%r5+64];
    sub.u32 %r5, %r3, 4096;
    ld.shared.u32 %r7, [%r5+4096];
    add.u32 %r6, %r6, %r7;
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r6;
    ret;
}
"#;

#[test]
fn shared_addresses_wrap_at_32_bits() {
    let (memory, program) = load(WRAPPING_SHARED);
    let out = upload_u32(&memory, &[0; 64]);
    let kernel = program.kernel("wrap").unwrap();
    let params = Params::new().u64(out).build(&kernel);
    program
        .launch(&kernel, &config([1, 1, 1], [64, 1, 1], 1), &params)
        .unwrap();
    let r = download_u32(&memory, out, 64);
    for (tid, &v) in r.iter().enumerate() {
        assert_eq!(v, tid as u32, "thread {tid}");
    }
}

/// `cp.async.bulk` into shared memory completing an mbarrier's transaction count; the
/// expecting arrival comes after the copy on odd blocks (a negative count in between).
const BULK: &str = r#"
.version 8.0
.target sm_90
.address_size 64

.visible .entry bulk(.param .u64 src, .param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<8>;
    .shared .align 128 .b8 buf[256];
    .shared .align 8 .b64 bar;

    mov.u32 %r1, %tid.x;
    mov.u32 %r2, bar;
    mov.u32 %r3, buf;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra WAIT0;
    mbarrier.init.shared::cta.b64 [%r2], 1;
WAIT0:
    bar.sync 0;
    ld.param.u64 %rd1, [src];
    @%p1 bra WAIT;
    mov.u32 %r9, %ctaid.x;
    and.b32 %r9, %r9, 1;
    setp.eq.u32 %p2, %r9, 1;
    @%p2 bra COPY_FIRST;
    mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], 256;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd1], 256, [%r2];
    bra WAIT;
COPY_FIRST:
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd1], 128, [%r2];
    mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], 256;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r3+128], [%rd1+128], 128, [%r2];
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;
    @!%p2 bra WAIT;
    shl.b32 %r4, %r1, 2;
    add.u32 %r5, %r3, %r4;
    ld.shared.u32 %r6, [%r5];
    ld.param.u64 %rd2, [out];
    mov.u32 %r7, %ctaid.x;
    mad.lo.u32 %r8, %r7, 64, %r1;
    mul.wide.u32 %rd3, %r8, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r6;
    ret;
}
"#;

#[test]
fn bulk_copies_complete_an_mbarrier_transaction_count() {
    let (memory, program) = load(BULK);
    let data: Vec<u32> = (0..64).map(|i| 1000 + i).collect();
    let src = upload_u32(&memory, &data);
    let out = upload_u32(&memory, &[0; 128]);
    let kernel = program.kernel("bulk").unwrap();
    let params = Params::new().u64(src).u64(out).build(&kernel);
    program
        .launch(&kernel, &config([2, 1, 1], [64, 1, 1], 1), &params)
        .unwrap();
    let r = download_u32(&memory, out, 128);
    assert_eq!(r[..64], data[..]);
    assert_eq!(r[64..], data[..]);
}
