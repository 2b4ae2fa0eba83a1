//! Instrumented modules and the host trace, on the default device.

use std::sync::Mutex;

use chevron::{Buffer, Builtin, Hooks, Instrumentation, LaunchConfig, Module, Runtime};
use serde_json::Value;

const ELEMENTWISE: &str = include_str!("../../../corpus/nvcc/elementwise.sm_80.ptx");
const COUNT_TOOL: &str = include_str!("../../chevron-ptx/tests/data/tools/count_hooks.ptx");

/// The trace and the built-in records are per process: tests touching them run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn read_global(module: &Module, name: &str) -> u64 {
    let global = module.global(name).unwrap();
    let stream = module.device().default_stream().unwrap();
    let mut bytes = [0u8; 8];
    stream.copy_to_host_at(&mut bytes, global.ptr).unwrap();
    u64::from_le_bytes(bytes)
}

#[test]
fn a_tool_counts_every_thread_of_a_corpus_kernel_and_results_are_unchanged() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let runtime = Runtime::new().unwrap();
    let device = runtime.default_device().unwrap();
    let what = Instrumentation {
        hooks: Hooks {
            entry_exit: true,
            blocks: true,
            accesses: true,
        },
        kernels: Some(vec!["saxpy".into()]),
    };
    let module =
        Module::load_instrumented(device, ELEMENTWISE.as_bytes(), COUNT_TOOL.as_bytes(), &what)
            .unwrap();
    let plain = Module::from_ptx(device, ELEMENTWISE).unwrap();
    let stream = device.default_stream().unwrap();
    let n = 1000u32;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let mut outputs = Vec::new();
    for module in [&module, &plain] {
        let y = Buffer::from_slice(device, &vec![1.25f32; n as usize]).unwrap();
        let xs = Buffer::from_slice(device, &x).unwrap();
        let saxpy = module.kernel("saxpy").unwrap();
        let config = LaunchConfig {
            grid: [8, 1, 1],
            block: [128, 1, 1],
            shared_bytes: 0,
        };
        saxpy
            .launch(&stream, config, (3.0f32, &xs, &y, n))
            .unwrap()
            .wait()
            .unwrap();
        outputs.push(y.to_vec().unwrap());
    }
    assert_eq!(
        outputs[0], outputs[1],
        "instrumentation changed saxpy's results"
    );
    assert_eq!(read_global(&module, "tool_entries"), 8 * 128, "entry hooks");
    assert_eq!(read_global(&module, "tool_exits"), 8 * 128, "exit hooks");
    // Two loads and one store of 4 bytes per thread in range.
    assert_eq!(read_global(&module, "tool_accesses"), 3 * u64::from(n));
    assert_eq!(read_global(&module, "tool_stores"), u64::from(n));
    assert_eq!(read_global(&module, "tool_bytes"), 12 * u64::from(n));
    // A kernel not selected keeps its parameters and runs unmodified.
    let other = module.kernel("vec_add_f32").unwrap();
    assert_eq!(other.params().unwrap().len(), 4);
}

#[test]
fn a_tool_missing_a_hook_is_reported_by_name() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let runtime = Runtime::new().unwrap();
    let device = runtime.default_device().unwrap();
    let tool = COUNT_TOOL.replace("chevron_on_block", "renamed_block_hook");
    let what = Instrumentation {
        hooks: Hooks {
            blocks: true,
            ..Hooks::default()
        },
        kernels: None,
    };
    let err = Module::load_instrumented(device, ELEMENTWISE.as_bytes(), tool.as_bytes(), &what)
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("the tool defines no device function `chevron_on_block`"),
        "{err}"
    );
}

#[test]
fn cubins_cannot_be_instrumented() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let runtime = Runtime::new().unwrap();
    let device = runtime.default_device().unwrap();
    let cubin = include_bytes!("../../../corpus/nvcc/reduce.sm_80.cubin");
    let err = Module::load_builtin(device, cubin, Builtin::Blocks).unwrap_err();
    assert!(
        err.to_string().contains("cannot instrument a cubin"),
        "{err}"
    );
}

fn events(trace: &Value) -> &Vec<Value> {
    trace["traceEvents"].as_array().unwrap()
}

