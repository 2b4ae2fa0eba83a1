//! The instrumentation pass: hooks are called as documented, instrumented kernels compute what
//! the originals compute, and every corpus kernel instruments, links and round-trips.

mod interp_common;

use std::path::{Path, PathBuf};

use chevron_ptx::ir::Module;
use chevron_ptx::linker::{link_with, LinkOptions};
use chevron_ptx::passes::{instrument, Hooks, LineMap};
use interp_common::*;

const TOOL: &str = include_str!("data/tools/count_hooks.ptx");

/// out[i] = in[i] * 2 for i < n, with one early return for the tail and a loop-free body.
const SCALE: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.visible .entry scale(.param .u64 in, .param .u64 out, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 ret;
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
    ld.global.u32 %r6, [%rd4];
    shl.b32 %r7, %r6, 1;
    st.global.u32 [%rd5], %r7;
    ret;
}
"#;

const ALL: Hooks = Hooks {
    entry_exit: true,
    blocks: true,
    accesses: true,
};

fn instrumented(ptx: &str, hooks: Hooks) -> Module {
    let mut module = chevron_ptx::parse(ptx).unwrap();
    instrument(&mut module, |_| true, hooks).unwrap();
    let tool = chevron_ptx::parse(TOOL).unwrap();
    link_with(&[module, tool], &LinkOptions::default()).unwrap()
}

/// Runs `scale` over `n` elements with `threads` per block and 4 blocks; returns the output
/// and the tool's counters (entries, exits, blocks, accesses, stores, bytes).
fn run_scale(text: &str, n: u32, launch_param: bool) -> (Vec<u32>, Vec<u64>) {
    let (memory, program) = load(text);
    let input: Vec<u32> = (0..128).map(|i| i * 7 + 3).collect();
    let in_ptr = upload_u32(&memory, &input);
    let out_ptr = upload_u32(&memory, &[0; 128]);
    let kernel = program.kernel("scale").unwrap();
    let mut params = Params::new().u64(in_ptr).u64(out_ptr).u32(n);
    if launch_param {
        params = params.u64(42);
    }
    let params = params.build(&kernel);
    program
        .launch(&kernel, &config([4, 1, 1], [32, 1, 1], 2), &params)
        .unwrap();
    let counters = [
        "tool_entries",
        "tool_exits",
        "tool_blocks",
        "tool_accesses",
        "tool_stores",
        "tool_bytes",
    ]
    .iter()
    .map(|name| match program.global_address(name) {
        Some((address, _)) => download_u64(&memory, address, 1)[0],
        None => 0,
    })
    .collect();
    (download_u32(&memory, out_ptr, 128), counters)
}

#[test]
fn hooks_count_threads_blocks_and_accesses() {
    let linked = chevron_ptx::print(&instrumented(SCALE, ALL));
    let (out, counters) = run_scale(&linked, 100, true);
    let (expected, _) = run_scale(SCALE, 100, false);
    assert_eq!(
        out, expected,
        "instrumentation changed the kernel's results"
    );
    // 4 blocks x 32 threads enter and exit once each.
    assert_eq!(counters[0], 128, "entries");
    assert_eq!(counters[1], 128, "exits");
    // Every thread runs the first block; the 100 in range also run the second.
    assert_eq!(counters[2], 128 + 100, "basic blocks");
    // One load and one store of 4 bytes per thread in range.
    assert_eq!(counters[3..], [200, 100, 800], "accesses, stores, bytes");
}

#[test]
fn unselected_kernels_and_unrequested_hooks_are_left_alone() {
    let mut module = chevron_ptx::parse(SCALE).unwrap();
    let original = module.clone();
    let done = instrument(&mut module, |name| name == "other", ALL).unwrap();
    assert!(done.is_empty());
    assert_eq!(
        chevron_ptx::print(&module),
        chevron_ptx::print(&original),
        "nothing selected, nothing changed (no hook declarations either)"
    );
    let entry_only = Hooks {
        entry_exit: true,
        ..Hooks::default()
    };
    let text = chevron_ptx::print(&instrumented(SCALE, entry_only));
    assert!(text.contains("chevron_on_entry") && !text.contains("call.uni chevron_on_block"));
    let (_, counters) = run_scale(&text, 100, true);
    assert_eq!(counters[..3], [128, 128, 0]);
}

