//! The per-thread-default-stream forms of stream-ordered driver functions that a program
//! built with `-DCUDA_API_PER_THREAD_DEFAULT_STREAM` (nvcc `--default-stream per-thread`)
//! links, and that `cuGetProcAddress` hands out with `CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM`.
//!
//! Each is its base function, written once in its area's file, reached through one of two
//! forwarders:
//! - `ptsz!`: a `_ptsz` form passes its arguments on with the stream mapped by
//!   [`per_thread_default`]: NULL (0) is the calling thread's default stream
//!   (`CU_STREAM_PER_THREAD`), any other stream (`CU_STREAM_LEGACY` included) itself;
//! - `ptds!`: a `_ptds` form is a synchronous call: its asynchronous form on the calling
//!   thread's default stream, then that stream waited for ([`synchronous`]), so it is ordered
//!   after the work the thread queued there and complete when it returns, without waiting for
//!   other threads' streams.
//!
//! The forms whose base chevron does not provide are in [`crate::unsupported`]. Three kinds
//! are made beside their base instead, where the base's own macro or a translation makes
//! them: the 1D copies and fills (`crate::memory`'s `copies!`/`fills!`, on the per-thread
//! stream), `cuLaunchKernelEx_ptsz` (the stream inside its configuration) and the prefetches
//! (`crate::managed_hints`: the CUDA 11 form names a `CUdevice`).

use std::ffi::{c_int, c_uint, c_ulonglong, c_void};

pub use cudart::launch::per_thread_default;

use crate::graph::InstantiateParams;
use crate::memcpy_2d::{CUDA_MEMCPY2D, CUDA_MEMCPY3D};
use crate::memory::CUdeviceptr;
use crate::result::{CUresult, SUCCESS};
use crate::{
    graph, graph_nodes, launch, linear_copies, mem_pool, memcpy_2d, memory, memset_2d, stream,
};

/// `CU_STREAM_PER_THREAD`.
const PER_THREAD: *mut c_void = cudart::state::STREAM_PER_THREAD as *mut c_void;

/// A `_ptds` call: `asynchronous` (the base function's stream-ordered form) on the calling
/// thread's default stream, then that stream waited for (and host mirrors refreshed, as every
/// synchronous call does). The first failure is the answer.
pub fn synchronous(asynchronous: impl FnOnce(*mut c_void) -> CUresult) -> CUresult {
    match asynchronous(PER_THREAD) {
        SUCCESS => stream::cuStreamSynchronize(PER_THREAD),
        failed => failed,
    }
}

/// Exports `_ptsz` forms: `NAME => BASE(PARAMETERS) as (ARGUMENTS)`, the arguments passing the
/// stream through [`per_thread_default`].
macro_rules! ptsz {
    ($($name:ident => $base:path, ($($arg:ident: $ty:ty),*) as ($($pass:expr),*);)*) => {
        $(
            #[doc = concat!("[`", stringify!($base), "`], a NULL stream meaning the calling thread's default stream.")]
            ///
            /// # Safety
            /// As the base function: the pointers are NULL or valid as the CUDA driver API
            /// documents them.
            #[no_mangle]
            #[allow(unused_unsafe, clippy::too_many_arguments)]
            pub unsafe extern "C" fn $name($($arg: $ty),*) -> CUresult {
                // SAFETY: the caller's arguments, passed on as the base function takes them.
                unsafe { $base($($pass),*) }
            }
        )*
    };
}

/// Exports `_ptds` forms: `NAME => ASYNC_BASE(PARAMETERS)`, the asynchronous form taking the
/// same parameters and then a stream, run through [`synchronous`].
macro_rules! ptds {
    ($($name:ident => $base:path, ($($arg:ident: $ty:ty),*);)*) => {
        $(
            #[doc = concat!("The synchronous call on the calling thread's default stream: [`", stringify!($base), "`] there, then waited for.")]
            ///
            /// # Safety
            /// As the base function: the pointers are NULL or valid as the CUDA driver API
            /// documents them.
            #[no_mangle]
            #[allow(unused_unsafe)]
            pub unsafe extern "C" fn $name($($arg: $ty),*) -> CUresult {
                // SAFETY: the caller's arguments, passed on as the base function takes them.
                synchronous(|on| unsafe { $base($($arg,)* on) })
            }
        )*
    };
}

use per_thread_default as pt;

/// `CUstreamCallback`.
type StreamCallback = Option<unsafe extern "C" fn(*mut c_void, c_int, *mut c_void)>;
/// `CUhostFn`.
type HostFn = Option<unsafe extern "C" fn(*mut c_void)>;