#[test]
fn the_trace_shows_launches_streams_flows_and_thread_blocks() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let runtime = Runtime::new().unwrap();
    let device = runtime.default_device().unwrap();
    let path = std::env::temp_dir().join(format!("chevron-trace-{}.json", std::process::id()));
    chevron::trace::start(&path).unwrap();
    let module = Module::load_builtin(device, ELEMENTWISE.as_bytes(), Builtin::Blocks).unwrap();
    let first = device.create_stream().unwrap();
    let second = device.create_stream().unwrap();
    let x = Buffer::from_slice(device, &[1.0f32; 256]).unwrap();
    let y = Buffer::<f32>::zeroed(device, 256).unwrap();
    let saxpy = module.kernel("saxpy").unwrap();
    let config = LaunchConfig {
        grid: [4, 1, 1],
        block: [64, 1, 1],
        shared_bytes: 0,
    };
    let done = saxpy
        .launch(&first, config, (2.0f32, &x, &y, 256u32))
        .unwrap();
    let after = saxpy
        .launch_after(&second, config, (2.0f32, &x, &y, 256u32), &[&done])
        .unwrap();
    after.wait().unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![4.0f32; 256]);
    let written = chevron::trace::stop().unwrap();
    let trace: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    std::fs::remove_file(&path).unwrap();
    let all = events(&trace);
    assert!(written > 0 && all.len() >= written);
    let launches: Vec<&Value> = all
        .iter()
        .filter(|e| e["cat"] == "launch" && e["args"]["kernel"] == "saxpy")
        .collect();
    // Each launch is on its host thread's track and on its stream's track.
    assert_eq!(launches.len(), 4, "launch events");
    assert!(launches
        .iter()
        .all(|e| e["args"]["grid"] == serde_json::json!([4, 1, 1])
            && e["args"]["block"] == serde_json::json!([64, 1, 1])
            && e["args"]["device"] == device.label()));
    let blocks: Vec<&Value> = all.iter().filter(|e| e["cat"] == "block").collect();
    assert_eq!(blocks.len(), 8, "two launches of 4 thread blocks");
    assert!(blocks.iter().any(|e| e["name"] == "block (3, 0, 0)"));
    assert!(blocks.iter().all(|e| e["ts"].as_f64().unwrap() >= 0.0));
    let flows = all.iter().filter(|e| e["ph"] == "s").count();
    assert!(
        flows >= 1,
        "no flow from the first launch to the wait on it"
    );
    assert!(all
        .iter()
        .any(|e| e["cat"] == "module" && e["args"]["parse_us"].as_f64().is_some_and(|t| t > 0.0)));
    let names: Vec<&str> = all
        .iter()
        .filter(|e| e["name"] == "thread_name")
        .filter_map(|e| e["args"]["name"].as_str())
        .collect();
    assert!(
        names.iter().filter(|n| n.starts_with("stream ")).count() >= 2,
        "{names:?}"
    );
    // Each launch as the device ran it (CUDA events, or the CPU executor's clock), on the
    // device tracks of the two streams.
    let ran: Vec<&Value> = all
        .iter()
        .filter(|e| e["cat"] == "device" && e["name"] == "saxpy")
        .collect();
    assert_eq!(ran.len(), 2, "device-side launches");
    let device_tracks: std::collections::BTreeSet<(u64, u64)> = ran
        .iter()
        .map(|e| (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap()))
        .collect();
    assert_eq!(device_tracks.len(), 2, "one track per stream");
    let on_device = names.iter().filter(|n| n.ends_with(" on the device"));
    assert!(on_device.count() >= 2, "{names:?}");
    // The second launch waited for the first: it ran after it.
    let (first, second) = (&ran[0], &ran[1]);
    let end = |e: &Value| e["ts"].as_f64().unwrap() + e["dur"].as_f64().unwrap();
    let (early, late) = if first["ts"].as_f64() < second["ts"].as_f64() {
        (first, second)
    } else {
        (second, first)
    };
    assert!(late["ts"].as_f64().unwrap() >= end(early) - 1.0);
}