#[test]
fn the_report_counts_basic_blocks_and_their_instructions() {
    let mut module = chevron_ptx::parse(SCALE).unwrap();
    let done = instrument(&mut module, |_| true, ALL).unwrap();
    assert_eq!(done.len(), 1);
    assert_eq!(done[0].name, "scale");
    // Up to and including `@%p1 ret`, then the rest.
    assert_eq!(done[0].block_instructions, [9, 9]);
    assert_eq!(done[0].accesses, 2);
    let again = instrument(&mut module, |_| true, ALL).unwrap_err();
    assert!(again
        .to_string()
        .contains("`scale` is already instrumented"));
}

fn ptx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            ptx_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "ptx") {
            out.push(path);
        }
    }
}

#[test]
fn every_corpus_kernel_instruments_links_and_round_trips() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus");
    let mut files = Vec::new();
    ptx_files(&root, &mut files);
    assert!(!files.is_empty(), "the corpus is missing");
    let tool = chevron_ptx::parse(TOOL).unwrap();
    let options = LinkOptions {
        allow_unresolved: true,
        ..LinkOptions::default()
    };
    let mut kernels = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let mut module = chevron_ptx::parse(&text).unwrap();
        let done = instrument(&mut module, |_| true, ALL)
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        kernels += done.len();
        let linked = link_with(&[module, tool.clone()], &options)
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let printed = chevron_ptx::print(&linked);
        let reparsed = chevron_ptx::parse(&printed).unwrap_or_else(|e| {
            panic!("{}: the printed result does not parse: {e}", file.display())
        });
        assert_eq!(chevron_ptx::print(&reparsed), printed, "{}", file.display());
    }
    assert!(kernels >= 20, "only {kernels} corpus kernels instrumented");
}

/// `scale` with the load in a device function reached through a generic pointer, and a second
/// kernel calling the same function that is not instrumented.
const CALLS: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.func (.param .b32 result) twice(.param .b64 p)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    ld.u32 %r1, [%rd1];
    shl.b32 %r2, %r1, 1;
    st.param.b32 [result], %r2;
    ret;
}

.visible .entry scale(.param .u64 in, .param .u64 out, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 ret;
    cvta.to.global.u64 %rd2, %rd2;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
    {
    .param .b64 arg;
    .param .b32 value;
    st.param.b64 [arg], %rd4;
    call.uni (value), twice, (arg);
    ld.param.b32 %r7, [value];
    }
    st.global.u32 [%rd5], %r7;
    ret;
}

.visible .entry untouched(.param .u64 in, .param .u64 out)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    {
    .param .b64 arg;
    .param .b32 value;
    st.param.b64 [arg], %rd1;
    call.uni (value), twice, (arg);
    ld.param.b32 %r1, [value];
    }
    st.u32 [%rd2], %r1;
    ret;
}
"#;

#[test]
fn device_functions_and_generic_accesses_are_covered() {
    let mut module = chevron_ptx::parse(CALLS).unwrap();
    let done = instrument(&mut module, |name| name == "scale", ALL).unwrap();
    assert_eq!(done.len(), 1);
    assert_eq!(done[0].device_functions, ["twice"]);
    // The kernel's two blocks, then the copy of `twice` (one block of 5 instructions).
    assert_eq!(done[0].block_instructions, [9, 9, 5]);
    assert_eq!(
        done[0].accesses, 2,
        "the generic load in `twice`, the global store"
    );
    let tool = chevron_ptx::parse(TOOL).unwrap();
    let linked = chevron_ptx::print(&link_with(&[module, tool], &LinkOptions::default()).unwrap());
    let (out, counters) = run_scale(&linked, 100, true);
    let (expected, _) = run_scale(CALLS, 100, false);
    assert_eq!(
        out, expected,
        "instrumentation changed the kernel's results"
    );
    assert_eq!(counters[..2], [128, 128], "entries, exits");
    // Kernel: 128 threads run the first block, 100 the second; 100 calls run `twice`'s block.
    assert_eq!(counters[2], 128 + 100 + 100, "basic blocks");
    // A generic load of 4 bytes in `twice` and a global store of 4 bytes, per thread in range.
    assert_eq!(counters[3..], [200, 100, 800], "accesses, stores, bytes");

    // The kernel not selected calls the original `twice` and runs without `launch`.
    let (memory, program) = load(&linked);
    let input = upload_u32(&memory, &[21]);
    let output = upload_u32(&memory, &[0]);
    let kernel = program.kernel("untouched").unwrap();
    let params = Params::new().u64(input).u64(output).build(&kernel);
    program
        .launch(&kernel, &config([1, 1, 1], [1, 1, 1], 2), &params)
        .unwrap();
    assert_eq!(download_u32(&memory, output, 1), [42]);
    let accesses = program.global_address("tool_accesses").unwrap().0;
    assert_eq!(download_u64(&memory, accesses, 1), [0], "no hook ran");
}

