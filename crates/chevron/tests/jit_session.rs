//! The incremental JIT on the default device (the CPU device without a GPU): cross-snippet
//! calls and globals, redefinition, globals kept across many snippets, compile errors, the disk
//! cache. NVRTC must be present (`scripts/deps/nvrtc.sh`; `scripts/test` points CHEVRON_NVRTC at
//! it): a missing NVRTC fails these tests, it never skips them.

use std::path::PathBuf;

use chevron::jit::{Cache, Session};
use chevron::{Buffer, Device, Kernel, LaunchConfig, Runtime};

fn device() -> Device {
    Runtime::new()
        .and_then(|r| r.default_device().cloned())
        .expect("a default device (the CPU device at least)")
}

fn session(device: &Device) -> Session {
    Session::with_cache(device, Cache::at(None)).expect("NVRTC (run scripts/deps/nvrtc.sh)")
}

/// Launches `kernel(out)` with one block of `n` threads and returns `out`.
fn run(kernel: &Kernel, n: usize) -> Vec<i32> {
    let device = kernel.device();
    let out = Buffer::<i32>::zeroed(device, n).unwrap();
    let stream = device.default_stream().unwrap();
    let config = LaunchConfig::for_elements(n, n as u32);
    kernel
        .launch(&stream, config, (&out,))
        .unwrap()
        .wait()
        .unwrap();
    out.to_vec().unwrap()
}

#[test]
fn later_snippets_call_earlier_functions_and_use_earlier_globals() {
    let device = device();
    let mut session = session(&device);
    session.add("__device__ int offset = 10;").unwrap();
    session
        .add("__device__ int shift(int x) { return x + offset; }")
        .unwrap();
    session
        .add("__global__ void fill(int *out) { out[threadIdx.x] = shift(threadIdx.x); }")
        .unwrap();
    session
        .add("__global__ void bump(int *) { if (threadIdx.x == 0) atomicAdd(&offset, 5); }")
        .unwrap();
    let fill = session.kernel("fill").unwrap();
    assert_eq!(run(&fill, 4), [10, 11, 12, 13]);
    run(&session.kernel("bump").unwrap(), 1);
    assert_eq!(run(&fill, 4), [15, 16, 17, 18]);
}

#[test]
fn a_redefinition_reaches_an_earlier_kernels_next_launch() {
    let device = device();
    let mut session = session(&device);
    session
        .add("__device__ int value(int x) { return x * 2; }")
        .unwrap();
    session
        .add("__global__ void apply(int *out) { out[threadIdx.x] = value(threadIdx.x); }")
        .unwrap();
    let before = session.kernel("apply").unwrap();
    assert_eq!(run(&before, 3), [0, 2, 4]);
    session
        .add("__device__ int value(int x) { return x * 3 + 1; }")
        .unwrap();
    let after = session.kernel("apply").unwrap();
    assert_eq!(run(&after, 3), [1, 4, 7]);
    // A kernel handed out before keeps the code it was linked with.
    assert_eq!(run(&before, 3), [0, 2, 4]);
    session
        .add("__global__ void apply(int *out) { out[threadIdx.x] = -value(threadIdx.x); }")
        .unwrap();
    assert_eq!(run(&session.kernel("apply").unwrap(), 3), [-1, -4, -7]);
}

