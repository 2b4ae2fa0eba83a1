//! Every corpus kernel that compiles, launched compiled and interpreted on synthetic inputs, in
//! two variants: two blocks of 64 threads with small words (below 1000) behind every 8-byte
//! parameter and small values (16–63) in 4-byte ones; three blocks of 32×4 threads with any
//! 32-bit words and values of 200–455. The outcome must be the same (the same fault report,
//! or success with every buffer bit for bit the same). Complements the differential suite,
//! whose inputs are meaningful, with inputs no kernel was written for.

mod common;

use std::sync::Arc;

use chevron_cpu_jit::CompiledKernel;
use chevron_ptx::interp::{DeviceMemory, LaunchConfig, LaunchHooks, Program};
use common::{corpus, ptx_files, read_words, Rng};

const BUFFER_WORDS: usize = 16 * 1024;

/// How a launch ended, and the words of its buffers afterwards.
type Outcome = (Result<(), String>, Vec<Vec<u32>>);

/// Runs `kernel` of a fresh load of `module`, compiled or not, with inputs of `variant` (0 or
/// 1): the outcome and the buffers.
fn run(
    module: &chevron_ptx::ir::Module,
    kernel: &str,
    compiled: bool,
    variant: u32,
) -> Option<Outcome> {
    let memory = Arc::new(DeviceMemory::new(0));
    let program = Arc::new(Program::load(module, &memory).ok()?);
    let handle = program.kernel(kernel)?;
    let code = if compiled {
        Some(
            CompiledKernel::compile(
                &program,
                &handle,
                &chevron_cpu_jit::CompileOptions::default(),
            )
            .ok()?,
        )
    } else {
        None
    };
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut params = vec![0u8; handle.param_size as usize];
    let mut buffers = Vec::new();
    for &(offset, size) in &handle.params {
        let at = offset as usize..(offset + size) as usize;
        match size {
            8 => {
                let words: Vec<u8> = (0..BUFFER_WORDS)
                    .flat_map(|_| {
                        let word = (rng.next() >> 32) as u32;
                        (if variant == 0 { word % 1000 } else { word }).to_le_bytes()
                    })
                    .collect();
                let buffer = memory.alloc(words.len() as u64, 256).ok()?;
                memory.write(buffer, &words).ok()?;
                params[at].copy_from_slice(&buffer.to_le_bytes());
                buffers.push(buffer);
            }
            4 => {
                let value = if variant == 0 {
                    16 + rng.below(48)
                } else {
                    200 + rng.below(256)
                };
                params[at].copy_from_slice(&(value as u32).to_le_bytes())
            }
            _ => params[at].fill(1),
        }
    }
    let (grid, block) = if variant == 0 {
        ([2, 1, 1], [64, 1, 1])
    } else {
        ([3, 1, 1], [32, 4, 1])
    };
    let config = LaunchConfig {
        grid,
        block,
        dynamic_shared: 4096,
        threads: 1,
    };
    let outcome = match &code {
        Some(code) => code
            .launch(&config, &params, &LaunchHooks::default())
            .map(|_| ()),
        None => program.launch(&handle, &config, &params).map(|_| ()),
    }
    .map_err(|fault| fault.to_string());
    let contents = buffers
        .iter()
        .map(|&b| read_words(&memory, b, BUFFER_WORDS))
        .collect();
    Some((outcome, contents))
}

#[test]
fn corpus_kernels_on_synthetic_inputs_match_the_interpreter() {
    let root = corpus();
    let (mut compared, mut succeeded, mut mismatches) = (0, 0, Vec::new());
    for file in ptx_files(&root) {
        let bytes = std::fs::read(&file).unwrap();
        let module = chevron_ptx::parse_bytes(&bytes).expect("the corpus parses");
        let memory = Arc::new(DeviceMemory::new(0));
        let Ok(program) = Program::load(&module, &memory) else {
            continue;
        };
        for (kernel, variant) in program
            .kernel_names()
            .into_iter()
            .flat_map(|k| [(k, 0), (k, 1)])
        {
            let Some((got, got_buffers)) = run(&module, kernel, true, variant) else {
                continue; // Not compiled: nothing to compare.
            };
            let (want, want_buffers) = run(&module, kernel, false, variant).expect("interpreted");
            compared += 1;
            succeeded += usize::from(want.is_ok());
            let same = match (&want, &got) {
                // A fault re-runs the faulting block in the interpreter: its earlier stores
                // may have happened twice, so only the reports are compared.
                (Err(_), Err(_)) => want == got,
                _ => want == got && want_buffers == got_buffers,
            };
            if !same {
                mismatches.push(format!(
                    "{}: {kernel} (variant {variant}): interpreted {want:?}, compiled {got:?}",
                    file.display()
                ));
            }
        }
    }
    eprintln!("{compared} launches compared, {succeeded} ran to their end");
    assert!(compared > 300, "only {compared} launches compared");
    assert!(
        mismatches.is_empty(),
        "{} of {compared} launches differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}
