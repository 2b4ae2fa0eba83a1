//! Code objects on the CPU device: the PTX inside nvcc fatbins runs; cubins are refused clearly.

mod cpu_support;

use std::path::Path;

use chevron::code_object::{CodeObject, CodeObjectKind, IN_MEMORY};
use chevron::Error;
use cpu_support::{device, launch, read_u32, Arg};

fn corpus(path: &str) -> Vec<u8> {
    let full = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../corpus")
        .join(path);
    std::fs::read(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

/// Runs the fatbin's `saxpy(float a, const float *x, float *y, int n)` on 100 elements.
fn run_saxpy(code: CodeObject) {
    let device = device();
    let module = device.load_module(&code).unwrap();
    let saxpy = module.function("saxpy").unwrap();
    let stream = device.create_stream().unwrap();
    let n = 100u32;
    let x: Vec<u8> = (0..n).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let y: Vec<u8> = (0..n).flat_map(|_| 1.0f32.to_le_bytes()).collect();
    let dx = device.alloc(x.len() as u64).unwrap();
    let dy = device.alloc(y.len() as u64).unwrap();
    stream.copy_to_device(dx, &x).unwrap();
    stream.copy_to_device(dy, &y).unwrap();
    let args = [Arg::F32(3.0), Arg::U64(dx), Arg::U64(dy), Arg::U32(n)];
    launch(&stream, &saxpy, 1, 128, &args).unwrap();
    let result = read_u32(&stream, dy, n as usize).unwrap();
    for (i, bits) in result.iter().enumerate() {
        assert_eq!(f32::from_bits(*bits), 3.0 * i as f32 + 1.0, "element {i}");
    }
}

#[test]
fn the_ptx_of_a_compressed_fatbin_runs() {
    let bytes = corpus("nvcc/elementwise.sm_80.sm_90.compute_90.fatbin");
    run_saxpy(CodeObject::read_as(
        CodeObjectKind::Fatbin,
        bytes,
        IN_MEMORY,
    ));
}

#[test]
fn a_fatbin_read_without_saying_its_kind_or_as_a_cubin_runs() {
    let bytes = corpus("nvcc/elementwise.sm_80.sm_90.compute_90.fatbin");
    run_saxpy(CodeObject::read(bytes.clone(), IN_MEMORY));
    run_saxpy(CodeObject::read_as(CodeObjectKind::Cubin, bytes, IN_MEMORY));
}

#[test]
fn a_cubin_is_refused_with_a_clear_error() {
    let bytes = corpus("cubin/elementwise.sm_80.cubin");
    let err = device()
        .load_module(&CodeObject::read(bytes, IN_MEMORY))
        .err()
        .unwrap();
    assert!(matches!(err, Error::CodeObject { .. }), "{err}");
    assert!(err.to_string().contains("runs PTX"), "{err}");
}

#[test]
fn a_fatbin_without_ptx_or_damaged_is_refused() {
    let fatbin = corpus("nvcc/elementwise.sm_80.sm_90.compute_90.fatbin");
    let err = device()
        .load_module(&CodeObject::read_as(
            CodeObjectKind::Fatbin,
            &fatbin[..40],
            IN_MEMORY,
        ))
        .err()
        .unwrap();
    assert!(matches!(err, Error::CodeObject { .. }), "{err}");
    let err = device()
        .load_module(&CodeObject::read_as(
            CodeObjectKind::Fatbin,
            &b"not a fatbin at all"[..],
            IN_MEMORY,
        ))
        .err()
        .unwrap();
    assert!(matches!(err, Error::CodeObject { .. }), "{err}");
}