#[test]
fn a_global_keeps_its_address_and_value_across_100_snippets() {
    let device = device();
    let mut session = session(&device);
    session.add("__device__ int counter = 0;").unwrap();
    session
        .add(
            "__global__ void address_of_counter(int *out) {\n\
             unsigned long long a = (unsigned long long)&counter;\n\
             out[0] = (int)a; out[1] = (int)(a >> 32); }",
        )
        .unwrap();
    let address = session.global("counter").unwrap().ptr;
    let taken = run(&session.kernel("address_of_counter").unwrap(), 2);
    let taken = (taken[0] as u32 as u64) | ((taken[1] as u32 as u64) << 32);
    assert_eq!(taken, address);
    for i in 0..100 {
        session
            .add(&format!(
                "__device__ int step{i}() {{ return {i} % 3 + 1; }}\n\
                 __global__ void advance{i}(int *out) {{ counter += step{i}(); out[0] = counter; }}"
            ))
            .unwrap();
        run(&session.kernel(&format!("advance{i}")).unwrap(), 1);
    }
    let expected: i32 = (0..100).map(|i| i % 3 + 1).sum();
    session
        .add("__global__ void read_counter(int *out) { out[0] = counter; }")
        .unwrap();
    assert_eq!(run(&session.kernel("read_counter").unwrap(), 1), [expected]);
    assert_eq!(session.global("counter").unwrap().ptr, address);
    let again = run(&session.kernel("address_of_counter").unwrap(), 2);
    assert_eq!(
        (again[0] as u32 as u64) | ((again[1] as u32 as u64) << 32),
        address
    );
}

#[test]
fn a_compile_error_names_the_snippet_line_and_changes_nothing() {
    let device = device();
    let mut session = session(&device);
    session.add("__device__ int base() { return 7; }").unwrap();
    let symbols = session.symbols();
    let err = session
        .add("__global__ void broken(int *out) {\n  out[0] = base() + missing;\n}")
        .unwrap_err()
        .to_string();
    assert!(err.contains("snippet 2"), "{err}");
    assert!(err.contains("snippet(2): error"), "{err}");
    assert!(err.contains("missing"), "{err}");
    assert_eq!(session.symbols(), symbols);
    session
        .add("__global__ void fixed(int *out) { out[0] = base() * 6; }")
        .unwrap();
    assert_eq!(run(&session.kernel("fixed").unwrap(), 1), [42]);
}

