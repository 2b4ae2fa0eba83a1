//! Running a pure per-lane function over a whole warp at once: operands are read as rows of 32
//! values, the function runs for every lane (it has no side effects, so inactive lanes only cost
//! time), and the results are written back for the active lanes. This keeps the inner loop free
//! of operand decoding and lets the compiler vectorise it.

use crate::interp::inst::Src;
use crate::interp::warp::Warp;

/// `d = f(a)` for the lanes of `mask`.
#[inline(always)]
pub(crate) fn map1(w: &mut Warp, mask: u32, d: u32, a: Src, f: impl Fn(u64) -> u64) {
    let ra = w.row(a);
    let out: [u64; 32] = std::array::from_fn(|l| f(ra[l]));
    w.write_row(d, mask, &out);
}

/// `d = f(a, b)` for the lanes of `mask`.
#[inline(always)]
pub(crate) fn map2(w: &mut Warp, mask: u32, d: u32, a: Src, b: Src, f: impl Fn(u64, u64) -> u64) {
    let (ra, rb) = (w.row(a), w.row(b));
    let out: [u64; 32] = std::array::from_fn(|l| f(ra[l], rb[l]));
    w.write_row(d, mask, &out);
}

/// `d = f(a, b, c)` for the lanes of `mask`.
#[inline(always)]
pub(crate) fn map3(
    w: &mut Warp,
    mask: u32,
    d: u32,
    a: Src,
    b: Src,
    c: Src,
    f: impl Fn(u64, u64, u64) -> u64,
) {
    let (ra, rb, rc) = (w.row(a), w.row(b), w.row(c));
    let out: [u64; 32] = std::array::from_fn(|l| f(ra[l], rb[l], rc[l]));
    w.write_row(d, mask, &out);
}
