//! racecheck: conflicting accesses that nothing orders, found while a launch runs.
//!
//! - **Shared memory**: two threads of a block touch the same bytes between two of the block's
//!   barriers, at least one of them writing. Threads of one warp are ordered by a `__syncwarp`
//!   between the accesses.
//! - **Global memory**: two blocks of one launch touch the same bytes, at least one writing,
//!   unless the first block made a fence after its access and the second had made an atomic
//!   or a fence before its own (the `__threadfence()`-then-flag pattern). Cooperative launches
//!   (which synchronise the grid) are not compared.
//!
//! Atomics never conflict (they are not recorded), nor do `.volatile`, `.relaxed`, `.acquire`
//! and `.release` global accesses (deliberate communication), nor two writes of the same bytes.
//! While a [`RaceLog`] is given to a launch its blocks run one after another on one thread, so
//! the findings and their order are the same on every run. Conflicts are grouped by the pair of
//! instructions, with a count.

mod observe;
mod shadow;

use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;

pub(crate) use observe::{observe, BlockRaces};
use shadow::{Access, Word, WordHash};

use super::program::Program;
use super::source::{self, SourceFrame, SourcePosition};

/// Collects a launch's conflicting accesses (give it in [`LaunchHooks::races`]).
///
/// [`LaunchHooks::races`]: super::LaunchHooks::races
#[derive(Debug, Default)]
pub struct RaceLog {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Global memory's words, by address / 4.
    global: HashMap<u64, Word, WordHash>,
    /// Fences made by each block (blocks that made none are absent).
    fences: HashMap<u32, u32>,
    /// Whether each global load or store instruction is deliberate communication.
    communicates: HashMap<(u32, u32), bool>,
    groups: Vec<Group>,
    index: HashMap<GroupKey, usize>,
}

type GroupKey = (Space, (u32, u32), bool, (u32, u32), bool);

#[derive(Debug, Clone)]
struct Group {
    space: Space,
    earlier: Access,
    later: Access,
    address: u64,
    count: u64,
}

/// Where a race happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    /// A block's shared memory (the address is the offset in it).
    Shared,
    /// Global memory.
    Global,
}

/// One side of a race.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RaceAccess {
    /// Whether it wrote (else it read).
    pub write: bool,
    /// `%ctaid` of the thread.
    pub block: [u32; 3],
    /// `%tid` of the thread.
    pub thread: [u32; 3],
    /// Source frames of the instruction, innermost first (empty without `-lineinfo`).
    pub frames: Vec<SourceFrame>,
    /// PTX line of the instruction.
    pub ptx_line: u32,
}

impl RaceAccess {
    /// `read` or `write`.
    pub fn kind(&self) -> &'static str {
        if self.write {
            "write"
        } else {
            "read"
        }
    }

    /// The innermost source position, if known.
    pub fn source_position(&self) -> Option<&SourcePosition> {
        self.frames.first().map(|f| &f.position)
    }

    fn place(&self) -> String {
        let source = source::describe(&self.frames);
        if source.is_empty() {
            format!("PTX line {}", self.ptx_line)
        } else {
            format!("{source} (PTX line {})", self.ptx_line)
        }
    }
}

/// Conflicting accesses of one pair of instructions in one launch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Race {
    /// Shared or global memory.
    pub space: Space,
    /// The demangled kernel.
    pub kernel: String,
    /// The access that found the conflict (the later one), at the first such conflict.
    pub access: RaceAccess,
    /// The earlier access it conflicts with.
    pub other: RaceAccess,
    /// The address of the first conflict (shared memory: the offset in the block's).
    pub address: u64,
    /// Conflicting accesses of this pair of instructions (one per thread's access).
    pub count: u64,
}

impl Race {
    /// `shared-memory race` or `global-memory race`.
    pub fn kind(&self) -> &'static str {
        match self.space {
            Space::Shared => "shared-memory race",
            Space::Global => "global-memory race",
        }
    }
}

