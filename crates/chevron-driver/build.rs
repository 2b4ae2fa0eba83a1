//! Gives the shared object that serves both CUDA APIs the runtime's soname, `libcudart.so.13`
//! (the thin `libcuda.so.1` of `chevron-libcuda` names it as its filtee), and versions the
//! runtime's exports as NVIDIA's `libcudart.so.13` does. NVIDIA's `libcuda.so.1` exports its
//! `cu*` functions unversioned, and so does this library.

fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcudart.so.13");
    // The folder at run time: a build script compiled in one checkout may be run for another
    // that shares the target folder (the same sources, so cargo keeps the binary).
    let folder = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let map = format!("{folder}/../chevron-cudart/libcudart.map");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={map}");
    println!("cargo:rerun-if-changed={map}");
}
