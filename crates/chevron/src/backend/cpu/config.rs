//! How the CPU devices are configured: device count, worker threads, determinism, memory cap.
//!
//! [`CpuConfig::from_env`] reads the `CHEVRON_CPU_*` environment variables; code that wants a
//! fixed setup (tests, embedders) builds a [`CpuConfig`] directly and calls
//! [`super::discover_with`].

use crate::error::{Error, Result};

/// Settings of the CPU devices created by one discovery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuConfig {
    /// How many CPU devices to create (`CHEVRON_CPU_DEVICES`, default 1).
    pub devices: u32,
    /// Worker threads that run the blocks of one launch (`CHEVRON_CPU_THREADS`, default: the
    /// machine's available parallelism). Reported as the device's multiprocessor count.
    pub threads: usize,
    /// One worker thread per launch and a fixed block order (`CHEVRON_CPU_DETERMINISTIC=1`):
    /// reproducible results for atomics and races, at the cost of speed.
    pub deterministic: bool,
    /// Bytes each device may allocate (`CHEVRON_CPU_MEMORY`, with an optional `K`/`M`/`G`
    /// suffix; default: half of the machine's RAM).
    pub memory_bytes: u64,
}

/// Used when the machine's RAM cannot be read.
const FALLBACK_MEMORY_BYTES: u64 = 8 << 30;

impl Default for CpuConfig {
    fn default() -> Self {
        CpuConfig {
            devices: 1,
            threads: default_threads(),
            deterministic: false,
            memory_bytes: default_memory_bytes(),
        }
    }
}

impl CpuConfig {
    /// Reads the configuration from the `CHEVRON_CPU_*` environment variables; unset variables
    /// take their defaults, malformed ones are an [`Error::InvalidValue`].
    pub fn from_env() -> Result<CpuConfig> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Like [`CpuConfig::from_env`], reading variables through `lookup`.
    fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<CpuConfig> {
        let mut config = CpuConfig::default();
        if let Some(text) = lookup("CHEVRON_CPU_DEVICES") {
            config.devices = parse_number("CHEVRON_CPU_DEVICES", &text)?;
        }
        if let Some(text) = lookup("CHEVRON_CPU_THREADS") {
            let threads: u32 = parse_number("CHEVRON_CPU_THREADS", &text)?;
            if threads == 0 {
                return Err(invalid("CHEVRON_CPU_THREADS", &text, "must be at least 1"));
            }
            config.threads = threads as usize;
        }
        if let Some(text) = lookup("CHEVRON_CPU_DETERMINISTIC") {
            config.deterministic = match text.trim() {
                "" | "0" | "false" | "no" => false,
                "1" | "true" | "yes" => true,
                _ => {
                    return Err(invalid(
                        "CHEVRON_CPU_DETERMINISTIC",
                        &text,
                        "expected 0 or 1",
                    ))
                }
            };
        }
        if let Some(text) = lookup("CHEVRON_CPU_MEMORY") {
            config.memory_bytes = parse_bytes(&text)
                .ok_or_else(|| invalid("CHEVRON_CPU_MEMORY", &text, "expected bytes, e.g. 4G"))?;
        }
        Ok(config)
    }

    /// Threads a launch runs its blocks on: 1 in deterministic mode.
    pub fn launch_threads(&self) -> usize {
        if self.deterministic {
            1
        } else {
            self.threads.max(1)
        }
    }
}

fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// Half of `MemTotal` from `/proc/meminfo`, or 8 GiB where that cannot be read.
fn default_memory_bytes() -> u64 {
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kib.saturating_mul(1024))
        });
    total.map_or(FALLBACK_MEMORY_BYTES, |bytes| bytes / 2)
}

fn parse_number<T: std::str::FromStr>(name: &'static str, text: &str) -> Result<T> {
    text.trim()
        .parse()
        .map_err(|_| invalid(name, text, "expected a non-negative integer"))
}

/// `1048576`, `64K`, `512M`, `4G` (binary multiples, case-insensitive, optional trailing `B`).
fn parse_bytes(text: &str) -> Option<u64> {
    let text = text.trim().to_ascii_uppercase();
    let text = text.strip_suffix('B').unwrap_or(&text);
    let (digits, shift) = match text.chars().last()? {
        'K' => (&text[..text.len() - 1], 10),
        'M' => (&text[..text.len() - 1], 20),
        'G' => (&text[..text.len() - 1], 30),
        'T' => (&text[..text.len() - 1], 40),
        _ => (text, 0),
    };
    let value: u64 = digits.trim().parse().ok()?;
    value.checked_mul(1u64 << shift).filter(|&bytes| bytes > 0)
}

fn invalid(name: &'static str, text: &str, why: &str) -> Error {
    Error::InvalidValue {
        call: "cpu::discover",
        message: format!("{name}={text:?}: {why}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from(pairs: &[(&str, &str)]) -> Result<CpuConfig> {
        CpuConfig::from_lookup(|name| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.to_string())
        })
    }

    #[test]
    fn variables_override_defaults() {
        let config = from(&[
            ("CHEVRON_CPU_DEVICES", "3"),
            ("CHEVRON_CPU_THREADS", "5"),
            ("CHEVRON_CPU_DETERMINISTIC", "1"),
            ("CHEVRON_CPU_MEMORY", "2G"),
        ])
        .unwrap();
        assert_eq!(config.devices, 3);
        assert_eq!(config.threads, 5);
        assert!(config.deterministic);
        assert_eq!(config.launch_threads(), 1);
        assert_eq!(config.memory_bytes, 2 << 30);
    }

    #[test]
    fn unset_variables_take_defaults() {
        let config = from(&[]).unwrap();
        assert_eq!(config.devices, 1);
        assert!(config.threads >= 1);
        assert!(!config.deterministic);
        assert!(config.memory_bytes > 0);
    }

    #[test]
    fn malformed_values_name_the_variable() {
        let err = from(&[("CHEVRON_CPU_DEVICES", "two")]).unwrap_err();
        assert!(err.to_string().contains("CHEVRON_CPU_DEVICES"), "{err}");
        let err = from(&[("CHEVRON_CPU_THREADS", "0")]).unwrap_err();
        assert!(err.to_string().contains("at least 1"), "{err}");
        assert!(from(&[("CHEVRON_CPU_MEMORY", "lots")]).is_err());
    }

    #[test]
    fn byte_sizes_accept_suffixes() {
        assert_eq!(parse_bytes("4096"), Some(4096));
        assert_eq!(parse_bytes("64k"), Some(64 << 10));
        assert_eq!(parse_bytes("512MB"), Some(512 << 20));
        assert_eq!(parse_bytes("0"), None);
        assert_eq!(parse_bytes("G"), None);
    }
}