#[test]
fn the_rewritten_text_maps_back_to_the_original_lines() {
    let mut module = chevron_ptx::parse(SCALE).unwrap();
    instrument(&mut module, |_| true, ALL).unwrap();
    let tool = chevron_ptx::parse(TOOL).unwrap().without_spans();
    let linked = link_with(&[module, tool], &LinkOptions::default()).unwrap();
    let printed = chevron_ptx::print(&linked);
    let map = LineMap::new(&linked, &chevron_ptx::parse(&printed).unwrap());
    let original_line = |needle: &str| SCALE.lines().position(|l| l.contains(needle)).unwrap() + 1;
    let printed_line = |needle: &str| printed.lines().position(|l| l.contains(needle)).unwrap() + 1;
    let store = "st.global.u32 [%rd5], %r7;";
    assert!(printed_line(store) > original_line(store), "the text moved");
    assert_eq!(
        map.original(printed_line(store) as u32),
        Some(original_line(store) as u32)
    );
    // The hook call inserted for the store is attributed to the store's line.
    let hook = printed
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("call.uni chevron_on_access"));
    let last_hook = hook.last().unwrap().0 as u32 + 1;
    assert_eq!(map.original(last_hook), Some(original_line(store) as u32));
    let message = format!(
        "ptxas application ptx input, line {}; error",
        printed_line(store)
    );
    assert!(map
        .annotate(&message)
        .contains(&format!("(original PTX line {})", original_line(store))));
}

/// A kernel calling a device function, whose program already uses the names instrumentation
/// would add by default: a `.shared` variable `chevron_launch_shared` and a function
/// `chevron_hooked_twice`.
const COLLIDING: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.shared .align 8 .b64 chevron_launch_shared;

.func (.reg .b32 r) chevron_hooked_twice(.reg .b32 x)
{
    add.u32 r, x, x;
    ret;
}

.func (.reg .b32 r) twice(.reg .b32 x)
{
    call (r), chevron_hooked_twice, (x);
    ret;
}

.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    mov.u32 %r1, 7;
    st.shared.u64 [chevron_launch_shared], 100;
    call (%r2), twice, (%r1);
    ld.param.u64 %rd1, [out];
    st.global.u32 [%rd1], %r2;
    ret;
}
"#;

#[test]
fn generated_names_never_collide_with_the_programs() {
    let module = instrumented(COLLIDING, ALL);
    let printed = chevron_ptx::print(&module);
    let reparsed = chevron_ptx::parse(&printed).unwrap();
    let mut names: Vec<String> = reparsed
        .items
        .iter()
        .filter_map(|item| match item {
            chevron_ptx::ir::Item::Function(f) if f.body.is_some() => Some(f.name.clone()),
            chevron_ptx::ir::Item::Variable(v) => Some(v.name.clone()),
            _ => None,
        })
        .collect();
    let count = names.len();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), count, "a name is defined twice: {names:?}");
    // The program's own names are left as they were; the added ones use another prefix.
    assert!(names.contains(&"chevron_launch_shared".to_string()));
    assert!(
        names.contains(&"chevron1_launch_shared".to_string()),
        "{names:?}"
    );
    assert!(
        names.contains(&"chevron1_hooked_twice".to_string()),
        "{names:?}"
    );
    assert!(
        printed.contains("call (%r2), chevron1_hooked_twice"),
        "{printed}"
    );
}

#[test]
fn a_kernel_at_the_parameter_limit_says_what_instrumentation_adds() {
    let ptx = ".version 7.0\n.target sm_70\n.address_size 64\n\
               .visible .entry big(.param .align 4 .b8 data[32764])\n{\n    ret;\n}\n";
    let mut module = chevron_ptx::parse(ptx).unwrap();
    let err = instrument(&mut module, |_| true, ALL).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("its parameters take 32764 bytes")
            && message.contains("adds a hidden 8-byte parameter")
            && message.contains("12 bytes more), 32776 bytes in all"),
        "{message}"
    );
}
