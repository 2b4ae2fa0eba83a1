//! Copies and fills at raw device addresses, for callers that hold addresses rather than
//! [`crate::Buffer`]s: C ABIs (MLIR's `mgpuMemcpy`, which passes bare pointers), sub-ranges of
//! buffers, and memory made by another runtime.
//!
//! The backend checks the ranges where it can (the CPU device reports an address outside its
//! allocations as an error; the CUDA driver rejects unmapped addresses).

use super::traced::{self, Submission};
use crate::backend::DevicePtr;
use crate::error::{Error, Result};
use crate::stream::token::Token;
use crate::stream::Stream;

fn copy(direction: &'static str, bytes: u64) -> Submission<'static> {
    Submission::Copy { direction, bytes }
}

impl Stream {
    /// Enqueues a copy of `src` to device address `dst` (memory of this stream's device).
    /// `src` may be reused as soon as this returns.
    pub fn copy_to_device_at(&self, dst: DevicePtr, src: &[u8]) -> Result<Token> {
        let started = crate::trace::clock();
        check_address("Stream::copy_to_device_at", dst, src.len() as u64)?;
        if !src.is_empty() {
            self.backend_stream().copy_to_device(dst, src)?;
        }
        let bytes = src.len() as u64;
        Ok(self.submitted_traced(started, || copy("host to device", bytes)))
    }

    /// Copies `dst.len()` bytes from device address `src` into `dst` after all earlier work on
    /// this stream; returns when `dst` is filled.
    pub fn copy_to_host_at(&self, dst: &mut [u8], src: DevicePtr) -> Result<()> {
        let started = crate::trace::clock();
        check_address("Stream::copy_to_host_at", src, dst.len() as u64)?;
        let before = self.shared.progress.submitted();
        if !dst.is_empty() {
            self.backend_stream().copy_to_host(dst, src)?;
        }
        // The copy ran after everything submitted before it: that much is complete now.
        self.shared.progress.note_completed(before);
        let bytes = dst.len() as u64;
        traced::submitted(started, self, None, copy("device to host", bytes));
        Ok(())
    }

    /// Enqueues a copy of `bytes` bytes between two addresses of this stream's device.
    pub fn copy_on_device_at(&self, dst: DevicePtr, src: DevicePtr, bytes: u64) -> Result<Token> {
        let started = crate::trace::clock();
        check_address("Stream::copy_on_device_at", dst, bytes)?;
        check_address("Stream::copy_on_device_at", src, bytes)?;
        if bytes > 0 {
            self.backend_stream().copy_on_device(dst, src, bytes)?;
        }
        Ok(self.submitted_traced(started, || copy("device to device", bytes)))
    }

    /// Enqueues a fill of `count` elements of `element_bytes` (1, 2 or 4) bytes with `value`
    /// (its low `element_bytes` bytes) from device address `dst`.
    pub fn memset_at(
        &self,
        dst: DevicePtr,
        value: u32,
        element_bytes: u32,
        count: u64,
    ) -> Result<Token> {
        const CALL: &str = "Stream::memset_at";
        let started = crate::trace::clock();
        if !matches!(element_bytes, 1 | 2 | 4) {
            return Err(Error::InvalidValue {
                call: CALL,
                message: format!("elements of {element_bytes} bytes (1, 2 or 4 expected)"),
            });
        }
        let bytes =
            count
                .checked_mul(u64::from(element_bytes))
                .ok_or_else(|| Error::InvalidValue {
                    call: CALL,
                    message: format!("{count} elements of {element_bytes} bytes overflow"),
                })?;
        check_address(CALL, dst, bytes)?;
        if !dst.is_multiple_of(u64::from(element_bytes)) {
            // cuMemsetD16/D32 refuse it with CUDA_ERROR_INVALID_VALUE; every device says so here.
            return Err(Error::InvalidValue {
                call: CALL,
                message: format!(
                    "destination {dst:#x} is not aligned to its {element_bytes}-byte elements"
                ),
            });
        }
        if count > 0 {
            self.backend_stream()
                .memset(dst, value, element_bytes, count)?;
        }
        Ok(self.submitted_traced(started, || Submission::Fill { bytes }))
    }
}

/// Rejects a null address and a range that wraps around the address space.
fn check_address(call: &'static str, ptr: DevicePtr, bytes: u64) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    if ptr == 0 || ptr.checked_add(bytes).is_none() {
        return Err(Error::InvalidValue {
            call,
            message: format!("{bytes} bytes at device address {ptr:#x} are not addressable"),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::backend::scripted::ScriptedDevice;
    use crate::Device;

    #[test]
    fn raw_submissions_are_sequenced_and_null_addresses_refused() {
        let device = Device::from_backend(Arc::new(ScriptedDevice::new(0)));
        let stream = device.create_stream().unwrap();
        let first = stream.copy_to_device_at(0x1000, &[1, 2, 3]).unwrap();
        let second = stream.memset_at(0x1000, 7, 2, 4).unwrap();
        let third = stream.copy_on_device_at(0x2000, 0x1000, 8).unwrap();
        assert_eq!(
            [first.sequence(), second.sequence(), third.sequence()],
            [1, 2, 3]
        );
        let mut out = [0u8; 4];
        stream.copy_to_host_at(&mut out, 0x1000).unwrap();
        assert!(
            third.is_done().unwrap(),
            "a copy to the host waits for earlier work"
        );
        let err = stream.copy_to_device_at(0, &[1]).unwrap_err().to_string();
        assert!(err.contains("copy_to_device_at"), "{err}");
        assert!(stream.memset_at(0x1000, 0, 3, 1).is_err());
        assert!(stream.copy_on_device_at(u64::MAX, 0x1000, 2).is_err());
    }
}
