//! Interpreter tests: atomics across blocks running on several host threads.

mod interp_common;

use interp_common::*;

const ATOMICS: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry atomics(.param .u64 counters)
{
    .reg .pred %p<3>;
    .reg .b32 %r<16>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<8>;
    .shared .align 4 .u32 block_sum;

    ld.param.u64 %rd1, [counters];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;

    // [0] += 1 for every thread
    atom.global.add.u32 %r5, [%rd1], 1;
    // [1] = max(global id)
    atom.global.max.s32 %r6, [%rd1+4], %r4;
    // [2]: inc wrapping at 99
    atom.global.inc.u32 %r7, [%rd1+8], 99;
    // [3]: f32 add of 0.5
    mov.f32 %f1, 0f3F000000;
    red.global.add.f32 [%rd1+12], %f1;
    // [4..5]: u64 add through a compare-and-swap loop
    add.s64 %rd2, %rd1, 16;
CAS:
    ld.volatile.global.u64 %rd3, [%rd2];
    add.s64 %rd4, %rd3, 3;
    atom.global.cas.b64 %rd5, [%rd2], %rd3, %rd4;
    setp.ne.s64 %p1, %rd5, %rd3;
    @%p1 bra CAS;
    // [6]: per-block shared sum, added once per block
    setp.ne.u32 %p2, %r1, 0;
    @%p2 bra WAIT;
    st.shared.u32 [block_sum], 0;
WAIT:
    bar.sync 0;
    atom.shared.add.u32 %r8, [block_sum], %r1;
    bar.sync 0;
    @%p2 bra DONE;
    ld.shared.u32 %r9, [block_sum];
    atom.add.u32 %r10, [%rd1+24], %r9;
    // [7]: exch records some block id; [8]: or of block bits (first 32 blocks)
    atom.global.exch.b32 %r11, [%rd1+28], %r2;
    and.b32 %r12, %r2, 31;
    mov.u32 %r13, 1;
    shl.b32 %r13, %r13, %r12;
    atom.global.or.b32 %r14, [%rd1+32], %r13;
DONE:
    ret;
}
"#;

#[test]
fn atomics_are_atomic_across_concurrent_blocks() {
    for threads in [1, 2, 4] {
        let (memory, program) = load(ATOMICS);
        let counters = upload_u32(&memory, &[0; 10]);
        let kernel = program.kernel("atomics").unwrap();
        let params = Params::new().u64(counters).build(&kernel);
        let (blocks, per_block) = (64u32, 128u32);
        program
            .launch(
                &kernel,
                &config([blocks, 1, 1], [per_block, 1, 1], threads),
                &params,
            )
            .unwrap();
        let r = download_u32(&memory, counters, 10);
        let total = blocks * per_block;
        assert_eq!(r[0], total);
        assert_eq!(r[1], total - 1);
        assert_eq!(r[2], total % 100);
        assert_eq!(f32::from_bits(r[3]), total as f32 * 0.5);
        assert_eq!(
            download_u64(&memory, counters + 16, 1)[0],
            3 * u64::from(total)
        );
        assert_eq!(r[6], blocks * (per_block * (per_block - 1) / 2));
        assert!(r[7] < blocks);
        assert_eq!(r[8], u32::MAX);
    }
}
