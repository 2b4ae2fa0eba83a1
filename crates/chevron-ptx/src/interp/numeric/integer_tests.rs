use super::*;
use crate::interp::numeric::oracle::Rng;
use ScalarType::{S16x2, U16x2, S16, S32, S64, S8, U16, U32, U64};

#[test]
fn products() {
    assert_eq!(mul_hi(U32, 0xffff_ffff, 0xffff_ffff), 0xffff_fffe);
    assert_eq!(mul_hi(S32, 0xffff_ffff, 0xffff_ffff), 0); // -1 · -1 = 1
    assert_eq!(mul_hi(S32, 0x8000_0000, 2), 0xffff_ffff);
    assert_eq!(mul_hi(U64, u64::MAX, u64::MAX), u64::MAX - 1);
    assert_eq!(mul_hi(S64, u64::MAX, 5), u64::MAX); // -5 >> 64 = -1
    assert_eq!(mul_hi(S16, 0x8000, 0x8000), 0x4000);
    assert_eq!(mul_wide(S32, 0xffff_fffe, 3), (-6i64) as u64);
    assert_eq!(
        mul_wide(U32, 0xffff_ffff, 0xffff_ffff),
        0xffff_fffe_0000_0001
    );
    assert_eq!(mul_wide(S16, 0xffff, 0xffff), 1);
    assert_eq!(mul_wide(U16, 0xffff, 2), 0x1_fffe);
    assert_eq!(mul_lo(U32, 0x1_0000_0003, 0x1_0000_0005), 15);
    assert_eq!(mad_lo(S32, 0xffff_ffff, 3, 5), 2);
    assert_eq!(mad_hi(U32, 0xffff_ffff, 0xffff_ffff, 3, false), 0x1);
    assert_eq!(
        mad_hi(S32, 0x7fff_ffff, 0x7fff_ffff, 0x7fff_ffff, true),
        0x7fff_ffff
    );
    assert_eq!(mad_wide(S32, 0xffff_ffff, 2, 10), 8);
    assert_eq!(mul24(U32, 0xff00_0002, 3, false), 6);
    assert_eq!(mul24(S32, 0x00ff_ffff, 0x00ff_ffff, false), 1); // -1 · -1
    assert_eq!(mul24(U32, 0xff_ffff, 0xff_ffff, true), 0xffff_fe00);
    assert_eq!(mul24(S32, 0x80_0000, 0x7f_ffff, true), 0xc000_0080);
    assert_eq!(mad24(U32, 2, 3, 4, false, false), 10);
    assert_eq!(
        mad24(S32, 0x7f_ffff, 0x7f_ffff, 0x7fff_ffff, true, true),
        0x7fff_ffff
    );
}

#[test]
fn products_match_wide_arithmetic() {
    let mut rng = Rng(17);
    for _ in 0..10_000 {
        let (a, b) = (rng.next(), rng.next());
        let s = (a as i32 as i64) * (b as i32 as i64);
        assert_eq!(mul_hi(S32, a, b), (s >> 32) as u32 as u64);
        assert_eq!(mul_wide(S32, a, b), s as u64);
        let u = (a as u32 as u64) * (b as u32 as u64);
        assert_eq!(mul_hi(U32, a, b), u >> 32);
        assert_eq!(mul_hi(U64, a, b), ((a as u128 * b as u128) >> 64) as u64);
        assert_eq!(
            mul_hi(S64, a, b),
            ((a as i64 as i128 * b as i64 as i128) >> 64) as u64
        );
    }
}

#[test]
fn division() {
    assert_eq!(div_int(U32, 7, 2), 3);
    assert_eq!(
        div_int(S32, (-7i32) as u32 as u64, 2),
        (-3i32) as u32 as u64
    );
    assert_eq!(
        rem_int(S32, (-7i32) as u32 as u64, 2),
        (-1i32) as u32 as u64
    );
    assert_eq!(div_int(S32, 0x8000_0000, 0xffff_ffff), 0x8000_0000);
    assert_eq!(rem_int(S32, 0x8000_0000, 0xffff_ffff), 0);
    assert_eq!(div_int(U32, 5, 0), 0xffff_ffff);
    assert_eq!(div_int(S64, 5, 0), u64::MAX);
    assert_eq!(rem_int(U16, 5, 0x1_0000), 0xffff); // divisor's low 16 bits are 0
    assert_eq!(div_int(S8, 0x80, 0xff), 0x80);
    assert_eq!(rem_int(U64, u64::MAX, 10), 5);
}

#[test]
fn min_max_abs_neg_lanes() {
    assert_eq!(min_int(S32, 0xffff_ffff, 1), 0xffff_ffff);
    assert_eq!(min_int(U32, 0xffff_ffff, 1), 1);
    assert_eq!(max_int(S64, 0, u64::MAX), 0);
    assert_eq!(max_int(S16x2, 0x8000_0001, 0x0001_8000), 0x0001_0001);
    assert_eq!(min_int(U16x2, 0x8000_0001, 0x0001_8000), 0x0001_0001);
    assert_eq!(relu_int(S16x2, 0x8000_0005), 0x0000_0005);
    assert_eq!(relu_int(S32, 0xffff_fff0), 0);
    assert_eq!(add_int(U16x2, 0xffff_0001, 0x0001_ffff), 0);
    assert_eq!(sub_int(S16x2, 0, 0x0001_0001), 0xffff_ffff);
    assert_eq!(abs_int(S32, 0x8000_0000), 0x8000_0000);
    assert_eq!(abs_int(S16, 0xfffe), 2);
    assert_eq!(neg_int(S32, 1), 0xffff_ffff);
    assert_eq!(add_sat_s32(i32::MAX, 1), i32::MAX);
    assert_eq!(sub_sat_s32(i32::MIN, 1), i32::MIN);
}