#[test]
fn a_repeated_snippet_is_a_cache_hit() {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("chevron-jit-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let device = device();
    let snippets = [
        "__device__ int triple(int x) { return 3 * x; }",
        "__global__ void triples(int *out) { out[threadIdx.x] = triple(threadIdx.x); }",
    ];
    let mut first = Session::with_cache(&device, Cache::at(Some(dir.clone()))).unwrap();
    for snippet in snippets {
        assert!(!first.add(snippet).unwrap().cache_hit);
    }
    let mut second = Session::with_cache(&device, Cache::at(Some(dir.clone()))).unwrap();
    for snippet in snippets {
        assert!(second.add(snippet).unwrap().cache_hit);
    }
    assert_eq!(run(&second.kernel("triples").unwrap(), 4), [0, 3, 6, 9]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_template_kernel_is_instantiated_when_launched_by_its_arguments() {
    let device = device();
    let mut session = session(&device);
    session
        .add("template <typename T, int N> __global__ void fill(T *out) { out[threadIdx.x] = N; }")
        .unwrap();
    assert_eq!(run(&session.kernel("fill<int, 7>").unwrap(), 2), [7, 7]);
    // An explicit instantiation in a snippet of its own does not clash with later snippets.
    session
        .add("template __global__ void fill<int, 9>(int *);")
        .unwrap();
    session
        .add("__global__ void after(int *out) { out[0] = 1; }")
        .unwrap();
    assert_eq!(run(&session.kernel("fill<int, 9>").unwrap(), 1), [9]);
    let err = session.kernel("absent<int>").unwrap_err().to_string();
    assert!(err.contains("kernel `absent<int>` not found"), "{err}");
}

#[test]
fn redefined_inline_functions_templates_and_types_replace_the_old_ones() {
    let device = device();
    let mut session = session(&device);
    session
        .add("struct Pair { int a; };\n__forceinline__ __device__ int twice(int x) { return 2 * x; }")
        .unwrap();
    session
        .add("template <typename T> __device__ T sq(T x) { return x * x; }")
        .unwrap();
    session
        .add("struct Pair { int a; int b; };\n__forceinline__ __device__ int twice(int x) { return 20 * x; }")
        .unwrap();
    session
        .add("template <typename T> __device__ T sq(T x) { return x * x + 1; }")
        .unwrap();
    session
        .add("__global__ void use(int *out) { Pair p{1, 2}; out[0] = twice(p.b) + sq(3); }")
        .unwrap();
    assert_eq!(run(&session.kernel("use").unwrap(), 1), [50]);
}

#[test]
fn operators_and_specializations_reach_later_snippets() {
    let device = device();
    let mut session = session(&device);
    session.add("struct V { int x; };").unwrap();
    session
        .add("__device__ V operator+(V a, V b) { return V{a.x + b.x}; }")
        .unwrap();
    session
        .add(
            "template <typename T> __device__ T pick(T x) { return x; }\n\
             template <> __device__ int pick<int>(int x) { return x + 100; }",
        )
        .unwrap();
    session
        .add("__global__ void both(int *out) { out[0] = (V{1} + V{2}).x + pick(4); }")
        .unwrap();
    assert_eq!(run(&session.kernel("both").unwrap(), 1), [107]);
}

#[test]
fn cuda_headers_shipped_beside_nvrtc_can_be_included() {
    let device = device();
    let mut session = session(&device);
    session
        .add("#include <cuda_fp16.h>\n#include <cuda/std/cstdint>")
        .expect("the CUDA headers beside NVRTC (scripts/deps/nvrtc.sh installs them)");
    session
        .add(
            "__global__ void halves(int *out) {\n\
             __half h = __float2half(1.5f) + __float2half(2.0f);\n\
             out[threadIdx.x] = (int)(__half2float(h) * 2) + sizeof(cuda::std::uint64_t); }",
        )
        .unwrap();
    assert_eq!(run(&session.kernel("halves").unwrap(), 2), [15, 15]);
}

#[test]
fn an_error_in_an_earlier_template_names_the_prelude_not_the_snippet() {
    let device = device();
    let mut session = session(&device);
    session
        .add("template <typename T> __device__ T half_of(T x) { return x.half(); }")
        .unwrap();
    let err = session
        .add("__global__ void use(int *out) {\n  out[0] = half_of(4);\n}")
        .unwrap_err()
        .to_string();
    assert!(err.contains("prelude("), "{err}");
    assert!(err.contains("at line 2 of snippet"), "{err}");
}

#[test]
fn namespaces_and_forward_declarations_add_up() {
    let device = device();
    let mut session = session(&device);
    session
        .add("struct Node { int value; };\nnamespace ns { __device__ int one() { return 1; } }")
        .unwrap();
    session
        .add("struct Node;\nnamespace ns { __device__ int two() { return 2; } }")
        .unwrap();
    session
        .add("__global__ void sum(int *out) { Node n{40}; out[0] = n.value + ns::one() + ns::two(); }")
        .unwrap();
    assert_eq!(run(&session.kernel("sum").unwrap(), 1), [43]);
}

/// The device work of an add and of a kernel's link must not grow with the session: each snippet
/// loads one module holding only its new global, is compiled after the same amount of earlier
/// declarations, and a kernel links only the snippets it uses.
#[test]
fn adding_snippet_n_does_the_same_device_work_at_any_n() {
    let device = device();
    let mut session = session(&device);
    let mut prelude_bytes = Vec::new();
    for n in 0..60 {
        let previous = if n == 0 { 0 } else { n - 1 };
        let added = session
            .add(&format!(
                "__device__ int g{n:03} = {n};\n\
                 __device__ int f{n:03}(int x) {{ return x + g{n:03} + g{previous:03}; }}"
            ))
            .unwrap();
        assert_eq!(added.modules_loaded, 1, "snippet {}", n + 1);
        prelude_bytes.push(added.prelude_bytes);
    }
    assert!(
        prelude_bytes[1..].iter().all(|&b| b == prelude_bytes[1]),
        "prelude sizes: {prelude_bytes:?}"
    );
    session
        .add("__global__ void last(int *out) { out[threadIdx.x] = f059(threadIdx.x); }")
        .unwrap();
    assert_eq!(
        run(&session.kernel("last").unwrap(), 2),
        [59 + 58, 1 + 59 + 58]
    );
    let stats = session.link_stats();
    assert_eq!((stats.links, stats.latest_parts), (1, 2));
}
