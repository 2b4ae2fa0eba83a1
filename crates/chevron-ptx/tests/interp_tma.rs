//! Interpreter tests: TMA (`cp.async.bulk.tensor`) through tensor maps encoded by
//! `interp::tensor_map` — tests/cudart/tma_tile.cu's kernel as nvcc compiles it (2D tile loads
//! completed on an mbarrier, out-of-bound elements zero, bulk tensor stores clipped to the
//! tensor), and small PTX cases for 1D/3D boxes, element strides, swizzle and multicast.

mod interp_common;

use chevron_ptx::interp::tensor_map::{TensorMap, TiledRequest};
use chevron_ptx::interp::{DeviceMemory, FaultKind, KernelHandle};
use interp_common::*;

const NVCC: &str = include_str!("data/tma_tile.ptx");

/// A float32 tensor map of `dims` (innermost first, rows packed) at `address` with `boxes`.
fn map(
    address: u64,
    dims: &[u64],
    boxes: &[u32],
    element_strides: &[u32],
    swizzle: u32,
) -> [u8; 128] {
    let mut strides = Vec::new();
    let mut stride = 4 * dims[0];
    for d in &dims[1..] {
        strides.push(stride);
        stride *= d;
    }
    TensorMap::tiled(&TiledRequest {
        data_type: 7,
        address,
        dims,
        global_strides: &strides,
        boxes,
        element_strides,
        interleave: 0,
        swizzle,
        oob_fill: 0,
    })
    .unwrap()
    .encode()
}

/// A parameter buffer for `kernel` from each parameter's bytes.
fn params(kernel: &KernelHandle, values: &[&[u8]]) -> Vec<u8> {
    let mut buffer = vec![0u8; kernel.param_size as usize];
    for (&(offset, size), value) in kernel.params.iter().zip(values) {
        assert_eq!(size as usize, value.len());
        buffer[offset as usize..offset as usize + value.len()].copy_from_slice(value);
    }
    buffer
}

fn upload(memory: &DeviceMemory, values: &[f32]) -> u64 {
    upload_f32(memory, values)
}

#[test]
fn nvcc_tile_copies_load_boxes_with_zero_outside_and_store_them_clipped() {
    let (memory, program) = load(NVCC);
    let kernel = program.kernel("_Z9tile_copy14CUtensorMap_stS_Pf").unwrap();
    let (width, height, bx, by) = (100usize, 37usize, 32usize, 8usize);
    let host: Vec<f32> = (0..width * height)
        .map(|i| ((i / width) * 1000 + i % width + 1) as f32)
        .collect();
    let input = upload(&memory, &host);
    let output = upload(&memory, &vec![-1.0; width * height]);
    let (gx, gy) = (width.div_ceil(bx), height.div_ceil(by));
    let tiles = upload(&memory, &vec![-1.0; gx * gy * bx * by]);
    let dims = [width as u64, height as u64];
    let boxes = [bx as u32, by as u32];
    let in_map = map(input, &dims, &boxes, &[1, 1], 0);
    let out_map = map(output, &dims, &boxes, &[1, 1], 0);
    let buffer = params(&kernel, &[&in_map, &out_map, &tiles.to_le_bytes()]);
    program
        .launch(
            &kernel,
            &config([gx as u32, gy as u32, 1], [128, 1, 1], 2),
            &buffer,
        )
        .unwrap();
    let got_tiles = download_f32(&memory, tiles, gx * gy * bx * by);
    for t in 0..gx * gy {
        let (tx, ty) = (t % gx, t / gx);
        for e in 0..bx * by {
            let (x, y) = (tx * bx + e % bx, ty * by + e / bx);
            let want = if x < width && y < height {
                host[y * width + x]
            } else {
                0.0
            };
            assert_eq!(
                got_tiles[t * bx * by + e],
                want,
                "tile ({tx}, {ty}) element {e}"
            );
        }
    }
    let got = download_f32(&memory, output, width * height);
    let doubled: Vec<f32> = host.iter().map(|v| 2.0 * v).collect();
    assert_eq!(got, doubled);
}

/// One thread loads a box through the tensor map parameter into shared memory (completing on
/// an mbarrier it waits for), then the block copies shared memory out word by word.
const BOX: &str = r#"
.version 8.0
.target sm_90
.address_size 64

.visible .entry box3d(.param .align 64 .b8 tmap[128], .param .u64 out, .param .u32 c0,
                      .param .u32 c1, .param .u32 c2)
{
    .reg .pred %p<3>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<8>;
    .shared .align 1024 .b8 tile[2048];
    .shared .align 8 .b64 bar;

    mov.u32 %r1, %tid.x;
    mov.u32 %r2, bar;
    mov.u32 %r3, tile;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra WAIT;
    mbarrier.init.shared::cta.b64 [%r2], 1;
    mov.b64 %rd1, tmap;
    cvta.param.u64 %rd1, %rd1;
    ld.param.u32 %r4, [c0];
    ld.param.u32 %r5, [c1];
    ld.param.u32 %r6, [c2];
    cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd1, {%r4, %r5, %r6}], [%r2];
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r2], 2048;
WAIT:
    bar.sync 0;
    mov.u32 %r7, 0;
