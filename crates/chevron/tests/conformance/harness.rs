//! What every conformance test uses: the runtime, the devices to run on, the test kernels.

use std::path::PathBuf;

use chevron::backend::cpu::{discover_with, CpuConfig};
use chevron::{BackendKind, Device, Module, Result, Runtime};

/// The process-wide runtime (`CHEVRON_DEVICES` applies).
pub fn runtime() -> &'static Runtime {
    Runtime::global().expect("CHEVRON_DEVICES is malformed")
}

/// Runs `body` on every device of the runtime; a failure names the device. Fails if the runtime
/// found no device at all (a test never passes vacuously).
pub fn on_every_device(body: impl Fn(&Device) -> Result<()>) {
    on_every_device_of(runtime(), body);
}

/// Like [`on_every_device`], on a runtime of the test's own: the same devices discovered again
/// (`CHEVRON_DEVICES` applies), which no other test reaches. For tests that count what
/// automatic replay did: a `Device::synchronize` made by another test on the process-wide
/// runtime rightly submits the launches a stream holds back, costing a replay.
pub fn on_every_device_of_its_own(body: impl Fn(&Device) -> Result<()>) {
    let own = Runtime::new().expect("CHEVRON_DEVICES is malformed");
    on_every_device_of(&own, body);
}

/// Like [`on_every_device`], then on the no-op device (`CHEVRON_DEVICES=noop`: real memory,
/// checked launches, no kernel run), for tests whose claims hold without a kernel running:
/// copies, fills, checks, errors, module loading, replay bookkeeping.
pub fn on_every_device_and_noop(body: impl Fn(&Device) -> Result<()>) {
    on_every_device(&body);
    on_every_device_of(&noop_runtime(), body);
}

/// Like [`on_every_device_of_its_own`], then on a no-op device of its own (as
/// [`on_every_device_and_noop`]).
pub fn on_every_device_of_its_own_and_noop(body: impl Fn(&Device) -> Result<()>) {
    on_every_device_of_its_own(&body);
    on_every_device_of(&noop_runtime(), body);
}

fn noop_runtime() -> Runtime {
    let runtime = Runtime::with_devices("noop").expect("a valid selection");
    assert_eq!(runtime.devices().len(), 1, "{:?}", runtime.backends());
    runtime
}

fn on_every_device_of(runtime: &Runtime, body: impl Fn(&Device) -> Result<()>) {
    let devices = runtime.devices();
    assert!(
        !devices.is_empty(),
        "no device to run on: {:?}",
        runtime.backends()
    );
    for device in devices {
        if let Err(err) = body(device) {
            panic!("on {device}: {err}");
        }
    }
}

/// Like [`on_every_device`] for devices of backends other than CUDA (tests whose failure mode
/// would poison a CUDA context; their CUDA twins live in `gpu_only`).
pub fn on_every_device_but_cuda(body: impl Fn(&Device) -> Result<()>) {
    on_every_device(|device| {
        if device.backend() == BackendKind::Cuda {
            return Ok(());
        }
        body(device)
    })
}

/// The CUDA devices of the runtime; panics (failing the test) when there is none, since the
/// tests calling this are marked as needing a GPU.
pub fn cuda_devices() -> Vec<Device> {
    let devices: Vec<Device> = runtime()
        .devices()
        .iter()
        .filter(|d| d.backend() == BackendKind::Cuda)
        .cloned()
        .collect();
    assert!(
        !devices.is_empty(),
        "this test needs a CUDA GPU: {:?}",
        runtime().backends()
    );
    devices
}

/// Two devices of one backend: two CPU devices always, and every pair of the runtime's devices
/// of one backend (two GPUs on a GPU machine).
pub fn device_pairs() -> Vec<(Device, Device)> {
    let cpu = Runtime::from_devices(
        discover_with(&CpuConfig {
            devices: 2,
            ..CpuConfig::default()
        })
        .expect("two CPU devices"),
    );
    let mut pairs = vec![(cpu.devices()[0].clone(), cpu.devices()[1].clone())];
    let devices = runtime().devices();
    for (i, a) in devices.iter().enumerate() {
        for b in &devices[i + 1..] {
            if a.backend() == b.backend() && a.backend() == BackendKind::Cuda {
                pairs.push((a.clone(), b.clone()));
            }
        }
    }
    pairs
}

/// The repository root: `CHEVRON_REPO` when set (test binaries copied to another machine),
/// else the checkout the tests were built in, else the nearest parent of the current directory
/// holding `corpus/`.
pub fn repo_root() -> PathBuf {
    if let Some(root) = std::env::var_os("CHEVRON_REPO") {
        return PathBuf::from(root);
    }
    let built_in = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    if built_in.join("corpus").is_dir() {
        return built_in;
    }
    let mut dir = std::env::current_dir().expect("a current directory");
    loop {
        if dir.join("corpus").is_dir() && dir.join("crates/chevron").is_dir() {
            return dir;
        }
        assert!(dir.pop(), "cannot find the repository: set CHEVRON_REPO");
    }
}

/// A file of the repository's corpus.
pub fn corpus(path: &str) -> PathBuf {
    repo_root().join("corpus").join(path)
}

/// A file of `crates/chevron/tests/data`.
pub fn data(path: &str) -> PathBuf {
    repo_root().join("crates/chevron/tests/data").join(path)
}

/// The hand-written test kernels (`tests/data/basics.ptx`).
pub fn basics(device: &Device) -> Result<Module> {
    Module::from_file(device, data("basics.ptx"))
}
