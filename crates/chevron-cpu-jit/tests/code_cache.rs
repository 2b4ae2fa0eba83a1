//! The code cache (`CompileOptions::code_cache`): a kernel compiled again in a new program
//! comes from the cache (its kernel record, or without one its functions' entries) and
//! computes what the interpreter does; damaged or cut entries and records are ignored
//! (compiled again, no crash) and written again; without a folder it is neither read nor
//! written.

mod common;

use std::path::{Path, PathBuf};

use chevron_ptx::interp::LaunchHooks;

/// `out[i] = sqrt(in[i]) / 3 + in[i]`: inline arithmetic and calls of the interpreter's
/// (`sqrt`, `div`), whose instructions the generated code addresses.
const KERNEL: &str = r#"
.visible .entry roots(.param .u64 in, .param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .f32 %f<6>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.s32 %r1, %r1, %r2, %r3;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
    ld.global.f32 %f1, [%rd4];
    sqrt.rn.f32 %f2, %f1;
    div.rn.f32 %f3, %f2, 0f40400000;
    add.f32 %f4, %f3, %f1;
    st.global.f32 [%rd5], %f4;
    ret;
}

.visible .entry halves(.param .u64 in, .param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.s32 %r1, %r1, %r2, %r3;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
    ld.global.f32 %f1, [%rd4];
    mul.f32 %f2, %f1, 0f3F000000;
    st.global.f32 [%rd5], %f2;
    ret;
}
"#;

const N: u32 = 256;

/// Compiles `roots` in a new program, runs it compiled and interpreted, checks that both give
/// the same words, and returns how many of its functions came from the cache, of how many.
fn compile_and_run(folder: Option<&Path>) -> (u32, u32) {
    compile_and_run_kernel(folder, "roots", 4).0
}

/// [`compile_and_run`] for `kernel` in groups of `group_threads`; also whether it runs in
/// groups.
fn compile_and_run_kernel(
    folder: Option<&Path>,
    kernel: &str,
    group_threads: u32,
) -> ((u32, u32), bool) {
    let setup = common::Setup::of(&format!("{}{KERNEL}", common::HEADER));
    let handle = setup.program.kernel(kernel).unwrap();
    let options = chevron_cpu_jit::CompileOptions {
        code_cache: folder.map(Path::to_path_buf),
        group_threads,
        ..Default::default()
    };
    let compiled = chevron_cpu_jit::CompiledKernel::compile(&setup.program, &handle, &options)
        .expect("compiles");
    let input = setup.memory.alloc(u64::from(N) * 4, 256).unwrap();
    let output = setup.memory.alloc(u64::from(N) * 4, 256).unwrap();
    let values: Vec<u8> = (0..N)
        .flat_map(|v| (v as f32 * 1.5).to_le_bytes())
        .collect();
    setup.memory.write(input, &values).unwrap();
    let params: Vec<u8> = [input, output]
        .iter()
        .flat_map(|a| a.to_le_bytes())
        .collect();
    let config = common::config(N / 64, 64, 1);
    let hooks = LaunchHooks::default();
    setup
        .program
        .launch_with(&handle, &config, &params, &hooks)
        .unwrap();
    let interpreted = common::read_words(&setup.memory, output, N as usize);
    setup.memory.write(output, &[0; N as usize * 4]).unwrap();
    compiled.launch(&config, &params, &hooks).unwrap();
    assert_eq!(
        common::read_words(&setup.memory, output, N as usize),
        interpreted
    );
    (compiled.functions_from_cache(), compiled.vector().is_ok())
}

/// The cache's files named `*.EXTENSION`: `code` (a function's entry) or `kernel` (a
/// kernel's record).
fn entries(folder: &Path, extension: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == extension))
        .collect();
    files.sort();
    files
}

