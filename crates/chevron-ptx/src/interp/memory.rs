//! Device memory of a CPU device: host memory behind an allocation table.
//!
//! Every allocation is a run of `AtomicU64` words, so that blocks running on several host threads
//! see each other's stores and atomics exactly as GPU threads do (plain loads and stores are
//! relaxed; atomics are read-modify-write operations on the containing word). A freed range stays
//! in the table as poisoned, so a later access is reported as a use after free rather than
//! silently reading someone else's data, until its addresses are needed again
//! (`address_space` reuses them, oldest first). Allocations are separated by an
//! unmapped gap, so running off the end of one is reported as out of bounds.
//!
//! The generic address space of the device reserves windows below the device's own range for
//! shared memory, local memory, kernel parameters and function addresses ([`Window`]).

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use super::address_space::{AddressSpace, Placement};
use super::defined::DefinedBytes;
use super::fault::MemoryError;
use chevron_hostmem::Words;

/// Base of device 0's address range; device `i` starts at `DEVICE_BASE + (i << 40)`.
pub const DEVICE_BASE: u64 = 0x7f00_0000_0000;
/// Generic-space window onto the executing block's shared memory.
pub const SHARED_WINDOW: u64 = 0x1000_0000_0000;
/// Generic-space window onto the executing thread's local memory.
pub const LOCAL_WINDOW: u64 = 0x2000_0000_0000;
/// Generic-space window onto the kernel's parameter buffer.
pub const PARAM_WINDOW: u64 = 0x3000_0000_0000;
/// Function addresses (`mov.u64 %rd, func`) are `FUNCTION_WINDOW + 16 * index`.
pub const FUNCTION_WINDOW: u64 = 0x4000_0000_0000;
/// Size of each window.
pub const WINDOW_SIZE: u64 = 1 << 40;

/// Minimum alignment of an allocation (what `cudaMalloc` guarantees).
const MIN_ALIGN: u64 = 256;

/// Which window of the generic address space an address falls in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    /// Global (or constant) device memory.
    Global,
    /// Shared memory of the executing block, at this offset.
    Shared(u64),
    /// Local memory of the executing thread, at this offset.
    Local(u64),
    /// Kernel parameters, at this offset.
    Param(u64),
}

impl Window {
    /// Classifies a generic address.
    pub fn of(addr: u64) -> Window {
        match addr {
            a if (SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&a) => {
                Window::Shared(a - SHARED_WINDOW)
            }
            a if (LOCAL_WINDOW..LOCAL_WINDOW + WINDOW_SIZE).contains(&a) => {
                Window::Local(a - LOCAL_WINDOW)
            }
            a if (PARAM_WINDOW..PARAM_WINDOW + WINDOW_SIZE).contains(&a) => {
                Window::Param(a - PARAM_WINDOW)
            }
            _ => Window::Global,
        }
    }
}

/// One allocation: its words, shared by the table and by executors' lookup caches.
#[doc(hidden)]
#[derive(Debug)]
pub struct Allocation {
    pub base: u64,
    pub size: u64,
    freed: AtomicBool,
    words: Words,
    /// initcheck: which bytes were written (only while the memory tracks definedness).
    defined: Option<DefinedBytes>,
}

/// Mask of the low `bytes` bytes.
pub(crate) fn byte_mask(bytes: u32) -> u64 {
    if bytes >= 8 {
        u64::MAX
    } else {
        (1u64 << (bytes * 8)) - 1
    }
}

impl Allocation {
    fn new(base: u64, size: u64, track_defined: bool) -> Result<Allocation, MemoryError> {
        let count = usize::try_from(size.div_ceil(8).max(1))
            .map_err(|_| MemoryError::OutOfMemory { bytes: size })?;
        let words = Words::zeroed(count).ok_or(MemoryError::OutOfMemory { bytes: size })?;
        Ok(Allocation {
            base,
            size,
            freed: AtomicBool::new(false),
            words,
            defined: track_defined.then(|| DefinedBytes::new(size)),
        })
    }

    /// initcheck: the first of `bytes` bytes from `offset` that nothing wrote, as an offset, if
    /// the allocation tracks definedness.
    #[inline(always)]
    pub fn first_undefined(&self, offset: u64, bytes: u64) -> Option<u64> {
        self.defined
            .as_ref()
            .and_then(|d| d.first_undefined(offset, bytes))
    }

