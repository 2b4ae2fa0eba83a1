//! A compile abandoned while NVRTC is stuck (a header that includes a FIFO nobody writes) does
//! not hold back later compiles: NVRTC compiles one program at a time per loaded library, so the
//! session's next compile must use a fresh instance. Its own test binary: it sets
//! `CHEVRON_CUDA_INCLUDE` for the session, and leaves a thread blocked in NVRTC until exit.
//! NVRTC must be present (`scripts/deps/nvrtc.sh`), as for `jit_session.rs`.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use chevron::jit::{Cache, Session};
use chevron::{Buffer, LaunchConfig, Runtime};

#[test]
fn a_compile_after_an_abandoned_one_does_not_wait_for_it() {
    let dir = std::env::temp_dir().join(format!("chevron-abandoned-{}", std::process::id()));
    let include = dir.join("inc");
    std::fs::create_dir_all(&include).unwrap();
    let fifo = dir.join("fifo");
    let path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path alive for the call.
    assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0, "mkfifo");
    // In an include path, whose headers the session does not follow: NVRTC opens the FIFO and
    // blocks there.
    std::fs::write(
        include.join("blocking.h"),
        format!("#include \"{}\"\n", fifo.display()),
    )
    .unwrap();
    std::env::set_var("CHEVRON_CUDA_INCLUDE", &include);

    let device = Runtime::new().unwrap().default_device().unwrap().clone();
    let mut session =
        Session::with_cache(&device, Cache::at(None)).expect("NVRTC (run scripts/deps/nvrtc.sh)");
    session.set_compile_deadline(Duration::from_millis(500));
    let err = session.add("#include <blocking.h>").unwrap_err();
    assert!(err.to_string().contains("abandoned"), "{err}");
    assert!(!err.to_string().contains("later compiles wait"), "{err}");

    // The next compile, on a thread so that a regression fails the test instead of hanging it.
    session.set_compile_deadline(Duration::from_secs(120));
    let (done, result) = mpsc::channel();
    let started = Instant::now();
    std::thread::spawn(move || {
        let added = session.add("__global__ void five(int *o) { o[threadIdx.x] = 5; }");
        let _ = done.send(added.map(|_| session));
    });
    let mut session = result
        .recv_timeout(Duration::from_secs(120))
        .expect("the compile after the abandoned one finished")
        .unwrap();
    let waited = started.elapsed();
    let out = Buffer::<i32>::zeroed(&device, 2).unwrap();
    let stream = device.default_stream().unwrap();
    session
        .kernel("five")
        .unwrap()
        .launch(&stream, LaunchConfig::for_elements(2, 2), (&out,))
        .unwrap()
        .wait()
        .unwrap();
    assert_eq!(out.to_vec().unwrap(), [5, 5]);
    eprintln!("compile after the abandoned one: {waited:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