#[test]
fn a_second_start_is_an_error_and_a_write_error_is_reported_at_stop() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let path = std::env::temp_dir().join(format!("chevron-trace2-{}.json", std::process::id()));
    chevron::trace::start(&path).unwrap();
    let other = std::env::temp_dir().join("chevron-trace-other.json");
    let err = chevron::trace::start(&other).unwrap_err();
    assert!(err.to_string().contains("already recording into"), "{err}");
    assert!(!other.exists(), "the second trace made no file");
    chevron::trace::stop().unwrap();
    let trace: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert!(trace["traceEvents"].is_array());
    std::fs::remove_file(&path).unwrap();
    // A directory cannot be created as a file; /dev/full takes no bytes (not even the header):
    // neither starts a trace.
    let err = chevron::trace::start("/").unwrap_err();
    assert!(err.to_string().starts_with("/:"), "{err}");
    let err = chevron::trace::start("/dev/full").unwrap_err();
    assert!(err.to_string().contains("No space left on device"), "{err}");
    let err = chevron::trace::stop().unwrap_err();
    assert!(err.to_string().contains("no trace is recording"), "{err}");
}

#[test]
fn a_long_trace_is_written_as_it_is_recorded() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let runtime = Runtime::new().unwrap();
    let device = runtime.default_device().unwrap();
    let path = std::env::temp_dir().join(format!("chevron-trace3-{}.json", std::process::id()));
    chevron::trace::start(&path).unwrap();
    let module = Module::from_ptx(device, ELEMENTWISE).unwrap();
    let stream = device.create_stream().unwrap();
    let x = Buffer::from_slice(device, &[1.0f32; 32]).unwrap();
    let y = Buffer::<f32>::zeroed(device, 32).unwrap();
    let saxpy = module.kernel("saxpy").unwrap();
    let config = LaunchConfig {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        shared_bytes: 0,
    };
    for _ in 0..3000 {
        saxpy
            .launch(&stream, config, (1.0f32, &x, &y, 32u32))
            .unwrap();
    }
    stream.synchronize().unwrap();
    // Before the trace stops, the file already holds most of it, in whole batches.
    let partial = std::fs::read(&path).unwrap();
    let launches_on_disk = String::from_utf8_lossy(&partial)
        .matches("\"cat\":\"launch\"")
        .count();
    assert!(
        launches_on_disk >= 4000,
        "{launches_on_disk} launch events on disk"
    );
    let written = chevron::trace::stop().unwrap();
    let trace: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    std::fs::remove_file(&path).unwrap();
    let all = events(&trace);
    let launches = all.iter().filter(|e| e["cat"] == "launch").count();
    assert_eq!(launches, 6000, "each launch on its host and stream tracks");
    assert!(written >= 6000);
}

#[test]
fn stopping_without_starting_is_an_error() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let err = chevron::trace::stop().unwrap_err();
    assert!(err.to_string().contains("no trace is recording"), "{err}");
}

#[test]
fn instrumented_kernels_in_recorded_graphs_get_a_record_per_replay() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let runtime = Runtime::new().unwrap();
    let device = runtime.default_device().unwrap();
    let path = std::env::temp_dir().join(format!("chevron-graph-{}.json", std::process::id()));
    chevron::trace::start(&path).unwrap();
    let module = Module::load_builtin(device, ELEMENTWISE.as_bytes(), Builtin::Counts).unwrap();
    let saxpy = module.kernel("saxpy").unwrap();
    let stream = device.create_stream().unwrap();
    let x = Buffer::from_slice(device, &[1.0f32; 256]).unwrap();
    let y = Buffer::<f32>::zeroed(device, 256).unwrap();
    let config = LaunchConfig::new(4, 64);
    let mut graph = stream
        .record(|s| {
            s.fill(&y, 0.0f32)?;
            s.launch(&saxpy, config, (2.0f32, &x, &y, 256u32))?;
            s.launch(&saxpy, config, (1.0f32, &x, &y, 256u32))?;
            Ok(())
        })
        .unwrap();
    graph.launch(&stream, &[]).unwrap().wait().unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![3.0f32; 256]);
    graph
        .set_args(graph.node(2), (3.0f32, &x, &y, 256u32))
        .unwrap();
    graph.launch(&stream, &[]).unwrap().wait().unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![5.0f32; 256]);
    // The same launch eagerly, for the count one launch gives.
    stream.fill(&y, 0.0f32).unwrap();
    saxpy
        .launch(&stream, config, (2.0f32, &x, &y, 256u32))
        .unwrap();
    stream.synchronize().unwrap();
    chevron::trace::stop().unwrap();
    let trace: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    std::fs::remove_file(&path).unwrap();
    let counts: Vec<u64> = events(&trace)
        .iter()
        .filter(|e| e["cat"] == "instrument" && e["args"]["kernel"] == "saxpy")
        .map(|e| e["args"]["instructions"].as_u64().unwrap())
        .collect();
    // Two nodes x two replays, each with a record of its own, then the eager launch.
    assert_eq!(counts.len(), 5, "{counts:?}");
    assert!(
        counts[0] > 0 && counts.iter().all(|&c| c == counts[0]),
        "{counts:?}"
    );
}