    fn mark_defined(&self, offset: u64, bytes: u64) {
        if let Some(defined) = &self.defined {
            defined.mark(offset, bytes);
        }
    }

    /// Where the allocation's first byte lies in host memory (its bytes follow in order, the
    /// words being little-endian), for compiled code that reaches it directly while it holds
    /// the allocation (not a stable interface).
    #[doc(hidden)]
    pub fn host_address(&self) -> usize {
        self.words.as_ptr() as usize
    }

    /// Whether the allocation was freed.
    pub fn is_freed(&self) -> bool {
        self.freed.load(Ordering::Relaxed)
    }

    /// The word holding byte `offset`.
    pub fn word(&self, offset: u64) -> &AtomicU64 {
        &self.words[(offset >> 3) as usize]
    }

    /// Loads `bytes` (1, 2, 4 or 8) at `offset`, which must be naturally aligned and in bounds.
    pub fn load(&self, offset: u64, bytes: u32) -> u64 {
        let word = self.word(offset).load(Ordering::Relaxed);
        (word >> ((offset & 7) * 8)) & byte_mask(bytes)
    }

    /// Stores the low `bytes` (1, 2, 4 or 8) of `value` at `offset` (naturally aligned, in
    /// bounds), leaving the other bytes of the word intact even under concurrent stores.
    pub fn store(&self, offset: u64, bytes: u32, value: u64) {
        self.mark_defined(offset, u64::from(bytes));
        let word = self.word(offset);
        if bytes >= 8 {
            word.store(value, Ordering::Relaxed);
            return;
        }
        let shift = (offset & 7) * 8;
        let mask = byte_mask(bytes) << shift;
        let bits = (value << shift) & mask;
        // The closure always returns Some, so fetch_update cannot fail.
        let _ = word.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |w| {
            Some((w & !mask) | bits)
        });
    }

    /// Atomically replaces the `bytes` (4 or 8) at `offset` by `op(old)` and returns the old
    /// value. `op` returning `None` leaves memory unchanged (a failed compare-and-swap).
    pub fn atomic(&self, offset: u64, bytes: u32, mut op: impl FnMut(u64) -> Option<u64>) -> u64 {
        self.mark_defined(offset, u64::from(bytes));
        let word = self.word(offset);
        let shift = (offset & 7) * 8;
        let mask = byte_mask(bytes);
        let mut old = 0;
        let _ = word.fetch_update(Ordering::AcqRel, Ordering::Acquire, |w| {
            old = (w >> shift) & mask;
            op(old).map(|new| (w & !(mask << shift)) | ((new & mask) << shift))
        });
        old
    }

    /// Copies bytes out, starting at `offset` (any alignment).
    fn read_bytes(&self, offset: u64, out: &mut [u8]) {
        let mut pos = offset;
        let mut i = 0;
        while i < out.len() {
            let in_word = (pos & 7) as usize;
            let take = (8 - in_word).min(out.len() - i);
            let word = self.word(pos).load(Ordering::Relaxed).to_le_bytes();
            out[i..i + take].copy_from_slice(&word[in_word..in_word + take]);
            i += take;
            pos += take as u64;
        }
    }

    /// Copies bytes in, starting at `offset` (any alignment).
    fn write_bytes(&self, offset: u64, data: &[u8]) {
        self.mark_defined(offset, data.len() as u64);
        let mut pos = offset;
        let mut i = 0;
        while i < data.len() {
            let in_word = (pos & 7) as usize;
            let take = (8 - in_word).min(data.len() - i);
            if take == 8 {
                let bytes: [u8; 8] = data[i..i + 8].try_into().unwrap_or_default();
                self.word(pos)
                    .store(u64::from_le_bytes(bytes), Ordering::Relaxed);
            } else {
                let mut bytes = [0u8; 8];
                bytes[in_word..in_word + take].copy_from_slice(&data[i..i + take]);
                let bits = u64::from_le_bytes(bytes);
                let mask = byte_mask(take as u32) << (in_word * 8);
                let _ = self
                    .word(pos)
                    .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |w| {
                        Some((w & !mask) | bits)
                    });
            }
            i += take;
            pos += take as u64;
        }
    }
}

#[derive(Debug, Clone)]
enum Entry {
    Live(Arc<Allocation>, Placement),
    Freed {
        size: u64,
        placement: Placement,
    },
    /// Host-visible memory ([`DeviceMemory::alloc_host_visible`]), at its words' host address.
    Host(Arc<Allocation>),
}

