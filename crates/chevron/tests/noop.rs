//! The no-op device (`CHEVRON_DEVICES=noop`) through the runtime: discovered only when named,
//! real and checked memory, launches checked and never run, streams in order, events, and a
//! graph whose replays do their copies and fills but run no kernel.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use chevron::backend::{self, BackendKind, HostVisibleKind};
use chevron::code_object::CodeObject;
use chevron::{Buffer, Device, Error, LaunchConfig, Module, Result, Runtime};

const BASICS: &str = include_str!("data/basics.ptx");

fn noop() -> Device {
    let runtime = Runtime::with_devices("noop").expect("a valid selection");
    runtime.default_device().expect("the no-op device").clone()
}

#[test]
fn it_is_discovered_only_when_named() {
    let runtime = Runtime::with_devices("cpu, noop:0").unwrap();
    let labels: Vec<&str> = runtime.devices().iter().map(|d| d.label()).collect();
    assert_eq!(labels, ["cpu:0", "noop:0"]);
    let device = &runtime.devices()[1];
    assert_eq!(device.backend(), BackendKind::Noop);
    assert!(!BackendKind::Noop.runs_in_software());
    assert_eq!(device.info().name, "chevron no-op device");

    let defaults = chevron::selection::Selection::all();
    assert!(!defaults.mentions(BackendKind::Noop));
    let missing = Runtime::with_devices("noop:1").unwrap();
    let reason = missing.backends()[0]
        .unavailable
        .clone()
        .unwrap_or_default();
    assert!(reason.contains("noop:1 was requested"), "{reason}");
}

#[test]
fn memory_is_real_host_memory_checked_as_on_the_cpu_device() -> Result<()> {
    let device = noop();
    let stream = device.create_stream()?;
    let a = Buffer::from_slice(&device, &[1u32, 2, 3, 4])?;
    let b = Buffer::<u32>::zeroed(&device, 4)?;
    stream.copy_buffer(&b, &a)?;
    assert_eq!(b.to_vec()?, [1, 2, 3, 4]);
    stream.fill(&a, 0xabcd_u32)?;
    assert_eq!(a.to_vec()?, [0xabcd; 4]);

    // The contract, directly: every check the CPU device makes.
    let raw = &backend::noop::discover()?[0];
    let stream = raw.create_stream()?;
    let err = |e: Result<()>| e.unwrap_err().to_string();
    assert!(raw.alloc(0).is_err());
    let ptr = raw.alloc(64)?;
    assert_eq!(ptr % 256, 0);
    assert!(raw.is_device_address(ptr) && raw.allocation_of(ptr + 8) == Some((ptr, 64)));
    let text = err(stream.copy_to_device(ptr + 60, &[0; 8]));
    assert!(text.contains("outside every allocation"), "{text}");
    assert!(err(stream.memset(ptr + 1, 0, 4, 1)).contains("not aligned"));
    assert!(err(stream.copy_on_device(ptr, ptr + 32, 64)).contains("outside"));
    assert!(err(raw.free(ptr + 8)).contains("points into the allocation"));
    raw.free(ptr)?;
    assert!(err(stream.copy_to_device(ptr, &[1])).contains("lie in freed allocation"));
    assert!(err(raw.free(ptr)).contains("not a live allocation"));

    // Host-visible (pinned, managed) memory is the host's own bytes.
    let host = raw
        .alloc_host_visible(16, HostVisibleKind::Managed)?
        .unwrap();
    assert!(!raw.is_device_address(host) && raw.allocation_of(host).is_none());
    stream.copy_to_device(host, &[7; 16])?;
    // SAFETY: `host` is the host address of 16 live bytes this device allocated.
    let bytes = unsafe { std::slice::from_raw_parts(host as *const u8, 16) };
    assert_eq!(bytes, [7; 16]);
    raw.free_host_visible(host)?;
    Ok(())
}

