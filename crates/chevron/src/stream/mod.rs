//! [`Stream`]: an in-order queue of work on one device (CUDA's `CUstream`).
//!
//! Every submission returns a [`Token`] marking its completion. A stream can be told to wait for
//! any number of tokens ([`Stream::wait_for`]): tokens of the same stream are free (the stream is
//! in order), tokens known to be complete are free, a token of another stream of the same
//! backend becomes one event wait (the event comes from the device's pool and is recorded only
//! now, when it is needed), and a token of another backend is waited for on the host.

mod allocation;
pub(crate) mod device_time;
mod host;
#[cfg(test)]
mod ordering_tests;
pub(crate) mod raw;
pub(crate) mod replay;
mod timing;
pub(crate) mod token;
pub(crate) mod traced;

pub use timing::TimingMark;
pub use token::{Launched, Token};

use std::any::Any;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use bytemuck::Pod;

use crate::backend;
use crate::buffer::Buffer;
use crate::device::progress::StreamProgress;
use crate::device::state::{lock, DeviceCore};
use crate::device::Device;
use crate::error::{Error, Result};
use replay::{AutoGraph, AutoGraphStats};
use traced::Submission;

fn copy(direction: &'static str, bytes: u64) -> Submission<'static> {
    Submission::Copy { direction, bytes }
}

fn fill(bytes: u64) -> Submission<'static> {
    Submission::Fill { bytes }
}

/// The device's streams: made here, above the device layer.
impl Device {
    /// Creates a new in-order stream.
    pub fn create_stream(&self) -> Result<Stream> {
        let shared = StreamShared::create(self.core())?;
        Ok(Stream::from_parts(self.clone(), shared))
    }

    /// Creates a stream whose work the device schedules with `priority`, clamped to
    /// [`Device::stream_priority_range`] as CUDA clamps it (lower numbers are higher
    /// priorities). Returns the stream and the priority it has.
    pub fn create_stream_with_priority(&self, priority: i32) -> Result<(Stream, i32)> {
        let (least, greatest) = self.stream_priority_range()?;
        let priority = priority.clamp(greatest.min(least), least.max(greatest));
        let shared = StreamShared::create_with_priority(self.core(), Some(priority))?;
        Ok((Stream::from_parts(self.clone(), shared), priority))
    }

    /// The device's default stream, created on first use. [`crate::Buffer`]'s convenience
    /// copies run on it. It is an ordinary chevron stream (not CUDA's legacy stream 0).
    pub fn default_stream(&self) -> Result<Stream> {
        let slot = &self.shared.default_stream;
        let shared = match slot.get() {
            Some(shared) => Arc::clone(shared),
            None => {
                let created: Arc<dyn Any + Send + Sync> = StreamShared::create(self.core())?;
                Arc::clone(slot.get_or_init(|| created))
            }
        };
        let shared = shared
            .downcast::<StreamShared>()
            .expect("a device's default stream slot holds only a StreamShared");
        Ok(Stream::from_parts(self.clone(), shared))
    }
}

/// An in-order queue of work on one device. Cloning gives another handle to the same queue.
#[derive(Clone)]
pub struct Stream {
    device: Device,
    pub(crate) shared: Arc<StreamShared>,
}

/// Events recorded on a stream for tokens, and the waits this stream already made.
#[derive(Default)]
struct Marks {
    /// (sequence number covered, event), in increasing order.
    recorded: VecDeque<(u64, Arc<dyn backend::Event>)>,
    /// (id of another stream, highest sequence number of it this stream already waits for).
    waited: Vec<(u64, u64)>,
}

/// How many other streams' waits a stream remembers.
const WAITED_MEMORY: usize = 16;

/// The part of a stream that its tokens keep alive.
pub(crate) struct StreamShared {
    pub(crate) id: u64,
    pub(crate) core: Arc<DeviceCore>,
    pub(crate) progress: Arc<StreamProgress>,
    /// Automatic graph replay in front of the backend stream (`progress.backend` is it).
    pub(crate) auto: Arc<AutoGraph>,
    /// The backend stream itself (the one `auto` wraps), one load away for the plain launch
    /// path.
    direct: Arc<dyn backend::Stream>,
    marks: Mutex<Marks>,
}

static NEXT_STREAM_ID: AtomicU64 = AtomicU64::new(1);

impl StreamShared {
    pub(crate) fn create(core: &Arc<DeviceCore>) -> Result<Arc<StreamShared>> {
        StreamShared::create_with_priority(core, None)
    }