SPIN:
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], %r7;
    @!%p2 bra SPIN;
    shl.b32 %r8, %r1, 2;
    add.u32 %r9, %r3, %r8;
    ld.shared.u32 %r10, [%r9];
    ld.param.u64 %rd3, [out];
    mul.wide.u32 %rd4, %r1, 4;
    add.s64 %rd5, %rd3, %rd4;
    st.global.u32 [%rd5], %r10;
    ret;
}
"#;

/// Runs `box3d` (512 threads, one word each) over the tensor `values` of `dims` with a box of
/// `boxes`, at `coords`; returns the 512 words of shared memory.
fn run_box(
    dims: [u64; 3],
    boxes: [u32; 3],
    strides: [u32; 3],
    swizzle: u32,
    coords: [i32; 3],
) -> (Vec<f32>, Vec<f32>) {
    let (memory, program) = load(BOX);
    let kernel = program.kernel("box3d").unwrap();
    let n = (dims[0] * dims[1] * dims[2]) as usize;
    let values: Vec<f32> = (0..n).map(|i| i as f32 + 1.0).collect();
    let input = upload(&memory, &values);
    let out = upload(&memory, &[-1.0; 512]);
    let tmap = map(input, &dims, &boxes, &strides, swizzle);
    let c = coords.map(|c| (c as u32).to_le_bytes());
    let buffer = params(&kernel, &[&tmap, &out.to_le_bytes(), &c[0], &c[1], &c[2]]);
    program
        .launch(&kernel, &config([1, 1, 1], [512, 1, 1], 1), &buffer)
        .unwrap();
    (values, download_f32(&memory, out, 512))
}

#[test]
fn three_dimensional_boxes_with_negative_coordinates_and_element_strides() {
    // A 16 x 4 x 8 box (2048 bytes) at (-4, 1, 5) of a 20 x 3 x 9 tensor.
    let dims = [20u64, 3, 9];
    let (values, got) = run_box(dims, [16, 4, 8], [1, 1, 1], 0, [-4, 1, 5]);
    for (i, &v) in got.iter().enumerate() {
        let (x, y, z) = (i % 16, (i / 16) % 4, i / 64);
        let (gx, gy, gz) = (x as i64 - 4, y as i64 + 1, z as i64 + 5);
        let inside = (0..20).contains(&gx) && (0..3).contains(&gy) && (0..9).contains(&gz);
        let want = if inside {
            values[(gz * 60 + gy * 20 + gx) as usize]
        } else {
            0.0
        };
        assert_eq!(v, want, "element ({x}, {y}, {z})");
    }
    // Element strides of 2 in x take every other element: a box of 32 x 4 x 8 holds 16 x 4 x 8.
    let (values, got) = run_box([64, 4, 8], [32, 4, 8], [2, 1, 1], 0, [0, 0, 0]);
    for (i, &v) in got.iter().enumerate() {
        let (x, y, z) = (i % 16, (i / 16) % 4, i / 64);
        assert_eq!(
            v,
            values[z * 256 + y * 64 + 2 * x],
            "strided element ({x}, {y}, {z})"
        );
    }
}

#[test]
fn the_128_byte_swizzle_moves_each_rows_chunks() {
    // 32 floats (128 bytes) per row, 4 rows, 4 planes: row r's 16-byte chunk c lands at c ^ r.
    let (values, got) = run_box([32, 4, 4], [32, 4, 4], [1, 1, 1], 3, [0, 0, 0]);
    for row in 0..16 {
        for chunk in 0..8 {
            let at = row * 32 + (chunk ^ (row % 8)) * 4;
            let from = row * 32 + chunk * 4;
            assert_eq!(
                got[at..at + 4],
                values[from..from + 4],
                "row {row} chunk {chunk}"
            );
        }
    }
}

#[test]
fn a_parameter_that_is_not_a_tensor_map_faults() {
    let (memory, program) = load(BOX);
    let kernel = program.kernel("box3d").unwrap();
    let out = upload(&memory, &[0.0; 512]);
    let zero = [0u8; 4];
    let buffer = params(
        &kernel,
        &[&[7u8; 128], &out.to_le_bytes(), &zero, &zero, &zero],
    );
    let fault = program
        .launch(&kernel, &config([1, 1, 1], [32, 1, 1], 1), &buffer)
        .unwrap_err();
    assert_eq!(fault.kind, FaultKind::OutOfBounds, "{fault}");
    assert!(
        fault.detail.contains("not a tensor map"),
        "{}",
        fault.detail
    );
}
