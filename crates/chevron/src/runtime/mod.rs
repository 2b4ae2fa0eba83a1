//! [`Runtime`]: the devices chevron found, and why the others are missing.
//!
//! Backends are discovered at run time, each through its line in the backend registry
//! ([`registry`]): the CUDA driver library is opened if present, and the CPU
//! device is always there. `CHEVRON_DEVICES` (see [`crate::runtime::selection`]) restricts and orders the
//! devices; the first one is the default. A missing backend never makes [`Runtime::new`] fail:
//! the reason is kept in [`Runtime::backends`] (what `chevron devices` prints).

pub mod registry;
pub mod selection;

use std::sync::{Arc, OnceLock};

use crate::backend::{self, BackendKind};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::runtime::selection::{Selection, DEVICES_VARIABLE};
use registry::{BackendEntry, BACKENDS};

/// What became of one backend during discovery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackendStatus {
    /// The backend.
    pub backend: BackendKind,
    /// How many of its devices the runtime uses.
    pub devices_used: usize,
    /// Why the backend (or a requested device of it) is unavailable, if it is.
    pub unavailable: Option<String>,
}

/// The devices in use, in order; the first is the default.
pub struct Runtime {
    devices: Vec<Device>,
    backends: Vec<BackendStatus>,
}

impl Runtime {
    /// Discovers devices, restricted and ordered by `CHEVRON_DEVICES` when it is set. Fails
    /// only when that variable is malformed.
    pub fn new() -> Result<Runtime> {
        crate::trace::init_from_env();
        match std::env::var(DEVICES_VARIABLE) {
            Ok(text) if !text.trim().is_empty() => Runtime::with_devices(&text),
            _ => Ok(Runtime::from_selection(&Selection::all())),
        }
    }

    /// Discovers the devices named by `spec` (`cuda`, `cpu`, `cuda:1,cpu:0`, …).
    pub fn with_devices(spec: &str) -> Result<Runtime> {
        Ok(Runtime::from_selection(&Selection::parse(spec)?))
    }

    /// The process-wide runtime, made by [`Runtime::new`] on first use.
    pub fn global() -> Result<&'static Runtime> {
        static GLOBAL: OnceLock<std::result::Result<Runtime, String>> = OnceLock::new();
        GLOBAL
            .get_or_init(|| Runtime::new().map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|message| Error::InvalidValue {
                call: "Runtime::global",
                message: message.clone(),
            })
    }

    /// A runtime over backend devices made by the caller (e.g. a fixed number of CPU devices
    /// from `backend::cpu::discover_with`), in the order given.
    pub fn from_devices(devices: Vec<Arc<dyn backend::Device>>) -> Runtime {
        let devices: Vec<Device> = devices.into_iter().map(device_of).collect();
        let backends = BACKENDS
            .iter()
            .map(|entry| entry.kind)
            .filter(|kind| devices.iter().any(|d| d.backend() == *kind))
            .map(|backend| BackendStatus {
                backend,
                devices_used: devices.iter().filter(|d| d.backend() == backend).count(),
                unavailable: None,
            })
            .collect();
        Runtime { devices, backends }
    }

    /// Discovers the devices of `selection`.
    pub fn from_selection(selection: &Selection) -> Runtime {
        let mut found: Vec<(BackendKind, std::result::Result<Vec<Device>, String>)> = Vec::new();
        for entry in BACKENDS {
            if selection.mentions(entry.kind) {
                found.push((entry.kind, discover(entry)));
            }
        }
        let mut devices: Vec<Device> = Vec::new();
        let mut problems: Vec<(BackendKind, String)> = Vec::new();
        for item in &selection.items {
            let (_, result) = found
                .iter()
                .find(|(k, _)| *k == item.backend)
                .expect("every mentioned backend was discovered");
            let Ok(available) = result else {
                continue;
            };
            let chosen: Vec<&Device> = match item.ordinal {
                None => available.iter().collect(),
                Some(ordinal) => {
                    let device = available.iter().find(|d| d.ordinal() == ordinal);
                    if device.is_none() {
                        problems.push((
                            item.backend,
                            format!(
                                "{}:{ordinal} was requested, but there are {} {} devices",
                                item.backend.as_str(),
                                available.len(),
                                item.backend.as_str()
                            ),
                        ));
                    }
                    device.into_iter().collect()
                }
            };
            for device in chosen {
                if !devices.iter().any(|d| d.same_device(device)) {
                    devices.push(device.clone());
                }
            }
        }
        let backends = found
            .into_iter()
            .map(|(backend, result)| {
                let mut reasons: Vec<String> = problems
                    .iter()
                    .filter(|(k, _)| *k == backend)
                    .map(|(_, r)| r.clone())
                    .collect();
                if let Err(reason) = result {
                    reasons.insert(0, reason);
                }
                BackendStatus {
                    backend,
                    devices_used: devices.iter().filter(|d| d.backend() == backend).count(),
                    unavailable: (!reasons.is_empty()).then(|| reasons.join("; ")),
                }
            })
            .collect();
        Runtime { devices, backends }
    }

    /// The devices in use, in order.
    pub fn devices(&self) -> &[Device] {
        &self.devices
    }

    /// The default device: the first one.
    pub fn default_device(&self) -> Result<&Device> {
        self.devices.first().ok_or_else(|| Error::NotFound {
            what: "device",
            name: "default".into(),
            scope: self.describe_unavailable(),
            candidates: Vec::new(),
        })
    }

    /// The device labelled `label` (`cuda:0`, `cpu:1`); a bare backend name (`cuda`, `cpu`)
    /// means that backend's first device in use.
    pub fn device(&self, label: &str) -> Result<&Device> {
        self.devices
            .iter()
            .find(|d| d.label() == label)
            .or_else(|| self.devices.iter().find(|d| d.backend().as_str() == label))
            .ok_or_else(|| Error::NotFound {
                what: "device",
                name: label.to_string(),
                scope: self.describe_unavailable(),
                candidates: self.devices.iter().map(|d| d.label().to_string()).collect(),
            })
    }

    /// Every backend that was looked for: how many devices it gave, or why it is unavailable.
    pub fn backends(&self) -> &[BackendStatus] {
        &self.backends
    }

    fn describe_unavailable(&self) -> String {
        let reasons: Vec<String> = self
            .backends
            .iter()
            .filter_map(|b| {
                b.unavailable
                    .as_ref()
                    .map(|r| format!("{}: {r}", b.backend.as_str()))
            })
            .collect();
        if reasons.is_empty() {
            "this runtime".into()
        } else {
            format!("this runtime ({})", reasons.join("; "))
        }
    }
}