    /// A stream of `priority` (the backend's default priority for `None`).
    pub(crate) fn create_with_priority(
        core: &Arc<DeviceCore>,
        priority: Option<i32>,
    ) -> Result<Arc<StreamShared>> {
        let backend = match priority {
            Some(priority) => core.backend.create_stream_with_priority(priority)?,
            None => core.backend.create_stream()?,
        };
        core.events.grow_for_stream(&*core.backend)?;
        let direct = Arc::clone(&backend);
        let auto = AutoGraph::wrap(backend, Arc::clone(&core.backend));
        let progress = Arc::new(StreamProgress::new(Arc::clone(&auto) as _));
        core.register_stream(Arc::clone(&progress));
        Ok(Arc::new(StreamShared {
            id: NEXT_STREAM_ID.fetch_add(1, Ordering::Relaxed),
            core: Arc::clone(core),
            progress,
            auto,
            direct,
            marks: Mutex::new(Marks::default()),
        }))
    }

    /// An event that completes no earlier than submission `sequence`: an existing one when
    /// possible, else one recorded now (covering everything submitted so far).
    pub(crate) fn event_covering(&self, sequence: u64) -> Result<(u64, Arc<dyn backend::Event>)> {
        let mut marks = lock(&self.marks);
        self.recycle(&mut marks);
        if let Some((m, event)) = marks.recorded.iter().find(|(m, _)| *m >= sequence) {
            return Ok((*m, Arc::clone(event)));
        }
        let event = self.core.events.take(&*self.core.backend)?;
        let covered = self.progress.submitted();
        if let Err(err) = self.progress.backend.record(&*event) {
            self.core.events.give_back(event);
            return Err(err);
        }
        marks.recorded.push_back((covered, Arc::clone(&event)));
        Ok((covered, event))
    }

    /// Returns events whose work is complete to the pool.
    fn recycle(&self, marks: &mut Marks) {
        while let Some((m, event)) = marks.recorded.front() {
            if *m <= self.progress.completed() {
                if Arc::strong_count(event) > 1 {
                    break;
                }
                let (_, event) = marks.recorded.pop_front().expect("front exists");
                self.core.events.give_back(event);
            } else if event.query().unwrap_or(false) {
                self.progress.note_completed(*m);
            } else {
                break;
            }
        }
    }

    /// Makes this stream wait for submission `sequence` of `source` (another stream of the same
    /// backend).
    fn wait_on(&self, source: &StreamShared, sequence: u64) -> Result<()> {
        {
            let marks = lock(&self.marks);
            let already = marks
                .waited
                .iter()
                .any(|&(id, n)| id == source.id && n >= sequence);
            if already {
                return Ok(());
            }
        }
        let (covered, event) = source.event_covering(sequence)?;
        self.progress.backend.wait(&*event)?;
        let mut marks = lock(&self.marks);
        match marks.waited.iter_mut().find(|(id, _)| *id == source.id) {
            Some(entry) => entry.1 = entry.1.max(covered),
            None => {
                if marks.waited.len() >= WAITED_MEMORY {
                    marks.waited.remove(0);
                }
                marks.waited.push((source.id, covered));
            }
        }
        Ok(())
    }

    /// Turns the error of a failed wait into the stream's own report, which names the kernels
    /// pending on it when the error is a fault.
    pub(crate) fn explain(&self, error: Error) -> Error {
        match self.progress.backend.synchronize() {
            Err(own) => own,
            Ok(()) => error,
        }
    }
}

impl Drop for StreamShared {
    fn drop(&mut self) {
        let marks = std::mem::take(&mut *lock(&self.marks));
        for (_, event) in marks.recorded {
            self.core.events.give_back(event);
        }
        self.core.events.release_for_stream();
    }
}

impl Stream {
    pub(crate) fn from_parts(device: Device, shared: Arc<StreamShared>) -> Stream {
        Stream { device, shared }
    }

    /// The device the stream belongs to.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The backend stream behind automatic replay (every call goes through replay; a
    /// backend's helpers downcast it to the backend's own stream, as
    /// [`crate::backend::cuda::raw::stream`] does). Work submitted through it directly is
    /// not counted by the stream's tokens.
    pub fn backend_stream(&self) -> &dyn backend::Stream {
        &*self.shared.progress.backend
    }

    /// Where an untracked launch goes: the backend's own stream while replay is off (one
    /// dynamic call fewer), else the replay wrapper, which releases held launches first.
    #[inline]
    pub(crate) fn launch_target(&self) -> &dyn backend::Stream {
        self.shared
            .auto
            .bypass()
            .unwrap_or(&*self.shared.progress.backend)
    }

    /// The backend stream itself, past automatic replay: only for launches made while no
    /// stream has replay on (`launch_extras::any` is false), where `launch_target` would
    /// answer the same after two more loads.
    #[inline]
    pub(crate) fn direct_backend(&self) -> &dyn backend::Stream {
        &*self.shared.direct
    }

