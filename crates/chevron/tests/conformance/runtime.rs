//! The runtime: every backend is accounted for, and `CHEVRON_DEVICES`-style selections pick and
//! order devices.

use chevron::{BackendKind, Error, Runtime};

use crate::harness::runtime;

#[test]
fn every_backend_either_gives_devices_or_says_why_not() {
    let statuses = runtime().backends();
    assert!(!statuses.is_empty());
    for status in statuses {
        let used = runtime()
            .devices()
            .iter()
            .filter(|d| d.backend() == status.backend)
            .count();
        assert_eq!(used, status.devices_used, "{status:?}");
        assert!(
            status.devices_used > 0 || status.unavailable.as_deref().is_some_and(|r| !r.is_empty()),
            "{status:?} has neither devices nor a reason"
        );
    }
}

#[test]
fn the_first_selected_device_is_the_default() {
    let cpu_first = Runtime::with_devices("cpu,cuda").unwrap();
    let default = cpu_first.default_device().unwrap();
    assert_eq!(default.backend(), BackendKind::Cpu);
    assert_eq!(default.label(), "cpu:0");
    assert!(cpu_first.device("cpu:0").unwrap().same_device(default));

    let cpu_only = Runtime::with_devices("cpu").unwrap();
    assert!(cpu_only
        .devices()
        .iter()
        .all(|d| d.backend() == BackendKind::Cpu));
    assert_eq!(
        cpu_only.backends().len(),
        1,
        "an unrequested backend was looked for"
    );
}

#[test]
fn a_missing_device_is_reported_not_fatal() {
    let runtime = Runtime::with_devices("cuda:99,cpu").unwrap();
    assert_eq!(
        runtime.default_device().unwrap().backend(),
        BackendKind::Cpu
    );
    let cuda = runtime
        .backends()
        .iter()
        .find(|s| s.backend == BackendKind::Cuda)
        .unwrap();
    assert_eq!(cuda.devices_used, 0);
    assert!(cuda.unavailable.is_some(), "{cuda:?}");
    match runtime.device("cuda:99") {
        Err(Error::NotFound { what, .. }) => assert_eq!(what, "device"),
        other => panic!("expected NotFound, got {other:?}"),
    }
}

#[test]
fn malformed_selections_are_errors() {
    let err = Runtime::with_devices("cpu,tpu:0").unwrap_err().to_string();
    assert!(err.contains("tpu"), "{err}");
}
