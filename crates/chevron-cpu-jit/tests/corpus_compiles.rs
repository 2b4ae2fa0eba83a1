//! Every kernel of every PTX file of the repository's `corpus/` (nvcc, NVRTC, clang at -O0 and
//! -O3, MLIR, Triton) through the compiler: each one compiles or is refused with a reason that
//! names what keeps it interpreted, never a compiler failure; and most compile.

use std::sync::Arc;

mod common;

use chevron_cpu_jit::CompiledKernel;
use chevron_ptx::interp::{DeviceMemory, Program};
use common::{corpus, ptx_files};

#[test]
fn corpus_kernels_compile_or_name_what_keeps_them_interpreted() {
    let root = corpus();
    let files = ptx_files(&root);
    assert!(
        files.len() > 50,
        "the corpus is missing under {}",
        root.display()
    );
    let (mut compiled, mut refused, mut failures) = (0, 0, Vec::new());
    for file in &files {
        let bytes = std::fs::read(file).unwrap();
        let module = chevron_ptx::parse_bytes(&bytes).expect("the corpus parses");
        let memory = Arc::new(DeviceMemory::new(0));
        // Files the CPU device cannot load at all (tensor-core `wgmma`, ...) are the loader's
        // business, tested elsewhere.
        let Ok(program) = Program::load(&module, &memory) else {
            continue;
        };
        let program = Arc::new(program);
        for name in program.kernel_names() {
            let kernel = program.kernel(name).unwrap();
            match CompiledKernel::compile(
                &program,
                &kernel,
                &chevron_cpu_jit::CompileOptions::default(),
            ) {
                Ok(kernel) => {
                    compiled += 1;
                    // A four-wide form refused for a reason, not for a compiler failure.
                    if let Err(why) = kernel.vector() {
                        if why.contains("failed") {
                            failures.push(format!("{}: {name}: {why}", file.display()));
                        }
                    }
                }
                Err(why) if why.contains("failed") => {
                    failures.push(format!("{}: {name}: {why}", file.display()))
                }
                Err(_) => refused += 1,
            }
        }
    }
    eprintln!("{compiled} kernels compiled, {refused} refused");
    assert!(
        failures.is_empty(),
        "compiler failures:\n{}",
        failures.join("\n")
    );
    assert!(
        compiled > 3 * refused,
        "{compiled} kernels compiled, {refused} refused"
    );
}
