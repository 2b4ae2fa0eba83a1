//! Interpreter tests: instructions whose GPU results need the numeric library's dedicated
//! functions (values measured on an H200, see `tests/data/numeric_probe_h200.txt`).

mod interp_common;

use interp_common::*;

const F64_OPS: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry f64_ops(.param .u64 in, .param .u64 in32, .param .u64 out)
{
    .reg .f32 %f<4>;
    .reg .f64 %d<8>;
    .reg .b64 %rd<4>;

    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [in32];
    ld.param.u64 %rd3, [out];
    ld.global.f64 %d1, [%rd1];
    ld.global.f64 %d2, [%rd1+8];
    ld.global.f64 %d3, [%rd1+16];
    rsqrt.approx.ftz.f64 %d4, %d1;
    abs.f64 %d5, %d2;
    neg.f64 %d6, %d3;
    st.global.f64 [%rd3], %d4;
    st.global.f64 [%rd3+8], %d5;
    st.global.f64 [%rd3+16], %d6;
    ld.global.f32 %f1, [%rd2];
    ld.global.f32 %f2, [%rd2+4];
    mul.rn.ftz.f32 %f3, %f1, %f2;
    st.global.f32 [%rd3+24], %f3;
    ret;
}
"#;

#[test]
fn f64_sign_ops_rsqrt_ftz_and_mul_ftz_match_the_gpu() {
    let (memory, program) = load(F64_OPS);
    let words = |v: u64| [v as u32, (v >> 32) as u32];
    let input: Vec<u32> = [1u64, 0xfff8_0000_0000_0000, 0x7ff0_0000_0000_0001]
        .into_iter()
        .flat_map(words)
        .collect();
    let din = upload_u32(&memory, &input);
    let din32 = upload_u32(&memory, &[0x0080_0000, 0x3f7f_ffff]);
    let dout = upload_u32(&memory, &[0; 8]);
    let kernel = program.kernel("f64_ops").unwrap();
    let params = Params::new().u64(din).u64(din32).u64(dout).build(&kernel);
    program
        .launch(&kernel, &config([1, 1, 1], [1, 1, 1], 1), &params)
        .unwrap();
    let out = download_u64(&memory, dout, 4);
    // rsqrt.approx.ftz.f64 flushes the subnormal input: +inf.
    assert_eq!(out[0], 0x7ff0_0000_0000_0000);
    // abs.f64 and neg.f64 of a NaN: quieted, sign unchanged.
    assert_eq!(out[1], 0xfff8_0000_0000_0000);
    assert_eq!(out[2], 0x7ff8_0000_0000_0001);
    // mul.rn.ftz.f32 of 2^-126 × (1 − 2^-24): tiny before rounding, flushed to +0.
    assert_eq!(out[3] as u32, 0);
}