/// Freed allocations kept poisoned at most; beyond this the oldest one's addresses are reused.
const MAX_POISONED: usize = 4096;

/// The address window and the freed allocations still poisoned, oldest first.
#[derive(Debug)]
struct Spans {
    space: AddressSpace,
    poisoned: VecDeque<u64>,
}

/// The memory of one CPU device: host memory behind an allocation table. `Send + Sync`; every
/// method takes `&self`.
#[derive(Debug)]
pub struct DeviceMemory {
    device_index: u32,
    /// Lock order: `spans` before `table`.
    spans: Mutex<Spans>,
    table: RwLock<BTreeMap<u64, Entry>>,
    /// initcheck: whether new allocations record which bytes were written.
    track_defined: AtomicBool,
    /// synccheck: whether kernels running on this memory check their barriers.
    check_barriers: AtomicBool,
}

impl DeviceMemory {
    /// initcheck: from now on, allocations record which of their bytes were written (by
    /// [`write`](Self::write), [`fill`](Self::fill), [`copy`](Self::copy) and kernel stores),
    /// and a kernel load of a byte never written is a [`FaultKind::UninitializedRead`].
    ///
    /// [`FaultKind::UninitializedRead`]: super::FaultKind::UninitializedRead
    pub fn track_definedness(&self, on: bool) {
        self.track_defined.store(on, Ordering::Relaxed);
    }

    /// synccheck: whether kernels running on this memory fault with
    /// [`FaultKind::BarrierError`] when their block's threads wait at one barrier from two
    /// instructions or with two thread counts (undefined in CUDA; the CPU device runs it).
    ///
    /// [`FaultKind::BarrierError`]: super::FaultKind::BarrierError
    pub fn set_check_barriers(&self, on: bool) {
        self.check_barriers.store(on, Ordering::Relaxed);
    }

    /// Whether barriers are checked (see [`set_check_barriers`](Self::set_check_barriers)).
    pub fn checks_barriers(&self) -> bool {
        self.check_barriers.load(Ordering::Relaxed)
    }

    /// initcheck: marks `[addr, addr + len)` written (memory the program may read as is, e.g.
    /// zero-initialised module variables).
    pub fn mark_defined(&self, addr: u64, len: u64) -> Result<(), MemoryError> {
        let allocation = self.lookup(addr, len)?;
        allocation.mark_defined(addr - allocation.base, len);
        Ok(())
    }

    /// The memory of CPU device `device_index`. Its addresses lie in the 1 TiB from
    /// `DEVICE_BASE + (device_index << 40)`, so the ranges of different devices never overlap,
    /// and are never 0.
    pub fn new(device_index: u32) -> Self {
        let base = DEVICE_BASE + (u64::from(device_index) << 40);
        Self::in_window(device_index, base, 1 << 40)
    }

    /// The memory of CPU device `device_index`, with addresses in `[base, base + len)` (a range
    /// the caller reserved, e.g. mapped inaccessible so that no host memory can lie there).
    /// Fails if the range is empty, starts at 0, or overlaps the interpreter's windows.
    pub fn with_window(device_index: u32, base: u64, len: u64) -> Result<Self, MemoryError> {
        let end = base.checked_add(len).filter(|_| base != 0 && len > 0);
        let reserved = SHARED_WINDOW..FUNCTION_WINDOW + WINDOW_SIZE;
        match end {
            Some(end) if end <= reserved.start || base >= reserved.end => {
                Ok(Self::in_window(device_index, base, len))
            }
            _ => Err(MemoryError::InvalidArgument(format!(
                "address window {base:#x}+{len:#x} is empty or overlaps the windows at \
                 {:#x}..{:#x}",
                reserved.start, reserved.end
            ))),
        }
    }

    fn in_window(device_index: u32, base: u64, len: u64) -> Self {
        DeviceMemory {
            device_index,
            spans: Mutex::new(Spans {
                space: AddressSpace::new(base, len),
                poisoned: VecDeque::new(),
            }),
            table: RwLock::new(BTreeMap::new()),
            track_defined: AtomicBool::new(false),
            check_barriers: AtomicBool::new(false),
        }
    }

    /// The index this memory was created with.
    pub fn device_index(&self) -> u32 {
        self.device_index
    }

    /// The address window, as `[start, end)`.
    pub fn window(&self) -> (u64, u64) {
        self.spans_lock().space.window()
    }

