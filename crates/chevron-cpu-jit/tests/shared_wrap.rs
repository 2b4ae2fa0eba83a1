//! Compiled shared-memory accesses through nvcc's `[32-bit register + offset]` addresses whose
//! sum wraps at 32 bits (a base held below the array), against the interpreter: both land in
//! the array, with checks on and off, instead of reporting a shared-memory overrun.

mod common;

use chevron_ptx::interp::LaunchHooks;
use common::{compile, config, read_words, Setup, HEADER};

const KERNEL: &str = r#"
.visible .entry wrap(.param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .shared .align 4 .b8 tile[256];
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, tile;
    add.u32 %r4, %r3, %r2;
    st.shared.u32 [%r4], %r1;
    bar.sync 0;
    add.u32 %r5, %r4, -64;
    ld.shared.u32 %r6, [%r5+64];
    sub.u32 %r5, %r3, 4096;
    ld.shared.u32 %r7, [%r5+4096];
    add.u32 %r6, %r6, %r7;
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r6;
    ret;
}
"#;

#[test]
fn shared_addresses_wrap_at_32_bits_in_compiled_code() {
    let s = Setup::of(&format!("{HEADER}{KERNEL}"));
    let want: Vec<u32> = (0..64).collect();
    for checks in [true, false] {
        let compiled = compile(&s.program, "wrap", checks);
        let out = s.memory.alloc(4 * 64, 256).unwrap();
        s.memory.write(out, &[0xee; 256]).unwrap();
        compiled
            .launch(
                &config(1, 64, 1),
                &out.to_le_bytes(),
                &LaunchHooks::default(),
            )
            .unwrap();
        assert_eq!(read_words(&s.memory, out, 64), want, "checks {checks}");
    }
}
