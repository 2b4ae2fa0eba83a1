//! What the compiled-against-interpreted tests share: loading PTX text into a program with a
//! device memory of its own, launch shapes, compiling a kernel (failing the test with the
//! compiler's reason) and reading words back.

#![allow(dead_code)] // Each test file uses its own part.

use std::sync::Arc;

use chevron_cpu_jit::CompiledKernel;
use chevron_ptx::interp::{DeviceMemory, KernelHandle, LaunchConfig, LaunchHooks, Program};

/// A PTX module of `kernels` for sm_70.
pub const HEADER: &str = ".version 7.0\n.target sm_70\n.address_size 64\n";

/// A device memory and the program of the PTX text `source`, loaded into it.
pub fn load(source: &str) -> (Arc<DeviceMemory>, Arc<Program>) {
    let module = chevron_ptx::parse(source).expect("parses");
    let memory = Arc::new(DeviceMemory::new(0));
    let program = Arc::new(Program::load(&module, &memory).expect("loads"));
    (memory, program)
}

/// A program and its device memory.
pub struct Setup {
    pub memory: Arc<DeviceMemory>,
    pub program: Arc<Program>,
}

impl Setup {
    /// The program of the PTX text `source` in a device memory of its own.
    pub fn of(source: &str) -> Setup {
        let (memory, program) = load(source);
        Setup { memory, program }
    }

    /// Runs kernel `handle` once, `compiled` or (given `None`) in the interpreter, with a fresh
    /// copy of `input` as its first parameter, an output of `out_bytes` bytes filled with 0xee
    /// as its second and the words `scalars` after them; returns the output's words.
    pub fn run_in_out(
        &self,
        kernel: (&KernelHandle, Option<&CompiledKernel>),
        cfg: &LaunchConfig,
        input: &[u8],
        out_bytes: usize,
        scalars: &[u32],
    ) -> Vec<u32> {
        self.try_run_in_out(kernel, cfg, input, out_bytes, scalars)
            .unwrap()
    }

    /// [`run_in_out`](Self::run_in_out), or the launch's fault report with its addresses
    /// left out.
    pub fn try_run_in_out(
        &self,
        (handle, compiled): (&KernelHandle, Option<&CompiledKernel>),
        cfg: &LaunchConfig,
        input: &[u8],
        out_bytes: usize,
        scalars: &[u32],
    ) -> Result<Vec<u32>, String> {
        let x = self.memory.alloc(input.len() as u64, 256).unwrap();
        self.memory.write(x, input).unwrap();
        let out = self.memory.alloc(out_bytes as u64, 256).unwrap();
        self.memory.write(out, &vec![0xee; out_bytes]).unwrap();
        let mut p: Vec<u8> = [x, out].iter().flat_map(|v| v.to_le_bytes()).collect();
        p.extend(scalars.iter().flat_map(|v| v.to_le_bytes()));
        let result = match compiled {
            Some(kernel) => kernel.launch(cfg, &p, &LaunchHooks::default()).map(|_| ()),
            None => self.program.launch(handle, cfg, &p).map(|_| ()),
        };
        result.map_err(|fault| {
            (fault.to_string().split(' '))
                .map(|w| if w.contains("0x") { "ADDR" } else { w })
                .collect::<Vec<_>>()
                .join(" ")
        })?;
        let mut bytes = vec![0u8; out_bytes];
        self.memory.read(out, &mut bytes).unwrap();
        Ok(words(&bytes))
    }
}

/// `grid` blocks of `block` threads along x, run by `threads` host threads.
pub fn config(grid: u32, block: u32, threads: usize) -> LaunchConfig {
    LaunchConfig {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        dynamic_shared: 0,
        threads,
    }
}

/// `kernel` of `program` compiled; the test fails with the compiler's reason if it is not.
pub fn compile(program: &Arc<Program>, kernel: &str, checks: bool) -> CompiledKernel {
    let options = chevron_cpu_jit::CompileOptions {
        checks,
        ..Default::default()
    };
    compile_with(program, kernel, &options)
}

