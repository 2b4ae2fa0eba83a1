//! Interpreter tests: device-function calls, recursion, indirect calls, local memory, printf.

mod interp_common;

use interp_common::*;

const CALLS: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.global .align 1 .b8 $str[28] = {116, 105, 100, 32, 37, 100, 58, 32, 102, 105, 98, 61, 37, 100, 32, 104, 97, 108, 102, 61, 37, 46, 50, 102, 32, 37, 115, 0};
.global .align 1 .b8 $word[3] = {111, 107, 0};

.func (.param .b32 func_retval0) fib(.param .b32 fib_param_0)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;

    ld.param.u32 %r1, [fib_param_0];
    setp.lt.s32 %p1, %r1, 2;
    @%p1 bra BASE;
    add.s32 %r2, %r1, -1;
    {
    .param .b32 param0;
    st.param.b32 [param0], %r2;
    .param .b32 retval0;
    call.uni (retval0), fib, (param0);
    ld.param.b32 %r3, [retval0];
    }
    add.s32 %r4, %r1, -2;
    {
    .param .b32 param0;
    st.param.b32 [param0], %r4;
    .param .b32 retval0;
    call.uni (retval0), fib, (param0);
    ld.param.b32 %r5, [retval0];
    }
    add.s32 %r6, %r3, %r5;
    st.param.b32 [func_retval0], %r6;
    ret;
BASE:
    st.param.b32 [func_retval0], %r1;
    ret;
}

// Writes twice its argument through a generic pointer into the caller's local memory.
.func store_double(.param .b64 p, .param .b32 v)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [v];
    shl.b32 %r2, %r1, 1;
    st.u32 [%rd1], %r2;
    ret;
}

.func (.reg .b32 out) add_seven(.reg .b32 in)
{
    add.s32 out, in, 7;
    ret;
}

.visible .entry calls(.param .u64 out, .param .u32 print_upto)
{
    .local .align 8 .b8 __local_depot0[32];
    .reg .b64 %SP;
    .reg .b64 %SPL;
    .reg .pred %p<2>;
    .reg .b32 %r<16>;
    .reg .f64 %fd<2>;
    .reg .b64 %rd<12>;

    mov.u64 %SPL, __local_depot0;
    cvta.local.u64 %SP, %SPL;
    mov.u32 %r1, %tid.x;
    rem.u32 %r2, %r1, 12;
    {
    .param .b32 param0;
    st.param.b32 [param0], %r2;
    .param .b32 retval0;
    call.uni (retval0), fib, (param0);
    ld.param.b32 %r3, [retval0];
    }
    add.u64 %rd1, %SP, 16;
    {
    .param .b64 param0;
    st.param.b64 [param0], %rd1;
    .param .b32 param1;
    st.param.b32 [param1], %r3;
    call.uni store_double, (param0, param1);
    }
    ld.local.u32 %r4, [%SPL+16];
    mov.u64 %rd2, add_seven;
    call (%r5), %rd2, (%r4), proto;
    ld.param.u64 %rd3, [out];
    mul.wide.u32 %rd4, %r1, 4;
    add.s64 %rd5, %rd3, %rd4;
    st.global.u32 [%rd5], %r5;

    ld.param.u32 %r6, [print_upto];
    setp.ge.u32 %p1, %r1, %r6;
    @%p1 bra DONE;
    cvt.rn.f64.u32 %fd1, %r1;
    mul.f64 %fd1, %fd1, 0d3FE0000000000000;
    add.u64 %rd6, %SPL, 0;
    st.local.u32 [%rd6], %r1;
    st.local.u32 [%rd6+4], %r3;
    st.local.f64 [%rd6+8], %fd1;
    mov.u64 %rd7, $word;
    cvta.global.u64 %rd8, %rd7;
    st.local.u64 [%rd6+16], %rd8;
    mov.u64 %rd9, $str;
    cvta.global.u64 %rd10, %rd9;
    add.u64 %rd11, %SP, 0;
    {
    .param .b64 param0;
    st.param.b64 [param0], %rd10;
    .param .b64 param1;
    st.param.b64 [param1], %rd11;
    .param .b32 retval0;
    call.uni (retval0), vprintf, (param0, param1);
    ld.param.b32 %r7, [retval0];
    }
DONE:
    ret;
proto: .callprototype (.reg .b32 _) _ (.reg .b32 _);
}
"#;

fn fib(n: u32) -> u32 {
    if n < 2 {
        n
    } else {
        fib(n - 1) + fib(n - 2)
    }
}

#[test]
fn recursion_pointers_into_local_memory_indirect_calls_and_printf() {
    for threads in [1, 2] {
        let (memory, program) = load(CALLS);
        let out = upload_u32(&memory, &[0; 64]);
        let kernel = program.kernel("calls").unwrap();
        let params = Params::new().u64(out).u32(3).build(&kernel);
        let report = program
            .launch(&kernel, &config([2, 1, 1], [32, 1, 1], threads), &params)
            .unwrap();
        let result = download_u32(&memory, out, 32);
        for (tid, v) in result.iter().enumerate() {
            assert_eq!(*v, 2 * fib(tid as u32 % 12) + 7, "thread {tid}");
        }
        let expected = "tid 0: fib=0 half=0.00 ok\
                        tid 1: fib=1 half=0.50 ok\
                        tid 2: fib=1 half=1.00 ok";
        assert_eq!(report.printf_output, format!("{expected}{expected}"));
    }
}
