//! [`Buffer::new_in_stream_order`]: device memory allocated in a stream's order, for
//! stream-ordered allocators above (`cudaMallocAsync`). It lives with the stream layer, which
//! sits above buffers, so that `buffer.rs` never names a stream.

use bytemuck::Pod;

use crate::buffer::Buffer;
use crate::error::Result;
use crate::stream::Stream;

impl<T: Pod> Buffer<T> {
    /// Allocates `len` uninitialized elements in `stream`'s order: usable by work submitted to
    /// `stream` afterwards, and by other streams once ordered after it (a token wait, a
    /// synchronization). Where the backend allocates in stream order (CUDA's
    /// `cuMemAllocAsync`), the allocation orders none of the device's other streams, as a plain
    /// allocation does on CUDA (an implicit synchronization); elsewhere, or should that
    /// allocation fail, it is [`Buffer::new`] on the stream's device.
    pub fn new_in_stream_order(stream: &Stream, len: usize) -> Result<Buffer<T>> {
        let device = stream.device();
        let bytes = (len as u64).saturating_mul(std::mem::size_of::<T>() as u64);
        if bytes > 0 {
            let core = device.core();
            core.collect();
            let started = crate::trace::clock();
            if let Some(Ok(ptr)) = core
                .backend
                .alloc_in_stream_order(bytes, stream.backend_stream())
            {
                // The allocation is a piece of the stream's work: a token taken after it (a
                // wait of another stream, a deferred free) covers it.
                stream.note_submission();
                crate::trace::alloc(started, device.label(), bytes);
                return Ok(Buffer::adopt(device, ptr, len));
            }
        }
        Buffer::new(device, len)
    }
}
