//! The CPU device: runs PTX through chevron-ptx's interpreter with GPU semantics.
//!
//! Each CPU device has its own memory (an allocation table in host memory, so bad accesses are
//! caught and reported), its own streams (queues served by a bounded set of worker threads
//! started on demand, so busy streams truly run concurrently, plus a helper pool the streams
//! share for multi-block launches) and loads PTX into the interpreter. Several devices can be configured, so
//! multi-device code runs in CI. Files, as in every backend folder:
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | discovery |
//! | `config.rs` | `CHEVRON_CPU_*` settings |
//! | `device_core.rs` | `DeviceCore`: what streams, modules and graphs of a device share (imports only `memory.rs`) |
//! | `device.rs` | `CpuDevice`: description, allocation, stream/event/module creation |
//! | `memory.rs` | allocation table with a capacity cap |
//! | `window.rs` | the host address range reserved for a device's addresses |
//! | `launch_check.rs` | a launch's checks and parameter buffer (streams and graphs) |
//! | `module.rs` | PTX loading, kernels resolved once |
//! | `shared_usage.rs` | a kernel's static shared memory, as a GPU counts it |
//! | `stream.rs` | `CpuStream`: the in-order queue, launches and copies |
//! | `stream_queue.rs` | a stream's bounded queue; parking on another stream's work |
//! | `scheduler.rs` | the worker threads shared by all streams, started on demand |
//! | `worker.rs` | running one piece of a stream's work; fault handling and cancellation |
//! | `pool.rs` | the device's persistent helper threads, shared by its streams |
//! | `tier.rs` | interpreter or compiled code (`CHEVRON_CPU_EXEC`), per launch; runs it |
//! | `compile_settings.rs` | `CHEVRON_CPU_EXEC`, `_CHECKS`, `_VECTOR`, `_CODE_CACHE`, `_CODE_DUMP`: the tier's policy and the compiler's options |
//! | `child_grids.rs` | child grids of device-side launches run on their kernel's tier |
//! | `tier_cost.rs` | a launch's interpreted work against its kernel's compile time |
//! | `timeline.rs` | a stream's completion counter and sticky fault |
//! | `fault_kind.rs` | the class of a fault or failed copy (`FaultKind`) |
//! | `event.rs` | `CpuEvent`: a recorded point on a timeline |

mod child_grids;
mod compile_settings;
mod config;
mod device;
mod device_core;
mod event;
mod fault_kind;
mod graph;
mod launch_check;
mod memory;
mod module;
mod placement;
mod pool;
mod scheduler;
mod shared_usage;
mod stream;
mod stream_queue;
mod tensor_map;
mod tier;
mod tier_cost;
mod timeline;
mod window;
mod worker;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use chevron_ptx::interp::DeviceMemory;

pub use config::CpuConfig;
use device::CpuDevice;

use crate::backend::Device;
use crate::error::{Error, Result};

/// Memory indices handed out so far in this process: every CPU device ever created gets its own,
/// so that addresses of different devices never overlap, even across discoveries.
static NEXT_MEMORY_INDEX: AtomicU32 = AtomicU32::new(0);

/// Creates the CPU devices configured by the `CHEVRON_CPU_*` environment variables (see
/// [`CpuConfig`]); by default one device.
pub fn discover() -> Result<Vec<Arc<dyn Device>>> {
    let config = CpuConfig::from_env()?;
    // A malformed CHEVRON_CHECK keeps the devices from starting unchecked.
    crate::check::active()?;
    if config.devices == 0 {
        return Err(Error::Unavailable {
            backend: "cpu",
            reason: "turned off by CHEVRON_CPU_DEVICES=0".into(),
        });
    }
    discover_with(&config)
}

/// Memory indices available to one process: each spans 1 TiB of addresses above the
/// interpreter's fixed windows, and the 64-bit address space must hold them all.
const MAX_MEMORY_INDICES: u32 = 1 << 20;

/// Creates `config.devices` CPU devices, numbered from 0.
pub fn discover_with(config: &CpuConfig) -> Result<Vec<Arc<dyn Device>>> {
    (0..config.devices)
        .map(|ordinal| {
            let index = NEXT_MEMORY_INDEX.fetch_add(1, Ordering::Relaxed);
            if index >= MAX_MEMORY_INDICES {
                return Err(Error::Unavailable {
                    backend: "cpu",
                    reason: format!(
                        "{MAX_MEMORY_INDICES} CPU devices were created in this process already; \
                         their address ranges are used up"
                    ),
                });
            }
            // Without a reservation (the host refused even 64 MiB of address space) the device
            // uses its fixed range, which a host mapping could overlap.
            let window = window::AddressWindow::reserve(config.memory_bytes, config.devices);
            let memory = window
                .as_ref()
                .and_then(|window| window.memory(index))
                .unwrap_or_else(|| DeviceMemory::new(index));
            Ok(Arc::new(CpuDevice::new(ordinal, memory, window, config)) as Arc<dyn Device>)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    /// The files of this backend import each other one way: `use super::…` lines form no
    /// cycle (the device is imported by discovery alone, `device_core.rs` by the rest).
    #[test]
    fn imports_between_the_backends_files_form_no_cycle() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/backend/cpu");
        let mut imports: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_stem().unwrap().to_string_lossy().to_string();
            if name == "mod" {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let used = text
                .lines()
                .filter_map(|line| line.trim().strip_prefix("use super::"))
                .map(|rest| {
                    rest.split([':', ';'])
                        .next()
                        .unwrap_or_default()
                        .to_string()
                })
                .collect();
            imports.insert(name, used);
        }
        assert!(imports.contains_key("device_core") && imports.len() > 10);
        // Depth-first search; a file met again while still on the path closes a cycle.
        fn visit(file: &str, imports: &BTreeMap<String, Vec<String>>, path: &mut Vec<String>) {
            if let Some(at) = path.iter().position(|f| f == file) {
                panic!("import cycle: {} -> {file}", path[at..].join(" -> "));
            }
            path.push(file.to_string());
            for next in imports.get(file).into_iter().flatten() {
                visit(next, imports, path);
            }
            path.pop();
        }
        for file in imports.keys() {
            visit(file, &imports, &mut Vec::new());
        }
        let importers_of_device: Vec<&String> = imports
            .iter()
            .filter(|(_, used)| used.iter().any(|u| u == "device"))
            .map(|(file, _)| file)
            .collect();
        assert!(importers_of_device.is_empty(), "{importers_of_device:?}");
    }
}