#[test]
fn carries_and_shifts() {
    assert_eq!(add_carry(U32, 0xffff_ffff, 1, false), (0, true));
    assert_eq!(add_carry(U32, 0xffff_ffff, 0, true), (0, true));
    assert_eq!(add_carry(U64, 1, 2, true), (4, false));
    assert_eq!(sub_borrow(U32, 0, 1, false), (0xffff_ffff, true));
    assert_eq!(sub_borrow(U32, 5, 4, true), (0, false));
    assert_eq!(sub_borrow(U64, 5, 5, true), (u64::MAX, true));
    assert_eq!(shl(U32, 1, 31), 0x8000_0000);
    assert_eq!(shl(U32, 1, 32), 0);
    assert_eq!(shl(U16, 0xffff, 4), 0xfff0);
    assert_eq!(shr(S32, 0x8000_0000, 40), 0xffff_ffff);
    assert_eq!(shr(S32, 0x8000_0000, 4), 0xf800_0000);
    assert_eq!(shr(U32, 0x8000_0000, 40), 0);
    assert_eq!(shr(S16, 0x8000, 100), 0xffff);
    assert_eq!(shr(S64, 1 << 63, 1000), u64::MAX);
}

#[test]
fn sad_and_dot_products() {
    assert_eq!(sad(U32, 3, 10, 1), 8);
    assert_eq!(sad(S32, (-3i32) as u32 as u64, 4, 1), 8);
    assert_eq!(dp4a(0x0102_0304, 0x0101_0101, 10, false, false), 20);
    assert_eq!(
        dp4a(0xff00_0000, 0x0200_0000, 0, true, false),
        (-2i32) as u32
    );
    assert_eq!(dp4a(0xff00_0000, 0xff00_0000, 0, false, false), 0xfe01);
    assert_eq!(
        dp2a(0x0002_0003, 0x0504_0302, 1, false, false, false),
        1 + 3 * 2 + 2 * 3
    );
    assert_eq!(
        dp2a(0x0002_0003, 0x0504_0302, 1, true, false, false),
        1 + 3 * 4 + 2 * 5
    );
    assert_eq!(dp2a(0xffff_0001, 0x0000_ff01, 0, false, true, true), 1 + 1);
}

#[test]
fn helpers() {
    assert_eq!(width(U16x2), 32);
    assert_eq!(sext(S8, 0x1ff), -1);
    assert_eq!(mask(U16, 0x1_2345), 0x2345);
    assert_eq!(value(S16, 0x8000), -32768);
}

#[test]
fn atomic_wrapping_counters() {
    assert_eq!(atom_inc(0, 3), 1);
    assert_eq!(atom_inc(3, 3), 0);
    assert_eq!(atom_inc(7, 3), 0);
    assert_eq!(atom_inc(u32::MAX - 1, u32::MAX), u32::MAX);
    assert_eq!(atom_dec(0, 3), 3);
    assert_eq!(atom_dec(2, 3), 1);
    assert_eq!(atom_dec(9, 3), 3);
    assert_eq!(atom_dec(3, 3), 2);
}

#[test]
fn saturating_lanes() {
    assert_eq!(add_sat_int(S32, 0x7fff_ffff, 1), 0x7fff_ffff);
    assert_eq!(add_sat_int(U32, 0xffff_fff0, 0x20), 0xffff_ffff);
    assert_eq!(add_sat_int(S16x2, 0x7fff_8000, 0x0001_ffff), 0x7fff_8000);
    assert_eq!(add_sat_int(U16x2, 0xffff_0001, 0x0001_0001), 0xffff_0002);
    assert_eq!(sub_sat_int(S32, 0x8000_0000, 1), 0x8000_0000);
    assert_eq!(sub_sat_int(U32, 1, 2), 0);
    assert_eq!(sub_sat_int(S64, 5, 7), (-2i64) as u64);
}

#[test]
fn cvt_pack_saturates_each_part_and_shifts_c_in_above() {
    // u8: 300 clamps to 255, -5 to 0; c's low 16 bits above them.
    assert_eq!(
        cvt_pack_sat(8, false, 300, -5i32 as u32, 0xabcd),
        0xabcd_ff00
    );
    // s8: -200 to -128 (0x80), 100 stays; c shifted out past bit 31 is gone.
    assert_eq!(
        cvt_pack_sat(8, true, -200i32 as u32, 100, 0x1_0002),
        0x0002_8064
    );
    // u16 and s16: no c.
    assert_eq!(cvt_pack_sat(16, false, 70_000, 7, 0xffff_ffff), 0xffff_0007);
    assert_eq!(
        cvt_pack_sat(16, true, -40_000i32 as u32, 40_000, 0),
        0x8000_7fff
    );
    assert_eq!(
        cvt_pack_sat(16, true, -1i32 as u32, -2i32 as u32, 0),
        0xffff_fffe
    );
}