/// `kernel` of `program` compiled one thread at a time (no vector function).
pub fn compile_scalar(program: &Arc<Program>, kernel: &str) -> CompiledKernel {
    let options = chevron_cpu_jit::CompileOptions {
        vectors: false,
        ..Default::default()
    };
    compile_with(program, kernel, &options)
}

/// `kernel` of `program` compiled with `options`.
fn compile_with(
    program: &Arc<Program>,
    kernel: &str,
    options: &chevron_cpu_jit::CompileOptions,
) -> CompiledKernel {
    let handle = program.kernel(kernel).expect("the kernel exists");
    CompiledKernel::compile(program, &handle, options)
        .unwrap_or_else(|why| panic!("{kernel} compiles: {why}"))
}

/// Kernel `kernel` of the PTX text `source` (kernels only: [`HEADER`] is added) run on the
/// words `xs` interpreted and compiled, on two host threads (a worker runs several blocks in
/// one context), with the words `scalars` after its two pointers: both outputs of
/// `out_words` words (see [`Setup::run_in_out`]).
pub fn interpreted_and_compiled(
    source: &str,
    kernel: &str,
    xs: &[u32],
    out_words: usize,
    (grid, block): (u32, u32),
    scalars: &[u32],
) -> [Vec<u32>; 2] {
    let setup = Setup::of(&format!("{HEADER}{source}"));
    let handle = setup.program.kernel(kernel).unwrap();
    let compiled = compile(&setup.program, kernel, true);
    let cfg = config(grid, block, 2);
    let input = le_bytes(xs);
    let run = |c| setup.run_in_out((&handle, c), &cfg, &input, 4 * out_words, scalars);
    [run(None), run(Some(&compiled))]
}

/// The vector function's group widths (`CompileOptions::group_threads`) tests run.
pub const GROUPS: [u32; 4] = [4, 8, 16, 32];

/// `kernel` of `program` compiled with groups of `group_threads` threads.
pub fn compile_grouped(program: &Arc<Program>, kernel: &str, group_threads: u32) -> CompiledKernel {
    let options = chevron_cpu_jit::CompileOptions {
        group_threads,
        ..Default::default()
    };
    compile_with(program, kernel, &options)
}

/// Asserts that `compiled` (groups of `width` threads) has a vector function, that it ran,
/// and that no group left it for the scalar code.
pub fn assert_stayed_four_wide(compiled: &CompiledKernel, width: u32) {
    assert_eq!(compiled.vector(), Ok(()), "groups of {width}");
    let (ran, handed) = compiled.groups();
    assert!(ran > 0, "groups of {width}: the vector function ran");
    assert_eq!(
        handed, 0,
        "groups of {width}: no group left the vector code"
    );
}

/// A buffer of `words` 32-bit words in `memory`, holding `init(i)` at word `i`.
pub fn buffer(memory: &DeviceMemory, words: usize, init: impl Fn(usize) -> u32) -> u64 {
    let addr = memory.alloc(4 * words as u64, 256).unwrap();
    let bytes: Vec<u8> = (0..words).flat_map(|i| init(i).to_le_bytes()).collect();
    memory.write(addr, &bytes).unwrap();
    addr
}

/// The little-endian bytes of `words` (the inverse of [`words`]).
pub fn le_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Little-endian 32-bit words of `bytes`.
pub fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("whole words")))
        .collect()
}

/// `count` words of device memory at `addr`.
pub fn read_words(memory: &DeviceMemory, addr: u64, count: usize) -> Vec<u32> {
    let mut bytes = vec![0u8; count * 4];
    memory.read(addr, &mut bytes).expect("readable");
    words(&bytes)
}

/// xorshift64*: deterministic, no dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

/// All `*.ptx` files under `dir`, recursively, sorted.
pub fn ptx_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "ptx") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The repository's `corpus/` directory.
pub fn corpus() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus")
}