ptsz! {
    cuLaunchKernel_ptsz => launch::cuLaunchKernel,
        (f: *mut c_void, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint,
         shared: c_uint, s: *mut c_void, params: *mut *mut c_void, extra: *mut *mut c_void)
        as (f, gx, gy, gz, bx, by, bz, shared, pt(s), params, extra);
    cuLaunchCooperativeKernel_ptsz => launch::cuLaunchCooperativeKernel,
        (f: *mut c_void, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint,
         shared: c_uint, s: *mut c_void, params: *mut *mut c_void)
        as (f, gx, gy, gz, bx, by, bz, shared, pt(s), params);
    cuGraphLaunch_ptsz => graph::cuGraphLaunch, (exec: *mut c_void, s: *mut c_void) as (exec, pt(s));
    cuEventRecord_ptsz => stream::cuEventRecord,
        (event: *mut c_void, s: *mut c_void) as (event, pt(s));
    // chevron captures created streams only: NULL, the per-thread stream, is refused.
    cuStreamBeginCapture_v2_ptsz => graph::cuStreamBeginCapture_v2,
        (s: *mut c_void, mode: c_int) as (pt(s), mode);
    // The CUDA 10 form cuda.h declares: no mode, a global capture (CU_STREAM_CAPTURE_MODE_GLOBAL).
    cuStreamBeginCapture_ptsz => graph::cuStreamBeginCapture_v2, (s: *mut c_void) as (pt(s), 0);
    cuStreamBeginCaptureToGraph_ptsz => graph_nodes::cuStreamBeginCaptureToGraph,
        (s: *mut c_void, graph: *mut c_void, deps: *const *mut c_void, edges: *const [u8; 8],
         count: usize, mode: c_int)
        as (pt(s), graph, deps, edges, count, mode);
    cuStreamUpdateCaptureDependencies_v2_ptsz => graph_nodes::cuStreamUpdateCaptureDependencies_v2,
        (s: *mut c_void, deps: *mut *mut c_void, edges: *const [u8; 8], count: usize, flags: c_uint)
        as (pt(s), deps, edges, count, flags);
    // The CUDA 11.3 form: no edge data (default edges).
    cuStreamUpdateCaptureDependencies_ptsz => graph_nodes::cuStreamUpdateCaptureDependencies_v2,
        (s: *mut c_void, deps: *mut *mut c_void, count: usize, flags: c_uint)
        as (pt(s), deps, std::ptr::null(), count, flags);
    cuStreamSynchronize_ptsz => stream::cuStreamSynchronize, (s: *mut c_void) as (pt(s));
    cuStreamQuery_ptsz => stream::cuStreamQuery, (s: *mut c_void) as (pt(s));
    cuStreamWaitEvent_ptsz => stream::cuStreamWaitEvent,
        (s: *mut c_void, event: *mut c_void, flags: c_uint) as (pt(s), event, flags);
    cuStreamAddCallback_ptsz => stream::cuStreamAddCallback,
        (s: *mut c_void, callback: StreamCallback, data: *mut c_void, flags: c_uint)
        as (pt(s), callback, data, flags);
    cuLaunchHostFunc_ptsz => stream::cuLaunchHostFunc,
        (s: *mut c_void, function: HostFn, data: *mut c_void) as (pt(s), function, data);
    cuStreamGetPriority_ptsz => stream::cuStreamGetPriority,
        (s: *mut c_void, priority: *mut c_int) as (pt(s), priority);
    cuStreamIsCapturing_ptsz => stream::cuStreamIsCapturing,
        (s: *mut c_void, status: *mut c_int) as (pt(s), status);
    cuStreamGetCtx_ptsz => stream::cuStreamGetCtx,
        (s: *mut c_void, out: *mut *mut c_void) as (pt(s), out);
    cuStreamGetCtx_v2_ptsz => stream::cuStreamGetCtx_v2,
        (s: *mut c_void, out: *mut *mut c_void, green: *mut *mut c_void) as (pt(s), out, green);
    cuStreamGetDevice_ptsz => stream::cuStreamGetDevice,
        (s: *mut c_void, out: *mut c_int) as (pt(s), out);
    cuStreamEndCapture_ptsz => graph::cuStreamEndCapture,
        (s: *mut c_void, out: *mut *mut c_void) as (pt(s), out);
    cuStreamGetCaptureInfo_v3_ptsz => graph::cuStreamGetCaptureInfo_v3,
        (s: *mut c_void, status: *mut c_int, id: *mut c_ulonglong, out: *mut *mut c_void,
         deps: *mut *const *mut c_void, edges: *mut *const c_void, count: *mut usize)
        as (pt(s), status, id, out, deps, edges, count);
    cuGraphUpload_ptsz => graph::cuGraphUpload,
        (exec: *mut c_void, s: *mut c_void) as (exec, pt(s));
    cuGraphInstantiateWithParams_ptsz => graph::cuGraphInstantiateWithParams,
        (out: *mut *mut c_void, graph: *mut c_void, params: *mut InstantiateParams)
        as (out, graph, params);
    cuMemAllocAsync_ptsz => mem_pool::cuMemAllocAsync,
        (out: *mut CUdeviceptr, bytes: usize, s: *mut c_void) as (out, bytes, pt(s));
    cuMemAllocFromPoolAsync_ptsz => mem_pool::cuMemAllocFromPoolAsync,
        (out: *mut CUdeviceptr, bytes: usize, pool: *mut c_void, s: *mut c_void)
        as (out, bytes, pool, pt(s));
    cuMemFreeAsync_ptsz => mem_pool::cuMemFreeAsync, (ptr: CUdeviceptr, s: *mut c_void) as (ptr, pt(s));
    cuMemcpy2DAsync_v2_ptsz => memcpy_2d::cuMemcpy2DAsync_v2,
        (p: *const CUDA_MEMCPY2D, s: *mut c_void) as (p, pt(s));
    cuMemcpy3DAsync_v2_ptsz => memcpy_2d::cuMemcpy3DAsync_v2,
        (p: *const CUDA_MEMCPY3D, s: *mut c_void) as (p, pt(s));
    cuMemsetD2D8Async_ptsz => memset_2d::cuMemsetD2D8Async,
        (dst: CUdeviceptr, pitch: usize, value: u8, width: usize, height: usize, s: *mut c_void)
        as (dst, pitch, value, width, height, pt(s));
    cuMemsetD2D16Async_ptsz => memset_2d::cuMemsetD2D16Async,
        (dst: CUdeviceptr, pitch: usize, value: u16, width: usize, height: usize, s: *mut c_void)
        as (dst, pitch, value, width, height, pt(s));
    cuMemsetD2D32Async_ptsz => memset_2d::cuMemsetD2D32Async,
        (dst: CUdeviceptr, pitch: usize, value: u32, width: usize, height: usize, s: *mut c_void)
        as (dst, pitch, value, width, height, pt(s));
    cuMemcpyHtoAAsync_v2_ptsz => linear_copies::cuMemcpyHtoAAsync_v2,
        (array: *mut c_void, offset: usize, src: *const c_void, bytes: usize, s: *mut c_void)
        as (array, offset, src, bytes, pt(s));
    cuMemcpyAtoHAsync_v2_ptsz => linear_copies::cuMemcpyAtoHAsync_v2,
        (dst: *mut c_void, array: *mut c_void, offset: usize, bytes: usize, s: *mut c_void)
        as (dst, array, offset, bytes, pt(s));
    cuMemcpyPeerAsync_ptsz => linear_copies::cuMemcpyPeerAsync,
        (dst: CUdeviceptr, dst_context: *mut c_void, src: CUdeviceptr, src_context: *mut c_void,
         bytes: usize, s: *mut c_void)
        as (dst, dst_context, src, src_context, bytes, pt(s));
    // The array copies with no stream-ordered twin are their base: it copies in the legacy
    // stream's order, which waits for every blocking stream (the per-thread default stream is
    // one), so the copy follows the thread's queued work and is complete on return.
    cuMemcpyAtoA_v2_ptds => linear_copies::cuMemcpyAtoA_v2,
        (dst: *mut c_void, dst_offset: usize, src: *mut c_void, src_offset: usize, bytes: usize)
        as (dst, dst_offset, src, src_offset, bytes);
    cuMemcpyAtoD_v2_ptds => linear_copies::cuMemcpyAtoD_v2,
        (dst: CUdeviceptr, array: *mut c_void, offset: usize, bytes: usize)
        as (dst, array, offset, bytes);
    cuMemcpyDtoA_v2_ptds => linear_copies::cuMemcpyDtoA_v2,
        (array: *mut c_void, offset: usize, src: CUdeviceptr, bytes: usize)
        as (array, offset, src, bytes);
}

