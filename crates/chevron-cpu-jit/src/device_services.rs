//! The device runtime's functions that compiled code calls out to: `vprintf`, `malloc` and
//! `free`, served by the interpreter's own code on the same device memory.
//!
//! Inlining (`inline.rs`) leaves a call of one of them in the flat kernel as an `Op::Call`
//! whose direct target is [`SERVICE_TARGETS`] plus the [`Service`]'s number (no program has
//! that many functions); `codegen/service.rs` emits it as one call of [`service`]. So that
//! a block the interpreter runs again (after a fault, or when its threads part) prints
//! nothing twice, a block's `printf` output collects in its worker's [`Resolver::printf`]
//! and is handed on only when the block ends compiled (`launch.rs`); it is dropped when the
//! interpreter takes the block over. `malloc` and `free` cannot be undone: `subset.rs`
//! treats them as it treats global atomics (none before a warp collective), and a block
//! that faults after one makes it again in the interpreter's run, as an atomic would be.
//!
//! A free or a new allocation may put another allocation at an address an access site's
//! cache entry still maps to the old one's words: both clear the calling worker's entries.

use chevron_ptx::interp::format_vprintf;
use chevron_ptx::interp::memory::{LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW, WINDOW_SIZE};
use chevron_ptx::lowered::{Call, CallTarget};

use crate::context::{BlockContext, Resolver, SITE_WORDS};

/// The first call target that names a [`Service`] rather than a function of the program.
pub const SERVICE_TARGETS: u32 = u32::MAX - 255;

/// What [`service`] returns when the call faults: the block's compiled run stops there and
/// the interpreter runs the block again, reporting the fault. (`malloc` returns an address
/// or 0, `vprintf` a count of arguments: never this.)
pub const SERVICE_FAULT: u64 = u64::MAX;

/// A device-runtime function compiled code calls out to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Service {
    /// `vprintf(format, args)`: the number of arguments consumed.
    Vprintf = 0,
    /// `malloc(size)`: an address 16-byte aligned, or 0.
    Malloc = 1,
    /// `free(pointer)`.
    Free = 2,
}

impl Service {
    /// The service a flat kernel's call names, if it names one.
    pub fn of(call: &Call) -> Option<Service> {
        match call.target {
            CallTarget::Direct(target) => match target.checked_sub(SERVICE_TARGETS)? {
                0 => Some(Service::Vprintf),
                1 => Some(Service::Malloc),
                2 => Some(Service::Free),
                _ => None,
            },
            CallTarget::Indirect(_) => None,
        }
    }

    /// The call target that names this service.
    pub fn target(self) -> u32 {
        SERVICE_TARGETS + self as u32
    }

    /// Whether a second run of the call (the interpreter running its block again) would not
    /// do what the first did: an allocation made or freed.
    pub fn lasting(self) -> bool {
        self != Service::Vprintf
    }
}

/// Packs what [`service`] needs besides its arguments: the service, the thread's stack top
/// at the call (the bytes of its local memory `vprintf` may read) and the kernel's global
/// access sites (the cache entries a new or freed allocation clears).
pub fn packed(service: Service, stack_top: u64, sites: u32) -> u64 {
    service as u64 | (stack_top & 0xff_ffff) << 8 | u64::from(sites) << 32
}

/// Runs the service `packed` names for thread `thread` with arguments `a` and `b`; its
/// result, or [`SERVICE_FAULT`].
///
/// # Safety
/// `context` is the block context of the calling compiled function, with a valid resolver,
/// local memory of `frame_size` bytes per thread, shared memory, parameters and at least
/// the packed number of site entries; `thread` is one of its threads.
pub unsafe extern "C" fn service(
    context: *mut BlockContext,
    thread: u64,
    packed: u64,
    a: u64,
    b: u64,
) -> u64 {
    // SAFETY: compiled code passes its own context, which outlives the call.
    let context = unsafe { &*context };
    // SAFETY: the resolver outlives the block's run, which holds the context.
    let resolver = unsafe { &*context.resolver };
    let stack_top = (packed >> 8) & 0xff_ffff;
    let sites = (packed >> 32) as usize;
    let forget_sites = || {
        // SAFETY: the context's `sites` holds `sites` entries of `SITE_WORDS` words (the
        // caller's contract), which nothing else touches during the call.
        unsafe { std::ptr::write_bytes(context.sites, 0, sites * SITE_WORDS) };
        resolver.held.borrow_mut().clear();
    };
    match packed & 0xff {
        0 => {
            let mut byte = |addr: u64| read_byte(context, resolver, thread, stack_top, addr);
            match format_vprintf(&mut byte, a, b) {
                Ok((text, count)) => {
                    resolver.printf.borrow_mut().push_str(&text);
                    count
                }
                Err(()) => SERVICE_FAULT,
            }
        }
        1 => {
            forget_sites();
            resolver.memory.alloc(a.max(1), 16).unwrap_or(0)
        }
        _ => {
            forget_sites();
            if a != 0 && resolver.memory.free(a).is_err() {
                return SERVICE_FAULT;
            }
            0
        }
    }
}

/// The byte at generic address `addr` as thread `thread` reads it (its stack `stack_top`
/// bytes deep), or `Err` where the interpreter would fault.
fn read_byte(
    context: &BlockContext,
    resolver: &Resolver,
    thread: u64,
    stack_top: u64,
    addr: u64,
) -> Result<u8, ()> {
    let inside = |window: u64| addr.wrapping_sub(window) < WINDOW_SIZE;
    let (start, offset, size) = if inside(SHARED_WINDOW) {
        let offset = addr.wrapping_sub(SHARED_WINDOW);
        (context.shared.cast_const(), offset, context.shared_size)
    } else if inside(LOCAL_WINDOW) {
        let offset = addr.wrapping_sub(LOCAL_WINDOW);
        // SAFETY: thread `thread`'s frame lies `frame_size` bytes into the block's local
        // memory per thread before it (the caller's contract).
        let frame = unsafe { context.local.add((thread * context.frame_size) as usize) };
        (
            frame.cast_const(),
            offset,
            stack_top.min(context.frame_size),
        )
    } else if inside(PARAM_WINDOW) {
        let offset = addr.wrapping_sub(PARAM_WINDOW);
        (context.params, offset, context.params_size)
    } else {
        let mut out = [0u8];
        return match resolver.memory.lookup(addr, 1) {
            Ok(allocation) if !allocation.is_freed() => {
                resolver.memory.read(addr, &mut out).map_err(|_| ())?;
                Ok(out[0])
            }
            _ => Err(()),
        };
    };
    if offset >= size {
        return Err(());
    }
    // SAFETY: `offset` is below the region's size, checked above.
    Ok(unsafe { *start.add(offset as usize) })
}
