//! Kernel parameters as the command line shows and checks them: each parameter's PTX type
//! (when the code object is PTX), the list of a file's kernels with their signatures, and the
//! check of a scalar `--arg` against its parameter's type.

use std::collections::HashMap;

use chevron::{Kernel, Symbol};
use chevron_ptx::ir::{self, FunctionKind, Item, ScalarType};

use crate::spec::ArgSpec;

/// The PTX types of every kernel's parameters, by kernel symbol name. Empty for cubins, and for
/// text that does not parse as PTX.
#[derive(Debug, Default)]
pub struct ParamTypes {
    kernels: HashMap<String, Vec<ir::Param>>,
}

impl ParamTypes {
    /// The parameter types declared in a parsed PTX module.
    pub fn from_module(module: &ir::Module) -> ParamTypes {
        let kernels = module
            .items
            .iter()
            .filter_map(|item| match item {
                Item::Function(f) if f.kind == FunctionKind::Entry => {
                    Some((f.name.clone(), f.params.clone()))
                }
                _ => None,
            })
            .collect();
        ParamTypes { kernels }
    }

    /// The PTX declaration of parameter `index` of `kernel`, when known.
    pub fn param(&self, kernel: &str, index: usize) -> Option<&ir::Param> {
        self.kernels.get(kernel)?.get(index)
    }

    /// How parameter `index` of `kernel` is typed, e.g. `.f32`, `.u64`, `.v2 .f32`, `.b8[16]`.
    pub fn type_text(&self, kernel: &str, index: usize) -> Option<String> {
        self.param(kernel, index).map(type_text)
    }
}

/// A PTX parameter type as written: `.v2 .f32`, `.b8[16]`, `.u64`.
fn type_text(param: &ir::Param) -> String {
    let vector = param.vector.map(|v| format!(".v{v} ")).unwrap_or_default();
    let dims: String = param
        .array
        .iter()
        .map(|d| d.map(|n| format!("[{n}]")).unwrap_or_else(|| "[]".into()))
        .collect();
    format!("{vector}.{}{dims}", param.ty.as_str())
}

/// One line per kernel of `symbols`: its name or signature, then each parameter (its PTX type
/// and name, or its size when the type is unknown).
pub fn kernel_listing<'s>(symbols: impl Iterator<Item = &'s Symbol>, types: &ParamTypes) -> String {
    let lines: Vec<String> = symbols
        .filter(|s| s.is_kernel())
        .map(|kernel| {
            let params: Vec<String> = kernel
                .params
                .iter()
                .enumerate()
                .map(|(i, p)| match types.type_text(&kernel.name, i) {
                    Some(ty) => format!("{ty} {}", p.name),
                    None => format!("{} bytes", p.size),
                })
                .collect();
            format!("  {}  ({})", kernel.display_name(), params.join(", "))
        })
        .collect();
    if lines.is_empty() {
        "  (no kernels)".into()
    } else {
        lines.join("\n")
    }
}

/// Checks argument `index` against the PTX type of the kernel's parameter `index`: a float for
/// a float parameter, an integer for an integer one, of the same size. Raw bits (`b32:…`) only
/// need the size; signedness is not checked (compilers declare `int` parameters `.u32`).
/// Arguments beyond the parameters, and parameters of unknown type, are left to the launch's
/// own count and size checks.
pub fn check_arg(
    types: &ParamTypes,
    kernel: &Kernel,
    index: usize,
    spec: &ArgSpec,
) -> Result<(), String> {
    check_param(types, (kernel.name(), kernel.display_name()), index, spec)
}

