//! Without NVRTC every JIT entry point says so, and how to install it (own process: the library
//! is looked for once per process).

use chevron::jit::Session;
use chevron::{Error, Runtime};

#[test]
fn a_missing_nvrtc_is_a_clear_error() {
    std::env::set_var("CHEVRON_NVRTC", "/nonexistent/libnvrtc.so.13");
    let runtime = Runtime::with_devices("cpu").unwrap();
    let device = runtime.default_device().unwrap();
    let err = Session::new(device).err().expect("no NVRTC at that path");
    assert!(
        matches!(
            err,
            Error::Unavailable {
                backend: "nvrtc",
                ..
            }
        ),
        "{err:?}"
    );
    let message = err.to_string();
    for expected in [
        "nvrtc is unavailable",
        "/nonexistent/libnvrtc.so.13",
        "scripts/deps/nvrtc.sh",
    ] {
        assert!(message.contains(expected), "{expected} in {message}");
    }
}