    /// Whether `addr` lies in this memory's address window (allocated or not).
    pub fn in_window_range(&self, addr: u64) -> bool {
        let (start, end) = self.window();
        (start..end).contains(&addr)
    }

    /// Allocates `bytes` (zero-filled) aligned to `align` (a power of two; at least 256 is used)
    /// and returns the device address. A freed allocation's addresses stay poisoned (accesses
    /// are reported as use after free) until the window needs them again, or until
    /// `MAX_POISONED` newer allocations were freed.
    pub fn alloc(&self, bytes: u64, align: u64) -> Result<u64, MemoryError> {
        if !align.is_power_of_two() && align != 0 {
            return Err(MemoryError::InvalidArgument(format!(
                "alignment {align} is not a power of two"
            )));
        }
        let align = align.max(MIN_ALIGN);
        let mut spans = self.spans_lock();
        while spans.poisoned.len() > MAX_POISONED {
            self.reclaim_oldest(&mut spans);
        }
        let placement = loop {
            if let Some(placement) = spans.space.take(bytes.max(1), align) {
                break placement;
            }
            if !self.reclaim_oldest(&mut spans) {
                return Err(MemoryError::AddressSpaceExhausted {
                    bytes,
                    window: spans.space.window_len(),
                    free_ranges: spans.space.free_ranges(),
                });
            }
        };
        let allocation = match Allocation::new(
            placement.base,
            bytes,
            self.track_defined.load(Ordering::Relaxed),
        ) {
            Ok(allocation) => Arc::new(allocation),
            Err(e) => {
                spans
                    .space
                    .give_back(placement.span_start, placement.span_end);
                return Err(e);
            }
        };
        self.table_write()
            .insert(placement.base, Entry::Live(allocation, placement));
        Ok(placement.base)
    }

    /// Frees the allocation starting at `addr`. The range stays poisoned for a while: later
    /// accesses are reported as use after free.
    pub fn free(&self, addr: u64) -> Result<(), MemoryError> {
        let mut spans = self.spans_lock();
        let mut table = self.table_write();
        match table.get(&addr) {
            Some(Entry::Live(allocation, placement)) => {
                allocation.freed.store(true, Ordering::Release);
                let entry = Entry::Freed {
                    size: allocation.size,
                    placement: *placement,
                };
                table.insert(addr, entry);
                spans.poisoned.push_back(addr);
                Ok(())
            }
            _ => Err(MemoryError::InvalidFree { addr }),
        }
    }

    /// Drops the oldest poisoned allocation from the table and returns its span to the window.
    /// False if none is left.
    fn reclaim_oldest(&self, spans: &mut Spans) -> bool {
        let Some(base) = spans.poisoned.pop_front() else {
            return false;
        };
        if let Some(Entry::Freed { placement, .. }) = self.table_write().remove(&base) {
            spans
                .space
                .give_back(placement.span_start, placement.span_end);
        }
        true
    }

    /// Allocates `bytes` (zero-filled) of host-visible memory: its address is the host address
    /// of its first byte, so the host reads and writes these bytes directly while kernels reach
    /// the same bytes through the table (pinned and managed memory of a CPU device, zero-copy).
    /// It lies outside the device's address window and is freed with
    /// [`DeviceMemory::free_host_visible`] only.
    pub fn alloc_host_visible(&self, bytes: u64) -> Result<u64, MemoryError> {
        // The host writes these bytes directly, unseen: initcheck counts them all as defined.
        let mut allocation = Allocation::new(0, bytes, false)?;
        let base = allocation.host_address() as u64;
        allocation.base = base;
        let end = base.saturating_add(bytes.max(1));
        let (start, stop) = self.window();
        let windows = SHARED_WINDOW..FUNCTION_WINDOW + WINDOW_SIZE;
        if (base < windows.end && end > windows.start) || (base < stop && end > start) {
            return Err(MemoryError::InvalidArgument(format!(
                "host memory at {base:#x} overlaps the device's address windows"
            )));
        }
        self.table_write()
            .insert(base, Entry::Host(Arc::new(allocation)));
        Ok(base)
    }

    /// Frees memory from [`DeviceMemory::alloc_host_visible`]. Kernels still holding it keep
    /// its words alive until they let go; later accesses are out of bounds.
    pub fn free_host_visible(&self, addr: u64) -> Result<(), MemoryError> {
        let mut table = self.table_write();
        match table.get(&addr) {
            Some(Entry::Host(allocation)) => {
                allocation.freed.store(true, Ordering::Release);
                table.remove(&addr);
                Ok(())
            }
            _ => Err(MemoryError::InvalidFree { addr }),
        }
    }