/// [`check_arg`] for the kernel of symbol name and display name `names`.
fn check_param(
    types: &ParamTypes,
    (name, display_name): (&str, &str),
    index: usize,
    spec: &ArgSpec,
) -> Result<(), String> {
    let Some(param) = types.param(name, index) else {
        return Ok(());
    };
    if !param.array.is_empty() || param.vector.is_some() {
        return Ok(());
    }
    let ty = param.ty;
    let (given, given_size, given_float) = match spec {
        ArgSpec::Scalar { ty: given, .. } if given.is_raw_bits() => {
            (given.to_string(), given.size() as u32, None)
        }
        ArgSpec::Scalar { ty: given, .. } => (
            given.to_string(),
            given.size() as u32,
            Some(given.is_float()),
        ),
        ArgSpec::Buffer { .. } | ArgSpec::AddressOf(_) => {
            ("a buffer address".into(), 8, Some(false))
        }
        ArgSpec::Bytes(_) => return Ok(()),
    };
    let param_float = if is_raw_bits(ty) {
        None
    } else {
        Some(ty.is_float())
    };
    let what = format!(
        "kernel `{display_name}`: parameter {index} (`{}`) is .{}",
        param.name,
        ty.as_str()
    );
    let bits = ty.size() * 8;
    if given_size != ty.size() {
        return Err(format!(
            "{what} ({} bytes), got {given} ({given_size} bytes)",
            ty.size()
        ));
    }
    match (param_float, given_float) {
        (Some(true), Some(false)) => Err(format!(
            "{what}, a floating-point number, got {given}; pass f{bits}:VALUE, or b{bits}:BITS \
             for raw bits"
        )),
        (Some(false), Some(true)) => Err(format!(
            "{what}, an integer, got {given}; pass i{bits}:VALUE or u{bits}:VALUE, or \
             b{bits}:BITS for raw bits"
        )),
        _ => Ok(()),
    }
}

fn is_raw_bits(ty: ScalarType) -> bool {
    matches!(
        ty,
        ScalarType::B8 | ScalarType::B16 | ScalarType::B32 | ScalarType::B64 | ScalarType::B128
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = ".version 8.0\n.target sm_80\n.address_size 64\n\
        .visible .entry saxpy(.param .f32 a, .param .u64 x, .param .u64 y, .param .u32 n, \
        .param .b32 bits, .param .align 4 .b8 s[8])\n{\n ret;\n}\n";

    fn setup() -> (ParamTypes, Symbol) {
        let module = chevron_ptx::parse(PTX).unwrap();
        let table = chevron::SymbolTable::from_module(&module);
        let kernel = table.kernels().next().unwrap().clone();
        (ParamTypes::from_module(&module), kernel)
    }

    fn check(index: usize, spec: &str) -> Result<(), String> {
        let (types, kernel) = setup();
        let names = (kernel.name.as_str(), kernel.display_name());
        check_param(&types, names, index, &ArgSpec::parse(spec).unwrap())
    }

    #[test]
    fn floats_integers_and_sizes_are_checked_against_the_ptx_type() {
        assert!(check(0, "f32:2").is_ok());
        let err = check(0, "i32:2").unwrap_err();
        assert!(
            err.contains("parameter 0 (`a`) is .f32") && err.contains("b32:BITS"),
            "{err}"
        );
        let err = check(3, "f32:1000").unwrap_err();
        assert!(
            err.contains("parameter 3 (`n`) is .u32, an integer"),
            "{err}"
        );
        assert!(check(3, "i32:-1").is_ok(), "signedness is not checked");
        assert!(check(3, "b32:0x3fc00000").is_ok());
        let err = check(3, "u64:1").unwrap_err();
        assert!(err.contains("(4 bytes), got u64 (8 bytes)"), "{err}");
        assert!(check(1, "f32[4]=zeros").is_ok());
        assert!(check(0, "f32[1]=zeros").is_err(), "a buffer for an .f32");
        assert!(check(4, "f32:1.5").is_ok(), ".b32 takes any 4 bytes");
        assert!(check(5, "bytes:0000000000000000").is_ok());
        assert!(
            check(9, "f32:1").is_ok(),
            "extra arguments are counted by the launch"
        );
    }

    #[test]
    fn listing_shows_types_and_names() {
        let (types, kernel) = setup();
        let listing = kernel_listing(std::iter::once(&kernel), &types);
        assert_eq!(
            listing,
            "  saxpy  (.f32 a, .u64 x, .u64 y, .u32 n, .b32 bits, .b8[8] s)"
        );
        let unknown = kernel_listing(std::iter::once(&kernel), &ParamTypes::default());
        assert!(unknown.contains("(4 bytes, 8 bytes"), "{unknown}");
    }
}
