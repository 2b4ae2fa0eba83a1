//! A PTX kernel's launch limits (its `.reqntid` block shape, `.maxntid` thread count, static
//! shared memory) and the check of a launch configuration against them and the device, shared
//! by the backends that load PTX themselves (the CPU device: `cpu/module.rs`,
//! `cpu/launch_check.rs`; the no-op device: `noop/module.rs`), so both refuse the same launches
//! with the same words.

use chevron_ptx::ir;

use crate::backend::{DeviceInfo, LaunchConfig};

/// What a kernel's own PTX limits about its launches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct KernelLimits {
    /// The block shape `.reqntid` demands, if declared (missing dimensions are 1).
    pub required_block: Option<[u32; 3]>,
    /// The most threads per block: the device's, lowered by `.maxntid`/`.reqntid`.
    pub max_threads: u32,
    /// Statically declared shared memory in bytes.
    pub static_shared: u32,
}

impl KernelLimits {
    /// The limits of `function` on a device allowing `device_threads` threads per block.
    pub fn of(function: &ir::Function, device_threads: u32, static_shared: u32) -> KernelLimits {
        let mut required_block = None;
        let mut max_threads = device_threads;
        for directive in &function.directives {
            let ir::FunctionDirective::Performance { name, values } = directive else {
                continue;
            };
            if (name == "maxntid" || name == "reqntid") && !values.is_empty() {
                max_threads =
                    max_threads.min(values.iter().fold(1u32, |a, v| a.saturating_mul(*v)));
            }
            if name == "reqntid" && (1..=3).contains(&values.len()) && required_block.is_none() {
                let mut block = [1u32; 3];
                block[..values.len()].copy_from_slice(values);
                required_block = Some(block);
            }
        }
        KernelLimits {
            required_block,
            max_threads,
            static_shared,
        }
    }

    /// Checks `config` against these limits and `device`'s shared memory; the reason otherwise
    /// (the caller makes it an [`crate::Error::LaunchConfig`] naming the kernel and device).
    pub fn check(&self, config: &LaunchConfig, device: &DeviceInfo) -> Result<(), String> {
        if config.grid.contains(&0) || config.block.contains(&0) {
            return Err(format!(
                "grid {:?} and block {:?} must not have a zero dimension",
                config.grid, config.block
            ));
        }
        if let Some(required) = self.required_block {
            if config.block != required {
                return Err(format!(
                    "block {:?}, the kernel requires {required:?} (.reqntid)",
                    config.block
                ));
            }
        }
        let threads = config.block.iter().fold(1u64, |acc, &d| acc * u64::from(d));
        if threads > u64::from(self.max_threads) {
            return Err(format!(
                "block {:?} has {threads} threads, the kernel allows at most {}",
                config.block, self.max_threads
            ));
        }
        let shared = u64::from(config.shared_bytes) + u64::from(self.static_shared);
        if shared > u64::from(device.max_shared_per_block_optin) {
            return Err(format!(
                "{shared} bytes of shared memory per block, the device allows at most {}",
                device.max_shared_per_block_optin
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives_lower_the_limits_and_configurations_are_checked_against_them() {
        let ptx = ".version 7.0\n.target sm_50\n.address_size 64\n\
                   .visible .entry k() .reqntid 16, 2 { ret; }\n\
                   .visible .entry m() .maxntid 64 { ret; }\n";
        let module = chevron_ptx::parse(ptx).unwrap();
        let functions: Vec<&ir::Function> = module
            .items
            .iter()
            .filter_map(|item| match item {
                ir::Item::Function(f) => Some(f),
                _ => None,
            })
            .collect();
        let k = KernelLimits::of(functions[0], 1024, 0);
        assert_eq!((k.required_block, k.max_threads), (Some([16, 2, 1]), 32));
        let m = KernelLimits::of(functions[1], 1024, 100);
        assert_eq!((m.required_block, m.max_threads), (None, 64));
        let device = crate::backend::scripted::ScriptedDevice::new(0);
        let info = crate::backend::Device::info(&device);
        assert_eq!(info.max_shared_per_block_optin, 96 << 10);
        let config = |block: [u32; 3], shared_bytes: u32| LaunchConfig {
            grid: [1, 1, 1],
            block,
            shared_bytes,
        };
        assert!(k.check(&config([16, 2, 1], 0), info).is_ok());
        assert!(k
            .check(&config([32, 1, 1], 0), info)
            .unwrap_err()
            .contains(".reqntid"));
        assert!(m
            .check(&config([65, 1, 1], 0), info)
            .unwrap_err()
            .contains("at most 64"));
        assert!(m.check(&config([64, 1, 1], (96 << 10) - 100), info).is_ok());
        assert!(m
            .check(&config([64, 1, 1], (96 << 10) - 99), info)
            .unwrap_err()
            .contains("98304"));
        assert!(m
            .check(&config([0, 1, 1], 0), info)
            .unwrap_err()
            .contains("zero"));
    }
}
