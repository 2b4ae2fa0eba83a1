//! Mipmap levels and cube maps through the interpreter: `tex.level`, `tex.grad`, `tex.cube`,
//! `tex.acube` and `txq.num_mipmap_levels` on descriptors written into device memory as a
//! runtime writes them, against the guide's rules (level sizes, level of detail, face table).

use std::sync::Arc;

use chevron_ptx::interp::texture::mipmap::level_span;
use chevron_ptx::interp::texture::{
    AddressMode, ChannelKind, Descriptor, ObjectKind, ResourceKind,
};
use chevron_ptx::interp::{DeviceMemory, LaunchConfig, Program};

const PTX: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 mip, .param .u64 cube, .param .u64 out)
{
    .reg .f32 %f<16>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [mip];
    ld.param.u64 %rd2, [cube];
    ld.param.u64 %rd3, [out];
    cvta.to.global.u64 %rd3, %rd3;
    mov.f32 %f1, 0f3E99999A;
    mov.f32 %f2, 0f3F19999A;
    mov.f32 %f3, 0f3FC00000;
    tex.level.2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%f1, %f2}], %f3;
    st.global.f32 [%rd3], %f4;
    mov.f32 %f8, 0f3E800000;
    mov.f32 %f9, 0f00000000;
    tex.grad.2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%f1, %f2}], {%f8, %f9}, {%f9, %f9};
    st.global.f32 [%rd3+4], %f4;
    txq.num_mipmap_levels.b32 %r1, [%rd1];
    st.global.u32 [%rd3+8], %r1;
    mov.f32 %f10, 0fBF800000;
    mov.f32 %f11, 0f3E99999A;
    mov.f32 %f12, 0f3F000000;
    tex.cube.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd2, {%f11, %f10, %f12, %f12}];
    st.global.f32 [%rd3+12], %f4;
    mov.b32 %r2, 1;
    tex.acube.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd2, {%r2, %f11, %f10, %f12}];
    st.global.f32 [%rd3+16], %f4;
    ret;
}
"#;

fn descriptor(base: u64, extent: [u64; 3], layers: u64, levels: u32) -> Descriptor {
    Descriptor {
        kind: ObjectKind::Texture,
        base,
        extent,
        layers,
        row_pitch: extent[0] * 4,
        slice_pitch: extent[0] * extent[1] * 4,
        channels: 1,
        bits: 32,
        channel_kind: ChannelKind::Float,
        resource: ResourceKind::Array,
        dims: 2,
        linear_filter: false,
        normalized_read: false,
        normalized_coords: true,
        address: [AddressMode::Clamp; 3],
        border: [0.0; 4],
        levels,
        cubemap: layers > 0,
        mipmap_linear: true,
        lod_bias: 0.0,
        lod_clamp: [0.0, 8.0],
    }
}

fn put(memory: &DeviceMemory, bytes: &[u8]) -> u64 {
    let addr = memory.alloc(bytes.len() as u64, 256).unwrap();
    memory.write(addr, bytes).unwrap();
    addr
}

#[test]
fn levels_and_faces() {
    let module = chevron_ptx::parse(PTX).unwrap();
    let memory = Arc::new(DeviceMemory::new(0));
    let program = Program::load(&module, &memory).unwrap();
    // An 8×8 chain of 4 levels; texel (x, y) of level l holds 100 l + 10 y + x.
    let mut texels = Vec::new();
    for l in 0..4u32 {
        let w = 8u32 >> l;
        let (offset, bytes) = level_span([8, 8, 1], 2, 0, 4, l);
        assert_eq!(offset, texels.len() as u64);
        for i in 0..w * w {
            texels.extend_from_slice(&((100 * l + 10 * (i / w) + i % w) as f32).to_le_bytes());
        }
        assert_eq!(bytes, u64::from(w * w * 4));
    }
    let mip_data = put(&memory, &texels);
    let mip = put_words(&memory, &descriptor(mip_data, [8, 8, 1], 0, 4));
    // Two cubes of 4×4 faces: face layer L holds 1000 L + 10 y + x.
    let faces: Vec<u8> = (0..12 * 16u32)
        .flat_map(|i| ((1000 * (i / 16) + 10 * (i / 4 % 4) + i % 4) as f32).to_le_bytes())
        .collect();
    let cube_data = put(&memory, &faces);
    let mut cube = descriptor(cube_data, [4, 4, 1], 12, 1);
    cube.linear_filter = false;
    let cube = put_words(&memory, &cube);
    let out = memory.alloc(20, 256).unwrap();
    let kernel = program.kernel("k").unwrap();
    let mut params = Vec::new();
    for p in [mip, cube, out] {
        params.extend_from_slice(&p.to_le_bytes());
    }
    let config = LaunchConfig {
        grid: [1, 1, 1],
        block: [1, 1, 1],
        dynamic_shared: 0,
        threads: 1,
    };
    program.launch(&kernel, &config, &params).unwrap();
    let mut result = [0u8; 20];
    memory.read(out, &mut result).unwrap();
    let word = |i: usize| u32::from_le_bytes(result[4 * i..4 * i + 4].try_into().unwrap());
    // (0.3, 0.6) at level 1.5: half of level 1's texel (1, 2) and half of level 2's (0, 1).
    assert_eq!(f32::from_bits(word(0)), 0.5 * 121.0 + 0.5 * 210.0);
    // A gradient of 0.25 along x is 2 texels of level 0: level 1.
    assert_eq!(f32::from_bits(word(1)), 121.0);
    assert_eq!(word(2), 4);
    // (0.3, −1, 0.5) points at face 3 (−y): s = x → 0.65, t = −z → 0.25: texel (2, 1).
    assert_eq!(f32::from_bits(word(3)), 3000.0 + 10.0 + 2.0);
    // The same direction in cube 1 is layer 9.
    assert_eq!(f32::from_bits(word(4)), 9000.0 + 10.0 + 2.0);
}

fn put_words(memory: &DeviceMemory, d: &Descriptor) -> u64 {
    let bytes: Vec<u8> = d.to_words().iter().flat_map(|w| w.to_le_bytes()).collect();
    put(memory, &bytes)
}
