//! Gives the shared library the CUDA runtime's soname, so programs linked against NVIDIA's
//! `libcudart.so.13` load this one in its place.

fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcudart.so.13");
    // Versions every export `libcudart.so.13`, as NVIDIA's library does, so programs linked
    // against it bind to these symbols without a warning.
    let map = concat!(env!("CARGO_MANIFEST_DIR"), "/libcudart.map");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={map}");
    println!("cargo:rerun-if-changed={map}");
}
