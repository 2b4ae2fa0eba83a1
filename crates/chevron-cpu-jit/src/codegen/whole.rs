//! One thread's access of several elements (`ld.v2`, `st.v4`, `ld.v4.u8` …) as one host access
//! of its whole size, as the interpreter and the hardware make it: a decoupled look-back's
//! (status, value) descriptor published with one `st.v2.u64` is never read half written by
//! another block's `ld.v2.u64` (element by element, a reader on another worker saw the new
//! status beside the old value now and then: CUB's run-length encoding gave a wrong run).
//! The scalar code uses it for 8- and 16-byte vectors, the vector code (`vector/elements.rs`)
//! for every access of its forms.

use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::FunctionBuilder;

/// The host type of `count` elements of `bits` (16 bytes at most): an integer of their total
/// size, or a vector of 16 bytes.
pub(crate) fn whole_type(bits: u8, count: usize) -> Type {
    match (u32::from(bits) * count as u32, bits) {
        (128, 64) => types::I64X2,
        (128, _) => types::I32X4,
        (total, _) => part_type(total as u8),
    }
}

/// The integer type of one element of `bits` (8 to 64).
pub(crate) fn part_type(bits: u8) -> Type {
    Type::int(u16::from(bits)).unwrap_or(types::I64)
}

/// Element `k` of `count` elements of `bits` held in `whole` (of [`whole_type`]), in its own
/// type ([`part_type`]).
pub(crate) fn parts(
    b: &mut FunctionBuilder<'_>,
    whole: Value,
    bits: u8,
    count: usize,
) -> Vec<Value> {
    let ty = b.func.dfg.value_type(whole);
    (0..count)
        .map(|k| {
            if ty.is_vector() {
                b.ins().extractlane(whole, k as u8)
            } else if ty.bits() > u32::from(bits) {
                let shifted = b.ins().ushr_imm_u(whole, i64::from(bits) * k as i64);
                b.ins().ireduce(part_type(bits), shifted)
            } else {
                whole
            }
        })
        .collect()
}

/// Loads `count` elements of `bits` at `host` with one access; each element in its own type.
pub(super) fn load_parts(
    b: &mut FunctionBuilder<'_>,
    flags: MemFlagsData,
    host: Value,
    bits: u8,
    count: usize,
) -> Vec<Value> {
    let whole = b.ins().load(whole_type(bits, count), flags, host, 0);
    parts(b, whole, bits, count)
}

/// `values` (integers of any width, or floats, one per element) packed into the one value of
/// [`whole_type`] a store writes.
pub(crate) fn packed(b: &mut FunctionBuilder<'_>, values: &[Value], bits: u8) -> Value {
    let ty = whole_type(bits, values.len());
    let part = part_type(bits);
    let narrow = |b: &mut FunctionBuilder<'_>, v: Value| {
        let from = b.func.dfg.value_type(v);
        let v = if from.is_float() {
            let int = Type::int(from.bits() as u16).unwrap_or(types::I64);
            b.ins().bitcast(int, MemFlagsData::new(), v)
        } else {
            v
        };
        resized(b, v, part)
    };
    if ty.is_vector() {
        let first = narrow(b, values[0]);
        let mut v = b.ins().scalar_to_vector(ty, first);
        for (k, &x) in values.iter().enumerate().skip(1) {
            let x = narrow(b, x);
            v = b.ins().insertlane(v, x, k as u8);
        }
        return v;
    }
    let mut whole = b.ins().iconst(types::I64, 0);
    for (k, &x) in values.iter().enumerate() {
        let x = narrow(b, x);
        let x = resized(b, x, types::I64);
        let x = b.ins().ishl_imm_u(x, i64::from(bits) * k as i64);
        whole = b.ins().bor(whole, x);
    }
    resized(b, whole, ty)
}

/// The integer `v` in type `to`: its low bits, or zero-extended.
fn resized(b: &mut FunctionBuilder<'_>, v: Value, to: Type) -> Value {
    let from = b.func.dfg.value_type(v);
    match from.bits().cmp(&to.bits()) {
        std::cmp::Ordering::Greater => b.ins().ireduce(to, v),
        std::cmp::Ordering::Less => b.ins().uextend(to, v),
        std::cmp::Ordering::Equal => v,
    }
}