ptds! {
    cuMemcpy2D_v2_ptds => memcpy_2d::cuMemcpy2DAsync_v2, (p: *const CUDA_MEMCPY2D);
    // An unaligned copy is a 2D copy here (chevron's pitched copies take any alignment).
    cuMemcpy2DUnaligned_v2_ptds => memcpy_2d::cuMemcpy2DAsync_v2, (p: *const CUDA_MEMCPY2D);
    cuMemcpy3D_v2_ptds => memcpy_2d::cuMemcpy3DAsync_v2, (p: *const CUDA_MEMCPY3D);
    cuMemsetD16_v2_ptds => memory::cuMemsetD16Async, (dst: CUdeviceptr, value: u16, count: usize);
    cuMemsetD2D8_v2_ptds => memset_2d::cuMemsetD2D8Async,
        (dst: CUdeviceptr, pitch: usize, value: u8, width: usize, height: usize);
    cuMemsetD2D16_v2_ptds => memset_2d::cuMemsetD2D16Async,
        (dst: CUdeviceptr, pitch: usize, value: u16, width: usize, height: usize);
    cuMemsetD2D32_v2_ptds => memset_2d::cuMemsetD2D32Async,
        (dst: CUdeviceptr, pitch: usize, value: u32, width: usize, height: usize);
    cuMemcpyHtoA_v2_ptds => linear_copies::cuMemcpyHtoAAsync_v2,
        (array: *mut c_void, offset: usize, src: *const c_void, bytes: usize);
    cuMemcpyAtoH_v2_ptds => linear_copies::cuMemcpyAtoHAsync_v2,
        (dst: *mut c_void, array: *mut c_void, offset: usize, bytes: usize);
    cuMemcpyPeer_ptds => linear_copies::cuMemcpyPeerAsync,
        (dst: CUdeviceptr, dst_context: *mut c_void, src: CUdeviceptr, src_context: *mut c_void,
         bytes: usize);
}
