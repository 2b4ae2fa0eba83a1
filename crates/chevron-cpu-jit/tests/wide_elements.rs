//! Accesses of several elements, of 8 and 16 bits and sign-extending loads in the vector
//! function (`src/vector/elements.rs`), in groups of 4, 8, 16 and 32 threads against the
//! interpreter: consecutive `v4` records (loaded as rows and transposed), `v2` pairs, bytes,
//! `uchar4`s, signed words and halves, a gather of pairs through an index, shared `v4`s at
//! another thread's row and at one address, and the stores of each size.

mod common;

use common::{config, Setup, GROUPS, HEADER};

/// Thread g (of n) reads the input at 16g, 8g, 4g, 2g and g, the pair at 8·idx[g], shared rows
/// of its neighbour and of thread 0, and writes 64 bytes at out + 64g: a v4 store, a v2 store,
/// a signed word's 64-bit value, bytes and halves.
const KERNEL: &str = r"
.visible .entry wide(.param .u64 in, .param .u64 out, .param .u64 idx)
{
    .reg .b16 %h<4>; .reg .b32 %r<48>; .reg .b64 %rd<32>;
    .shared .align 16 .b8 tile[4096];
    ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out]; ld.param.u64 %rd3, [idx];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd4, %r4, 16; add.s64 %rd5, %rd1, %rd4;
    ld.global.v4.u32 {%r5, %r6, %r7, %r8}, [%rd5];
    mul.wide.u32 %rd6, %r4, 8; add.s64 %rd7, %rd1, %rd6;
    ld.global.v2.u32 {%r9, %r10}, [%rd7];
    mul.wide.u32 %rd8, %r4, 4; add.s64 %rd9, %rd1, %rd8;
    ld.global.s32 %r11, [%rd9];
    cvt.s64.s32 %rd10, %r11;
    ld.global.v4.u8 {%r12, %r13, %r14, %r15}, [%rd9];
    cvt.u64.u32 %rd11, %r4; add.s64 %rd12, %rd1, %rd11;
    ld.global.u8 %r16, [%rd12];
    ld.global.s8 %r17, [%rd12+1];
    mul.wide.u32 %rd13, %r4, 2; add.s64 %rd14, %rd1, %rd13;
    ld.global.s16 %r18, [%rd14];
    ld.global.u16 %r19, [%rd14+2];
    ld.global.v2.s16 {%r40, %r41}, [%rd9];
    add.s64 %rd15, %rd3, %rd8;
    ld.global.u32 %r20, [%rd15];
    mul.wide.u32 %rd16, %r20, 8; add.s64 %rd17, %rd1, %rd16;
    ld.global.v2.u32 {%r21, %r22}, [%rd17];
    mov.u32 %r23, tile;
    shl.b32 %r24, %r1, 4; add.u32 %r25, %r23, %r24;
    st.shared.v4.u32 [%r25], {%r5, %r6, %r7, %r8};
    bar.sync 0;
    xor.b32 %r26, %r1, 1; shl.b32 %r27, %r26, 4; add.u32 %r28, %r23, %r27;
    ld.shared.v4.u32 {%r29, %r30, %r31, %r32}, [%r28];
    ld.shared.v2.u32 {%r33, %r34}, [tile+8];
    xor.b32 %r35, %r5, %r29; xor.b32 %r36, %r6, %r30;
    xor.b32 %r37, %r7, %r33; xor.b32 %r38, %r8, %r34;
    mul.wide.u32 %rd18, %r4, 64; add.s64 %rd19, %rd2, %rd18;
    st.global.v4.u32 [%rd19], {%r35, %r36, %r37, %r38};
    add.u32 %r39, %r9, %r21; xor.b32 %r42, %r10, %r22;
    st.global.v2.u32 [%rd19+16], {%r39, %r42};
    st.global.u64 [%rd19+24], %rd10;
    add.u32 %r43, %r12, %r17; add.u32 %r44, %r13, %r18;
    st.global.v2.u32 [%rd19+32], {%r43, %r44};
    add.u32 %r45, %r14, %r40; add.u32 %r46, %r15, %r41;
    st.global.v2.u32 [%rd19+40], {%r45, %r46};
    st.global.u32 [%rd19+48], %r19;
    cvt.u16.u32 %h1, %r16;
    st.global.u8 [%rd19+52], %r16;
    st.global.u8 [%rd19+53], %r31;
    st.global.u16 [%rd19+54], %r32;
    st.global.v4.u8 [%rd19+56], {%r16, %r17, %r18, %r19};
    st.global.v2.u16 [%rd19+60], {%r11, %r20};
    ret;
}
";