#[test]
fn block_records_are_read_when_the_launch_is_waited_for_not_at_exit() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let runtime = Runtime::new().unwrap();
    let device = runtime.default_device().unwrap();
    let path = std::env::temp_dir().join(format!("chevron-waited-{}.json", std::process::id()));
    chevron::trace::start(&path).unwrap();
    let module = Module::load_builtin(device, ELEMENTWISE.as_bytes(), Builtin::Blocks).unwrap();
    let stream = device.create_stream().unwrap();
    let x = Buffer::from_slice(device, &[1.0f32; 256]).unwrap();
    let y = Buffer::<f32>::zeroed(device, 256).unwrap();
    let config = LaunchConfig {
        grid: [4, 1, 1],
        block: [64, 1, 1],
        shared_bytes: 0,
    };
    let token = module
        .kernel("saxpy")
        .unwrap()
        .launch(&stream, config, (2.0f32, &x, &y, 256u32))
        .unwrap();
    assert_eq!(chevron::instrument::pending(), 1, "the launch's record");
    token.wait().unwrap();
    assert_eq!(
        chevron::instrument::pending(),
        0,
        "the record is read right after the wait, while the device is alive"
    );
    // The same after a wait for the whole device (cudaDeviceSynchronize's path).
    module
        .kernel("saxpy")
        .unwrap()
        .launch(&stream, config, (2.0f32, &x, &y, 256u32))
        .unwrap();
    assert_eq!(chevron::instrument::pending(), 1);
    device.synchronize().unwrap();
    assert_eq!(
        chevron::instrument::pending(),
        0,
        "read after Device::synchronize"
    );
    // Everything of the device side is gone before the trace is written.
    drop((module, stream, x, y));
    chevron::trace::stop().unwrap();
    let trace: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    std::fs::remove_file(&path).unwrap();
    let blocks: Vec<&Value> = events(&trace)
        .iter()
        .filter(|e| e["cat"] == "block")
        .collect();
    assert_eq!(blocks.len(), 8, "one event per thread block of each launch");
    assert_eq!(chevron::instrument::collect().unwrap(), 0, "nothing left");
}

/// Stores through `out` (a bad address faults) after a loop calling a device function.
const FAULTING: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.func (.param .b32 result) bump(.param .b32 x)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [x];
    add.s32 %r2, %r1, 1;
    st.param.b32 [result], %r2;
    ret;
}

.visible .entry poke(.param .u64 out, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, 0;
LOOP:
    {
    .param .b32 a;
    .param .b32 b;
    st.param.b32 [a], %r2;
    call.uni (b), bump, (a);
    ld.param.b32 %r2, [b];
    }
    setp.lt.u32 %p1, %r2, %r1;
    @%p1 bra LOOP;
    st.global.u32 [%rd1], %r2;
    ret;
}
"#;

