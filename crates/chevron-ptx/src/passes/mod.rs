//! Rewriting passes over the IR, applied to a module before it is loaded.
//!
//! - [`instrument`](mod@instrument): inserts calls to the device functions of a separate tool code object at
//!   kernel entry and exit, at basic-block entry and before memory accesses, in the selected
//!   kernels and the device functions they call; the result is linked with the tool by
//!   [`crate::linker`].

pub mod instrument;

pub use instrument::{
    instrument, Hooks, InstrumentError, InstrumentedKernel, LineMap, ACCESS_ATOMIC, ACCESS_GENERIC,
    ACCESS_SIZE_MASK, ACCESS_STORE, LAUNCH_PARAM,
};
