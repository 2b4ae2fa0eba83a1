//! A stream's flags, id and attributes through the driver API (`cuStreamGetFlags`,
//! `cuStreamGetId`, `cuStreamGetAttribute`, `cuStreamSetAttribute`, `cuStreamCopyAttributes`),
//! `cuEventRecordWithFlags`, `cuStreamAttachMemAsync` and the thread's capture mode
//! (`cuThreadExchangeStreamCaptureMode`): the runtime's functions (`cudart::stream_queries`,
//! `cudart::stream_attributes`, `cudart::limits`), whose streams, events, flags, modes and
//! attribute values (`CUstreamAttrValue` is `cudaStreamAttrValue`) the driver shares.

use std::ffi::{c_int, c_uint, c_void};

use cudart::limits;
use cudart::stream_attributes as attributes;
use cudart::stream_queries as queries;

forward! {
    /// The flags a stream was created with (`CU_STREAM_NON_BLOCKING` or 0).
    cuStreamGetFlags => queries::cudaStreamGetFlags, (stream: *mut c_void, flags: *mut c_uint);
    /// A stream's id, unique for the program's life.
    cuStreamGetId => queries::cudaStreamGetId, (stream: *mut c_void, id: *mut u64);
    /// An attribute of a stream (`CUstreamAttrID`).
    cuStreamGetAttribute => attributes::cudaStreamGetAttribute,
        (stream: *mut c_void, attr: c_int, value: *mut [u8; 64]);
    /// Sets an attribute of a stream for its later work.
    cuStreamSetAttribute => attributes::cudaStreamSetAttribute,
        (stream: *mut c_void, attr: c_int, value: *const [u8; 64]);
    /// Copies a stream's attributes to another stream.
    cuStreamCopyAttributes => attributes::cudaStreamCopyAttributes,
        (dst: *mut c_void, src: *mut c_void);
    /// [`cuStreamGetFlags`], a NULL stream meaning the calling thread's default stream.
    cuStreamGetFlags_ptsz => queries::cudaStreamGetFlags_ptsz,
        (stream: *mut c_void, flags: *mut c_uint);
    /// [`cuStreamGetId`], a NULL stream meaning the calling thread's default stream.
    cuStreamGetId_ptsz => queries::cudaStreamGetId_ptsz, (stream: *mut c_void, id: *mut u64);
    /// [`cuStreamGetAttribute`], a NULL stream meaning the calling thread's default stream.
    cuStreamGetAttribute_ptsz => attributes::cudaStreamGetAttribute_ptsz,
        (stream: *mut c_void, attr: c_int, value: *mut [u8; 64]);
    /// [`cuStreamSetAttribute`], a NULL stream meaning the calling thread's default stream.
    cuStreamSetAttribute_ptsz => attributes::cudaStreamSetAttribute_ptsz,
        (stream: *mut c_void, attr: c_int, value: *const [u8; 64]);
    /// [`cuStreamCopyAttributes`], NULL streams meaning the calling thread's default stream.
    cuStreamCopyAttributes_ptsz => attributes::cudaStreamCopyAttributes_ptsz,
        (dst: *mut c_void, src: *mut c_void);
    /// Records an event with flags (`CU_EVENT_RECORD_DEFAULT`, or `CU_EVENT_RECORD_EXTERNAL`
    /// in a capture).
    cuEventRecordWithFlags => queries::cudaEventRecordWithFlags,
        (event: *mut c_void, stream: *mut c_void, flags: c_uint);
    /// [`cuEventRecordWithFlags`], a NULL stream meaning the calling thread's default stream.
    cuEventRecordWithFlags_ptsz => queries::cudaEventRecordWithFlags_ptsz,
        (event: *mut c_void, stream: *mut c_void, flags: c_uint);
    /// Attaches managed memory to a stream (accepted; the CPU device's managed memory is the
    /// host's).
    cuStreamAttachMemAsync => limits::cudaStreamAttachMemAsync,
        (stream: *mut c_void, ptr: *mut c_void, bytes: usize, flags: c_uint);
    /// [`cuStreamAttachMemAsync`], a NULL stream meaning the calling thread's default stream.
    cuStreamAttachMemAsync_ptsz => limits::cudaStreamAttachMemAsync_ptsz,
        (stream: *mut c_void, ptr: *mut c_void, bytes: usize, flags: c_uint);
    /// Swaps the calling thread's stream capture mode (`CUstreamCaptureMode` has
    /// `cudaStreamCaptureMode`'s values).
    cuThreadExchangeStreamCaptureMode => queries::cudaThreadExchangeStreamCaptureMode,
        (mode: *mut c_int);
}