    /// Sets a stream attribute through the driver for the work submitted after it (see
    /// [`backend::Stream::set_driver_attribute`]): `None` on devices without a driver.
    pub fn set_driver_attribute(&self, attribute: i32, value: &[u8; 64]) -> Option<Result<()>> {
        self.direct_backend().set_driver_attribute(attribute, value)
    }

    /// Whether automatic graph replay is on for this stream.
    pub(crate) fn auto_graph_on(&self) -> bool {
        self.shared.auto.enabled()
    }

    /// The automatic replay in front of the backend stream.
    pub(crate) fn replay(&self) -> &AutoGraph {
        &self.shared.auto
    }

    /// Turns automatic graph replay on or off for this stream (off by default; on for every new
    /// stream with `CHEVRON_AUTO_GRAPH=1`). Turning it off releases held launches. See
    /// `docs/graphs.md` for what it catches.
    pub fn auto_graph(&self, on: bool) -> Result<()> {
        self.shared.auto.set_enabled(on)
    }

    /// What automatic replay did on this stream so far.
    pub fn auto_graph_stats(&self) -> AutoGraphStats {
        self.shared.auto.stats()
    }

    /// How many submissions this stream has had: the sequence number of [`Stream::token`],
    /// read without making a token.
    #[inline]
    pub fn submissions(&self) -> u64 {
        self.shared.progress.submitted()
    }

    /// A token for everything submitted to this stream so far.
    pub fn token(&self) -> Token {
        Token::new(Arc::clone(&self.shared), self.shared.progress.submitted())
    }

    /// Makes all later work on this stream wait for `deps` (any streams, any devices).
    pub fn wait_for(&self, deps: &[&Token]) -> Result<()> {
        let started = crate::trace::clock();
        for token in deps {
            let Some(source) = token.stream() else {
                continue;
            };
            if Arc::ptr_eq(source, &self.shared) || token.sequence() <= source.progress.completed()
            {
                continue;
            }
            if source.core.backend.info().backend != self.device.backend() {
                token.wait()?;
                continue;
            }
            self.shared.wait_on(source, token.sequence())?;
        }
        traced::submitted(started, self, None, Submission::WaitFor { deps });
        Ok(())
    }

    /// Waits until all work submitted so far is done; reports a fault of that work, naming the
    /// kernel.
    pub fn synchronize(&self) -> Result<()> {
        let started = crate::trace::clock();
        let waited = (self.shared.id, self.shared.progress.submitted());
        let synchronized = self.shared.progress.synchronize();
        crate::trace::wait(started, "stream synchronize", Some(waited));
        synchronized.inspect_err(crate::trace::fault)?;
        self.shared.core.collect();
        Ok(())
    }

    /// Counts a submission the backend accepted and returns its token.
    #[inline]
    pub(crate) fn submitted(&self) -> Token {
        self.token_of(self.note_submission())
    }

    /// Counts a submission the backend accepted and returns its sequence number.
    #[inline]
    pub(crate) fn note_submission(&self) -> u64 {
        self.shared.progress.note_submitted()
    }

    /// The token of submission `sequence` of this stream (takes a reference to the stream).
    #[inline]
    pub(crate) fn token_of(&self, sequence: u64) -> Token {
        Token::new(Arc::clone(&self.shared), sequence)
    }

    /// Checks that `buffer` lives on this stream's device.
    pub(crate) fn check_buffer<T>(&self, call: &'static str, buffer: &Buffer<T>) -> Result<()> {
        if buffer.device().same_device(&self.device) {
            Ok(())
        } else {
            Err(Error::InvalidValue {
                call,
                message: format!(
                    "buffer of {} used on a stream of {}",
                    buffer.device().label(),
                    self.device.label()
                ),
            })
        }
    }

    /// Enqueues a copy of `src` into `dst` (equal lengths). `src` may be reused as soon as this
    /// returns.
    pub fn copy_to_device<T: Pod>(&self, dst: &Buffer<T>, src: &[T]) -> Result<Token> {
        const CALL: &str = "Stream::copy_to_device";
        let started = crate::trace::clock();
        self.check_buffer(CALL, dst)?;
        check_lengths(CALL, dst.len(), src.len())?;
        if !src.is_empty() {
            let bytes: &[u8] = bytemuck::cast_slice(src);
            self.shared
                .progress
                .backend
                .copy_to_device(dst.device_ptr(), bytes)?;
        }
        Ok(self.submitted_traced(started, || copy("host to device", dst.size_bytes())))
    }

