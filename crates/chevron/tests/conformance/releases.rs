//! Deferred releases and multi-device loading: a free or a module unload made while a kernel
//! spins on another stream does not stall the thread that launches (the driver's `cuMemFree`
//! and `cuModuleUnload` wait for the whole device, so chevron makes them on the device's release
//! worker), and one code object loads on several devices in parallel.

use std::time::{Duration, Instant};

use chevron::{Buffer, LaunchConfig, Module};

use crate::harness::{basics, cuda_devices, data, device_pairs};

/// Spins for `nanoseconds` on `%globaltimer`.
const SPIN: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry spin(.param .u64 nanoseconds)
{
    .reg .u64 %start, %now, %elapsed, %limit;
    .reg .pred %more;
    ld.param.u64 %limit, [nanoseconds];
    mov.u64 %start, %globaltimer;
WAIT:
    mov.u64 %now, %globaltimer;
    sub.u64 %elapsed, %now, %start;
    setp.lt.u64 %more, %elapsed, %limit;
    @%more bra WAIT;
    ret;
}
"#;

/// How long the spinning kernel runs.
const SPIN_TIME: Duration = Duration::from_secs(2);
/// The most the launching thread may take while the kernel spins.
const NO_STALL: Duration = Duration::from_millis(500);

const N: u32 = 1 << 16;

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_free_or_unload_while_a_kernel_spins_does_not_stall_the_launching_thread() {
    for device in cuda_devices() {
        // CUDA may keep the launch after the releases from running beside the spinning kernel
        // when another thread of the process issues an implicitly synchronizing operation in
        // between (the other conformance tests allocate and free all the time): up to three
        // attempts, one of which must not stall. Releases made on the launching thread stall
        // every attempt.
        let mut attempts = Vec::new();
        for _ in 0..3 {
            match release_while_spinning(&device) {
                Ok(()) => break,
                Err(attempt) => attempts.push(attempt),
            }
        }
        assert!(
            attempts.len() < 3,
            "on {device}: every attempt stalled: {}",
            attempts.join("; ")
        );
    }
}

/// One attempt: releases (a buffer and a module) that wait for one stream, made while a kernel
/// spins on another, then a launch. `Err` describes a stall.
fn release_while_spinning(device: &chevron::Device) -> Result<(), String> {
    let spin = Module::from_ptx(device, SPIN)
        .unwrap()
        .kernel("spin")
        .unwrap();
    let kept = basics(device).unwrap().kernel("add_one").unwrap();
    let dropped = basics(device).unwrap().kernel("add_one").unwrap();
    let (spinning, working) = (
        device.create_stream().unwrap(),
        device.create_stream().unwrap(),
    );
    let config = LaunchConfig::for_elements(N as usize, 256);
    let kept_data = Buffer::<u32>::zeroed(device, N as usize).unwrap();
    let data = Buffer::<u32>::zeroed(device, N as usize).unwrap();
    // `kept` runs once before the spin: under CUDA's lazy loading a kernel's first launch loads
    // its code, which "might require context synchronization" (CUDA's lazy-loading guide), i.e.
    // wait for the spinning kernel; that is the driver's, not a release's, stall.
    kept.launch(&working, config, (&kept_data, N)).unwrap();
    dropped.launch(&working, config, (&data, N)).unwrap();
    // Both releases wait for `working` (the only stream with work now).
    drop(data);
    drop(dropped);
    let nanoseconds = SPIN_TIME.as_nanos() as u64;
    let spun = spin
        .launch(&spinning, LaunchConfig::new(1, 1), (nanoseconds,))
        .unwrap();
    let started = Instant::now();
    // The synchronization finds both releases ready and makes them.
    working.synchronize().unwrap();
    let released = started.elapsed();
    kept.launch(&working, config, (&kept_data, N)).unwrap();
    working.synchronize().unwrap();
    let launched = started.elapsed();
    let spinning_still = !spun.is_done().unwrap();
    spinning.synchronize().unwrap();
    device.synchronize().unwrap();
    assert_eq!(kept_data.to_vec().unwrap()[N as usize - 1], 2);
    if spinning_still && launched < NO_STALL {
        Ok(())
    } else {
        Err(format!(
            "the releases took {released:?}, with a launch after them {launched:?} while a \
             kernel spun for {SPIN_TIME:?} on another stream (still spinning: {spinning_still})"
        ))
    }
}

#[test]
fn a_module_loads_on_several_devices_in_parallel() {
    let bytes = std::fs::read(data("basics.ptx")).unwrap();
    for (a, b) in device_pairs() {
        let started = Instant::now();
        let modules = Module::load_on(&[&a, &b], &bytes).unwrap();
        let took = started.elapsed();
        assert_eq!(modules.len(), 2);
        for (module, device) in modules.iter().zip([&a, &b]) {
            assert!(module.device().same_device(device), "{device}");
            let out = Buffer::<u32>::zeroed(device, 64).unwrap();
            let stream = device.create_stream().unwrap();
            let fill = module.kernel("fill_index").unwrap();
            fill.launch(&stream, LaunchConfig::new(1, 64), (&out, 64u32))
                .unwrap();
            stream.synchronize().unwrap();
            assert_eq!(out.to_vec().unwrap()[63], 63, "on {device}");
        }
        eprintln!("basics.ptx loaded on {a} and {b} in parallel in {took:?}");
    }
    assert!(Module::load_on(&[], b"").unwrap().is_empty());
}

#[test]
fn a_failed_parallel_load_reports_what_a_single_load_reports() {
    let broken = b".version 7.0\n.target sm_70\n.visible .entry broken(";
    for (a, b) in device_pairs() {
        let single = Module::from_bytes(&a, broken).unwrap_err().to_string();
        let parallel = Module::load_on(&[&a, &b], broken).unwrap_err().to_string();
        assert_eq!(parallel, single);
    }
}