    /// Whether `addr` lies in host-visible memory ([`DeviceMemory::alloc_host_visible`]).
    pub fn is_host_visible(&self, addr: u64) -> bool {
        let table = self.table.read().unwrap_or_else(|e| e.into_inner());
        matches!(
            table.range(..=addr).next_back(),
            Some((base, Entry::Host(a))) if addr < base + a.size.max(1)
        )
    }

    /// The allocation containing `[addr, addr + len)` (not a stable interface).
    #[doc(hidden)]
    pub fn lookup(&self, addr: u64, len: u64) -> Result<Arc<Allocation>, MemoryError> {
        let table = self.table.read().unwrap_or_else(|e| e.into_inner());
        let Some(end) = addr.checked_add(len) else {
            return Err(MemoryError::OutOfBounds { addr, len });
        };
        match table.range(..=addr).next_back() {
            Some((base, Entry::Live(a, _) | Entry::Host(a))) if end <= base + a.size => {
                Ok(Arc::clone(a))
            }
            Some((base, Entry::Freed { size, .. })) if addr < base + size => {
                Err(MemoryError::UseAfterFree {
                    addr,
                    len,
                    base: *base,
                    size: *size,
                })
            }
            _ => Err(MemoryError::OutOfBounds { addr, len }),
        }
    }

    /// Copies host bytes to device memory at `addr`.
    pub fn write(&self, addr: u64, data: &[u8]) -> Result<(), MemoryError> {
        let allocation = self.lookup(addr, data.len() as u64)?;
        allocation.write_bytes(addr - allocation.base, data);
        Ok(())
    }

