//! Rewriting passes over the IR, applied to a module before it is loaded.
//!
//! - [`instrument`](mod@instrument): inserts calls to the device functions of a separate tool code object at
//!   kernel entry and exit, at basic-block entry and before global memory accesses; the result is
//!   linked with the tool by [`crate::linker`].

pub mod instrument;

pub use instrument::{
    instrument, Hooks, InstrumentError, InstrumentedKernel, ACCESS_ATOMIC, ACCESS_SIZE_MASK,
    ACCESS_STORE, LAUNCH_PARAM,
};
