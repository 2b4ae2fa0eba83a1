//! Sizes, alignments and offsets of variables and parameters, laid out as the CUDA driver does.

use crate::ir::{Initializer, Param, ScalarType, Variable};

/// Byte size of one element of a declared type (`.pred` counts as 1).
pub(crate) fn element_size(ty: ScalarType) -> u64 {
    u64::from(ty.size())
}

/// Size in bytes of a parameter (element × vector × array dimensions).
pub(crate) fn param_size(param: &Param) -> u64 {
    let dims = param
        .array
        .iter()
        .fold(1u64, |acc, d| acc.saturating_mul(d.unwrap_or(0)));
    (element_size(param.ty) * u64::from(param.vector.unwrap_or(1))).saturating_mul(dims)
}

/// Alignment of a parameter: its `.align`, else its element (vector) size.
pub(crate) fn param_align(param: &Param) -> u64 {
    param
        .align
        .map(u64::from)
        .unwrap_or_else(|| element_size(param.ty) * u64::from(param.vector.unwrap_or(1)))
        .max(1)
}

/// Size of a variable; an unsized array (`[]`) has size 0.
pub(crate) fn variable_size(var: &Variable) -> u64 {
    let dims = var
        .array
        .iter()
        .fold(1u64, |acc, d| acc.saturating_mul(d.unwrap_or(0)));
    (element_size(var.ty) * u64::from(var.vector.unwrap_or(1))).saturating_mul(dims)
}

/// Alignment of a variable: its `.align`, else its element (vector) size.
pub(crate) fn variable_align(var: &Variable) -> u64 {
    var.align
        .map(u64::from)
        .unwrap_or_else(|| element_size(var.ty) * u64::from(var.vector.unwrap_or(1)))
        .max(1)
}

/// Whether a variable is an unsized array (`extern .shared .b8 smem[];`).
pub(crate) fn is_unsized(var: &Variable) -> bool {
    var.array.iter().any(Option::is_none)
}

/// Lays out parameters in order: each at the next multiple of its alignment. Returns the offsets
/// and the total size.
pub(crate) fn layout_params(params: &[Param]) -> (Vec<(u64, u64)>, u64) {
    let mut offset = 0u64;
    let mut slots = Vec::with_capacity(params.len());
    for param in params {
        // Sizes come from the module: saturate, the caller checks the total.
        offset = offset
            .checked_next_multiple_of(param_align(param))
            .unwrap_or(u64::MAX);
        let size = param_size(param);
        slots.push((offset, size));
        offset = offset.saturating_add(size);
    }
    (slots, offset)
}

/// Writes an initializer's bytes into `out`, each leaf `element` bytes wide. `address_of`
/// resolves symbols (variables and functions) to addresses; an unknown symbol is an error.
pub(crate) fn initializer_bytes(
    init: &Initializer,
    ty: ScalarType,
    out: &mut Vec<u8>,
    address_of: &dyn Fn(&str, bool) -> Option<u64>,
) -> Result<(), String> {
    let width = element_size(ty) as usize;
    match init {
        Initializer::Immediate(imm) => {
            let bits = super::immediate_bits(*imm, ty);
            out.extend_from_slice(&bits.to_le_bytes()[..width.min(8)]);
        }
        Initializer::Address {
            symbol,
            generic,
            offset,
        } => {
            let addr = address_of(symbol, *generic)
                .ok_or_else(|| format!("initializer names unknown symbol `{symbol}`"))?;
            let value = addr.wrapping_add(*offset as u64);
            out.extend_from_slice(&value.to_le_bytes()[..width.min(8)]);
        }
        Initializer::Array(items) => {
            for item in items {
                initializer_bytes(item, ty, out, address_of)?;
            }
        }
        Initializer::Mask { mask, value } => {
            // `0xFF00(x)`: the selected bytes of the 64-bit value, shifted down.
            let mut whole = Vec::with_capacity(8);
            initializer_bytes(value, ScalarType::U64, &mut whole, address_of)?;
            whole.resize(8, 0);
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(&whole[..8]);
            let masked = (u64::from_le_bytes(bytes) & mask) >> mask.trailing_zeros().min(63);
            out.extend_from_slice(&masked.to_le_bytes()[..width.min(8)]);
        }
    }
    Ok(())
}
