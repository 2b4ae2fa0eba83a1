//! Interpreter tests: hand-written kernels run on the CPU device.

mod interp_common;

use interp_common::*;

const SAXPY: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry saxpy(
    .param .u32 n,
    .param .f32 a,
    .param .u64 x,
    .param .u64 y
)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<5>;
    .reg .b64 %rd<8>;

    ld.param.u32 %r1, [n];
    ld.param.f32 %f1, [a];
    ld.param.u64 %rd1, [x];
    ld.param.u64 %rd2, [y];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.s32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd3, %rd1;
    cvta.to.global.u64 %rd4, %rd2;
    mul.wide.s32 %rd5, %r5, 4;
    add.s64 %rd6, %rd3, %rd5;
    add.s64 %rd7, %rd4, %rd5;
    ld.global.f32 %f2, [%rd6];
    ld.global.f32 %f3, [%rd7];
    fma.rn.f32 %f4, %f1, %f2, %f3;
    st.global.f32 [%rd7], %f4;
DONE:
    ret;
}
"#;

#[test]
fn saxpy_computes_on_one_and_two_threads() {
    for threads in [1, 2] {
        let (memory, program) = load(SAXPY);
        let n = 1000u32;
        let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let y: Vec<f32> = (0..n).map(|i| (2 * i) as f32).collect();
        let dx = upload_f32(&memory, &x);
        let dy = upload_f32(&memory, &y);
        let kernel = program.kernel("saxpy").unwrap();
        let params = Params::new().u32(n).f32(3.0).u64(dx).u64(dy).build(&kernel);
        let report = program
            .launch(&kernel, &config([4, 1, 1], [256, 1, 1], threads), &params)
            .unwrap();
        let out = download_f32(&memory, dy, n as usize);
        for i in 0..n as usize {
            assert_eq!(out[i], 3.0 * x[i] + y[i], "element {i}");
        }
        assert!(report.lane_instructions > 1000 * 15);
    }
}

#[test]
fn programs_and_device_memory_are_shared_between_threads() {
    fn shareable<T: Send + Sync>(_: &T) {}
    let (memory, program) = load(SAXPY);
    shareable(&program);
    shareable(&*memory);
    // Launch the same program from two host threads at once.
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                let x = upload_f32(&memory, &[1.0; 64]);
                let y = upload_f32(&memory, &[2.0; 64]);
                let kernel = program.kernel("saxpy").unwrap();
                let params = Params::new().u32(64).f32(0.5).u64(x).u64(y).build(&kernel);
                program
                    .launch(&kernel, &config([1, 1, 1], [64, 1, 1], 1), &params)
                    .unwrap();
                assert!(download_f32(&memory, y, 64).iter().all(|&v| v == 2.5));
            });
        }
    });
}

#[test]
fn every_corpus_module_without_tma_loads() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let mut files = Vec::new();
    for dir in [
        "corpus/nvrtc/compute_80",
        "corpus/nvrtc/compute_90",
        "corpus/nvcc",
        "corpus/clang",
        "corpus/triton",
        "corpus/mlir",
        "crates/chevron-ptx/tests/data",
    ] {
        for entry in std::fs::read_dir(format!("{root}/{dir}"))
            .unwrap()
            .flatten()
        {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "ptx") {
                files.push(path);
            }
        }
    }
    assert!(files.len() > 40);
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let module = chevron_ptx::parse(&text).unwrap();
        let memory = std::sync::Arc::new(chevron_ptx::interp::DeviceMemory::new(0));
        match chevron_ptx::interp::Program::load(&module, &memory) {
            Ok(program) => assert!(!program.kernel_names().is_empty(), "{}", path.display()),
            Err(e) => assert!(
                e.message.contains("tensormap") || e.message.contains("TMA"),
                "{}: {e}",
                path.display()
            ),
        }
    }
}
