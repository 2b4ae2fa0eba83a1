//! Compiled kernels against the interpreter: same memory afterwards, same fault reports.

mod common;

use std::sync::Arc;

use chevron_cpu_jit::CompiledKernel;
use chevron_ptx::interp::{DeviceMemory, LaunchHooks, Program};
use common::{config, read_words, HEADER};

/// saxpy, a shared-memory tree reduction with barriers in a loop, NaNs of float arithmetic,
/// and a store that can fault.
const KERNELS: &str = r#"
.visible .entry saxpy(.param .u64 x, .param .u64 y, .param .f32 a, .param .u32 n)
{
    .reg .pred %p<2>; .reg .b32 %r<6>; .reg .f32 %f<5>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [y]; ld.param.f32 %f1, [a]; ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;
    ld.global.f32 %f2, [%rd4]; ld.global.f32 %f3, [%rd5];
    fma.rn.f32 %f4, %f1, %f2, %f3;
    st.global.f32 [%rd5], %f4;
DONE:
    ret;
}

.visible .entry block_sum(.param .u64 in, .param .u64 out)
{
    .shared .align 4 .b32 cache[256];
    .reg .pred %p<3>; .reg .b32 %r<12>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r5, [%rd4];
    mov.u32 %r6, cache;
    shl.b32 %r7, %r1, 2; add.s32 %r8, %r6, %r7;
    st.shared.u32 [%r8], %r5;
    bar.sync 0;
    shr.u32 %r9, %r3, 1;
LOOP:
    setp.eq.u32 %p1, %r9, 0;
    @%p1 bra END;
    setp.ge.u32 %p2, %r1, %r9;
    @%p2 bra SKIP;
    shl.b32 %r10, %r9, 2; add.s32 %r10, %r8, %r10;
    ld.shared.u32 %r11, [%r10]; ld.shared.u32 %r5, [%r8];
    add.s32 %r5, %r5, %r11; st.shared.u32 [%r8], %r5;
SKIP:
    bar.sync 0;
    shr.u32 %r9, %r9, 1;
    bra LOOP;
END:
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    ld.shared.u32 %r5, [cache];
    mul.wide.u32 %rd5, %r2, 4; add.s64 %rd6, %rd2, %rd5;
    st.global.u32 [%rd6], %r5;
DONE:
    ret;
}

// An accumulator that becomes a NaN (inf - inf) and goes on accumulating, observed as a float
// store, as an integer move and by a compare; a NaN with a payload, stored as loaded and used
// in arithmetic.
.visible .entry nan_chain(.param .u64 out, .param .f32 inf, .param .f32 payload)
{
    .reg .pred %p<3>; .reg .b32 %r<4>; .reg .f32 %f<8>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out]; ld.param.f32 %f1, [inf]; ld.param.f32 %f5, [payload];
    mov.f32 %f2, 0f00000000;
    mov.u32 %r1, 0;
LOOP:
    add.rn.f32 %f2, %f2, %f1;
    sub.rn.f32 %f2, %f2, %f1;
    fma.rn.f32 %f2, %f1, %f2, %f2;
    add.s32 %r1, %r1, 1;
    setp.lt.u32 %p1, %r1, 3;
    @%p1 bra LOOP;
    st.global.f32 [%rd1], %f2;
    mov.b32 %r2, %f2;
    st.global.u32 [%rd1+4], %r2;
    setp.nan.f32 %p2, %f2, %f2;
    selp.u32 %r3, 1, 0, %p2;
    st.global.u32 [%rd1+8], %r3;
    st.global.f32 [%rd1+12], %f5;
    add.rn.f32 %f6, %f5, %f1;
    st.global.f32 [%rd1+16], %f6;
    ret;
}

.visible .entry store_at(.param .u64 base, .param .u64 offset)
{
    .reg .b32 %r<2>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [base]; ld.param.u64 %rd2, [offset];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4; add.s64 %rd3, %rd3, %rd2; add.s64 %rd3, %rd1, %rd3;
    st.global.u32 [%rd3], %r1;
    ret;
}
"#;

fn load() -> (Arc<DeviceMemory>, Arc<Program>) {
    common::load(&format!("{HEADER}{KERNELS}"))
}

