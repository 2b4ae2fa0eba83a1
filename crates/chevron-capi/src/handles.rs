//! Opaque handles: typed registries of live objects, addressed by tagged, generation-checked
//! numbers.
//!
//! A handle is `tag << 56 | generation << 32 | (slot + 1)`. It is never dereferenced: C code
//! holds it as an opaque pointer, and every entry point looks it up in the registry of the kind
//! it expects. A NULL handle, a released one (its slot's generation moved on), or one of
//! another kind (its tag differs) is an error, never a crash. The tag also lets the MLIR ABI
//! tell a stream from an event when a caller passes one for the other.

use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

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
    JitSession = 11,
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
            Kind::JitSession => "JIT session",
        }
    }

    /// The kind whose tag `handle` carries, if any.
    pub(crate) fn of_handle(handle: u64) -> Option<Kind> {
        const KINDS: [Kind; 11] = [
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

struct Slot<T> {
    generation: u32,
    value: Option<T>,
}

struct Slab<T> {
    slots: Vec<Slot<T>>,
    free: Vec<u32>,
}

/// The live objects of one kind.
pub(crate) struct Registry<T> {
    kind: Kind,
    slab: RwLock<Slab<T>>,
}

impl<T: Clone> Registry<T> {
    /// An empty registry (usable in a `static`).
    pub(crate) const fn new(kind: Kind) -> Registry<T> {
        Registry {
            kind,
            slab: RwLock::new(Slab {
                slots: Vec::new(),
                free: Vec::new(),
            }),
        }
    }

    /// The kind of the objects.
    pub(crate) fn kind(&self) -> Kind {
        self.kind
    }

    /// Registers `value` and returns its handle.
    pub(crate) fn insert(&self, value: T) -> u64 {
        let mut slab = self.write();
        let index = match slab.free.pop() {
            Some(index) => {
                let slot = &mut slab.slots[index as usize];
                slot.value = Some(value);
                index
            }
            None => {
                slab.slots.push(Slot {
                    generation: 1,
                    value: Some(value),
                });
                (slab.slots.len() - 1) as u32
            }
        };
        let generation = slab.slots[index as usize].generation;
        self.encode(index, generation)
    }

    /// A clone of the object behind `handle`.
    pub(crate) fn get(&self, handle: u64) -> Result<T, HandleError> {
        let index = self.index_of(handle)?;
        let slab = self.read();
        match slab.slots.get(index) {
            Some(slot) if self.encode(index as u32, slot.generation) == handle => {
                slot.value.clone().ok_or(HandleError::Stale)
            }
            _ => Err(HandleError::Stale),
        }
    }

    /// Unregisters the object behind `handle` and returns it; the handle becomes stale.
    pub(crate) fn remove(&self, handle: u64) -> Result<T, HandleError> {
        let index = self.index_of(handle)?;
        let mut slab = self.write();
        let slot = match slab.slots.get_mut(index) {
            Some(slot) if self.encode(index as u32, slot.generation) == handle => slot,
            _ => return Err(HandleError::Stale),
        };
        let value = slot.value.take().ok_or(HandleError::Stale)?;
        slot.generation = (slot.generation % GENERATION_MASK) + 1;
        slab.free.push(index as u32);
        Ok(value)
    }

    /// Unregisters every object for which `doomed` holds; returns how many.
    pub(crate) fn remove_where(&self, mut doomed: impl FnMut(&T) -> bool) -> usize {
        let mut slab = self.write();
        let mut freed = Vec::new();
        for (index, slot) in slab.slots.iter_mut().enumerate() {
            if slot.value.as_ref().is_some_and(&mut doomed) {
                slot.value = None;
                slot.generation = (slot.generation % GENERATION_MASK) + 1;
                freed.push(index as u32);
            }
        }
        let count = freed.len();
        slab.free.extend(freed);
        count
    }

    fn index_of(&self, handle: u64) -> Result<usize, HandleError> {
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
        Ok((slot - 1) as usize)
    }

    fn encode(&self, index: u32, generation: u32) -> u64 {
        (u64::from(self.kind as u8) << 56)
            | (u64::from(generation & GENERATION_MASK) << SLOT_BITS)
            | (u64::from(index) + 1)
    }

    fn read(&self) -> RwLockReadGuard<'_, Slab<T>> {
        // No code panics while holding the lock; recover from poisoning regardless.
        self.slab.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Slab<T>> {
        self.slab.write().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_are_checked_for_null_kind_and_staleness() {
        let streams: Registry<u32> = Registry::new(Kind::Stream);
        let events: Registry<u32> = Registry::new(Kind::MgpuEvent);
        let a = streams.insert(7);
        let e = events.insert(9);
        assert_eq!(streams.get(a), Ok(7));
        assert_eq!(streams.get(0), Err(HandleError::Null));
        assert_eq!(
            streams.get(e),
            Err(HandleError::WrongKind(Some(Kind::MgpuEvent)))
        );
        assert_eq!(streams.get(12345), Err(HandleError::WrongKind(None)));
        assert_eq!(streams.remove(a), Ok(7));
        assert_eq!(streams.get(a), Err(HandleError::Stale));
        assert_eq!(streams.remove(a), Err(HandleError::Stale));
        // The slot is reused under a new generation: the old handle stays stale.
        let b = streams.insert(8);
        assert_ne!(a, b);
        assert_eq!(streams.get(a), Err(HandleError::Stale));
        assert_eq!(streams.get(b), Ok(8));
        assert_eq!(streams.remove_where(|v| *v == 8), 1);
        assert_eq!(streams.get(b), Err(HandleError::Stale));
        let message = HandleError::WrongKind(Some(Kind::MgpuStream)).describe(Kind::MgpuEvent, 5);
        assert!(
            message.contains("CUstream") && message.contains("CUevent"),
            "{message}"
        );
    }
}
