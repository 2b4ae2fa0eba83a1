//! Calls through function pointers in compiled code (`inline.rs`): each function an indirect
//! call may reach is inlined behind a test of the address; an address none of them has (a
//! function being inlined already, as in recursion, or no function at all) sends the block
//! to the interpreter, which makes the call or reports the bad address word for word.

mod common;

use chevron_ptx::interp::LaunchHooks;

const PTX: &str = include_str!("data/indirect_calls.ptx");

const N: u32 = 200;

/// `apply_ops` with the table entries `sel` and second arguments `arg` (one per thread),
/// interpreted and compiled: the outputs (or fault reports), and whether the compiled
/// launch ran every block compiled.
fn apply_ops(
    sel: impl Fn(u32) -> u32,
    arg: impl Fn(u32) -> u32,
) -> ([Result<Vec<u32>, String>; 2], bool) {
    let setup = common::Setup::of(PTX);
    let compiled = common::compile(&setup.program, "apply_ops", true);
    let handle = setup.program.kernel("apply_ops").unwrap();
    let sel = common::buffer(&setup.memory, N as usize, |i| sel(i as u32));
    let arg = common::buffer(&setup.memory, N as usize, |i| arg(i as u32));
    let out = common::buffer(&setup.memory, N as usize, |_| 0);
    let mut params = Vec::new();
    for word in [sel, arg, out] {
        params.extend(word.to_le_bytes());
    }
    params.extend(N.to_le_bytes());
    let config = common::config(N.div_ceil(64), 64, 1);
    let mut all_compiled = false;
    let outcomes = [false, true].map(|run_compiled| {
        setup.memory.write(out, &vec![0u8; 4 * N as usize]).unwrap();
        let result = if run_compiled {
            compiled.launch(&config, &params, &LaunchHooks::default())
        } else {
            setup.program.launch(&handle, &config, &params)
        };
        let report = result.map_err(|fault| fault.to_string())?;
        all_compiled = report.lane_instructions == 0;
        Ok(common::read_words(&setup.memory, out, N as usize))
    });
    (outcomes, all_compiled)
}

/// What `ops[sel](a, b)` computes (the kernel's table).
fn expected(sel: u32, a: u32, b: u32) -> u32 {
    match sel {
        0 => a.wrapping_add(b),
        1 => a.wrapping_mul(b),
        2 => a.wrapping_sub(b),
        _ => 2 * expected(b & 3, a, b >> 2),
    }
}

#[test]
fn calls_through_a_table_of_functions_run_compiled() {
    let (sel, arg) = (|i: u32| i % 4, |i: u32| (i / 4) % 3);
    let ([interpreted, compiled], all_compiled) = apply_ops(sel, arg);
    let values: Vec<u32> = (0..N).map(|i| expected(sel(i), i, arg(i))).collect();
    assert_eq!(interpreted, Ok(values));
    assert_eq!(compiled, interpreted);
    assert!(all_compiled);
}

#[test]
fn a_recursive_call_through_the_table_is_the_interpreters() {
    // Thread 70 calls `twice_op`, which calls itself (its argument's low bits are 3).
    let sel = |i: u32| if i == 70 { 3 } else { i % 3 };
    let arg = |i: u32| if i == 70 { 7 } else { i % 5 };
    let ([interpreted, compiled], all_compiled) = apply_ops(sel, arg);
    let values: Vec<u32> = (0..N).map(|i| expected(sel(i), i, arg(i))).collect();
    assert_eq!(interpreted, Ok(values));
    assert_eq!(compiled, interpreted);
    // Block 1 went to the interpreter.
    assert!(!all_compiled);
}

#[test]
fn a_call_through_a_null_pointer_faults_as_interpreted() {
    let sel = |i: u32| if i == 130 { 4 } else { i % 4 };
    let ([interpreted, compiled], _) = apply_ops(sel, |_| 1);
    let fault = interpreted.clone().unwrap_err();
    assert!(fault.contains("thread (2, 0, 0)"), "{fault}");
    assert_eq!(compiled, interpreted);
}

#[test]
fn a_global_atomic_before_an_indirect_call_keeps_the_kernel_interpreted() {
    let setup = common::Setup::of(PTX);
    let kernel = setup.program.kernel("count_then_apply").unwrap();
    let options = chevron_cpu_jit::CompileOptions::default();
    let Err(why) = chevron_cpu_jit::CompiledKernel::compile(&setup.program, &kernel, &options)
    else {
        panic!("compiled");
    };
    assert!(why.contains("an indirect call may follow"), "{why}");
}