/// The kernel's parameters: its input (n records of 16 bytes) and an index per thread, the
/// launch, and the interpreter's output.
struct Case {
    setup: Setup,
    bytes: Vec<u8>,
    pointer: [u32; 2],
    cfg: chevron_ptx::interp::LaunchConfig,
    out_bytes: usize,
    interpreted: Vec<u32>,
}

fn case() -> Case {
    let setup = Setup::of(&format!("{HEADER}{KERNEL}"));
    let handle = setup.program.kernel("wide").unwrap();
    let (blocks, block) = (4u32, 64u32);
    let threads = blocks * block;
    let words = 4 * threads as usize;
    let input: Vec<u32> = (0..words as u32)
        .map(|i| i.wrapping_mul(0x9e37_79b9) ^ 0x8070_ff01)
        .collect();
    let index: Vec<u32> = (0..threads).map(|g| (g * 37 + 11) % threads).collect();
    let idx = common::buffer(&setup.memory, index.len(), |i| index[i]);
    let pointer = [idx as u32, (idx >> 32) as u32];
    let cfg = config(blocks, block, 1);
    let out_bytes = 64 * threads as usize;
    let bytes = common::le_bytes(&input);
    let interpreted = setup.run_in_out((&handle, None), &cfg, &bytes, out_bytes, &pointer);
    // The oracle moves data: the signed words come out sign-extended.
    let negative = (interpreted.chunks(16))
        .filter(|t| t[7] == u32::MAX)
        .count();
    assert!(negative > 0 && negative < threads as usize);
    Case {
        setup,
        bytes,
        pointer,
        cfg,
        out_bytes,
        interpreted,
    }
}

impl Case {
    /// Runs `compiled` and compares each thread's words with the interpreter's (`what` names
    /// the compile in a failure).
    fn check(&self, compiled: &chevron_cpu_jit::CompiledKernel, what: &str) {
        let handle = self.setup.program.kernel("wide").unwrap();
        let got = (self.setup).run_in_out(
            (&handle, Some(compiled)),
            &self.cfg,
            &self.bytes,
            self.out_bytes,
            &self.pointer,
        );
        for (t, (g, want)) in got.chunks(16).zip(self.interpreted.chunks(16)).enumerate() {
            assert_eq!(g, want, "{what}, thread {t}");
        }
    }
}

/// One thread at a time, the 8- and 16-byte vectors are one host access each
/// (`src/codegen/whole.rs`): the same bits.
#[test]
fn whole_vector_accesses_one_thread_at_a_time_give_the_interpreter_s_bits() {
    let c = case();
    c.check(
        &common::compile_scalar(&c.setup.program, "wide"),
        "one thread at a time",
    );
}

#[test]
fn wide_narrow_and_signed_accesses_run_in_every_group_width_with_the_interpreter_s_bits() {
    let c = case();
    for width in GROUPS {
        let compiled = common::compile_grouped(&c.setup.program, "wide", width);
        c.check(&compiled, &format!("groups of {width}"));
        assert_eq!(compiled.vector(), Ok(()), "groups of {width}");
        assert!(
            compiled.groups().0 > 0,
            "groups of {width}: the vector function ran"
        );
    }
}
