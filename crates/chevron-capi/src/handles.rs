//! Opaque handles: typed registries of live objects, addressed by tagged, generation-checked
//! numbers.
//!
//! A handle is `tag << 56 | generation << 32 | (slot + 1)`. It is never dereferenced: C code
//! holds it as an opaque pointer, and every entry point looks it up in the registry of the kind
//! it expects. A NULL handle, a released one (its slot's generation moved on), or one of
//! another kind (its tag differs) is an error, never a crash. The tag also lets the MLIR ABI
//! tell a stream from an event when a caller passes one for the other. Handles are never
//! reissued: a slot whose 24-bit generation is used up is retired (see [`Registry`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock, RwLock, RwLockWriteGuard};

/// Bits of a handle that hold the slot index plus one.
const SLOT_BITS: u32 = 32;
/// Bits of a handle that hold the slot's generation.
const GENERATION_BITS: u32 = 24;
const GENERATION_MASK: u32 = (1 << GENERATION_BITS) - 1;

/// The kinds of objects behind handles; the tag is part of every handle value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Kind {
    Device = 1,
    Module = 2,
    Kernel = 3,
    Stream = 4,
    Token = 5,
    Buffer = 6,
    MgpuModule = 7,
    MgpuFunction = 8,
    MgpuStream = 9,
    MgpuEvent = 10,
    Graph = 11,
    JitSession = 12,
}

impl Kind {
    /// The word error messages use for this kind.
    pub(crate) fn word(self) -> &'static str {
        match self {
            Kind::Device => "device",
            Kind::Module => "module",
            Kind::Kernel => "kernel",
            Kind::Stream => "stream",
            Kind::Token => "token",
            Kind::Buffer => "buffer",
            Kind::MgpuModule => "CUmodule",
            Kind::MgpuFunction => "CUfunction",
            Kind::MgpuStream => "CUstream",
            Kind::MgpuEvent => "CUevent",
            Kind::Graph => "graph",
            Kind::JitSession => "JIT session",
        }
    }

    /// The kind whose tag `handle` carries, if any.
    pub(crate) fn of_handle(handle: u64) -> Option<Kind> {
        const KINDS: [Kind; 12] = [
            Kind::Device,
            Kind::Module,
            Kind::Kernel,
            Kind::Stream,
            Kind::Token,
            Kind::Buffer,
            Kind::MgpuModule,
            Kind::MgpuFunction,
            Kind::MgpuStream,
            Kind::MgpuEvent,
            Kind::Graph,
            Kind::JitSession,
        ];
        let tag = (handle >> 56) as u8;
        KINDS.into_iter().find(|k| *k as u8 == tag)
    }
}

/// Why a handle does not name a live object of the expected kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HandleError {
    /// The handle is NULL.
    Null,
    /// The handle is of another kind.
    WrongKind(Option<Kind>),
    /// The handle was released (or never issued).
    Stale,
}

impl HandleError {
    /// A message naming the handle, what was expected and what is wrong.
    pub(crate) fn describe(self, expected: Kind, handle: u64) -> String {
        let expected = expected.word();
        match self {
            HandleError::Null => format!("the {expected} handle is NULL"),
            HandleError::WrongKind(Some(actual)) => format!(
                "handle {handle:#x} is a {} handle, not a {expected} handle",
                actual.word()
            ),
            HandleError::WrongKind(None) => {
                format!("{handle:#x} is not a chevron handle (a {expected} handle was expected)")
            }
            HandleError::Stale => {
                format!("{expected} handle {handle:#x} was already released or destroyed")
            }
        }
    }
}

/// Slots in the first chunk; chunk `c` holds `FIRST_CHUNK << c` slots.
const FIRST_CHUNK: usize = 64;
/// Chunks enough for every slot index a handle can hold (2^32 - 1 of them).
const CHUNKS: usize = 27;

/// One slot: the generation of its current (or next) handle and the object, if live. Readers
/// take the slot's own read lock, so lookups of different handles never contend, and an
/// insertion or removal elsewhere never blocks them.
struct Slot<T> {
    entry: RwLock<Entry<T>>,
}

struct Entry<T> {
    generation: u32,
    value: Option<T>,
}

/// Which slots are free, and how many were ever handed out.
struct Allocator {
    free: Vec<u32>,
    next: u32,
}

/// The live objects of one kind.
///
/// Slots live in chunks that are allocated once and never move, so a lookup finds its slot
/// without any registry-wide lock. A slot's generation grows by one per release; a slot whose
/// generation reaches the largest value a handle can hold is retired for good instead of
/// reused, so a released handle never becomes valid again.
pub(crate) struct Registry<T> {
    kind: Kind,
    chunks: [OnceLock<Box<[Slot<T>]>>; CHUNKS],
    allocator: Mutex<Allocator>,
    /// How many objects were ever removed: a cache of looked-up objects is current while this
    /// has not moved (see `api::launch_cache`).
    removals: AtomicU64,
}

impl<T: Clone> Registry<T> {
    /// An empty registry (usable in a `static`).
    pub(crate) const fn new(kind: Kind) -> Registry<T> {
        Registry {
            kind,
            chunks: [const { OnceLock::new() }; CHUNKS],
            allocator: Mutex::new(Allocator {
                free: Vec::new(),
                next: 0,
            }),
            removals: AtomicU64::new(0),
        }
    }

    /// How many objects were ever removed; unchanged means every handle looked up since is
    /// still live.
    pub(crate) fn removals(&self) -> u64 {
        self.removals.load(Ordering::Acquire)
    }

    /// The kind of the objects.
    pub(crate) fn kind(&self) -> Kind {
        self.kind
    }

