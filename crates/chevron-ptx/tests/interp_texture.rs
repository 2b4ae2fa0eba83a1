//! Texture and surface instructions through the interpreter: a kernel samples a 2D float
//! texture (point and linear filtering) and copies a surface, with descriptors written into
//! device memory as a runtime writes them.

use std::sync::Arc;

use chevron_ptx::interp::texture::{
    AddressMode, ChannelKind, Descriptor, ObjectKind, ResourceKind,
};
use chevron_ptx::interp::{DeviceMemory, LaunchConfig, Program};

const PTX: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 tex, .param .u64 surf, .param .u64 out)
{
    .reg .f32 %f<8>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [tex];
    ld.param.u64 %rd2, [surf];
    ld.param.u64 %rd3, [out];
    cvta.to.global.u64 %rd3, %rd3;
    mov.f32 %f1, 0f3FC00000;
    mov.f32 %f2, 0f3FCCCCCD;
    tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2}];
    st.global.f32 [%rd3], %f3;
    mov.b32 %r1, 4;
    mov.b32 %r2, 1;
    suld.b.2d.b32.trap {%r3}, [%rd2, {%r1, %r2}];
    st.global.u32 [%rd3+4], %r3;
    sust.b.2d.b32.zero [%rd2, {%r2, %r2}], {%r3};
    txq.width.b32 %r3, [%rd1];
    st.global.u32 [%rd3+8], %r3;
    ret;
}
"#;

fn descriptor(kind: ObjectKind, base: u64, linear: bool) -> Descriptor {
    Descriptor {
        kind,
        base,
        extent: [4, 4, 1],
        layers: 0,
        row_pitch: 16,
        slice_pitch: 64,
        channels: 1,
        bits: 32,
        channel_kind: ChannelKind::Float,
        resource: ResourceKind::Array,
        dims: 2,
        linear_filter: linear,
        normalized_read: false,
        normalized_coords: false,
        address: [AddressMode::Clamp; 3],
        border: [0.0; 4],
        levels: 1,
        cubemap: false,
        mipmap_linear: false,
        lod_bias: 0.0,
        lod_clamp: [0.0, 0.0],
    }
}

fn put_words(memory: &DeviceMemory, words: &[u64]) -> u64 {
    let addr = memory.alloc(8 * words.len() as u64, 256).unwrap();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    memory.write(addr, &bytes).unwrap();
    addr
}

#[test]
fn sample_surface_and_query() {
    let module = chevron_ptx::parse(PTX).unwrap();
    let memory = Arc::new(DeviceMemory::new(0));
    let program = Program::load(&module, &memory).unwrap();
    // Texel (x, y) holds 10 y + x.
    let texels: Vec<u8> = (0..16u32)
        .flat_map(|i| ((10 * (i / 4) + i % 4) as f32).to_le_bytes())
        .collect();
    let data = memory.alloc(64, 256).unwrap();
    memory.write(data, &texels).unwrap();
    let tex = put_words(
        &memory,
        &descriptor(ObjectKind::Texture, data, true).to_words(),
    );
    let surf = put_words(
        &memory,
        &descriptor(ObjectKind::Surface, data, false).to_words(),
    );
    let out = memory.alloc(16, 256).unwrap();
    let kernel = program.kernel("k").unwrap();
    let mut params = Vec::new();
    for p in [tex, surf, out] {
        params.extend_from_slice(&p.to_le_bytes());
    }
    let config = LaunchConfig {
        grid: [1, 1, 1],
        block: [1, 1, 1],
        dynamic_shared: 0,
        threads: 1,
    };
    program.launch(&kernel, &config, &params).unwrap();
    let mut result = [0u8; 12];
    memory.read(out, &mut result).unwrap();
    let word = |i: usize| u32::from_le_bytes(result[4 * i..4 * i + 4].try_into().unwrap());
    // (1.5, 1.6): x - 0.5 = 1.0 exactly, y - 0.5 = 1.1 → weight 26/256 between rows 1 and 2.
    let expected = 11.0f32 * (1.0 - 26.0 / 256.0) + 21.0 * (26.0 / 256.0);
    assert_eq!(f32::from_bits(word(0)), expected);
    // Byte column 4, row 1 is texel (1, 1).
    assert_eq!(f32::from_bits(word(1)), 11.0);
    assert_eq!(word(2), 4);
    // The store at byte column 1 of row 1 landed (unaligned columns are bytes, as on GPUs).
    let mut row = [0u8; 16];
    memory.read(data + 16, &mut row).unwrap();
    assert_eq!(&row[1..5], &11.0f32.to_le_bytes());
}
