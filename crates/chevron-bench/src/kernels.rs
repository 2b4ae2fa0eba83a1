//! The kernels the launch benchmark launches: an empty one and a 4-argument axpy, as PTX that
//! every device loads (the CUDA driver JIT-compiles it for the GPU at hand).

/// `empty()` and `axpy(x, y, a, n)` (y[i] += a·x[i] for i < n).
pub(crate) const PTX: &str = r#"
.version 7.0
.target sm_50
.address_size 64

.visible .entry empty()
{
    ret;
}

.visible .entry axpy(.param .u64 x, .param .u64 y, .param .f32 a, .param .u32 n)
{
    .reg .pred %p;
    .reg .b32 %r<5>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [x];
    ld.param.u64 %rd2, [y];
    ld.param.f32 %f1, [a];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r2, %r2, %r3, %r4;
    setp.ge.u32 %p, %r2, %r1;
    @%p bra DONE;
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
    ld.global.f32 %f2, [%rd4];
    ld.global.f32 %f3, [%rd5];
    fma.rn.f32 %f3, %f1, %f2, %f3;
    st.global.f32 [%rd5], %f3;
DONE:
    ret;
}
"#;

/// Elements (and threads) of the axpy launch: one block of one warp.
pub(crate) const AXPY_ELEMENTS: u32 = 32;

/// `add_one(data, n)`: `data[i] += 1` for `i < n` (u32): the small kernel of the graph benchmark,
/// whose effect shows how many times it ran.
pub const GRAPH_PTX: &str = r#"
.version 7.0
.target sm_50
.address_size 64

.visible .entry add_one(.param .u64 data, .param .u32 n)
{
    .reg .pred %p;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [data];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r2, %r2, %r3, %r4;
    setp.ge.u32 %p, %r2, %r1;
    @%p bra DONE;
    cvta.to.global.u64 %rd1, %rd1;
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r5, [%rd3];
    add.u32 %r5, %r5, 1;
    st.global.u32 [%rd3], %r5;
DONE:
    ret;
}

.visible .entry empty()
{
    ret;
}
"#;
