//! chevron's conformance suite: written once, run on every device the runtime finds.
//!
//! In CI that is the CPU device (plus a second CPU device for the cross-device tests); on a GPU
//! machine every CUDA device too (`CHEVRON_DEVICES` restricts and orders them). Each test runs
//! its body on each device and names the device in its failure. Tests that need a CUDA GPU are
//! marked `#[ignore = "needs a CUDA GPU"]`, so CI lists them as ignored rather than passing
//! them vacuously; `scripts/gpu/conformance.sh` runs them with `--include-ignored`. Tests whose
//! claims hold without a kernel running (copies, fills, checks, errors, module loading, replay
//! bookkeeping) run on the no-op device too (`harness::on_every_device_and_noop`).

mod auto_graph;
mod buffers;
mod clusters;
mod errors;
mod gpu_only;
mod graphs;
mod harness;
mod launches;
mod modules;
mod multi_device;
mod releases;
mod runtime;
mod stream_allocation;
mod tensor_maps;
mod tokens;
