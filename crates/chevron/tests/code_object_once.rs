//! A code object is read once: no PTX text is parsed twice on any path, however many devices or
//! threads load it (counted per process by the code-object layer's `ptx_parses`; the tests of
//! this file run one at a time, so no other test's parses are counted), and one rule picks a
//! fatbin's entry for a device (checked against the corpus fatbins). The CUDA runtime's
//! registration on two devices and its `-rdc` linking are counted the same way in
//! chevron-cudart's `tests/code_object_once.rs`.

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use chevron::backend::cpu::{discover_with, CpuConfig};
use chevron::code_object::{
    parse_fatbin, ptx_parses, select_entry, CodeObject, CodeTargets, EntryKind,
};
use chevron::{Builtin, Module, Runtime};
use chevron_ptx::parses_on_this_thread;
use chevron_ptx::passes::{instrument, Hooks};

const SCALE: &str = "
.version 7.0
.target sm_50
.address_size 64
.visible .entry scale(.param .u64 data, .param .u32 n)
{
    .reg .pred %p;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [data];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %tid.x;
    setp.ge.u32 %p, %r2, %r1;
    @%p bra DONE;
    cvta.to.global.u64 %rd1, %rd1;
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
DONE:
    ret;
}
";

fn corpus(path: &str) -> Vec<u8> {
    let full = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../corpus")
        .join(path);
    std::fs::read(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

fn two_cpu_devices() -> Runtime {
    let config = CpuConfig {
        devices: 2,
        threads: 1,
        ..CpuConfig::default()
    };
    Runtime::from_devices(discover_with(&config).unwrap())
}

/// The tests of this file, one at a time (the count is the process's).
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// PTX texts code objects parsed, on any thread, while `work` runs.
fn parses(work: impl FnOnce()) -> u64 {
    let before = ptx_parses();
    work();
    ptx_parses() - before
}

#[test]
fn ptx_loaded_on_the_cpu_device_is_parsed_once() {
    let _serial = serial();
    let runtime = two_cpu_devices();
    let device = &runtime.devices()[0];
    let count = parses(|| {
        let module = Module::from_ptx(device, SCALE).unwrap();
        assert_eq!(module.kernels().count(), 1);
        module.kernel("scale").unwrap();
    });
    assert_eq!(count, 1);
}

#[test]
fn one_code_object_on_two_devices_and_listed_is_parsed_once() {
    let _serial = serial();
    let runtime = two_cpu_devices();
    let count = parses(|| {
        let code = CodeObject::read(SCALE, "scale.ptx");
        for device in runtime.devices() {
            Module::from_code_object(device, &code).unwrap();
        }
        assert_eq!(code.symbols().unwrap().kernels().count(), 1);
    });
    assert_eq!(count, 1);
}

#[test]
fn a_fatbins_ptx_entry_is_parsed_once_per_object() {
    let _serial = serial();
    let runtime = two_cpu_devices();
    let bytes = corpus("nvcc/elementwise.sm_80.sm_90.compute_90.fatbin");
    let count = parses(|| {
        let code = CodeObject::read(bytes, "elementwise.fatbin");
        for device in runtime.devices() {
            let module = Module::from_code_object(device, &code).unwrap();
            module.kernel("saxpy").unwrap();
        }
        assert!(code.symbols().is_some());
    });
    assert_eq!(count, 1);
}

#[test]
fn an_instrumented_module_parses_the_application_and_the_tool_once_each() {
    let _serial = serial();
    let runtime = two_cpu_devices();
    let device = &runtime.devices()[0];
    // The pass parses the small snippets it generates (hook calls); count those apart.
    let hooks = Hooks {
        blocks: true,
        ..Hooks::default()
    };
    // The tool and the snippets are no code objects: chevron-ptx's counter of this thread
    // counts every parse.
    let on_this_thread = |work: &mut dyn FnMut()| {
        let before = parses_on_this_thread();
        work();
        parses_on_this_thread() - before
    };
    let mut module = chevron_ptx::parse(SCALE).unwrap();
    let snippets = on_this_thread(&mut || {
        instrument(&mut module, |_| true, hooks).unwrap();
    });
    // Loading used to parse the printed, instrumented module again: one more.
    let mut code_objects = 0;
    let count = on_this_thread(&mut || {
        code_objects = parses(|| {
            let module = Module::load_builtin(device, SCALE.as_bytes(), Builtin::Counts).unwrap();
            module.kernel("scale").unwrap();
        });
    });
    assert_eq!(count, 2 + snippets, "{snippets} snippet parses");
    assert_eq!(code_objects, 1, "the application's code object");
}

#[test]
fn module_load_on_two_devices_parses_once() {
    let _serial = serial();
    let runtime = two_cpu_devices();
    let devices: Vec<&chevron::Device> = runtime.devices().iter().collect();
    assert_eq!(devices.len(), 2);
    let fatbin = corpus("nvcc/elementwise.sm_80.sm_90.compute_90.fatbin");
    // `load_on` loads on one thread per device: a per-thread count would see none of it.
    for (bytes, what) in [
        (SCALE.as_bytes(), "PTX"),
        (&fatbin[..], "a fatbin's PTX entry"),
    ] {
        let count = parses(|| {
            let modules = Module::load_on(&devices, bytes).unwrap();
            assert_eq!(modules.len(), 2);
            for module in &modules {
                assert!(module.kernels().count() >= 1);
            }
        });
        assert_eq!(count, 1, "{what} loaded on two devices");
    }
}

/// The entry the rule picks, as (kind, architecture).
fn picked(bytes: &[u8], targets: &CodeTargets) -> Option<(EntryKind, u32)> {
    let entries = parse_fatbin(bytes).unwrap();
    select_entry(&entries, targets).map(|i| (entries[i].kind, entries[i].arch))
}

#[test]
fn one_rule_picks_the_entry_of_each_corpus_fatbin() {
    // Every test of this file that may parse PTX runs alone: the others count parses.
    let _serial = serial();
    let both = corpus("nvcc/elementwise.sm_80.sm_90.compute_90.fatbin");
    assert_eq!(
        picked(&both, &CodeTargets::gpu(9, 0)),
        Some((EntryKind::Elf, 90))
    );
    assert_eq!(
        picked(&both, &CodeTargets::gpu(8, 9)),
        Some((EntryKind::Elf, 80))
    );
    assert_eq!(
        picked(&both, &CodeTargets::gpu(10, 0)),
        Some((EntryKind::Ptx, 90))
    );
    // A GPU older than every entry runs none of them.
    assert_eq!(picked(&both, &CodeTargets::gpu(7, 5)), None);
    // The CPU device (PTX up to sm_90) runs the PTX; older PTX-only targets fall back to it.
    assert_eq!(
        picked(&both, &CodeTargets::ptx_only(90)),
        Some((EntryKind::Ptx, 90))
    );
    assert_eq!(
        picked(&both, &CodeTargets::ptx_only(80)),
        Some((EntryKind::Ptx, 90))
    );
    let ptx_only = corpus("nvcc/atomics.compute_80.fatbin");
    assert_eq!(
        picked(&ptx_only, &CodeTargets::gpu(9, 0)),
        Some((EntryKind::Ptx, 80))
    );
    let uncompressed = corpus("nvcc/structs.sm_80.compute_80.uncompressed.fatbin");
    assert_eq!(
        picked(&uncompressed, &CodeTargets::gpu(8, 6)),
        Some((EntryKind::Elf, 80))
    );
    assert_eq!(
        picked(&uncompressed, &CodeTargets::ptx_only(90)),
        Some((EntryKind::Ptx, 80))
    );
    let mlir = corpus("mlir/fatbin_format.fatbin");
    assert!(picked(&mlir, &CodeTargets::any()).is_some());
}

#[test]
fn loading_follows_the_rule_and_says_what_a_device_cannot_run() {
    let _serial = serial();
    let runtime = two_cpu_devices();
    let device = &runtime.devices()[0];
    let targets = CodeTargets::ptx_only(90);
    let uncompressed = CodeObject::read(
        corpus("nvcc/structs.sm_80.compute_80.uncompressed.fatbin"),
        "structs.fatbin",
    );
    let chosen = uncompressed.for_targets(&targets).unwrap();
    assert_eq!(chosen.source_name(), "structs.fatbin (sm_80 entry)");
    Module::from_code_object(device, &uncompressed).unwrap();
    let cubin = CodeObject::read(corpus("cubin/elementwise.sm_80.cubin"), "e.cubin");
    let err = Module::from_code_object(device, &cubin)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("e.cubin") && err.contains("runs PTX only"),
        "{err}"
    );
}
