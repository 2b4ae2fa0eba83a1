//! What a device runs ([`CodeTargets`], declared by each backend) and the one rule that picks a
//! fatbin's entry for it ([`select_entry`]).

use std::ops::RangeInclusive;

use super::fatbin::{EntryKind, FatbinEntry, FLAG_ARCH_SPECIFIC};

/// The code objects a device runs, as its backend declares them
/// (`backend::Device::code_targets`). Architectures are numbered as in `sm_90` (90).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeTargets {
    /// The cubin architectures the device runs (machine code), `None` when it runs no cubin.
    pub cubin_archs: Option<RangeInclusive<u32>>,
    /// The PTX targets (`.target sm_XY`) the device compiles or interprets, `None` when it runs
    /// no PTX.
    pub ptx_archs: Option<RangeInclusive<u32>>,
    /// The newest PTX ISA version (major, minor) the device reads; `None` when the backend
    /// knows no limit (the CUDA driver reports its own).
    pub ptx_isa: Option<(u16, u16)>,
    /// Whether the device takes a fatbin whole and picks the entry itself (the CUDA driver).
    pub whole_fatbins: bool,
    /// Whether the device also tries PTX of newer targets when nothing else fits (the CPU
    /// device's interpreter runs what it understands and reports the rest; a GPU's driver
    /// refuses it).
    pub newer_ptx: bool,
}

impl CodeTargets {
    /// A GPU of compute capability `major.minor`: cubins of the same major architecture up to
    /// its own (binary compatibility), PTX up to its architecture, fatbins whole.
    pub fn gpu(major: u32, minor: u32) -> CodeTargets {
        let arch = major * 10 + minor;
        CodeTargets {
            cubin_archs: Some(major * 10..=arch),
            ptx_archs: Some(0..=arch),
            ptx_isa: None,
            whole_fatbins: true,
            newer_ptx: false,
        }
    }

    /// A device that runs PTX only, of targets up to `arch`, and tries newer PTX when that is
    /// all there is.
    pub fn ptx_only(arch: u32) -> CodeTargets {
        CodeTargets {
            cubin_archs: None,
            ptx_archs: Some(0..=arch),
            ptx_isa: None,
            whole_fatbins: false,
            newer_ptx: true,
        }
    }

    /// No device in particular: the newest cubin, else the newest PTX (what `chevron inspect`
    /// lists for a fatbin).
    pub fn any() -> CodeTargets {
        CodeTargets {
            cubin_archs: Some(0..=u32::MAX),
            ptx_archs: Some(0..=u32::MAX),
            ptx_isa: None,
            whole_fatbins: false,
            newer_ptx: false,
        }
    }

    /// These targets without cubins and without whole fatbins: the PTX this device would run
    /// (what instrumentation rewrites).
    pub fn ptx_part(&self) -> CodeTargets {
        CodeTargets {
            cubin_archs: None,
            whole_fatbins: false,
            ..self.clone()
        }
    }

    /// Whether the device runs PTX only.
    pub fn runs_ptx_only(&self) -> bool {
        self.cubin_archs.is_none() && self.ptx_archs.is_some()
    }

    fn takes_ptx_version(&self, version: (u16, u16)) -> bool {
        self.ptx_isa.is_none_or(|newest| version <= newest)
    }
}

/// The index of the fatbin entry a device with `targets` runs, by one rule:
///
/// 1. the newest cubin whose architecture the device runs;
/// 2. else the newest PTX entry whose target the device runs (ISA version permitting), of one
///    architecture the arch-specific one (`compute_90a` over `compute_90`: its kernels may use
///    `wgmma`, where the plain PTX of an `-arch=sm_90a` build holds guarded stubs);
/// 3. else, on a device that tries newer PTX ([`CodeTargets::newer_ptx`]), the oldest PTX entry
///    (a kernel that uses nothing of the newer architecture still runs);
/// 4. else none.
///
/// Entries of other kinds (LTO IR) are never picked.
pub fn select_entry(entries: &[FatbinEntry<'_>], targets: &CodeTargets) -> Option<usize> {
    let newest_within = |kind: EntryKind, archs: &RangeInclusive<u32>| {
        entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.kind == kind && archs.contains(&e.arch))
            .filter(|(_, e)| kind != EntryKind::Ptx || targets.takes_ptx_version(e.version))
            .max_by_key(|(_, e)| (e.arch, e.flags & FLAG_ARCH_SPECIFIC != 0, e.version))
            .map(|(i, _)| i)
    };
    if let Some(found) = targets
        .cubin_archs
        .as_ref()
        .and_then(|archs| newest_within(EntryKind::Elf, archs))
    {
        return Some(found);
    }
    let ptx_archs = targets.ptx_archs.as_ref()?;
    newest_within(EntryKind::Ptx, ptx_archs).or_else(|| {
        if !targets.newer_ptx {
            return None;
        }
        entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.kind == EntryKind::Ptx)
            .min_by_key(|(_, e)| (e.arch, e.version))
            .map(|(i, _)| i)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(kind: EntryKind, arch: u32, version: (u16, u16)) -> FatbinEntry<'static> {
        FatbinEntry {
            kind,
            arch,
            version,
            flags: 0,
            compression: None,
            decompressed_size: 0,
            offset: 0,
            payload: &[],
        }
    }

    #[test]
    fn picks_the_compatible_cubin_then_ptx_then_the_oldest_ptx() {
        let entries = [
            entry(EntryKind::Elf, 80, (1, 8)),
            entry(EntryKind::Elf, 90, (1, 8)),
            entry(EntryKind::Ptx, 75, (8, 0)),
            entry(EntryKind::Ptx, 90, (8, 4)),
            entry(EntryKind::Other(8), 90, (0, 0)),
        ];
        assert_eq!(select_entry(&entries, &CodeTargets::gpu(9, 0)), Some(1));
        assert_eq!(select_entry(&entries, &CodeTargets::gpu(8, 6)), Some(0));
        // sm_100 runs neither cubin: the newest PTX it can compile.
        assert_eq!(select_entry(&entries, &CodeTargets::gpu(10, 0)), Some(3));
        assert_eq!(select_entry(&entries, &CodeTargets::ptx_only(80)), Some(2));
        assert_eq!(select_entry(&entries, &CodeTargets::ptx_only(70)), Some(2));
        assert_eq!(select_entry(&entries, &CodeTargets::any()), Some(1));
        let isa_limited = CodeTargets {
            ptx_isa: Some((8, 3)),
            ..CodeTargets::ptx_only(90)
        };
        assert_eq!(select_entry(&entries, &isa_limited), Some(2));
        // nvcc -arch=sm_90a: plain compute_90 PTX beside compute_90a, in either order.
        let mut plain = entry(EntryKind::Ptx, 90, (9, 0));
        plain.flags = 0x8011;
        let mut specific = plain.clone();
        specific.flags |= FLAG_ARCH_SPECIFIC;
        let both = [plain.clone(), specific.clone()];
        assert_eq!(select_entry(&both, &CodeTargets::ptx_only(90)), Some(1));
        let both = [specific, plain];
        assert_eq!(select_entry(&both, &CodeTargets::ptx_only(90)), Some(0));
        let cubins_only = &entries[..2];
        assert_eq!(select_entry(cubins_only, &CodeTargets::ptx_only(90)), None);
        assert_eq!(select_entry(cubins_only, &CodeTargets::gpu(7, 5)), None);
    }
}