    /// Registers `value` and returns its handle.
    ///
    /// # Panics
    /// When all 2^32 - 1 slots are in use or retired (2^56 handles were issued).
    pub(crate) fn insert(&self, value: T) -> u64 {
        let index = {
            let mut allocator = lock(&self.allocator);
            match allocator.free.pop() {
                Some(index) => index,
                None => {
                    let index = allocator.next;
                    assert!(
                        index < u32::MAX - 1,
                        "{} handles exhausted",
                        self.kind.word()
                    );
                    allocator.next += 1;
                    index
                }
            }
        };
        let mut entry = write(self.slot_or_new(index));
        entry.value = Some(value);
        self.encode(index, entry.generation)
    }

    /// A clone of the object behind `handle`.
    pub(crate) fn get(&self, handle: u64) -> Result<T, HandleError> {
        self.with(handle, T::clone)
    }

    /// Calls `f` with the object behind `handle`, borrowed (no clone) under its slot's read
    /// lock: `f` must not release a handle of this registry.
    pub(crate) fn with<R>(&self, handle: u64, f: impl FnOnce(&T) -> R) -> Result<R, HandleError> {
        let index = self.index_of(handle)?;
        let slot = self.slot(index).ok_or(HandleError::Stale)?;
        let entry = slot.entry.read().unwrap_or_else(|e| e.into_inner());
        match &entry.value {
            Some(value) if self.encode(index, entry.generation) == handle => Ok(f(value)),
            _ => Err(HandleError::Stale),
        }
    }

    /// Unregisters the object behind `handle` and returns it; the handle becomes stale.
    pub(crate) fn remove(&self, handle: u64) -> Result<T, HandleError> {
        let index = self.index_of(handle)?;
        let slot = self.slot(index).ok_or(HandleError::Stale)?;
        let (value, reusable) = {
            let mut entry = write(slot);
            if self.encode(index, entry.generation) != handle {
                return Err(HandleError::Stale);
            }
            let value = entry.value.take().ok_or(HandleError::Stale)?;
            self.removals.fetch_add(1, Ordering::Release);
            (value, retire_generation(&mut entry))
        };
        if reusable {
            lock(&self.allocator).free.push(index);
        }
        Ok(value)
    }

    /// Unregisters every object for which `doomed` holds; returns how many.
    pub(crate) fn remove_where(&self, mut doomed: impl FnMut(&T) -> bool) -> usize {
        let issued = lock(&self.allocator).next;
        let mut removed = Vec::new();
        let mut reusable = Vec::new();
        for index in 0..issued {
            let Some(slot) = self.slot(index) else {
                continue;
            };
            let mut entry = write(slot);
            if entry.value.as_ref().is_some_and(&mut doomed) {
                removed.extend(entry.value.take());
                self.removals.fetch_add(1, Ordering::Release);
                if retire_generation(&mut entry) {
                    reusable.push(index);
                }
            }
        }
        lock(&self.allocator).free.extend(reusable);
        removed.len()
    }

    fn index_of(&self, handle: u64) -> Result<u32, HandleError> {
        if handle == 0 {
            return Err(HandleError::Null);
        }
        let kind = Kind::of_handle(handle);
        if kind != Some(self.kind) {
            return Err(HandleError::WrongKind(kind));
        }
        let slot = handle & ((1 << SLOT_BITS) - 1);
        if slot == 0 {
            return Err(HandleError::Stale);
        }
        Ok((slot - 1) as u32)
    }

    /// The chunk and the position in it of slot `index`.
    fn locate(index: u32) -> (usize, usize) {
        let shifted = index as usize + FIRST_CHUNK;
        let chunk = (shifted.ilog2() - FIRST_CHUNK.ilog2()) as usize;
        (chunk, shifted - (FIRST_CHUNK << chunk))
    }

    /// Slot `index`, if its chunk exists.
    fn slot(&self, index: u32) -> Option<&Slot<T>> {
        let (chunk, offset) = Self::locate(index);
        self.chunks[chunk].get().map(|slots| &slots[offset])
    }

    /// Slot `index`, allocating its chunk on first use.
    fn slot_or_new(&self, index: u32) -> &Slot<T> {
        let (chunk, offset) = Self::locate(index);
        let slots = self.chunks[chunk].get_or_init(|| {
            (0..FIRST_CHUNK << chunk)
                .map(|_| Slot {
                    entry: RwLock::new(Entry {
                        generation: 1,
                        value: None,
                    }),
                })
                .collect()
        });
        &slots[offset]
    }

    fn encode(&self, index: u32, generation: u32) -> u64 {
        (u64::from(self.kind as u8) << 56)
            | (u64::from(generation & GENERATION_MASK) << SLOT_BITS)
            | (u64::from(index) + 1)
    }

    /// Moves slot `index` to generation `generation` (tests of the generation limit).
    #[cfg(test)]
    fn age(&self, index: u32, generation: u32) {
        write(self.slot_or_new(index)).generation = generation;
    }
}

/// Moves an emptied slot to its next generation; false when the generation is exhausted and
/// the slot is retired (never reused, so no earlier handle of it can come back).
fn retire_generation<T>(entry: &mut Entry<T>) -> bool {
    if entry.generation >= GENERATION_MASK {
        return false;
    }
    entry.generation += 1;
    true
}

fn write<T>(slot: &Slot<T>) -> RwLockWriteGuard<'_, Entry<T>> {
    // No code panics while holding a slot's lock; recover from poisoning regardless.
    slot.entry.write().unwrap_or_else(|e| e.into_inner())
}

fn lock(allocator: &Mutex<Allocator>) -> MutexGuard<'_, Allocator> {
    allocator.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests;
