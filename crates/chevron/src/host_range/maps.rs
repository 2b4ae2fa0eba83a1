//! The check through the process's memory maps: the mappings that cover a range, each required
//! to allow the access. On Linux 6.11 and later one `PROCMAP_QUERY` ioctl on `/proc/self/maps`
//! answers for one mapping (its bounds and permissions, about 0.4 µs); on older kernels the text
//! of `/proc/self/maps` is read, which costs more than probing a few pages, so short ranges are
//! left to the probe there.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::sync::{Mutex, PoisonError};

use super::{Access, Verdict, PROBE_STEP};

/// `_IOWR('f', 17, struct procmap_query)` (the kernel's `uapi/linux/fs.h`).
const PROCMAP_QUERY: libc::c_ulong = 0xC068_6611;
/// `PROCMAP_QUERY_VMA_READABLE`: the mapping can be read.
const VMA_READABLE: u64 = 0x01;
/// `PROCMAP_QUERY_VMA_WRITABLE`: the mapping can be written.
const VMA_WRITABLE: u64 = 0x02;
/// Ranges of at most this many pages are probed rather than checked against the maps' text.
const PROBE_CHEAPER_PAGES: u64 = 32;

/// `struct procmap_query` of the kernel's `uapi/linux/fs.h`: the query's input (`size`,
/// `query_flags`, `query_addr`) and the covering mapping's description; no name or build id
/// is asked for.
#[repr(C)]
#[derive(Default)]
struct ProcmapQuery {
    size: u64,
    query_flags: u64,
    query_addr: u64,
    vma_start: u64,
    vma_end: u64,
    vma_flags: u64,
    vma_page_size: u64,
    vma_offset: u64,
    inode: u64,
    dev_major: u32,
    dev_minor: u32,
    vma_name_size: u32,
    build_id_size: u32,
    vma_name_addr: u64,
    build_id_addr: u64,
}

const _: () = assert!(std::mem::size_of::<ProcmapQuery>() == 104);

/// `/proc/self/maps` opened for the process `pid` (a forked child opens its own: the file
/// names the process that opened it), and whether its `PROCMAP_QUERY` ioctl works.
struct OpenMaps {
    pid: u32,
    file: File,
    query_works: bool,
}

static MAPS: Mutex<Option<OpenMaps>> = Mutex::new(None);

/// Checks `[ptr, last]` against the maps; `Unknown` when they cannot be read (no `/proc`) or
/// when probing the range is cheaper.
pub(super) fn check(ptr: u64, last: u64, access: Access) -> Verdict {
    {
        let mut maps = MAPS.lock().unwrap_or_else(PoisonError::into_inner);
        let pid = std::process::id();
        if maps.as_ref().is_none_or(|open| open.pid != pid) {
            *maps = File::open("/proc/self/maps").ok().map(|file| OpenMaps {
                pid,
                file,
                query_works: true,
            });
        }
        let Some(open) = maps.as_mut() else {
            return Verdict::Unknown;
        };
        if open.query_works {
            match query_walk(&open.file, ptr, last, access) {
                Verdict::Unknown => open.query_works = false,
                verdict => return verdict,
            }
        }
    }
    if last / PROBE_STEP - ptr / PROBE_STEP < PROBE_CHEAPER_PAGES {
        return Verdict::Unknown;
    }
    match std::fs::read_to_string("/proc/self/maps") {
        Ok(text) => text_walk(&text, ptr, last, access),
        Err(_) => Verdict::Unknown,
    }
}

/// The permissions a mapping needs for `access`.
fn needed(access: Access) -> u64 {
    match access {
        Access::Read => VMA_READABLE,
        Access::Write => VMA_READABLE | VMA_WRITABLE,
    }
}

/// Walks the mappings covering `[ptr, last]` with `PROCMAP_QUERY`; `Unknown` when the kernel
/// does not have the ioctl.
fn query_walk(maps: &File, ptr: u64, last: u64, access: Access) -> Verdict {
    let mut addr = ptr;
    loop {
        let mut query = ProcmapQuery {
            size: std::mem::size_of::<ProcmapQuery>() as u64,
            query_addr: addr,
            ..ProcmapQuery::default()
        };
        // SAFETY: `query` is a `struct procmap_query` of the size it declares, asking for no
        // name or build id (so the kernel writes into `query` only); the descriptor is open.
        let status = unsafe { libc::ioctl(maps.as_raw_fd(), PROCMAP_QUERY, &mut query) };
        if status != 0 {
            return match std::io::Error::last_os_error().raw_os_error() {
                // No mapping covers `addr`.
                Some(libc::ENOENT) => Verdict::Refused,
                _ => Verdict::Unknown,
            };
        }
        if query.vma_start > addr || query.vma_end <= addr {
            return Verdict::Refused;
        }
        if query.vma_flags & needed(access) != needed(access) {
            return Verdict::Refused;
        }
        if query.vma_end > last {
            return Verdict::Allowed;
        }
        addr = query.vma_end;
    }
}

/// Walks the mappings covering `[ptr, last]` in the text of `/proc/self/maps` (lines
/// `start-end perms …` in ascending order).
fn text_walk(text: &str, ptr: u64, last: u64, access: Access) -> Verdict {
    let mut addr = ptr;
    for line in text.lines() {
        let Some((start, end, perms)) = parse_line(line) else {
            return Verdict::Unknown;
        };
        if end <= addr {
            continue;
        }
        if start > addr {
            return Verdict::Refused;
        }
        let readable = perms.starts_with('r');
        let writable = perms.as_bytes().get(1) == Some(&b'w');
        let allowed = match access {
            Access::Read => readable,
            Access::Write => readable && writable,
        };
        if !allowed {
            return Verdict::Refused;
        }
        if end > last {
            return Verdict::Allowed;
        }
        addr = end;
    }
    Verdict::Refused
}

/// `(start, end, perms)` of one maps line.
fn parse_line(line: &str) -> Option<(u64, u64, &str)> {
    let mut fields = line.split_ascii_whitespace();
    let (start, end) = fields.next()?.split_once('-')?;
    let start = u64::from_str_radix(start, 16).ok()?;
    let end = u64::from_str_radix(end, 16).ok()?;
    Some((start, end, fields.next()?))
}

#[cfg(test)]
mod tests {
    use super::super::tests::Fixture;
    use super::*;

    /// Both ways of reading the maps give the same verdicts on the fixture's pages.
    #[test]
    fn query_and_text_agree_on_every_case() {
        let fixture = Fixture::new();
        let maps = File::open("/proc/self/maps").unwrap();
        for (ptr, last, access, expected) in fixture.cases() {
            let text = std::fs::read_to_string("/proc/self/maps").unwrap();
            assert_eq!(
                text_walk(&text, ptr, last, access),
                expected,
                "{ptr:#x}..{last:#x}"
            );
            let queried = query_walk(&maps, ptr, last, access);
            if queried != Verdict::Unknown {
                assert_eq!(queried, expected, "{ptr:#x}..{last:#x} {access:?}");
            }
        }
    }
}