#[test]
fn compiled_code_comes_back_from_the_cache_and_damage_is_ignored() {
    let home = std::env::temp_dir().join(format!("chevron-code-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    let folder = home.join("chevron").join("cpu-code");
    let compile_and_run_cached = || compile_and_run(Some(&folder));

    let (hits, all) = compile_and_run_cached();
    assert_eq!(hits, 0, "an empty cache");
    assert!(all >= 1);
    // The kernel's functions and the trampolines of its cold calls, and the kernel's record.
    assert!(entries(&folder, "code").len() > all as usize);
    assert_eq!(entries(&folder, "kernel").len(), 1, "one record");
    assert_eq!(
        compile_and_run_cached(),
        (all, all),
        "every function from the cache"
    );

    // Without the record, the functions' entries serve, and the record is written again.
    std::fs::remove_file(&entries(&folder, "kernel")[0]).unwrap();
    assert_eq!(compile_and_run_cached(), (all, all), "from the entries");
    assert_eq!(entries(&folder, "kernel").len(), 1, "the record again");
    // Without the entries, the record serves alone.
    for file in entries(&folder, "code") {
        std::fs::remove_file(file).unwrap();
    }
    assert_eq!(compile_and_run_cached(), (all, all), "from the record");
    // Compiled again, everything written again.
    std::fs::remove_file(&entries(&folder, "kernel")[0]).unwrap();
    assert_eq!(compile_and_run_cached(), (0, all));
    let stored: Vec<PathBuf> = entries(&folder, "code")
        .into_iter()
        .chain(entries(&folder, "kernel"))
        .collect();

    // One byte of each entry and record changed: each is refused, compiled again and written
    // again.
    for file in &stored {
        let mut bytes = std::fs::read(file).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x40;
        std::fs::write(file, bytes).unwrap();
    }
    assert_eq!(
        compile_and_run_cached(),
        (0, all),
        "damaged entries are not used"
    );
    assert_eq!(
        compile_and_run_cached(),
        (all, all),
        "and were written again"
    );

    // Entries and records cut short, and one emptied.
    for file in &stored {
        let bytes = std::fs::read(file).unwrap();
        std::fs::write(file, &bytes[..bytes.len() - 3]).unwrap();
    }
    std::fs::write(&stored[0], b"").unwrap();
    assert_eq!(
        compile_and_run_cached(),
        (0, all),
        "cut entries are not used"
    );
    assert_eq!(compile_and_run_cached(), (all, all));

    // No folder: neither read nor written.
    std::fs::remove_dir_all(&folder).unwrap();
    assert_eq!(compile_and_run(None), (0, all));
    assert!(entries(&folder, "code").is_empty());
    assert!(entries(&folder, "kernel").is_empty());
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn a_four_wide_kernel_comes_back_whole_from_its_record() {
    let home = std::env::temp_dir().join(format!("chevron-kernel-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    let folder = home.join("cpu-code");
    let run = || compile_and_run_kernel(Some(&folder), "halves", 4);
    assert_eq!(run(), ((0, 3), true), "scalar, vector and resume functions");
    for file in entries(&folder, "code") {
        std::fs::remove_file(file).unwrap();
    }
    assert_eq!(run(), ((3, 3), true), "from the record alone");
    // Another kernel's record does not serve: `roots` compiles.
    assert_eq!(compile_and_run(Some(&folder)).0, 0);
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn a_record_serves_only_its_group_width() {
    let home = std::env::temp_dir().join(format!("chevron-group-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    let folder = home.join("cpu-code");
    let run = |group_threads| compile_and_run_kernel(Some(&folder), "halves", group_threads);
    assert_eq!(
        run(16),
        ((0, 3), true),
        "scalar, vector and resume functions"
    );
    for file in entries(&folder, "code") {
        std::fs::remove_file(file).unwrap();
    }
    assert_eq!(run(16), ((3, 3), true), "from the record alone");
    // Groups of four: another vector function, which no record or entry holds.
    let (from_cache, vector) = run(4);
    assert!(from_cache.0 < 3 && vector, "{from_cache:?}");
    let _ = std::fs::remove_dir_all(&home);
}
