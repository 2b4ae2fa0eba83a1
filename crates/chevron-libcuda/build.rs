//! Makes the library `libcuda.so.1`, a filter of `libcudart.so.13`: the dynamic linker answers
//! every lookup in it (a program's `-lcuda` symbols, `dlsym` on a `dlopen("libcuda.so.1")`
//! handle) from the filtee, chevron's one shared object holding both CUDA APIs and their state.

fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcuda.so.1");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--filter,libcudart.so.13");
}
