use super::*;
use ScalarType::{B32, B64, S32, S64, U32, U64};

#[test]
fn field_extract_and_insert() {
    assert_eq!(bfe(U32, 0x1234_5678, 8, 8), 0x56);
    assert_eq!(bfe(S32, 0x0000_8000, 8, 8), 0xffff_ff80);
    assert_eq!(bfe(S32, 0x8000_0000, 28, 8), 0xffff_fff8); // field runs past bit 31
    assert_eq!(bfe(U32, 0x8000_0000, 28, 8), 0x8);
    assert_eq!(bfe(S32, 0xffff_ffff, 40, 4), 0xffff_ffff); // pos past the top: sign fill
    assert_eq!(bfe(U32, 0xffff_ffff, 40, 4), 0);
    assert_eq!(bfe(S32, 0xffff_ffff, 4, 0), 0);
    assert_eq!(bfe(U32, 0xabcd, 0x104, 0x108), 0xbc); // low bytes only
    assert_eq!(bfe(S64, 1 << 63, 60, 10), u64::MAX - 7);
    assert_eq!(bfe(U64, u64::MAX, 0, 64), u64::MAX);
    // H200: 64-bit bfe does not reduce pos/len modulo 256 (pos 256 extracts nothing).
    assert_eq!(bfe(S64, 1, 0x100, 0xbf), 0);
    assert_eq!(bfe(S64, 1 << 63, 0x80_0000, 7), u64::MAX);
    assert_eq!(bfe(S64, 0x8000_0000, 1, 0xb274_fc11), 0x4000_0000);
    assert_eq!(bfi(B32, 0xff, 0, 8, 4), 0xf00);
    assert_eq!(bfi(B32, 0xff, 0xffff_ffff, 30, 8), 0xffff_ffff);
    assert_eq!(bfi(B32, 0, 0xffff_ffff, 30, 8), 0x3fff_ffff);
    assert_eq!(bfi(B32, 5, 7, 32, 8), 7);
    assert_eq!(bfi(B64, 1, 0, 63, 1), 1 << 63);
}

#[test]
fn permute() {
    let (a, b) = (0x3322_1100, 0x7766_5544);
    assert_eq!(prmt(a, b, 0x3210, None), a);
    assert_eq!(prmt(a, b, 0x7654, None), b);
    assert_eq!(prmt(a, b, 0x0123, None), 0x0011_2233);
    assert_eq!(prmt(0x0000_0080, 0, 0x8888, None), 0xffff_ffff); // sign replication
    assert_eq!(prmt(a, b, 1, Some("f4e")), 0x4433_2211);
    assert_eq!(prmt(a, b, 0, Some("b4e")), 0x5566_7700);
    assert_eq!(prmt(a, b, 3, Some("b4e")), 0x0011_2233);
    assert_eq!(prmt(a, b, 2, Some("rc8")), 0x2222_2222);
    assert_eq!(prmt(a, b, 1, Some("ecl")), 0x3322_1111);
    assert_eq!(prmt(a, b, 2, Some("ecr")), 0x2222_1100);
    assert_eq!(prmt(a, b, 1, Some("rc16")), 0x3322_3322);
    assert_eq!(prmt(a, b, 0, Some("rc16")), 0x1100_1100);
    assert_eq!(PrmtMode::from_word(Some("xyz")), None);
}

#[test]
fn counting() {
    assert_eq!(brev(B32, 1), 0x8000_0000);
    assert_eq!(brev(B64, 0x2), 1 << 62);
    assert_eq!(clz(B32, 0), 32);
    assert_eq!(clz(B32, 0x0001_0000), 15);
    assert_eq!(clz(B64, 1), 63);
    assert_eq!(popc(B32, 0xffff_ffff_0000_000f), 4);
    assert_eq!(popc(B64, u64::MAX), 64);
    assert_eq!(bfind(U32, 0, false), u32::MAX);
    assert_eq!(bfind(U32, 0x10, false), 4);
    assert_eq!(bfind(U32, 0x10, true), 27);
    assert_eq!(bfind(S32, 0xffff_ffff, false), u32::MAX); // -1: no non-sign bit
    assert_eq!(bfind(S32, 0xffff_fff0, false), 3);
    assert_eq!(bfind(S32, 0x7fff_ffff, false), 30);
    assert_eq!(bfind(S64, 1 << 40, true), 23);
    assert_eq!(bfind(U64, 1 << 63, false), 63);
}

#[test]
fn find_nth_set() {
    let m = 0b1011_0100u32; // bits 2, 4, 5, 7
    assert_eq!(fns(m, 0, 1), 2);
    assert_eq!(fns(m, 0, 3), 5);
    assert_eq!(fns(m, 4, 1), 4); // base inclusive
    assert_eq!(fns(m, 3, 4), u32::MAX);
    assert_eq!(fns(m, 7, -1), 7);
    assert_eq!(fns(m, 6, -2), 4);
    assert_eq!(fns(m, 6, -4), u32::MAX);
    assert_eq!(fns(m, 4, 0), 4);
    assert_eq!(fns(m, 3, 0), u32::MAX);
    assert_eq!(fns(u32::MAX, 31, -32), 0);
    assert_eq!(fns(u32::MAX, 0, 32), 31);
    assert_eq!(fns(m, 32, 1), u32::MAX);
}

#[test]
fn logic_and_shifts() {
    let (a, b, c) = (0xf0f0_f0f0, 0xcccc_cccc, 0xaaaa_aaaa);
    assert_eq!(lop3(a, b, c, 0xf0), a);
    assert_eq!(lop3(a, b, c, 0xcc), b);
    assert_eq!(lop3(a, b, c, 0xaa), c);
    assert_eq!(lop3(a, b, c, 0x80), a & b & c);
    assert_eq!(lop3(a, b, c, 0x96), a ^ b ^ c);
    assert_eq!(lop3(a, b, c, 0xe8), (a & b) | (a & c) | (b & c));
    assert_eq!(lop3(a, b, c, 0), 0);
    assert_eq!(shf(0x8000_0000, 0x1, 1, true, false), 0x3);
    assert_eq!(shf(0x1, 0x1, 1, false, false), 0x8000_0000);
    assert_eq!(shf(0xaaaa, 0xbbbb, 32, true, true), 0xaaaa);
    assert_eq!(shf(0xaaaa, 0xbbbb, 32, false, true), 0xbbbb);
    assert_eq!(shf(0xaaaa, 0xbbbb, 33, true, false), 0x1_7776);
    assert_eq!(shf(0xaaaa, 0xbbbb, 0, false, false), 0xaaaa);
    assert_eq!(bmsk(4, 4, false), 0xf0);
    assert_eq!(bmsk(28, 8, true), 0xf000_0000);
    assert_eq!(bmsk(0, 40, true), 0xffff_ffff);
    assert_eq!(bmsk(33, 1, false), 0x2);
    assert_eq!(bmsk(40, 1, true), 0);
    assert_eq!(szext(0xff, 8, true, true), 0xffff_ffff);
    assert_eq!(szext(0x7f, 8, true, true), 0x7f);
    assert_eq!(szext(0x1ff, 8, false, true), 0xff);
    assert_eq!(szext(0x1ff, 40, false, true), 0x1ff);
    assert_eq!(szext(0x1ff, 32, false, false), 0);
    assert_eq!(bfe(S32, 0, 0, 1), 0);
    assert_eq!(bfe(U32, 0xf, 0, 40), 0xf);
    let _ = S64;
}