    /// Copies `src` into `dst` (equal lengths) after all earlier work on this stream; returns
    /// when `dst` is filled.
    pub fn copy_to_host<T: Pod>(&self, dst: &mut [T], src: &Buffer<T>) -> Result<()> {
        const CALL: &str = "Stream::copy_to_host";
        let started = crate::trace::clock();
        self.check_buffer(CALL, src)?;
        check_lengths(CALL, src.len(), dst.len())?;
        let before = self.shared.progress.submitted();
        if !dst.is_empty() {
            let bytes: &mut [u8] = bytemuck::cast_slice_mut(dst);
            self.shared
                .progress
                .backend
                .copy_to_host(bytes, src.device_ptr())?;
        }
        // The copy ran after everything submitted before it: that much is complete now.
        self.shared.progress.note_completed(before);
        traced::submitted(
            started,
            self,
            None,
            copy("device to host", src.size_bytes()),
        );
        Ok(())
    }

    /// Enqueues a copy between two buffers of this device (equal lengths).
    pub fn copy_buffer<T: Pod>(&self, dst: &Buffer<T>, src: &Buffer<T>) -> Result<Token> {
        const CALL: &str = "Stream::copy_buffer";
        let started = crate::trace::clock();
        self.check_buffer(CALL, dst)?;
        self.check_buffer(CALL, src)?;
        check_lengths(CALL, dst.len(), src.len())?;
        if !src.is_empty() {
            self.shared.progress.backend.copy_on_device(
                dst.device_ptr(),
                src.device_ptr(),
                src.size_bytes(),
            )?;
        }
        Ok(self.submitted_traced(started, || copy("device to device", src.size_bytes())))
    }

    /// Enqueues a fill of every element of `dst` with `value`. Elements of 1, 2 or 4 bytes are
    /// filled directly; wider elements whose bytes repeat with a period of 4 (e.g. 0) too.
    pub fn fill<T: Pod>(&self, dst: &Buffer<T>, value: T) -> Result<Token> {
        const CALL: &str = "Stream::fill";
        let started = crate::trace::clock();
        self.check_buffer(CALL, dst)?;
        let (pattern, width, count) = fill_pattern(bytemuck::bytes_of(&value), dst.size_bytes())
            .ok_or_else(|| Error::InvalidValue {
                call: CALL,
                message: format!(
                    "cannot fill elements of {} bytes whose bytes do not repeat every 4",
                    std::mem::size_of::<T>()
                ),
            })?;
        if count > 0 {
            self.shared
                .progress
                .backend
                .memset(dst.device_ptr(), pattern, width, count)?;
        }
        Ok(self.submitted_traced(started, || fill(dst.size_bytes())))
    }
}

impl Stream {
    /// Enqueues a fill of `bytes` bytes at `ptr` with `value`.
    pub(crate) fn fill_bytes(&self, ptr: u64, bytes: u64, value: u8) -> Result<Token> {
        let started = crate::trace::clock();
        if bytes > 0 {
            self.shared
                .progress
                .backend
                .memset(ptr, u32::from(value), 1, bytes)?;
        }
        Ok(self.submitted_traced(started, || fill(bytes)))
    }
}

/// The (value, element width, count) of a memset that writes `value` repeatedly over `bytes`.
pub(crate) fn fill_pattern(value: &[u8], bytes: u64) -> Option<(u32, u32, u64)> {
    match value.len() {
        1 => Some((u32::from(value[0]), 1, bytes)),
        2 => Some((
            u32::from(u16::from_ne_bytes([value[0], value[1]])),
            2,
            bytes / 2,
        )),
        n if n % 4 == 0 && value.chunks(4).all(|c| c == &value[..4]) => {
            let word = u32::from_ne_bytes([value[0], value[1], value[2], value[3]]);
            Some((word, 4, bytes / 4))
        }
        _ => None,
    }
}

pub(crate) fn check_lengths(call: &'static str, buffer: usize, host: usize) -> Result<()> {
    if buffer == host {
        Ok(())
    } else {
        Err(Error::InvalidValue {
            call,
            message: format!("the buffer has {buffer} elements, the host slice {host}"),
        })
    }
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream")
            .field("device", &self.device.label())
            .field("id", &self.shared.id)
            .field("submitted", &self.shared.progress.submitted())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::fill_pattern;

    #[test]
    fn fill_patterns_pick_the_widest_element() {
        assert_eq!(fill_pattern(&[7], 10), Some((7, 1, 10)));
        assert_eq!(
            fill_pattern(&1.0f32.to_ne_bytes(), 16),
            Some((0x3f80_0000, 4, 4))
        );
        assert_eq!(fill_pattern(&0u64.to_ne_bytes(), 16), Some((0, 4, 4)));
        assert_eq!(fill_pattern(&1.0f64.to_ne_bytes(), 16), None);
    }
}
