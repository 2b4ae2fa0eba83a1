//! Tests that need a CUDA GPU. CI lists them as ignored; `scripts/gpu/conformance.sh` runs them
//! on a GPU machine (the context-poisoning fault test faults in a child process).

use std::ffi::{c_int, c_void};
use std::sync::OnceLock;

use chevron::bench::{launch_overhead, BenchOptions, Variant};
use chevron::{BackendKind, Buffer, Device, Error, LaunchConfig, Module, Runtime};

use crate::harness::{basics, corpus, cuda_devices};

type CUcontext = *mut c_void;

/// The five driver entry points these tests call themselves (chevron's driver table is
/// private), opened once.
struct Driver {
    ctx_get_current: unsafe extern "C" fn(*mut CUcontext) -> c_int,
    ctx_set_current: unsafe extern "C" fn(CUcontext) -> c_int,
    device_get: unsafe extern "C" fn(*mut c_int, c_int) -> c_int,
    primary_ctx_retain: unsafe extern "C" fn(*mut CUcontext, c_int) -> c_int,
    primary_ctx_release: unsafe extern "C" fn(c_int) -> c_int,
    _library: libloading::Library,
}

fn driver() -> &'static Driver {
    static DRIVER: OnceLock<Driver> = OnceLock::new();
    DRIVER.get_or_init(|| {
        // SAFETY: loading the CUDA driver runs no initializers with preconditions.
        let library = unsafe { libloading::Library::new("libcuda.so.1") }.expect("libcuda.so.1");
        // SAFETY: each symbol has the signature of the CUDA driver API (cuda.h, CUDA 12/13);
        // the pointers stay valid while `_library` is held.
        unsafe {
            Driver {
                ctx_get_current: *library.get(b"cuCtxGetCurrent\0").unwrap(),
                ctx_set_current: *library.get(b"cuCtxSetCurrent\0").unwrap(),
                device_get: *library.get(b"cuDeviceGet\0").unwrap(),
                primary_ctx_retain: *library.get(b"cuDevicePrimaryCtxRetain\0").unwrap(),
                primary_ctx_release: *library.get(b"cuDevicePrimaryCtxRelease_v2\0").unwrap(),
                _library: library,
            }
        }
    })
}

fn current_context() -> CUcontext {
    let mut context: CUcontext = std::ptr::null_mut();
    // SAFETY: `context` is a valid out-pointer.
    let code = unsafe { (driver().ctx_get_current)(&mut context) };
    assert_eq!(code, 0, "cuCtxGetCurrent");
    context
}

fn set_current_context(context: CUcontext) {
    // SAFETY: `context` is null or a retained primary context.
    let code = unsafe { (driver().ctx_set_current)(context) };
    assert_eq!(code, 0, "cuCtxSetCurrent");
}

