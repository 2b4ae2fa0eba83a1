//! The dynamic loader's cache (`/etc/ld.so.cache`) read in place, to find NVIDIA's driver where
//! the loader would without running `ldconfig -p` (a process spawned at every CUDA start-up).
//!
//! glibc writes the cache as a header `glibc-ld.so.cache1.1` (20 bytes), the entry count and
//! string-table length (`u32` each), then 24 bytes of padding and flags, then entries of 24
//! bytes: `flags: i32, key: u32, value: u32, osversion: u32, hwcap: u64`, where `key` (the
//! library's name) and `value` (its path) are offsets of NUL-terminated strings counted from the
//! header. Caches written by old glibc versions put an older table (`ld.so-1.7.0`) first and
//! this one after it, which is why the header is searched for rather than expected at 0.

use std::path::PathBuf;

const MAGIC: &[u8] = b"glibc-ld.so.cache1.1";
const HEADER_BYTES: usize = 48;
const ENTRY_BYTES: usize = 24;

/// The paths the cache at `/etc/ld.so.cache` gives for libraries named one of `names`, in the
/// cache's order; `None` when the cache is missing or not in a form this reader knows.
pub(super) fn paths_of(names: &[&str]) -> Option<Vec<PathBuf>> {
    let bytes = std::fs::read("/etc/ld.so.cache").ok()?;
    parse(&bytes, names)
}

fn parse(bytes: &[u8], names: &[&str]) -> Option<Vec<PathBuf>> {
    let header = bytes.windows(MAGIC.len()).position(|w| w == MAGIC)?;
    let table = bytes.get(header..)?;
    let word = |at: usize| -> Option<u32> {
        Some(u32::from_le_bytes(table.get(at..at + 4)?.try_into().ok()?))
    };
    let count = word(MAGIC.len())? as usize;
    let string = |offset: u32| -> Option<&[u8]> {
        let rest = table.get(offset as usize..)?;
        Some(&rest[..rest.iter().position(|&b| b == 0)?])
    };
    let mut paths = Vec::new();
    for index in 0..count {
        let entry = HEADER_BYTES.checked_add(index.checked_mul(ENTRY_BYTES)?)?;
        let (key, value) = (word(entry + 4)?, word(entry + 8)?);
        let key = string(key)?;
        if names.iter().any(|name| key == name.as_bytes()) {
            let path = std::str::from_utf8(string(value)?).ok()?;
            paths.push(PathBuf::from(path));
        }
    }
    Some(paths)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cache of two entries built by hand in glibc's layout, behind an old-format prefix.
    fn cache(entries: &[(&str, &str)]) -> Vec<u8> {
        let mut strings = Vec::new();
        let strings_at = HEADER_BYTES + entries.len() * ENTRY_BYTES;
        let mut table = MAGIC.to_vec();
        table.extend((entries.len() as u32).to_le_bytes());
        table.resize(HEADER_BYTES, 0);
        for (key, value) in entries {
            let key_at = strings_at + strings.len();
            strings.extend(key.as_bytes());
            strings.push(0);
            let value_at = strings_at + strings.len();
            strings.extend(value.as_bytes());
            strings.push(0);
            table.extend(0x0303i32.to_le_bytes());
            table.extend((key_at as u32).to_le_bytes());
            table.extend((value_at as u32).to_le_bytes());
            table.extend([0u8; 12]);
        }
        table.extend(strings);
        let mut file = b"ld.so-1.7.0\0\0\0\0\0".to_vec();
        file.extend(table);
        file
    }

    #[test]
    fn the_paths_of_the_named_libraries_come_back_in_order() {
        let bytes = cache(&[
            ("libz.so.1", "/lib/libz.so.1"),
            ("libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1"),
            ("libcuda.so", "/usr/lib/x86_64-linux-gnu/libcuda.so"),
        ]);
        let paths = parse(&bytes, &["libcuda.so.1", "libcuda.so"]).unwrap();
        assert_eq!(
            paths,
            [
                PathBuf::from("/usr/lib/x86_64-linux-gnu/libcuda.so.1"),
                PathBuf::from("/usr/lib/x86_64-linux-gnu/libcuda.so")
            ]
        );
    }

    #[test]
    fn a_cut_or_foreign_cache_is_not_read() {
        let bytes = cache(&[("libcuda.so.1", "/usr/lib/libcuda.so.1")]);
        assert_eq!(parse(&bytes[..bytes.len() - 30], &["libcuda.so.1"]), None);
        assert_eq!(parse(b"not a cache", &["libcuda.so.1"]), None);
    }

    /// This machine's own cache agrees with `ldconfig -p` about a library every system has.
    #[test]
    fn the_system_cache_agrees_with_ldconfig() {
        let paths = paths_of(&["libc.so.6"]).expect("/etc/ld.so.cache is readable");
        let listed = std::process::Command::new("/sbin/ldconfig")
            .arg("-p")
            .output()
            .expect("ldconfig runs");
        let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
        let from_ldconfig: Vec<PathBuf> = listed
            .lines()
            .filter(|line| line.trim_start().starts_with("libc.so.6 "))
            .filter_map(|line| line.split(" => ").nth(1))
            .map(|path| PathBuf::from(path.trim()))
            .collect();
        assert_eq!(paths, from_ldconfig);
    }
}
