use super::*;

fn r32(x: f64, mode: Mode) -> f32 {
    f32::from_bits(round_f64(x, 0.0, F32, mode, false) as u32)
}

#[test]
fn nearest_matches_hardware_cast() {
    let mut s = 0x1234_5678_9abc_def0u64;
    for _ in 0..20000 {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let x = f64::from_bits(s);
        if x.is_nan() {
            continue;
        }
        assert_eq!(
            r32(x, Mode::NearestEven).to_bits(),
            (x as f32).to_bits(),
            "{x:e}"
        );
    }
}

#[test]
fn directed_bracket_the_value() {
    for x in [
        1.0 + 1e-9,
        -1.0 - 1e-9,
        3.0e-45,
        -3.0e-45,
        1e39,
        -1e39,
        0.1,
        -0.1,
    ] {
        let (d, n, u, z) = (
            r32(x, Mode::Down),
            r32(x, Mode::NearestEven),
            r32(x, Mode::Up),
            r32(x, Mode::TowardZero),
        );
        assert!(d as f64 <= x && x <= u as f64, "{x:e}");
        assert!(d <= n && n <= u);
        assert_eq!(z, if x > 0.0 { d } else { u });
    }
    assert_eq!(r32(1e39, Mode::TowardZero), f32::MAX);
    assert_eq!(r32(1e39, Mode::NearestEven), f32::INFINITY);
    assert_eq!(r32(1e-50, Mode::Up), f32::from_bits(1));
    assert_eq!(r32(-1e-50, Mode::Up).to_bits(), 0x8000_0000);
}

#[test]
fn tail_breaks_ties() {
    // 1 + 2^-24 is the midpoint between 1 and 1 + 2^-23.
    let mid = 1.0 + pow2(-24);
    let up = round_f64(mid, 1e-30, F32, Mode::NearestEven, false);
    let down = round_f64(mid, -1e-30, F32, Mode::NearestEven, false);
    assert_eq!(f32::from_bits(up as u32), 1.0 + f32::EPSILON);
    assert_eq!(f32::from_bits(down as u32), 1.0);
    // An exact f32 with a negative tail rounds down toward zero.
    let z = round_f64(2.0, -1e-30, F32, Mode::TowardZero, false);
    assert_eq!(f32::from_bits(z as u32), 2.0f32.next_down());
}

#[test]
fn formats_decode_and_saturate() {
    assert_eq!(E4M3.to_f64(0x7e), 448.0);
    assert!(E4M3.to_f64(0x7f).is_nan());
    assert_eq!(E5M2.to_f64(0x7b), 57344.0);
    assert_eq!(F16.to_f64(0x0001), pow2(-24));
    assert_eq!(round_f64(500.0, 0.0, E4M3, Mode::NearestEven, true), 0x7e);
    assert_eq!(round_f64(500.0, 0.0, E4M3, Mode::NearestEven, false), 0x7f);
    assert_eq!(round_f64(1e6, 0.0, F16, Mode::NearestEven, false), 0x7c00);
    assert_eq!(round_f64(-1e6, 0.0, F16, Mode::NearestEven, true), 0xfbff);
}
