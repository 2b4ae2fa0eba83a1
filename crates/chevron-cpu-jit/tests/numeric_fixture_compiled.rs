//! The numeric fixture (`chevron-ptx/tests/data/numeric_probe_h200.txt`, results recorded on an
//! H200) run as kernels: each instruction of the fixture becomes a kernel that applies it to
//! every recorded row; its compiled run must give exactly the interpreter's bits (which the
//! `numeric_gpu` test holds to the recorded GPU results).

use std::collections::BTreeMap;
use std::sync::Arc;

use chevron_cpu_jit::CompiledKernel;
use chevron_ptx::interp::{DeviceMemory, LaunchConfig, LaunchHooks, Program};

const FIXTURE: &str = include_str!("../../chevron-ptx/tests/data/numeric_probe_h200.txt");

/// Register widths and arity of a fixture class: (dst bits, a bits, b bits, sources, predicate
/// result).
fn shape(class: &str) -> Option<(u32, u32, u32, usize, bool)> {
    let bits = |t: &str| -> Option<u32> {
        Some(match t {
            "f16" | "bf16" | "u16" | "s16" | "b16" => 16,
            "f32" | "u32" | "s32" | "b32" => 32,
            "f64" | "u64" | "s64" | "b64" => 64,
            _ => return None,
        })
    };
    if let Some(rest) = class.strip_prefix("cvt:") {
        let (dst, src) = rest.split_once(':')?;
        return Some((bits(dst)?, bits(src)?, 32, 1, false));
    }
    Some(match class {
        "wide32" => (64, 32, 32, 2, false),
        "b32_2sh" => (32, 32, 32, 2, false),
        "b64_2sh" => (64, 64, 32, 2, false),
        "b64to32_1" => (32, 64, 64, 1, false),
        _ => {
            let (pred, rest) = match class.strip_prefix("p_") {
                Some(rest) => (true, rest),
                None => (false, class),
            };
            let (ty, arity) = rest.split_once('_')?;
            let w = bits(ty)?;
            (if pred { 32 } else { w }, w, w, arity.parse().ok()?, pred)
        }
    })
}

/// A kernel applying `name` to row `i` of a table of (a, b, c, result) u64 quadruples.
fn kernel(name: &str, (dst, a, b, arity, pred): (u32, u32, u32, usize, bool)) -> String {
    let sources = ["%a", "%b", "%c"][..arity].join(", ");
    let op = if pred {
        format!("{name} %p, {sources};\n    selp.b32 %d, 1, 0, %p;")
    } else {
        format!("{name} %d, {sources};")
    };
    format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\
         .visible .entry probe(.param .u64 rows, .param .u32 n)\n{{\n\
         .reg .pred %p, %q;\n.reg .b32 %i, %t, %k;\n.reg .b64 %row, %off;\n\
         .reg .b{dst} %d;\n.reg .b{a} %a;\n.reg .b{b} %b;\n.reg .b{a} %c;\n\
         ld.param.u64 %row, [rows];\nld.param.u32 %k, [n];\n\
         mov.u32 %i, %ctaid.x;\nmov.u32 %t, %tid.x;\nmad.lo.s32 %i, %i, 256, %t;\n\
         setp.ge.u32 %q, %i, %k;\n@%q bra DONE;\n\
         mul.wide.u32 %off, %i, 32;\nadd.s64 %row, %row, %off;\n\
         ld.global.b{a} %a, [%row];\nld.global.b{b} %b, [%row+8];\nld.global.b{a} %c, [%row+16];\n\
         {op}\nst.global.b{dst} [%row+24], %d;\nDONE:\nret;\n}}\n"
    )
}

fn run(program: &Program, compiled: Option<&CompiledKernel>, rows: &[[u64; 3]]) -> Vec<u8> {
    let memory = program.memory();
    let bytes: Vec<u8> = rows
        .iter()
        .flat_map(|r| [r[0], r[1], r[2], 0].into_iter().flat_map(u64::to_le_bytes))
        .collect();
    let table = memory.alloc(bytes.len() as u64, 256).unwrap();
    memory.write(table, &bytes).unwrap();
    let mut params = table.to_le_bytes().to_vec();
    params.extend((rows.len() as u32).to_le_bytes());
    let config = LaunchConfig {
        grid: [rows.len().div_ceil(256) as u32, 1, 1],
        block: [256, 1, 1],
        dynamic_shared: 0,
        threads: 1,
    };
    match compiled {
        Some(c) => c
            .launch(&config, &params, &LaunchHooks::default())
            .map(|_| ()),
        None => program
            .launch(&program.kernel("probe").unwrap(), &config, &params)
            .map(|_| ()),
    }
    .unwrap();
    let mut out = vec![0u8; bytes.len()];
    memory.read(table, &mut out).unwrap();
    memory.free(table).unwrap();
    out
}

#[test]
fn compiled_kernels_give_the_interpreters_bits_on_every_fixture_row() {
    let mut groups: BTreeMap<(&str, &str), Vec<[u64; 3]>> = BTreeMap::new();
    for line in FIXTURE.lines().filter(|l| !l.starts_with('#')) {
        let fields: Vec<&str> = line.split('\t').collect();
        let [name, class, a, b, c, _] = fields[..] else {
            continue;
        };
        let hex = |s: &str| u64::from_str_radix(s, 16).unwrap_or(0);
        groups
            .entry((name, class))
            .or_default()
            .push([hex(a), hex(b), hex(c)]);
    }
    let memory = Arc::new(DeviceMemory::new(0));
    let (mut compiled_rows, mut compiled_kernels, mut interpreted, mut unloadable) = (0, 0, 0, 0);
    let mut mismatches = Vec::new();
    for ((name, class), rows) in &groups {
        let Some(shape) = shape(class) else {
            unloadable += 1;
            continue;
        };
        let Ok(module) = chevron_ptx::parse(&kernel(name, shape)) else {
            unloadable += 1;
            continue;
        };
        let Ok(program) = Program::load(&module, &memory) else {
            unloadable += 1;
            continue;
        };
        let program = Arc::new(program);
        let handle = program.kernel("probe").unwrap();
        let Ok(compiled) = CompiledKernel::compile(
            &program,
            &handle,
            &chevron_cpu_jit::CompileOptions::default(),
        ) else {
            interpreted += 1;
            continue;
        };
        let reference = run(&program, None, rows);
        let got = run(&program, Some(&compiled), rows);
        compiled_kernels += 1;
        compiled_rows += rows.len();
        if reference != got {
            mismatches.push(format!("{name} ({class})"));
        }
    }
    assert!(
        mismatches.is_empty(),
        "compiled results differ from the interpreter's: {mismatches:?}"
    );
    assert!(
        compiled_kernels >= 50 && compiled_rows >= 5000,
        "only {compiled_kernels} instructions ({compiled_rows} rows) compiled; \
         {interpreted} interpreted, {unloadable} not expressible"
    );
    println!(
        "{compiled_kernels} instructions ({compiled_rows} rows) compiled and exact; \
         {interpreted} left to the interpreter; {unloadable} classes not expressible here"
    );
}
