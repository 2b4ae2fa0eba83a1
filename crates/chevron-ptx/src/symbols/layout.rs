//! Sizes, alignments and offsets of parameters and module-scope variables.
//!
//! Kernel parameters are laid out in the parameter buffer the way the CUDA driver lays them out:
//! each parameter is placed at the next offset that is a multiple of its alignment, in declaration
//! order. A parameter's size is element size × vector width × array elements; its alignment is
//! the `.align` written in the declaration, or the natural alignment of its element (a vector
//! aligns to its whole size), whichever is larger.

use crate::ir::{Param, Variable};

/// Where one kernel (or function) parameter lives in the parameter buffer.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ParamLayout {
    /// The parameter's name as declared (may be empty when unknown, e.g. from a cubin).
    pub name: String,
    /// Byte offset from the start of the parameter buffer.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// Alignment in bytes (at least 1).
    pub align: u32,
}

impl ParamLayout {
    /// The first byte after this parameter.
    pub fn end(&self) -> u32 {
        self.offset.saturating_add(self.size)
    }
}

/// Size and alignment of an element of `ty` with an optional vector width.
fn element_size_align(elem: u32, vector: Option<u8>) -> (u64, u32) {
    let lanes = u32::from(vector.unwrap_or(1).max(1));
    let size = u64::from(elem) * u64::from(lanes);
    // A vector aligns to its whole size (`.v4 .f32` to 16, `.v2 .f64` to 16).
    let align = elem.saturating_mul(lanes).max(1);
    (size, align)
}

/// Number of array elements; an unsized dimension (`p[]`) counts as zero.
fn array_elements(dims: &[Option<u64>]) -> u64 {
    dims.iter()
        .map(|d| d.unwrap_or(0))
        .fold(1u64, |acc, d| acc.saturating_mul(d))
}

/// Size in bytes and alignment of a parameter declaration.
pub fn param_size_align(param: &Param) -> (u32, u32) {
    let (elem, natural) = element_size_align(param.ty.size(), param.vector);
    let size = elem.saturating_mul(array_elements(&param.array));
    let align = param.align.unwrap_or(1).max(natural).max(1);
    (u32::try_from(size).unwrap_or(u32::MAX), align)
}

/// Size in bytes and alignment of a variable declaration (unsized arrays have size 0).
pub fn variable_size_align(var: &Variable) -> (u64, u32) {
    let (elem, natural) = element_size_align(var.ty.size(), var.vector);
    let size = elem.saturating_mul(array_elements(&var.array));
    (size, var.align.unwrap_or(1).max(natural).max(1))
}

/// Rounds `offset` up to a multiple of `align` (any `align` ≥ 1, not only powers of two).
pub fn align_up(offset: u32, align: u32) -> u32 {
    let align = align.max(1);
    offset.div_ceil(align).saturating_mul(align)
}

/// Lays out parameters in declaration order, as the driver does for a kernel's parameter buffer.
pub fn layout_params(params: &[Param]) -> Vec<ParamLayout> {
    let mut offset = 0u32;
    params
        .iter()
        .map(|p| {
            let (size, align) = param_size_align(p);
            let at = align_up(offset, align);
            offset = at.saturating_add(size);
            ParamLayout {
                name: p.name.clone(),
                offset: at,
                size,
                align,
            }
        })
        .collect()
}

/// Total size of a parameter buffer: the end of its last parameter (0 when there are none).
pub fn buffer_size(layout: &[ParamLayout]) -> u32 {
    layout.iter().map(ParamLayout::end).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{ScalarType, StateSpace};

    fn param(ty: ScalarType, align: Option<u32>, vector: Option<u8>, array: &[u64]) -> Param {
        Param {
            space: StateSpace::Param,
            align,
            ty,
            vector,
            array: array.iter().map(|&n| Some(n)).collect(),
            ptr: None,
            name: "p".into(),
        }
    }

    #[test]
    fn scalars_structs_vectors_and_arrays() {
        let params = [
            param(ScalarType::U32, None, None, &[]),
            param(ScalarType::U64, None, None, &[]),
            param(ScalarType::B8, Some(8), None, &[24]),
            param(ScalarType::U8, None, None, &[]),
            param(ScalarType::F32, None, Some(4), &[]),
            param(ScalarType::U16, None, None, &[3]),
        ];
        let got: Vec<_> = layout_params(&params)
            .iter()
            .map(|l| (l.offset, l.size, l.align))
            .collect();
        assert_eq!(
            got,
            [
                (0, 4, 4),
                (8, 8, 8),
                (16, 24, 8),
                (40, 1, 1),
                (48, 16, 16),
                (64, 6, 2)
            ]
        );
        assert_eq!(buffer_size(&layout_params(&params)), 70);
    }

    #[test]
    fn odd_alignments_do_not_panic() {
        assert_eq!(align_up(5, 0), 5);
        assert_eq!(align_up(5, 3), 6);
        let huge = param(ScalarType::B64, None, None, &[u64::MAX, 4]);
        assert_eq!(param_size_align(&huge).0, u32::MAX);
    }
}
