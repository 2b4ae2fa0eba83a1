//! Gives the shared object that serves both CUDA APIs the runtime's soname, `libcudart.so.13`
//! (the thin `libcuda.so.1` of `chevron-libcuda` names it as its filtee), and versions the
//! runtime's exports as NVIDIA's `libcudart.so.13` does. NVIDIA's `libcuda.so.1` exports its
//! `cu*` functions unversioned, and so does this library.

fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcudart.so.13");
    let map = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../chevron-cudart/libcudart.map"
    );
    println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={map}");
    println!("cargo:rerun-if-changed={map}");
}