fn discover(entry: &BackendEntry) -> std::result::Result<Vec<Device>, String> {
    match (entry.discover)() {
        Ok(devices) => Ok(devices.into_iter().map(device_of).collect()),
        Err(Error::Unavailable { reason, .. }) => Err(reason),
        Err(other) => Err(other.to_string()),
    }
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let labels: Vec<&str> = self.devices.iter().map(|d| d.label()).collect();
        f.debug_struct("Runtime")
            .field("devices", &labels)
            .field("backends", &self.backends)
            .finish()
    }
}

/// A device the runtime hands out: the features stacked on the core (instrumentation's module
/// loader) are installed before any module can be loaded on it.
fn device_of(backend: Arc<dyn backend::Device>) -> Device {
    crate::instrument::install();
    Device::from_backend(backend)
}

#[cfg(test)]
mod tests {
    use super::*;

    const EMPTY_KERNEL: &str = ".version 7.0\n.target sm_50\n.address_size 64\n\
                                .visible .entry noop() { ret; }\n";

    /// The scripted backend is one registry line (under `cfg(test)`) and a file in `backend/`;
    /// discovery, `CHEVRON_DEVICES` and the public API find it without another change.
    #[test]
    fn a_backend_in_the_registry_is_discovered_selected_and_used() {
        let runtime = Runtime::with_devices("scripted:1, cpu:0, scripted").unwrap();
        let labels: Vec<&str> = runtime.devices().iter().map(|d| d.label()).collect();
        assert_eq!(labels, ["scripted:1", "cpu:0", "scripted:0"]);
        let status = runtime
            .backends()
            .iter()
            .find(|s| s.backend == BackendKind::Scripted)
            .unwrap();
        assert_eq!((status.devices_used, &status.unavailable), (2, &None));
        assert!(BackendKind::Scripted.runs_in_software());

        let device = runtime.device("scripted").unwrap();
        let module = crate::Module::from_ptx(device, EMPTY_KERNEL).unwrap();
        let stream = device.create_stream().unwrap();
        let config = backend::LaunchConfig {
            grid: [1, 1, 1],
            block: [32, 1, 1],
            shared_bytes: 0,
        };
        module
            .kernel("noop")
            .unwrap()
            .launch(&stream, config, ())
            .unwrap();

        let err = Runtime::with_devices("scripted:7").unwrap();
        let status = err
            .backends()
            .iter()
            .find(|s| s.backend == BackendKind::Scripted);
        let reason = status
            .and_then(|s| s.unavailable.clone())
            .unwrap_or_default();
        assert!(reason.contains("scripted:7 was requested"), "{reason}");
    }

    #[test]
    fn backends_off_by_default_are_only_used_when_named() {
        let all = Selection::all();
        assert!(!all.mentions(BackendKind::Scripted));
        assert!(all.mentions(BackendKind::Cuda) && all.mentions(BackendKind::Cpu));
        let err = Selection::parse("tpu").unwrap_err().to_string();
        assert!(
            err.contains("`scripted`") && err.contains("`cuda`"),
            "{err}"
        );
    }
}
