//! CPU device memory through the backend contract: allocation, frees, copies, fills.

mod cpu_support;

use chevron::backend::cpu::{discover_with, CpuConfig};
use chevron::backend::BackendKind;
use chevron::Error;
use cpu_support::{bytes_of_u32, device, devices, read_u32};

#[test]
fn discovery_describes_a_gpu_like_device() {
    let devices = devices(2, 3);
    assert_eq!(devices.len(), 2);
    for (ordinal, device) in devices.iter().enumerate() {
        let info = device.info();
        assert_eq!(info.backend, BackendKind::Cpu);
        assert_eq!(info.ordinal, ordinal as u32);
        assert_eq!(info.name, "chevron CPU device");
        assert_eq!(info.warp_size, 32);
        assert_eq!(info.max_threads_per_block, 1024);
        assert_eq!(info.multiprocessors, 3);
        assert_eq!(info.max_shared_per_block, 48 << 10);
        assert_eq!(info.total_memory, 1 << 30);
    }
}

#[test]
fn allocations_are_aligned_and_freed_once() {
    let device = device();
    let a = device.alloc(100).unwrap();
    let b = device.alloc(16).unwrap();
    assert_ne!(a, 0);
    assert_eq!(a % 256, 0);
    assert_eq!(b % 256, 0);
    assert_eq!(device.allocation_of(a + 99), Some((a, 100)));
    assert_eq!(device.allocation_of(a + 100), None);
    device.free(a).unwrap();
    assert_eq!(device.allocation_of(a), None);
    assert!(matches!(device.free(a), Err(Error::InvalidValue { .. })));
    let err = device.free(b + 4).unwrap_err();
    assert!(err.to_string().contains("not at its start"), "{err}");
    assert!(device.free(0xdead_0000).is_err());
    assert!(device.alloc(0).is_err());
    device.free(b).unwrap();
}

#[test]
fn the_memory_cap_is_enforced() {
    let device = discover_with(&CpuConfig {
        devices: 1,
        threads: 1,
        deterministic: false,
        memory_bytes: 1 << 20,
    })
    .unwrap()
    .remove(0);
    let err = device.alloc(2 << 20).unwrap_err();
    assert!(err.to_string().contains("OUT_OF_MEMORY"), "{err}");
    let most = device.alloc(600 << 10).unwrap();
    assert!(device.alloc(600 << 10).is_err());
    device.free(most).unwrap();
    let again = device.alloc(600 << 10).unwrap();
    device.free(again).unwrap();
}

#[test]
fn addresses_of_devices_never_overlap() {
    let devices = devices(2, 1);
    let a = devices[0].alloc(4096).unwrap();
    let b = devices[1].alloc(4096).unwrap();
    assert!(devices[0].allocation_of(b).is_none());
    assert!(devices[1].allocation_of(a).is_none());
    assert!(devices[1].free(a).is_err());
}

#[test]
fn copies_and_fills_run_in_order() {
    let device = device();
    let stream = device.create_stream().unwrap();
    let a = device.alloc(64).unwrap();
    let b = device.alloc(64).unwrap();
    let values: Vec<u32> = (0..16).map(|i| i * 3 + 1).collect();
    let mut source = bytes_of_u32(&values);
    stream.copy_to_device(a, &source).unwrap();
    source.fill(0xff); // The copy took the bytes already.
    stream.copy_on_device(b, a, 64).unwrap();
    stream.memset(a, 0x0102_0304, 4, 8).unwrap();
    stream.memset(a + 32, 0xabcd, 2, 4).unwrap();
    stream.memset(a + 40, 0x7f, 1, 8).unwrap();
    assert_eq!(read_u32(&stream, b, 16).unwrap(), values);
    let filled = read_u32(&stream, a, 16).unwrap();
    assert_eq!(&filled[..8], &[0x0102_0304; 8]);
    assert_eq!(&filled[8..10], &[0xabcd_abcd; 2]);
    assert_eq!(&filled[10..12], &[0x7f7f_7f7f; 2]);
    assert_eq!(&filled[12..], &values[12..]);
    stream.synchronize().unwrap();
    assert!(stream.query().unwrap());
    device.synchronize().unwrap();
}

#[test]
fn copies_outside_allocations_are_refused() {
    let device = device();
    let stream = device.create_stream().unwrap();
    let a = device.alloc(16).unwrap();
    assert!(stream.copy_to_device(a + 8, &[0u8; 16]).is_err());
    assert!(stream.copy_to_host(&mut [0u8; 4], a + 16).is_err());
    assert!(stream.copy_on_device(a, a + 8, 16).is_err());
    assert!(stream.memset(a, 0, 3, 1).is_err());
    assert!(stream.memset(a, 0, 4, 5).is_err());
    // Refused calls leave the stream healthy.
    stream.synchronize().unwrap();
}

#[test]
fn empty_copies_and_fills_are_no_ops() {
    let device = device();
    let stream = device.create_stream().unwrap();
    stream.copy_to_device(0, &[]).unwrap();
    stream.copy_to_host(&mut [], 0).unwrap();
    stream.copy_on_device(0, 0, 0).unwrap();
    stream.memset(0, 7, 4, 0).unwrap();
    stream.synchronize().unwrap();
}

/// Set in the child process of [`discovery_reads_the_environment`].
const ENV_CHILD: &str = "CHEVRON_CPU_TEST_ENV_CHILD";

#[test]
fn discovery_reads_the_environment() {
    if std::env::var_os(ENV_CHILD).is_some() {
        let devices = chevron::backend::cpu::discover().unwrap();
        assert_eq!(devices.len(), 3);
        for device in &devices {
            assert_eq!(
                device.info().multiprocessors,
                1,
                "deterministic: one thread"
            );
            assert_eq!(device.info().total_memory, 64 << 20);
        }
        return;
    }
    // Run this test again in a child process with the variables set.
    let child = |extra: &[(&str, &str)]| {
        let mut command = std::process::Command::new(std::env::current_exe().unwrap());
        command
            .args(["discovery_reads_the_environment", "--exact"])
            .env(ENV_CHILD, "1")
            .env("CHEVRON_CPU_DEVICES", "3")
            .env("CHEVRON_CPU_THREADS", "4")
            .env("CHEVRON_CPU_DETERMINISTIC", "1")
            .env("CHEVRON_CPU_MEMORY", "64M");
        for (key, value) in extra {
            command.env(key, value);
        }
        command.output().unwrap()
    };
    let output = child(&[]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let output = child(&[("CHEVRON_CPU_DEVICES", "three")]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!output.status.success());
    assert!(stdout.contains("CHEVRON_CPU_DEVICES"), "{stdout}");
}
