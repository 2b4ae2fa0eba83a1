//! Gives the shared library the CUDA runtime's soname, so programs linked against NVIDIA's
//! `libcudart.so.13` load this one in its place.

fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcudart.so.13");
    // Versions every export `libcudart.so.13`, as NVIDIA's library does, so programs linked
    // against it bind to these symbols without a warning.
    // The folder at run time: a build script compiled in one checkout may be run for another
    // that shares the target folder (the same sources, so cargo keeps the binary).
    let folder = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let map = format!("{folder}/libcudart.map");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={map}");
    println!("cargo:rerun-if-changed={map}");
}