    /// Copies device memory at `addr` into `out`.
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), MemoryError> {
        let allocation = self.lookup(addr, out.len() as u64)?;
        allocation.read_bytes(addr - allocation.base, out);
        Ok(())
    }

    /// Writes `pattern` (1, 2, 4 or 8 bytes: memset 8/16/32/64) `count` times from `addr`.
    pub fn fill(&self, addr: u64, pattern: &[u8], count: u64) -> Result<(), MemoryError> {
        if !matches!(pattern.len(), 1 | 2 | 4 | 8) {
            return Err(MemoryError::InvalidArgument(format!(
                "fill pattern of {} bytes",
                pattern.len()
            )));
        }
        let total = count
            .checked_mul(pattern.len() as u64)
            .ok_or(MemoryError::OutOfBounds {
                addr,
                len: u64::MAX,
            })?;
        let allocation = self.lookup(addr, total)?;
        let chunk: Vec<u8> = pattern
            .iter()
            .copied()
            .cycle()
            .take(total.min(1 << 16) as usize)
            .collect();
        let mut done = 0;
        while done < total {
            let take = (total - done).min(chunk.len() as u64);
            allocation.write_bytes(addr - allocation.base + done, &chunk[..take as usize]);
            done += take;
        }
        Ok(())
    }

    /// Copies `bytes` from `src` to `dst` (device to device; the ranges may overlap).
    pub fn copy(&self, dst: u64, src: u64, bytes: u64) -> Result<(), MemoryError> {
        let from = self.lookup(src, bytes)?;
        let to = self.lookup(dst, bytes)?;
        let mut buffer = vec![0u8; bytes.min(1 << 20) as usize];
        // Copy backwards when the destination overlaps the source from above.
        let chunks: Vec<u64> = (0..bytes.div_ceil(buffer.len().max(1) as u64)).collect();
        let ordered: Box<dyn Iterator<Item = &u64>> = if dst > src {
            Box::new(chunks.iter().rev())
        } else {
            Box::new(chunks.iter())
        };
        for chunk in ordered {
            let start = chunk * buffer.len() as u64;
            let take = (bytes - start).min(buffer.len() as u64) as usize;
            from.read_bytes(src - from.base + start, &mut buffer[..take]);
            to.write_bytes(dst - to.base + start, &buffer[..take]);
        }
        Ok(())
    }

    /// The live allocation containing `addr`, as `(base, size)`.
    pub fn contains(&self, addr: u64) -> Option<(u64, u64)> {
        self.lookup(addr, 1).ok().map(|a| (a.base, a.size))
    }

    fn spans_lock(&self) -> std::sync::MutexGuard<'_, Spans> {
        // Nothing panics while holding this lock; recover from poisoning regardless.
        self.spans.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn table_write(&self) -> std::sync::RwLockWriteGuard<'_, BTreeMap<u64, Entry>> {
        self.table.write().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_visible_memory_lives_at_its_host_address() {
        let memory = DeviceMemory::new(0);
        let a = memory.alloc_host_visible(24).unwrap();
        let allocation = memory.lookup(a, 24).unwrap();
        assert_eq!(
            allocation.host_address() as u64,
            a,
            "one address for host and kernels"
        );
        assert!(!memory.in_window_range(a));
        assert!(memory.is_host_visible(a + 23) && !memory.is_host_visible(a + 24));
        memory.write(a + 4, &[7, 8]).unwrap();
        assert_eq!(allocation.load(4, 2), 0x0807);
        assert!(memory.free(a).is_err(), "not a device allocation");
        memory.free_host_visible(a).unwrap();
        assert!(allocation.is_freed());
        assert!(memory.lookup(a, 1).is_err() && !memory.is_host_visible(a));
        assert!(memory.free_host_visible(a).is_err());
    }

    #[test]
    fn round_trip_and_poison() {
        let memory = DeviceMemory::new(1);
        let a = memory.alloc(100, 0).unwrap();
        assert!(a >= DEVICE_BASE + (1 << 40));
        memory.write(a + 3, b"hello world").unwrap();
        let mut out = [0u8; 11];
        memory.read(a + 3, &mut out).unwrap();
        assert_eq!(&out, b"hello world");
        memory.fill(a, &[0xab, 0xcd], 10).unwrap();
        memory.read(a, &mut out).unwrap();
        assert_eq!(&out[..4], &[0xab, 0xcd, 0xab, 0xcd]);
        assert_eq!(memory.contains(a + 50), Some((a, 100)));
        assert!(matches!(
            memory.read(a + 95, &mut out),
            Err(MemoryError::OutOfBounds { .. })
        ));
        let b = memory.alloc(64, 0).unwrap();
        memory.copy(b, a, 64).unwrap();
        memory.free(a).unwrap();
        assert!(matches!(
            memory.read(a, &mut out),
            Err(MemoryError::UseAfterFree { .. })
        ));
        assert!(memory.free(a).is_err());
        assert!(
            memory.alloc(8, 0).unwrap() > b,
            "poisoned addresses are not reused first"
        );
        memory.read(b, &mut out).unwrap();
        assert_eq!(&out[..2], &[0xab, 0xcd]);
    }

    #[test]
    fn overlapping_copy_moves_like_memmove() {
        let memory = DeviceMemory::new(0);
        let a = memory.alloc(16, 0).unwrap();
        memory.write(a, &[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        memory.copy(a + 2, a, 8).unwrap();
        let mut out = [0u8; 10];
        memory.read(a, &mut out).unwrap();
        assert_eq!(out, [1, 2, 1, 2, 3, 4, 5, 6, 7, 8]);
    }

    #[test]
    fn addresses_are_reused_once_the_window_is_used_up() {
        let memory = DeviceMemory::with_window(0, DEVICE_BASE, 1 << 20).unwrap();
        for _ in 0..1000 {
            let a = memory.alloc(600 << 10, 0).unwrap();
            memory.free(a).unwrap();
        }
        let whole = memory.alloc((1 << 20) - 4096, 0).unwrap();
        assert_eq!(whole, DEVICE_BASE);
        assert!(matches!(
            memory.alloc(8192, 0),
            Err(MemoryError::AddressSpaceExhausted { .. })
        ));
    }

    #[test]
    fn poisoned_entries_are_bounded() {
        let memory = DeviceMemory::new(2);
        for _ in 0..3 * MAX_POISONED {
            let a = memory.alloc(8, 0).unwrap();
            memory.free(a).unwrap();
        }
        let entries = memory.table.read().unwrap().len();
        assert!(entries <= MAX_POISONED + 1, "{entries} table entries");
    }

    #[test]
    fn windows_overlapping_the_interpreters_are_refused() {
        assert!(DeviceMemory::with_window(0, SHARED_WINDOW, 4096).is_err());
        assert!(DeviceMemory::with_window(0, 0, 4096).is_err());
        assert!(DeviceMemory::with_window(0, DEVICE_BASE, 0).is_err());
    }
}