fn params(values: &[u64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

#[test]
fn saxpy_gives_the_interpreters_bits() {
    let (memory, program) = load();
    let kernel = program.kernel("saxpy").unwrap();
    let compiled = CompiledKernel::compile(
        &program,
        &kernel,
        &chevron_cpu_jit::CompileOptions::default(),
    )
    .expect("compiles");
    let n = 1000usize;
    let xs: Vec<u8> = (0..n)
        .flat_map(|i| (i as f32 * 0.37).to_le_bytes())
        .collect();
    let ys: Vec<u8> = (0..n)
        .flat_map(|i| (1.0f32 / (i as f32 + 0.5)).to_le_bytes())
        .collect();
    let mut results = Vec::new();
    for use_compiled in [false, true] {
        let x = memory.alloc(4 * n as u64, 256).unwrap();
        let y = memory.alloc(4 * n as u64, 256).unwrap();
        memory.write(x, &xs).unwrap();
        memory.write(y, &ys).unwrap();
        // `a` (f32) at offset 16, `n` at 20.
        let mut p = params(&[x, y]);
        p.extend(2.5f32.to_le_bytes());
        p.extend((n as u32).to_le_bytes());
        let cfg = config(8, 128, 2);
        if use_compiled {
            compiled.launch(&cfg, &p, &LaunchHooks::default()).unwrap();
        } else {
            program.launch(&kernel, &cfg, &p).unwrap();
        }
        results.push(read_words(&memory, y, n));
    }
    assert_eq!(results[0], results[1]);
    assert_ne!(results[0][10], (1.0f32 / 10.5).to_bits());
}

#[test]
fn nans_of_inline_float_arithmetic_are_the_gpus_wherever_they_are_seen() {
    let (memory, program) = load();
    let kernel = program.kernel("nan_chain").unwrap();
    let compiled = CompiledKernel::compile(
        &program,
        &kernel,
        &chevron_cpu_jit::CompileOptions::default(),
    )
    .expect("compiles");
    let mut results = Vec::new();
    for use_compiled in [false, true] {
        let out = memory.alloc(20, 256).unwrap();
        let mut p = params(&[out]);
        p.extend(f32::INFINITY.to_le_bytes());
        p.extend(0x7fa0_0001u32.to_le_bytes());
        let cfg = config(1, 32, 1);
        if use_compiled {
            compiled.launch(&cfg, &p, &LaunchHooks::default()).unwrap();
        } else {
            program.launch(&kernel, &cfg, &p).unwrap();
        }
        results.push(read_words(&memory, out, 5));
    }
    assert_eq!(results[0], results[1]);
    // The canonical NaN where arithmetic made one; the payload kept where it was only moved.
    assert_eq!(
        results[0],
        [0x7fff_ffff, 0x7fff_ffff, 1, 0x7fa0_0001, 0x7fff_ffff]
    );
}

#[test]
fn a_reduction_with_barriers_in_a_loop_matches() {
    let (memory, program) = load();
    let kernel = program.kernel("block_sum").unwrap();
    let compiled = CompiledKernel::compile(
        &program,
        &kernel,
        &chevron_cpu_jit::CompileOptions::default(),
    )
    .expect("compiles");
    let blocks = 6usize;
    let input = memory.alloc(4 * 256 * blocks as u64, 256).unwrap();
    let data: Vec<u8> = (0..256 * blocks as u32)
        .flat_map(|i| (i * 7 + 1).to_le_bytes())
        .collect();
    memory.write(input, &data).unwrap();
    let out = memory.alloc(4 * blocks as u64, 256).unwrap();
    let cfg = config(blocks as u32, 256, 1);
    compiled
        .launch(&cfg, &params(&[input, out]), &LaunchHooks::default())
        .unwrap();
    let sums = read_words(&memory, out, blocks);
    for (b, sum) in sums.iter().enumerate() {
        let want: u32 = (0..256u32).map(|i| (b as u32 * 256 + i) * 7 + 1).sum();
        assert_eq!(*sum, want, "block {b}");
    }
}

#[test]
fn an_out_of_bounds_store_gives_the_interpreters_report() {
    let (memory, program) = load();
    let kernel = program.kernel("store_at").unwrap();
    let compiled = CompiledKernel::compile(
        &program,
        &kernel,
        &chevron_cpu_jit::CompileOptions::default(),
    )
    .expect("compiles");
    let base = memory.alloc(64, 256).unwrap();
    for offset in [60u64, 2] {
        let p = params(&[base, offset]);
        let cfg = config(1, 32, 1);
        let interpreted = program.launch(&kernel, &cfg, &p).unwrap_err();
        let compiled_fault = compiled
            .launch(&cfg, &p, &LaunchHooks::default())
            .unwrap_err();
        assert_eq!(interpreted.to_string(), compiled_fault.to_string());
    }
}

#[test]
fn kernels_outside_the_subset_are_refused_with_a_reason() {
    let module = chevron_ptx::parse(&format!(
        "{HEADER}.visible .entry active(.param .u64 p) {{ .reg .b64 %rd<2>; .reg .b32 %r<3>;\n\
         .reg .pred %p<2>; ld.param.u64 %rd1, [p]; mov.u32 %r2, 0;\n\
         LOOP: activemask.b32 %r1; add.u32 %r2, %r2, 1; setp.lt.u32 %p1, %r2, 4;\n\
         @%p1 bra LOOP; ret; }}"
    ))
    .unwrap();
    let memory = Arc::new(DeviceMemory::new(0));
    let program = Arc::new(Program::load(&module, &memory).unwrap());
    let kernel = program.kernel("active").unwrap();
    let why = CompiledKernel::compile(
        &program,
        &kernel,
        &chevron_cpu_jit::CompileOptions::default(),
    )
    .unwrap_err();
    assert!(why.contains("Activemask") && why.contains("line"), "{why}");
}

/// Kernels for the fault tests: a misaligned load, a trap in one thread, a block spinning on a
/// flag that only a later block sets.
const FAULTY: &str = r#"
.visible .entry load_at(.param .u64 addr, .param .u64 out)
{
    .reg .b32 %r<2>; .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [addr]; ld.param.u64 %rd2, [out];
    ld.global.u32 %r1, [%rd1];
    st.global.u32 [%rd2], %r1;
    ret;
}

// A checked access does not cover a wider one at the same address, nor one after the address
// register changed.
.visible .entry wider_after_narrow(.param .u64 addr)
{
    .reg .b32 %r<2>; .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [addr];
    ld.global.u8 %r1, [%rd1];
    st.global.u32 [%rd1], %r1;
    ret;
}

.visible .entry moved_after_check(.param .u64 addr)
{
    .reg .b32 %r<2>; .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [addr];
    ld.global.u32 %r1, [%rd1];
    add.s64 %rd1, %rd1, 64;
    st.global.u32 [%rd1], %r1;
    ret;
}

.visible .entry trap_in_thread_5()
{
    .reg .pred %p<2>; .reg .b32 %r<2>;
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 5;
    @%p1 trap;
    ret;
}

.visible .entry wait_for_last_block(.param .u64 flag)
{
    .reg .pred %p<3>; .reg .b32 %r<4>; .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [flag];
    mov.u32 %r1, %ctaid.x; mov.u32 %r2, %nctaid.x; sub.u32 %r2, %r2, 1;
    setp.eq.u32 %p1, %r1, %r2;
    @%p1 bra SET;
SPIN:
    ld.global.u32 %r3, [%rd1];
    setp.eq.u32 %p2, %r3, 0;
    @%p2 bra SPIN;
    ret;
SET:
    mov.u32 %r3, 1;
    st.global.u32 [%rd1], %r3;
    ret;
}
"#;

/// The interpreter's and the compiled code's fault reports for one launch.
fn both_faults(kernel: &str, grid: u32, block: u32, values: &[u64]) -> (String, String) {
    let module = chevron_ptx::parse(&format!("{HEADER}{FAULTY}")).expect("parses");
    let memory = Arc::new(DeviceMemory::new(0));
    let program = Arc::new(Program::load(&module, &memory).expect("loads"));
    let handle = program.kernel(kernel).unwrap();
    let compiled = CompiledKernel::compile(
        &program,
        &handle,
        &chevron_cpu_jit::CompileOptions::default(),
    )
    .expect("compiles");
    let resolve = |v: u64| match v {
        // Placeholders: a live, a freed and a misaligned address.
        1 => memory.alloc(64, 256).unwrap(),
        2 => {
            let a = memory.alloc(64, 256).unwrap();
            memory.free(a).unwrap();
            a
        }
        3 => memory.alloc(64, 256).unwrap() + 2,
        other => other,
    };
    let p = params(&values.iter().map(|&v| resolve(v)).collect::<Vec<_>>());
    let cfg = config(grid, block, 1);
    let interpreted = program.launch(&handle, &cfg, &p).unwrap_err().to_string();
    let p2 = params(&values.iter().map(|&v| resolve(v)).collect::<Vec<_>>());
    let compiled_fault = compiled
        .launch(&cfg, &p2, &LaunchHooks::default())
        .unwrap_err()
        .to_string();
    // Addresses differ between the two launches' allocations; compare with them masked.
    let mask = |text: String| {
        text.split(' ')
            .map(|w| if w.contains("0x") { "ADDR" } else { w })
            .collect::<Vec<_>>()
            .join(" ")
    };
    (mask(interpreted), mask(compiled_fault))
}

#[test]
fn use_after_free_misalignment_bounds_trap_and_deadlock_give_the_interpreters_reports() {
    for (kernel, grid, block, values, words) in [
        ("load_at", 1, 32, vec![2u64, 1], "free"),
        ("load_at", 1, 32, vec![3u64, 1], "align"),
        ("wider_after_narrow", 1, 32, vec![3u64], "align"),
        ("moved_after_check", 1, 32, vec![1u64], "bounds"),
        ("trap_in_thread_5", 2, 64, vec![], "trap"),
        ("wait_for_last_block", 3, 32, vec![1u64], "deadlock"),
    ] {
        let (interpreted, compiled) = both_faults(kernel, grid, block, &values);
        assert_eq!(interpreted, compiled, "{kernel}");
        assert!(
            interpreted.to_lowercase().contains(words),
            "{kernel}: {interpreted}"
        );
    }
}

/// The deadlock above is found with the kernel spinning in the vector function (four threads
/// at a time), which hands the group to the scalar code when it runs out of fuel.
#[test]
fn the_spinning_kernel_runs_four_threads_at_a_time() {
    let module = chevron_ptx::parse(&format!("{HEADER}{FAULTY}")).expect("parses");
    let memory = Arc::new(DeviceMemory::new(0));
    let program = Arc::new(Program::load(&module, &memory).expect("loads"));
    let handle = program.kernel("wait_for_last_block").unwrap();
    let compiled = CompiledKernel::compile(
        &program,
        &handle,
        &chevron_cpu_jit::CompileOptions::default(),
    )
    .expect("compiles");
    assert_eq!(compiled.vector(), Ok(()));
}

/// Every shuffle mode, with lane-dependent offsets and segment/clamp operands, each offering
/// other values (a lane that went on must not overwrite what its warp still reads).
const SHUFFLES: &str = r#"
.visible .entry shuffles(.param .u64 out, .param .u32 c)
{
    .reg .pred %p<5>; .reg .b32 %r<16>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [c];
    mov.u32 %r2, %tid.x;
    mul.lo.u32 %r3, %r2, 2654435761;
    and.b32 %r4, %r2, 7;
    add.u32 %r13, %r3, 1; add.u32 %r14, %r3, 2; add.u32 %r15, %r3, 3;
    shfl.sync.up.b32 %r5|%p1, %r3, %r4, %r1, -1;
    shfl.sync.down.b32 %r6|%p2, %r13, %r4, %r1, -1;
    shfl.sync.bfly.b32 %r7|%p3, %r14, %r4, %r1, -1;
    shfl.sync.idx.b32 %r8|%p4, %r15, %r4, %r1, -1;
    selp.u32 %r9, 1, 0, %p1; selp.u32 %r10, 2, 0, %p2; selp.u32 %r11, 4, 0, %p3; selp.u32 %r12, 8, 0, %p4;
    or.b32 %r9, %r9, %r10; or.b32 %r9, %r9, %r11; or.b32 %r9, %r9, %r12;
    mul.wide.u32 %rd2, %r2, 20; add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r5; st.global.u32 [%rd3+4], %r6; st.global.u32 [%rd3+8], %r7;
    st.global.u32 [%rd3+12], %r8; st.global.u32 [%rd3+16], %r9;
    ret;
}
"#;

#[test]
fn shuffles_give_the_interpreters_lanes_and_predicates() {
    let module = chevron_ptx::parse(&format!("{HEADER}{SHUFFLES}")).expect("parses");
    let memory = Arc::new(DeviceMemory::new(0));
    let program = Arc::new(Program::load(&module, &memory).expect("loads"));
    let kernel = program.kernel("shuffles").unwrap();
    let compiled = CompiledKernel::compile(
        &program,
        &kernel,
        &chevron_cpu_jit::CompileOptions::default(),
    )
    .expect("compiles");
    let threads = 96u32;
    for c in [
        0x1f_u32,
        0x0,
        0x1c1f,
        0x181f,
        0x1007,
        0x1f00,
        0xffff_ffff,
        0xffff_e01f,
    ] {
        let mut outputs = Vec::new();
        for use_compiled in [false, true] {
            let out = memory.alloc(u64::from(threads) * 20, 256).unwrap();
            let mut p = params(&[out]);
            p.extend(c.to_le_bytes());
            let cfg = config(2, threads, 1);
            if use_compiled {
                compiled.launch(&cfg, &p, &LaunchHooks::default()).unwrap();
            } else {
                program.launch(&kernel, &cfg, &p).unwrap();
            }
            outputs.push(read_words(&memory, out, threads as usize * 5));
        }
        assert_eq!(outputs[0], outputs[1], "c = {c:#x}");
    }
}