#[test]
fn modules_load_as_on_the_cpu_device_and_launches_are_checked_but_not_run() -> Result<()> {
    let device = noop();
    let module = Module::from_ptx(&device, BASICS)?;
    let cpu = Runtime::with_devices("cpu")
        .unwrap()
        .default_device()?
        .clone();
    let on_cpu = Module::from_ptx(&cpu, BASICS)?;
    let names = |m: &Module| m.kernels().map(|k| k.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&module), names(&on_cpu));
    // What the CPU device refuses to load, the no-op device refuses too.
    let bad = ".version 8.7\n.target sm_100a\n.address_size 64\n\
               .visible .entry k() { tcgen05.fence::before_thread_sync; ret; }\n";
    let refused = |d: &Device| Module::from_ptx(d, bad).err().map(|e| e.to_string());
    let (on_cpu_error, on_noop_error) = (refused(&cpu), refused(&device));
    assert!(
        on_noop_error
            .as_ref()
            .is_some_and(|e| e.contains("tcgen05")),
        "{on_noop_error:?}"
    );
    assert!(on_cpu_error.is_some(), "{on_cpu_error:?}");
    // Module variables hold their initial values.
    let with_global = ".version 7.0\n.target sm_50\n.address_size 64\n\
                       .visible .global .u32 g = 7;\n.visible .entry k() { ret; }\n";
    // The module stays loaded while its variable is read (dropped, it frees the variable).
    let with_global = Module::from_ptx(&device, with_global)?;
    let global = with_global.global("g")?;
    let mut value = [0u8; 4];
    device
        .create_stream()?
        .copy_to_host_at(&mut value, global.ptr)?;
    assert_eq!(u32::from_le_bytes(value), 7);

    let stream = device.create_stream()?;
    let out = Buffer::<u32>::zeroed(&device, 256)?;
    let fill_index = module.kernel("fill_index")?;
    fill_index.launch(&stream, LaunchConfig::new(2, 128), (&out, 256u32))?;
    stream.synchronize()?;
    assert_eq!(out.to_vec()?, vec![0; 256], "no kernel runs");
    let limited = module.kernel("limited")?;
    let too_big = limited.launch(&stream, LaunchConfig::new(1, 65), (&out,));
    assert!(
        matches!(too_big, Err(Error::LaunchConfig { .. })),
        "{too_big:?}"
    );

    // The backend's own checks, for launches the public layer does not check.
    let function = fill_index.backend_function();
    let config = backend::LaunchConfig {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        shared_bytes: 200 << 10,
    };
    let mut n = 1u32;
    let args = [std::ptr::from_mut(&mut n).cast(), std::ptr::null_mut()];
    // SAFETY: the no-op stream reads no argument; it checks them.
    let launch = |config: &backend::LaunchConfig, args: &[*mut std::ffi::c_void]| unsafe {
        stream.backend_stream().launch(function, config, args)
    };
    assert!(matches!(
        launch(&config, &args),
        Err(Error::LaunchConfig { .. })
    ));
    let config = backend::LaunchConfig {
        shared_bytes: 0,
        ..config
    };
    let text = launch(&config, &args[..1]).unwrap_err().to_string();
    assert!(text.contains("2 parameters, got 1 arguments"), "{text}");
    let text = launch(&config, &args).unwrap_err().to_string();
    assert!(text.contains("argument 1 is a null pointer"), "{text}");
    let on_cpu_stream = cpu.create_stream()?;
    // SAFETY: as above; the CPU stream refuses a kernel of another backend before reading.
    let foreign = unsafe {
        on_cpu_stream
            .backend_stream()
            .launch(function, &config, &args)
    };
    assert!(foreign.is_err());
    Ok(())
}

#[test]
fn streams_keep_order_and_events_and_host_functions_follow_it() -> Result<()> {
    let device = noop();
    let first = device.create_stream()?;
    let second = device.create_stream()?;
    let data = Buffer::<u32>::zeroed(&device, 64)?;
    let copy = Buffer::<u32>::zeroed(&device, 64)?;
    let filled = first.fill(&data, 5)?;
    assert!(filled.is_done()?);
    second.wait_for(&[&filled])?;
    second.copy_buffer(&copy, &data)?;
    let seen = Arc::new(AtomicUsize::new(0));
    let in_host = Arc::clone(&seen);
    let host = second.launch_host_function(move |status| {
        status.unwrap();
        in_host.fetch_add(1, Ordering::SeqCst);
    })?;
    host.wait()?;
    assert_eq!(seen.load(Ordering::SeqCst), 1);
    assert_eq!(copy.to_vec()?, vec![5; 64]);
    let mark = second.record_timing()?;
    assert!(mark.token().is_done()?);
    device.synchronize()
}

#[test]
fn a_graph_replays_its_copies_and_fills_and_checks_its_launches() -> Result<()> {
    let device = noop();
    let module = Module::from_ptx(&device, BASICS)?;
    let add_one = module.kernel("add_one")?;
    let stream = device.create_stream()?;
    let data = Buffer::<u32>::zeroed(&device, 128)?;
    let copy = Buffer::<u32>::zeroed(&device, 128)?;
    let mut node = None;
    let mut graph = stream.record(|s| {
        s.fill(&data, 3)?;
        node = Some(s.launch(&add_one, LaunchConfig::new(1, 128), (&data, 128u32))?);
        s.copy_buffer(&copy, &data)?;
        Ok(())
    })?;
    let node = node.unwrap();
    assert_eq!(copy.to_vec()?, vec![0; 128], "recording does nothing");
    for _ in 0..3 {
        graph.launch(&stream, &[])?.wait()?;
    }
    assert_eq!(
        copy.to_vec()?,
        vec![3; 128],
        "fills and copies replayed, no kernel run"
    );
    let wrong = graph.set_args(node, (&data,));
    assert!(wrong.is_err(), "{wrong:?}");
    graph.set_args(node, (&copy, 64u32))?;
    graph.launch(&stream, &[])?.wait()?;
    assert_eq!(copy.to_vec()?, vec![3; 128]);
    Ok(())
}

#[test]
fn a_fatbin_with_ptx_loads_where_the_cpu_device_loads_it() -> Result<()> {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/rdc_callee.lz4.fatbin"
    ))
    .unwrap();
    let code = CodeObject::read(bytes, "rdc_callee.lz4.fatbin");
    let cpu = Runtime::with_devices("cpu")
        .unwrap()
        .default_device()?
        .clone();
    let on_cpu = Module::from_code_object(&cpu, &code).map(|_| ());
    let on_noop = Module::from_code_object(&noop(), &code).map(|_| ());
    assert!(on_cpu.is_ok() && on_noop.is_ok(), "{on_cpu:?} {on_noop:?}");
    Ok(())
}
