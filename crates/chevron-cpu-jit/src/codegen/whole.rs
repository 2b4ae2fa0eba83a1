//! A vector access (`ld.v2`, `st.v4` …) of 8 or 16 bytes as one host access, as the
//! interpreter and the hardware make it: a decoupled look-back's (status, value) descriptor
//! published with one `st.v2.u64` is never read half written by another block's
//! `ld.v2.u64` (element by element, a reader on another worker saw the new status beside the
//! old value now and then: CUB's run-length encoding gave a wrong run).

use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::FunctionBuilder;

/// The host type of `count` elements of `bits` in 8 or 16 bytes.
fn whole_type(bits: u8, count: usize) -> Type {
    match (u32::from(bits) * count as u32, bits) {
        (64, _) => types::I64,
        (_, 64) => types::I64X2,
        _ => types::I32X4,
    }
}

/// The integer type of one element of `bits`.
fn part_type(bits: u8) -> Type {
    Type::int(u16::from(bits)).unwrap_or(types::I64)
}

/// Loads `count` elements of `bits` at `host` with one access; each element in its own type.
pub(super) fn load_parts(
    b: &mut FunctionBuilder<'_>,
    flags: MemFlagsData,
    host: Value,
    bits: u8,
    count: usize,
) -> Vec<Value> {
    let ty = whole_type(bits, count);
    let whole = b.ins().load(ty, flags, host, 0);
    (0..count)
        .map(|k| {
            if ty.is_vector() {
                b.ins().extractlane(whole, k as u8)
            } else {
                let shifted = b.ins().ushr_imm_u(whole, i64::from(bits) * k as i64);
                let part = part_type(bits);
                if part == types::I64 {
                    shifted
                } else {
                    b.ins().ireduce(part, shifted)
                }
            }
        })
        .collect()
}

/// `values` (64-bit, or each element's own width) packed into the one value a store of
/// 8 or 16 bytes writes.
pub(super) fn packed(b: &mut FunctionBuilder<'_>, values: &[Value], bits: u8) -> Value {
    let ty = whole_type(bits, values.len());
    let part = part_type(bits);
    let narrow = |b: &mut FunctionBuilder<'_>, v: Value| {
        let from = b.func.dfg.value_type(v);
        if from.is_float() {
            let int = Type::int(from.bits() as u16).unwrap_or(types::I64);
            let v = b.ins().bitcast(int, MemFlagsData::new(), v);
            return narrowed(b, v, part);
        }
        narrowed(b, v, part)
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
        let x = if part == types::I64 {
            x
        } else {
            b.ins().uextend(types::I64, x)
        };
        let x = b.ins().ishl_imm_u(x, i64::from(bits) * k as i64);
        whole = b.ins().bor(whole, x);
    }
    whole
}

/// `v` (an integer) in type `part`.
fn narrowed(b: &mut FunctionBuilder<'_>, v: Value, part: Type) -> Value {
    let from = b.func.dfg.value_type(v);
    match from.bits().cmp(&part.bits()) {
        std::cmp::Ordering::Greater => b.ins().ireduce(part, v),
        std::cmp::Ordering::Less => b.ins().uextend(part, v),
        std::cmp::Ordering::Equal => v,
    }
}
