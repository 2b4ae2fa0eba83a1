//! racecheck's view of each instruction: the shared and global bytes each lane touches,
//! recorded before the instruction runs, and the fences and atomics that order blocks.

use super::shadow::{self, Access, Word};
use super::RaceLog;
use crate::interp::block::Block;
use crate::interp::exec::{address, locate, Launch, Loc};
use crate::interp::inst::{Op, Space};
use crate::interp::warp::Warp;

/// What one block keeps for racecheck.
#[derive(Debug, Default)]
pub(crate) struct BlockRaces {
    /// Shared memory's words, by offset / 4.
    pub words: Vec<Word>,
    /// Barrier releases so far: accesses in two epochs are ordered.
    pub epoch: u32,
    /// Whether the block made an atomic or a fence (which may order it after other blocks).
    pub acquired: bool,
}

impl BlockRaces {
    /// Starts a block with `shared` bytes of shared memory.
    pub fn reset(&mut self, shared: usize) {
        self.words.clear();
        self.words.resize(shared.div_ceil(4), Word::default());
        self.epoch = 0;
        self.acquired = false;
    }
}

/// Whether a global access with these modifiers is deliberate communication.
fn communicates(l: &Launch<'_>, w: &Warp) -> bool {
    l.program
        .functions
        .get(w.gfunc as usize)
        .and_then(|f| f.source.get(w.gpc as usize))
        .is_some_and(|inst| {
            inst.modifiers.iter().any(|m| {
                matches!(
                    m.to_word().as_str(),
                    "volatile" | "relaxed" | "acquire" | "release"
                )
            })
        })
}

/// Records the accesses `op` is about to make for the lanes of `mask`.
pub(crate) fn observe(log: &RaceLog, op: &Op, w: &Warp, b: &mut Block, l: &Launch<'_>, mask: u32) {
    let block = linear_block(b.ctaid, l.config.grid);
    let (space, addr, len, write, srcs) = match op {
        Op::Ld {
            space,
            bits,
            addr,
            ds,
            ..
        } => (
            *space,
            addr,
            u64::from(*bits / 8) * ds.len() as u64,
            false,
            &[][..],
        ),
        Op::St {
            space,
            bits,
            addr,
            srcs,
        } => (*space, addr, u64::from(*bits / 8), true, &srcs[..]),
        Op::Atom { .. } => {
            b.races.acquired = true;
            return;
        }
        Op::Fence => {
            b.races.acquired = true;
            log.fence(block);
            return;
        }
        _ => return,
    };
    if space == Space::Local || space == Space::Param || space == Space::Const {
        return;
    }
    let total = if write { len * srcs.len() as u64 } else { len };
    let mut m = mask;
    while m != 0 {
        let lane = m.trailing_zeros() as usize;
        m &= m - 1;
        let a = address(w, addr, lane);
        let mut value = 0u128;
        for (i, s) in srcs.iter().enumerate() {
            let element = u128::from(w.get(*s, lane)) & ((1u128 << (8 * len)) - 1);
            value |= element << (8 * len as usize * i);
        }
        let now = Access {
            block,
            thread: w.index * 32 + lane as u32,
            site: (w.gfunc, w.gpc),
            stamp: 0,
            syncs: w.syncwarps[lane],
            mask: 0,
            value: 0,
            write,
        };
        match locate(space, addr, a) {
            Loc::Shared(offset) => shared(log, b, w, now, offset, total, value),
            // Cooperative launches (a grid-synchronisation workspace) are not compared: their
            // blocks take turns, and `grid.sync()` orders them.
            Loc::Global(g) if l.workspace == 0 => {
                log.global(g, total, now, b.races.acquired, value, || {
                    communicates(l, w)
                })
            }
            _ => {}
        }
    }
}

/// Checks a shared access against the block's shadow, reporting its first conflict.
fn shared(log: &RaceLog, b: &mut Block, w: &Warp, now: Access, offset: u64, len: u64, value: u128) {
    let now = Access {
        stamp: b.races.epoch,
        ..now
    };
    let epoch = b.races.epoch;
    let warp = w.index;
    for (word, mask, bytes) in shadow::words(offset, len, value) {
        // Beyond the block's shared memory: memcheck reports it when the access runs.
        let Some(cell) = b.races.words.get_mut(word as usize) else {
            return;
        };
        let access = Access {
            mask,
            value: bytes,
            ..now
        };
        let found = cell.access(
            access,
            |a| a.thread != now.thread,
            |a| {
                a.stamp == epoch
                    && !(a.thread / 32 == warp && w.syncwarps[(a.thread % 32) as usize] > a.syncs)
            },
            |a| a.stamp != epoch,
        );
        if let Some(earlier) = found {
            log.shared(earlier, access, word * 4);
            return;
        }
    }
}

fn linear_block(ctaid: [u32; 3], grid: [u32; 3]) -> u32 {
    let [x, y, z] = ctaid;
    let [gx, gy, _] = grid;
    x + gx * (y + gy * z)
}
