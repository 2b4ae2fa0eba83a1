//! The CUDA runtime reads each registered code object once: a fatbin registered by
//! `__cudaRegisterFatBinary` and loaded on two devices is parsed once, and `-rdc=true` code (the
//! translation units' fatbins of a version 2 wrapper) parses each unit's PTX once and hands the
//! linked module on as IR, on every device. Counted per process by chevron's code-object layer
//! (`chevron::code_object::ptx_parses`); this file holds one test, so nothing else parses meanwhile.

use std::ffi::c_void;
use std::path::Path;

use chevron::code_object::ptx_parses;
use chevron::{Buffer, LaunchConfig};
use chevron_ptx::parses_on_this_thread;
use cudart::registry::register_fatbin;

/// A relocatable unit defining the device function `twice`.
const CALLEE: &str = "
.version 7.0
.target sm_50
.address_size 64
.visible .func (.param .b32 r) twice(.param .b32 x)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [x];
    add.s32 %r2, %r1, %r1;
    st.param.b32 [r], %r2;
    ret;
}
";

/// A relocatable unit whose kernel calls `twice`, defined in the other unit.
const CALLER: &str = "
.version 7.0
.target sm_50
.address_size 64
.extern .func (.param .b32 r) twice(.param .b32 x);
.visible .entry use_twice(.param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, 21;
    {
        .param .b32 a;
        .param .b32 b;
        st.param.b32 [a], %r1;
        call.uni (b), twice, (a);
        ld.param.b32 %r2, [b];
    }
    st.global.u32 [%rd1], %r2;
    ret;
}
";

/// A fatbin container holding `ptx` as one uncompressed PTX entry for `compute_50` (the layout
/// `chevron::code_object::parse_fatbin` documents), kept alive for the process as registered
/// code is.
fn ptx_fatbin(ptx: &str) -> &'static [u8] {
    let payload = ptx.as_bytes();
    let mut entry = Vec::new();
    entry.extend(1u16.to_le_bytes()); // kind: PTX
    entry.extend(0x0101u16.to_le_bytes()); // entry version
    entry.extend(64u32.to_le_bytes()); // header size
    entry.extend((payload.len() as u64).to_le_bytes());
    entry.extend(0u32.to_le_bytes()); // compressed size
    entry.extend(0u32.to_le_bytes()); // options offset
    entry.extend(0u16.to_le_bytes()); // minor version
    entry.extend(7u16.to_le_bytes()); // major version
    entry.extend(50u32.to_le_bytes()); // architecture
    entry.extend(0u32.to_le_bytes()); // name offset
    entry.extend(0u32.to_le_bytes()); // name length
    entry.extend(0x11u64.to_le_bytes()); // flags: 64-bit, Linux
    entry.extend(0u64.to_le_bytes()); // reserved
    entry.extend(0u64.to_le_bytes()); // decompressed size
    assert_eq!(entry.len(), 64);
    entry.extend(payload);
    let mut container = Vec::new();
    container.extend(0xBA55_ED50u32.to_le_bytes());
    container.extend(1u16.to_le_bytes());
    container.extend(16u16.to_le_bytes());
    container.extend((entry.len() as u64).to_le_bytes());
    container.extend(entry);
    Box::leak(container.into_boxed_slice())
}

/// A `__fatBinC_Wrapper_t` (`{ int magic; int version; const void *data; void *units; }`).
#[repr(C)]
struct Wrapper {
    magic: u32,
    version: u32,
    data: *const c_void,
    units: *const *const c_void,
}

fn wrapper(image: &'static [u8], units: &[&'static [u8]]) -> &'static Wrapper {
    let units = if units.is_empty() {
        std::ptr::null()
    } else {
        let mut array: Vec<*const c_void> = units.iter().map(|u| u.as_ptr().cast()).collect();
        array.push(std::ptr::null());
        Box::leak(array.into_boxed_slice()).as_ptr()
    };
    Box::leak(Box::new(Wrapper {
        magic: 0x466243b1,
        version: if units.is_null() { 1 } else { 2 },
        data: image.as_ptr().cast(),
        units,
    }))
}

/// PTX texts parsed while `work` runs: by code objects on any thread, and by anyone on this
/// thread (chevron-ptx's own counter: a text parsed outside a code object counts there).
fn parses(work: impl FnOnce()) -> (u64, u64) {
    let (before, here) = (ptx_parses(), parses_on_this_thread());
    work();
    (ptx_parses() - before, parses_on_this_thread() - here)
}

#[test]
fn registered_code_is_parsed_once_on_two_devices() {
    // The file's only test sets the variables first, before chevron reads them.
    std::env::set_var("CHEVRON_DEVICES", "cpu");
    std::env::set_var("CHEVRON_CPU_DEVICES", "2");
    assert_eq!(
        cudart::state::devices().unwrap().len(),
        2,
        "two CPU devices"
    );

    let corpus = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../corpus/nvcc/elementwise.sm_80.sm_90.compute_90.fatbin");
    let image: &'static [u8] = Box::leak(std::fs::read(corpus).unwrap().into_boxed_slice());
    // SAFETY: the wrapper and the fatbin it points to live for the rest of the process.
    let fatbin =
        unsafe { register_fatbin((wrapper(image, &[]) as *const Wrapper).cast()) }.unwrap();
    let count = parses(|| {
        for ordinal in 0..2 {
            let module = fatbin.module(ordinal, "saxpy").unwrap();
            module.kernel("saxpy").unwrap();
        }
    });
    assert_eq!(count, (1, 1), "a fatbin's PTX entry on two devices");

    let (caller, callee) = (ptx_fatbin(CALLER), ptx_fatbin(CALLEE));
    let rdc = wrapper(caller, &[caller, callee]);
    // SAFETY: as above.
    let fatbin = unsafe { register_fatbin((rdc as *const Wrapper).cast()) }.unwrap();
    let mut kernels = Vec::new();
    let count = parses(|| {
        for ordinal in 0..2 {
            let module = fatbin.module(ordinal, "use_twice").unwrap();
            kernels.push(module.kernel("use_twice").unwrap());
        }
    });
    // Each unit once; the linked module is not printed and parsed again, on either device.
    assert_eq!(
        count,
        (2, 2),
        "two relocatable units linked for two devices"
    );
    // The linked IR runs: the kernel calls the other unit's function, on each device.
    for kernel in &kernels {
        let device = kernel.module().device();
        let out = Buffer::<u32>::zeroed(device, 1).unwrap();
        let config = LaunchConfig {
            grid: [1, 1, 1],
            block: [1, 1, 1],
            shared_bytes: 0,
        };
        let stream = device.default_stream().unwrap();
        kernel
            .launch(&stream, config, (&out,))
            .unwrap()
            .wait()
            .unwrap();
        assert_eq!(out.to_vec().unwrap(), [42]);
    }
}