#[test]
fn a_fault_in_an_instrumented_kernel_names_the_original_ptx_line() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let runtime = Runtime::new().unwrap();
    let device = runtime.default_device().unwrap();
    if device.backend() != chevron::BackendKind::Cpu {
        return; // GPU faults name no PTX line.
    }
    let store_line = FAULTING
        .lines()
        .position(|l| l.contains("st.global.u32 [%rd1]"))
        .unwrap()
        + 1;
    let what = Instrumentation {
        hooks: Hooks {
            entry_exit: true,
            blocks: true,
            accesses: true,
        },
        kernels: None,
    };
    let instrumented =
        Module::load_instrumented(device, FAULTING.as_bytes(), COUNT_TOOL.as_bytes(), &what)
            .unwrap();
    let plain = Module::from_ptx(device, FAULTING).unwrap();
    let config = LaunchConfig {
        grid: [2, 1, 1],
        block: [32, 1, 1],
        shared_bytes: 0,
    };
    for module in [&plain, &instrumented] {
        let stream = device.create_stream().unwrap();
        let poke = module.kernel("poke").unwrap();
        let err = poke
            .launch(&stream, config, (16u64, 3u32))
            .and_then(|token| token.wait())
            .unwrap_err();
        let message = err.to_string();
        assert!(
            message.contains(&format!("PTX line {store_line}:")),
            "expected line {store_line}: {message}"
        );
    }
    // The hooks ran in the kernel and in the copy of `bump` up to the fault (which stops the
    // launch after the faulting thread block): per thread, the entry block, 3 loop iterations
    // each with one call of `bump` (one block), and the block of the store.
    let entries = read_global(&instrumented, "tool_entries");
    assert!(
        entries > 0 && entries.is_multiple_of(32),
        "{entries} threads entered"
    );
    assert_eq!(
        read_global(&instrumented, "tool_blocks"),
        entries * (1 + 3 + 3 + 1)
    );
}

/// Per thread: a generic load from global memory in a device function, a generic store to
/// shared memory, and a global store.
const GENERIC: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.func (.param .b32 result) load(.param .b64 p)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    ld.u32 %r1, [%rd1];
    st.param.b32 [result], %r1;
    ret;
}

.visible .entry copy(.param .u64 in, .param .u64 out)
{
    .shared .align 4 .b32 scratch[32];
    .reg .b32 %r<3>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    {
    .param .b64 a;
    .param .b32 b;
    st.param.b64 [a], %rd4;
    call.uni (b), load, (a);
    ld.param.b32 %r2, [b];
    }
    mov.u64 %rd5, scratch;
    cvta.shared.u64 %rd5, %rd5;
    add.s64 %rd6, %rd5, %rd3;
    st.u32 [%rd6], %r2;
    cvta.to.global.u64 %rd2, %rd2;
    add.s64 %rd7, %rd2, %rd3;
    st.global.u32 [%rd7], %r2;
    ret;
}
"#;

#[test]
fn the_memory_tool_counts_global_accesses_in_device_functions_and_through_generic_addresses() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let runtime = Runtime::new().unwrap();
    let device = runtime.default_device().unwrap();
    let path = std::env::temp_dir().join(format!("chevron-memory-{}.json", std::process::id()));
    chevron::trace::start(&path).unwrap();
    let module = Module::load_builtin(device, GENERIC.as_bytes(), Builtin::Memory).unwrap();
    let input: Vec<u32> = (0..32).map(|i| i * 3).collect();
    let x = Buffer::from_slice(device, &input).unwrap();
    let y = Buffer::<u32>::zeroed(device, 32).unwrap();
    let stream = device.create_stream().unwrap();
    let config = LaunchConfig {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        shared_bytes: 0,
    };
    module
        .kernel("copy")
        .unwrap()
        .launch(&stream, config, (&x, &y))
        .unwrap()
        .wait()
        .unwrap();
    assert_eq!(y.to_vec().unwrap(), input);
    chevron::trace::stop().unwrap();
    let trace: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    std::fs::remove_file(&path).unwrap();
    let summary = events(&trace)
        .iter()
        .find(|e| e["name"] == "memory: copy")
        .expect("the memory tool's event");
    // The generic load in `load` reads global memory; the generic store goes to shared memory
    // and is not counted; the global store is.
    assert_eq!(summary["args"]["loads"], 32);
    assert_eq!(summary["args"]["load_bytes"], 128);
    assert_eq!(summary["args"]["stores"], 32);
    assert_eq!(summary["args"]["store_bytes"], 128);
}
