//! The no-op device: chevron's host side with nothing behind it, to measure and test that side.
//!
//! Its memory is real host memory behind the same allocation table as the CPU device's
//! ([`chevron_ptx::interp::DeviceMemory`]): allocations, copies, fills and host-visible
//! (pinned, managed) memory are real and checked as there (bounds, use after free, frees of
//! anything but an allocation's start, capacity). Its modules load every code object the CPU
//! device loads, from the same parse (the [`crate::code_object::CodeObject`]'s PTX, loaded into
//! the interpreter's `Program`, so module variables have their initial values and kernels their
//! parameter layouts). A launch is checked (the kernel's device, its configuration against the
//! kernel's and the device's limits, one non-null argument per parameter) and then complete at
//! once: **no kernel runs**. Every piece of work completes before the call that submits it
//! returns, so streams are trivially in order, events are complete once recorded and a
//! synchronization never waits.
//!
//! What it is for: measuring chevron's own host-side cost (the launch path, streams, events,
//! graphs) on any machine, without a kernel's time in the figure (`CHEVRON_DEVICES=noop chevron
//! bench`), and testing the host-side logic of programs (argument checks, copies, stream and
//! graph bookkeeping) where no GPU is. It is never looked for unless `CHEVRON_DEVICES` names it
//! (`noop`, `noop:0`); see docs/noop-device.md. Files, as in every backend folder:
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | discovery |
//! | `device.rs` | `NoopDevice`: description, allocation, stream/event/module/graph creation |
//! | `memory.rs` | `NoopMemory`: the allocation table, capacity, checked copies and fills |
//! | `module.rs` | PTX loaded into the interpreter's `Program`; kernels and their launch checks |
//! | `stream.rs` | `NoopStream`: copies and fills done at once, launches checked; `NoopGraph` |
//! | `event.rs` | `NoopEvent`: complete once recorded |

mod device;
mod event;
mod memory;
mod module;
mod stream;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use crate::backend::Device;
use crate::error::{Error, Result};

/// The first memory index of no-op devices. CPU devices take indices below 2^20, so no-op
/// addresses (`DEVICE_BASE + (index << 40)`, above 2^60: no host pointer can be there) never
/// meet theirs.
const FIRST_MEMORY_INDEX: u32 = 1 << 21;
/// Memory indices no-op devices may take in one process (their addresses must stay below 2^64).
const MEMORY_INDICES: u32 = 1 << 21;

/// Memory indices handed out so far: every no-op device ever created gets its own, so that
/// addresses of different devices never overlap, even across discoveries.
static NEXT_MEMORY_INDEX: AtomicU32 = AtomicU32::new(0);

/// Creates the no-op device (one; its registry line keeps it out of default discovery).
pub fn discover() -> Result<Vec<Arc<dyn Device>>> {
    let index = NEXT_MEMORY_INDEX.fetch_add(1, Ordering::Relaxed);
    if index >= MEMORY_INDICES {
        return Err(Error::Unavailable {
            backend: "noop",
            reason: format!("{MEMORY_INDICES} no-op devices were created in this process already"),
        });
    }
    Ok(vec![Arc::new(device::NoopDevice::new(
        0,
        FIRST_MEMORY_INDEX + index,
    ))])
}