impl fmt::Display for Race {
    /// ``shared-memory race in kernel `k(int*)` at k.cu:9:5, block (0, 0, 0), thread (32, 0, 0),
    /// address 0x80: write at k.cu:9:5 (PTX line 30) after read by thread (0, 0, 0) at
    /// k.cu:11:9 (PTX line 34), with no barrier between; 31 conflicting accesses``
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (a, o) = (&self.access, &self.other);
        let [bx, by, bz] = a.block;
        let [tx, ty, tz] = a.thread;
        write!(f, "{} in kernel `{}`", self.kind(), self.kernel)?;
        let source = source::describe(&a.frames);
        if !source.is_empty() {
            write!(f, " at {source}")?;
        }
        write!(
            f,
            ", block ({bx}, {by}, {bz}), thread ({tx}, {ty}, {tz}), address {:#x}: {} at {} after \
             {} by ",
            self.address,
            a.kind(),
            a.place(),
            o.kind()
        )?;
        let [ox, oy, oz] = o.thread;
        if self.space == Space::Global {
            let [cx, cy, cz] = o.block;
            write!(f, "block ({cx}, {cy}, {cz}), ")?;
        }
        let between = match self.space {
            Space::Shared => "no barrier between",
            Space::Global => "nothing ordering them",
        };
        write!(
            f,
            "thread ({ox}, {oy}, {oz}) at {}, with {between}; {} conflicting access{}",
            o.place(),
            self.count,
            if self.count == 1 { "" } else { "es" }
        )?;
        if a.frames.is_empty() {
            write!(f, " ({})", super::fault::NO_LINE_INFO_HINT)?;
        }
        Ok(())
    }
}

impl RaceLog {
    /// An empty log.
    pub fn new() -> RaceLog {
        RaceLog::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Forgets global memory's accesses: the next launch starts afresh (conflicts found stay).
    pub(crate) fn begin_launch(&self) {
        let mut state = self.lock();
        state.global.clear();
        state.fences.clear();
        state.communicates.clear();
    }

    /// Notes that block `block` made a fence.
    pub(crate) fn fence(&self, block: u32) {
        *self.lock().fences.entry(block).or_default() += 1;
    }

    /// Records a global access of `len` bytes (`value`: a write's bytes; `now.stamp` is set
    /// here to its block's fences so far); `acquired`: whether its block made an atomic or
    /// fence before. `communicates` says (once per instruction) whether the instruction is
    /// deliberate communication, which is not recorded.
    pub(crate) fn global(
        &self,
        address: u64,
        len: u64,
        now: Access,
        acquired: bool,
        value: u128,
        communicates: impl FnOnce() -> bool,
    ) {
        let mut state = self.lock();
        let state = &mut *state;
        if *state
            .communicates
            .entry(now.site)
            .or_insert_with(communicates)
        {
            return;
        }
        let now = Access {
            stamp: state.fences.get(&now.block).copied().unwrap_or(0),
            ..now
        };
        for (word, mask, value) in shadow::words(address, len, value) {
            let access = Access { mask, value, ..now };
            let fences = &state.fences;
            let found = state.global.entry(word).or_default().access(
                access,
                |a| a.block != now.block,
                |a| !(acquired && fences.get(&a.block).copied().unwrap_or(0) > a.stamp),
                |_| false,
            );
            if let Some(earlier) = found {
                record(state, Space::Global, earlier, access, word * 4);
                break;
            }
        }
    }

    /// Counts a conflict found in a block's shared memory at `offset`.
    pub(crate) fn shared(&self, earlier: Access, later: Access, offset: u64) {
        record(&mut self.lock(), Space::Shared, earlier, later, offset);
    }

    /// Takes the conflicts found so far, described for `program`'s `kernel`.
    pub fn take(&self, program: &Program, kernel: &str, config: &super::LaunchConfig) -> Vec<Race> {
        let mut state = self.lock();
        state.index.clear();
        let kernel = crate::symbols::demangle(kernel).unwrap_or_else(|| kernel.to_string());
        std::mem::take(&mut state.groups)
            .into_iter()
            .map(|g| Race {
                space: g.space,
                kernel: kernel.clone(),
                access: describe(program, config, &g.later),
                other: describe(program, config, &g.earlier),
                address: g.address,
                count: g.count,
            })
            .collect()
    }
}

/// Counts a conflict in its group (the pair of instructions and kinds).
fn record(state: &mut State, space: Space, earlier: Access, later: Access, address: u64) {
    let key = (space, earlier.site, earlier.write, later.site, later.write);
    match state.index.get(&key) {
        Some(&i) => state.groups[i].count += 1,
        None => {
            state.index.insert(key, state.groups.len());
            state.groups.push(Group {
                space,
                earlier,
                later,
                address,
                count: 1,
            });
        }
    }
}

fn describe(program: &Program, config: &super::LaunchConfig, a: &Access) -> RaceAccess {
    let split = |linear: u32, dims: [u32; 3]| {
        let [x, y, _] = dims;
        [linear % x, (linear / x) % y, linear / (x * y)]
    };
    let (function, pc) = a.site;
    RaceAccess {
        write: a.write,
        block: split(a.block, config.grid),
        thread: split(a.thread, config.block),
        frames: program.source_frames(function, pc as usize).to_vec(),
        ptx_line: program
            .functions
            .get(function as usize)
            .map(|f| f.line(pc as usize))
            .unwrap_or(0),
    }
}