/// Runs every kind of chevron call on `device`, checking after each that the calling thread's
/// current context is still `expected`.
fn every_call_keeps(device: &Device, expected: CUcontext) {
    let check = |what: &str| {
        assert_eq!(
            current_context(),
            expected,
            "{what} on {device} changed the current context"
        )
    };
    let module = basics(device).unwrap();
    check("module load");
    let kernel = module.kernel("add_one").unwrap();
    check("kernel lookup");
    let stream = device.create_stream().unwrap();
    check("stream creation");
    let data = Buffer::<u32>::zeroed(device, 1000).unwrap();
    check("allocation and fill");
    data.copy_from_host(&vec![1u32; 1000]).unwrap();
    check("copy to device");
    let token = kernel
        .launch(
            &stream,
            LaunchConfig::for_elements(1000, 128),
            (&data, 1000u32),
        )
        .unwrap();
    check("launch");
    let other = device.create_stream().unwrap();
    let after = kernel
        .launch_after(
            &other,
            LaunchConfig::for_elements(1000, 128),
            (&data, 1000u32),
            &[&token],
        )
        .unwrap();
    check("cross-stream dependency");
    after.wait().unwrap();
    check("token wait");
    assert_eq!(data.to_vec().unwrap(), vec![3u32; 1000]);
    check("copy to host");
    drop(data);
    drop(kernel);
    drop(module);
    device.synchronize().unwrap();
    check("free, unload and device synchronization");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_callers_current_context_is_never_changed() {
    let devices = cuda_devices();
    for device in &devices {
        set_current_context(std::ptr::null_mut());
        every_call_keeps(device, std::ptr::null_mut());
    }
    if devices.len() >= 2 {
        // Make device 1's primary context current, then work on device 0.
        let driver = driver();
        let mut handle = 0;
        let mut context: CUcontext = std::ptr::null_mut();
        // SAFETY: valid out-pointers; ordinal 1 exists.
        unsafe {
            assert_eq!((driver.device_get)(&mut handle, 1), 0);
            assert_eq!((driver.primary_ctx_retain)(&mut context, handle), 0);
        }
        set_current_context(context);
        every_call_keeps(&devices[0], context);
        set_current_context(std::ptr::null_mut());
        // SAFETY: retained above.
        unsafe { (driver.primary_ctx_release)(handle) };
    } else {
        eprintln!("one CUDA device: the two-GPU half of this test did not run");
    }
}

fn elementwise_cubin(device: &Device) -> &'static str {
    match device.compute_capability() {
        (9, _) => "cubin/elementwise.sm_90.cubin",
        (8, _) => "cubin/elementwise.sm_80.cubin",
        other => panic!("no corpus cubin for compute capability {other:?}"),
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cubins_and_fatbins_load_and_launch() {
    for device in cuda_devices() {
        let stream = device.create_stream().unwrap();
        for path in [
            elementwise_cubin(&device),
            "nvcc/elementwise.sm_80.sm_90.compute_90.fatbin",
        ] {
            let module = Module::from_file(&device, corpus(path)).unwrap();
            let x = Buffer::from_slice(&device, &[1.0f32, 2.0, 3.0]).unwrap();
            let y = Buffer::from_slice(&device, &[1.0f32, 1.0, 1.0]).unwrap();
            module
                .kernel("saxpy")
                .unwrap()
                .launch(&stream, LaunchConfig::new(1, 32), (3.0f32, &x, &y, 3i32))
                .unwrap()
                .wait()
                .unwrap();
            assert_eq!(y.to_vec().unwrap(), [4.0, 7.0, 10.0], "{path} on {device}");
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn dynamic_shared_memory_above_the_default_limit_is_opted_into() {
    for device in cuda_devices() {
        let limits = device.limits();
        if limits.max_shared_per_block_optin <= limits.max_shared_per_block {
            continue;
        }
        let kernel = basics(&device).unwrap().kernel("reverse_blocks").unwrap();
        let data: Vec<u32> = (0..128).collect();
        let buffer = Buffer::from_slice(&device, &data).unwrap();
        let config =
            LaunchConfig::new(1, 128).with_shared_bytes(limits.max_shared_per_block + 1024);
        kernel
            .launch(&device.default_stream().unwrap(), config, (&buffer,))
            .unwrap()
            .wait()
            .unwrap();
        let reversed: Vec<u32> = data.iter().rev().copied().collect();
        assert_eq!(buffer.to_vec().unwrap(), reversed);
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_cpu_token_orders_a_cuda_launch() {
    let cuda = cuda_devices().remove(0);
    let cpu = Runtime::with_devices("cpu")
        .unwrap()
        .default_device()
        .unwrap()
        .clone();
    assert_eq!(cpu.backend(), BackendKind::Cpu);
    let cpu_data = Buffer::<u32>::zeroed(&cpu, 4096).unwrap();
    let cpu_token = basics(&cpu)
        .unwrap()
        .kernel("add_one")
        .unwrap()
        .launch(
            &cpu.create_stream().unwrap(),
            LaunchConfig::for_elements(4096, 256),
            (&cpu_data, 4096u32),
        )
        .unwrap();
    let gpu_data = Buffer::<u32>::zeroed(&cuda, 16).unwrap();
    basics(&cuda)
        .unwrap()
        .kernel("add_one")
        .unwrap()
        .launch_after(
            &cuda.create_stream().unwrap(),
            LaunchConfig::new(1, 32),
            (&gpu_data, 16u32),
            &[&cpu_token],
        )
        .unwrap()
        .wait()
        .unwrap();
    assert!(cpu_token.is_done().unwrap());
    assert_eq!(gpu_data.to_vec().unwrap(), vec![1u32; 16]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_launch_benchmark_measures_against_the_raw_driver() {
    let device = cuda_devices().remove(0);
    let report = launch_overhead(&device, &BenchOptions::quick()).unwrap();
    eprintln!("{report}");
    assert!(report.has_baseline());
    for kernel in ["empty", "axpy (4 args)"] {
        let checked = report.figure(kernel, Variant::Checked).unwrap();
        assert!(checked.enqueue_ratio.unwrap().is_finite());
    }
}

/// The environment variable that makes [`cuda_fault_names_the_kernel`] fault in this process.
const FAULT_CHILD: &str = "CHEVRON_CONFORMANCE_FAULT_CHILD";

/// A fault names the kernel and the device. A fault leaves the process's CUDA context unusable,
/// so the test runs the faulting launch in a child process (this test binary again, this test
/// alone) and checks what the child reports; the rest of the suite goes on in this process.
#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_fault_names_the_kernel() {
    if std::env::var_os(FAULT_CHILD).is_some() {
        fault_and_report();
        return;
    }
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--include-ignored",
            "--exact",
            "gpu_only::cuda_fault_names_the_kernel",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(FAULT_CHILD, "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&child.stderr);
    assert!(
        child.status.success(),
        "the faulting child failed: {}\n{stderr}",
        child.status
    );
    assert!(
        stderr.contains("fault reported as: "),
        "the child reported no fault:\n{stderr}"
    );
}

/// The child's half of [`cuda_fault_names_the_kernel`]: a kernel stores to address 8.
fn fault_and_report() {
    let device = cuda_devices().remove(0);
    let stream = device.create_stream().unwrap();
    let kernel = basics(&device).unwrap().kernel("store_to").unwrap();
    kernel
        .launch(&stream, LaunchConfig::new(1, 1), (8u64,))
        .unwrap();
    match stream.synchronize() {
        Err(Error::Fault {
            kernel,
            device: on,
            message,
            ..
        }) => {
            assert!(kernel.contains("store_to"), "{kernel}");
            assert!(on.starts_with(device.label()), "{on}");
            eprintln!("fault reported as: {message}");
        }
        other => panic!("expected a fault, got {other:?}"),
    }
}
