//! A warp: 32 lanes, each with its own program counter and call stack, executed group by group.
//!
//! The lanes that share the warp's "group" (same function, call depth and program counter) are
//! stepped together, one decoded instruction for all of them. When a branch splits the group, or
//! a call, return or exit changes some lanes, the warp picks the next group by min-PC scheduling:
//! the deepest call level first, then the lowest program counter. Lanes left behind at a higher
//! program counter rejoin the group when it reaches them (`merge_pc`), which reconverges
//! structured control flow at its post-dominator.
//!
//! Registers live in one flat array per warp: for call depth `d`, register `r` of lane `l` is at
//! `d * region + r * 32 + l`, so each call level has its own registers (recursion works) and an
//! instruction touches 32 consecutive words per operand.

use super::fault::{ExecFault, FaultKind};
use super::inst::{ClusterSpecial, Special, Src, SINK};
use super::memory::Allocation;
use std::sync::Arc;

/// Most bytes of local memory (stack) one thread may use.
pub(crate) const STACK_LIMIT: u64 = 1 << 20;
/// Deepest call nesting.
pub(crate) const MAX_DEPTH: usize = 4096;
/// Most bytes of registers one warp keeps for all its call levels together: with many registers
/// per function, recursion ends in the call-depth fault before this much is allocated.
pub(crate) const REGISTER_STACK_BYTES: usize = 32 << 20;

/// What a lane remembers of its caller.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CallFrame {
    /// The caller's function.
    pub func: u32,
    /// Index of the `call` instruction in the caller.
    pub call_pc: u32,
    /// The caller's frame base and stack top.
    pub frame_base: u64,
    pub stack_top: u64,
}

/// A small cache of recently used allocations, so that most global accesses skip the table.
#[derive(Debug, Default)]
pub(crate) struct AllocCache {
    /// `[base, end)` of each entry (empty ranges for unused entries).
    ranges: [(u64, u64); 4],
    entries: [Option<Arc<Allocation>>; 4],
    next: usize,
}

impl AllocCache {
    /// The cached allocation holding `[addr, addr + len)`, if any.
    #[inline(always)]
    pub fn find(&self, addr: u64, len: u64) -> Option<&Allocation> {
        let end = addr.wrapping_add(len);
        for (i, &(base, limit)) in self.ranges.iter().enumerate() {
            if addr >= base && end <= limit && end >= addr {
                let allocation = self.entries[i].as_deref()?;
                return (!allocation.is_freed()).then_some(allocation);
            }
        }
        None
    }

    /// Remembers an allocation, evicting the oldest.
    pub fn insert(&mut self, allocation: Arc<Allocation>) {
        self.ranges[self.next] = (allocation.base, allocation.base + allocation.size);
        self.entries[self.next] = Some(allocation);
        self.next = (self.next + 1) % self.entries.len();
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        *self = AllocCache::default();
    }
}

/// One warp of a block.
#[derive(Debug)]
pub(crate) struct Warp {
    /// Warp index within the block.
    pub index: u32,
    /// Lanes that exist (the last warp of a block may be partial).
    pub valid: u32,
    pub exited: u32,
    /// Lanes waiting at a barrier.
    pub bar_wait: u32,
    /// Lanes waiting at a warp collective for the other member lanes.
    pub coll_wait: u32,
    pub pc: [u32; 32],
    pub func: [u32; 32],
    pub stacks: Vec<Vec<CallFrame>>,
    pub frame_base: [u64; 32],
    pub stack_top: [u64; 32],
    /// Each lane's local memory (its stack), as long as its stack top.
    pub local: Vec<Vec<u8>>,
    pub regs: Vec<u64>,
    /// Registers per call level (times 32).
    pub region: usize,
    /// Register base of the current group's call level.
    pub rbase: usize,
    /// The lanes stepped together now, and their function, depth and program counter.
    pub group: u32,
    pub gfunc: u32,
    pub gdepth: u32,
    pub gpc: u32,
    /// Program counter at which lanes waiting in the same frame rejoin the group.
    pub merge_pc: u32,
    /// `%tid` of each lane.
    pub tid: [[u32; 3]; 32],
    /// Absolute register index receiving a `bar.red` result, per lane.
    pub bar_dst: [usize; 32],
    /// Set when the block could not progress and a collective must run with the lanes present.
    pub force_collective: bool,
    /// Backward branches taken by a diverged group since the lanes furthest ahead last ran.
    pub spins: u32,
    pub cache: AllocCache,
    pub lane_instructions: u64,
    /// racecheck: `__syncwarp`s each lane has made in this block.
    pub syncwarps: [u32; 32],
    /// Launch- and block-wide special-register values.
    pub env: Env,
}

/// Values of special registers that are the same for every lane of a block.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Env {
    pub ntid: [u32; 3],
    pub ctaid: [u32; 3],
    pub nctaid: [u32; 3],
    pub gridid: u64,
    pub smid: u32,
    pub dynamic_smem: u32,
    pub total_smem: u32,
    /// Address of the grid-synchronisation workspace (`%envreg1`:`%envreg2`), 0 if none.
    pub workspace: u64,
    /// Blocks per cluster, x, y, z (each at least 1).
    pub cluster: [u32; 3],
    /// Whether the launch (or the kernel) named a cluster (`%is_explicit_cluster`).
    pub explicit_cluster: bool,
}

impl Env {
    /// The value of a cluster special register.
    fn cluster_special(&self, s: ClusterSpecial) -> u64 {
        let at = |v: [u32; 3], c: u8| v[usize::from(c.min(2))];
        let cluster = self.cluster.map(|d| d.max(1));
        let ctaid = |c: u8| at(self.ctaid, c) % at(cluster, c);
        u64::from(match s {
            ClusterSpecial::Ctaid(c) => ctaid(c),
            ClusterSpecial::Nctaid(c) => at(cluster, c),
            ClusterSpecial::Ctarank => ctaid(0) + cluster[0] * (ctaid(1) + cluster[1] * ctaid(2)),
            ClusterSpecial::Nctarank => cluster.iter().product(),
            ClusterSpecial::Id(c) => at(self.ctaid, c) / at(cluster, c),
            ClusterSpecial::Nid(c) => at(self.nctaid, c) / at(cluster, c),
            ClusterSpecial::IsExplicit => u32::from(self.explicit_cluster),
        })
    }
}

impl Warp {
    /// A warp with registers for `max_regs` per call level.
    pub fn new(max_regs: u32) -> Warp {
        Warp {
            index: 0,
            valid: 0,
            exited: 0,
            bar_wait: 0,
            syncwarps: [0; 32],
            coll_wait: 0,
            pc: [0; 32],
            func: [0; 32],
            stacks: (0..32).map(|_| Vec::new()).collect(),
            frame_base: [0; 32],
            stack_top: [0; 32],
            local: (0..32).map(|_| Vec::new()).collect(),
            regs: Vec::new(),
            region: max_regs as usize * 32,
            rbase: 0,
            group: 0,
            gfunc: 0,
            gdepth: 0,
            gpc: 0,
            merge_pc: u32::MAX,
            tid: [[0; 3]; 32],
            bar_dst: [0; 32],
            force_collective: false,
            spins: 0,
            cache: AllocCache::default(),
            lane_instructions: 0,
            env: Env::default(),
        }
    }

    /// Resets the warp to start `kernel` (function index, register count) with the given lanes
    /// and thread ids.
    pub fn start(
        &mut self,
        index: u32,
        valid: u32,
        tid: [[u32; 3]; 32],
        kernel: (u32, u32),
        frame: u64,
    ) {
        let (kernel, kernel_regs) = kernel;
        self.index = index;
        self.valid = valid;
        self.exited = !valid;
        self.bar_wait = 0;
        self.syncwarps = [0; 32];
        self.coll_wait = 0;
        self.pc = [0; 32];
        self.func = [kernel; 32];
        for stack in &mut self.stacks {
            stack.clear();
        }
        self.frame_base = [0; 32];
        self.stack_top = [frame; 32];
        for local in &mut self.local {
            local.clear();
            local.resize(frame as usize, 0);
        }
        // Registers start at zero at the kernel's level; deeper levels keep whatever an earlier
        // call left (PTX leaves uninitialised registers undefined).
        if self.regs.len() < self.region {
            self.regs.resize(self.region, 0);
        }
        let used = (kernel_regs as usize * 32).min(self.region);
        self.regs[..used].fill(0);
        self.rbase = 0;
        self.group = valid;
        self.gfunc = kernel;
        self.gdepth = 0;
        self.gpc = 0;
        self.merge_pc = u32::MAX;
        self.tid = tid;
        self.force_collective = false;
    }

    /// Lanes that can run (not exited, not waiting).
    #[inline]
    pub fn ready(&self) -> u32 {
        self.valid & !self.exited & !self.bar_wait & !self.coll_wait
    }

    /// Whether lanes outside the group are ready to run.
    #[inline]
    pub fn others_ready(&self) -> bool {
        self.ready() & !self.group != 0
    }

    /// Writes the group's program counter back to its lanes.
    pub fn park(&mut self) {
        let mut m = self.group;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            self.pc[l] = self.gpc;
        }
    }

    /// Picks the next group among the ready lanes (deepest call level, then lowest function
    /// index, then lowest program counter). Returns false when no lane is ready.
    pub fn reschedule(&mut self) -> bool {
        self.pick(false)
    }

    /// Like [`Warp::reschedule`] but picks the highest program counter, to let lanes that are
    /// ahead make progress while others spin.
    pub fn reschedule_furthest(&mut self) -> bool {
        self.pick(true)
    }

    fn pick(&mut self, furthest: bool) -> bool {
        self.park();
        let ready = self.ready();
        if ready == 0 {
            self.group = 0;
            return false;
        }
        let key = |l: usize| {
            let pc = if furthest {
                u32::MAX - self.pc[l]
            } else {
                self.pc[l]
            };
            (std::cmp::Reverse(self.stacks[l].len()), self.func[l], pc)
        };
        let mut best = None;
        let mut m = ready;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            let k = key(l);
            if best.is_none_or(|b| k < b) {
                best = Some(k);
            }
        }
        let Some((depth, func, pc)) = best else {
            return false;
        };
        let pc = if furthest { u32::MAX - pc } else { pc };
        let mut group = 0;
        let mut merge = u32::MAX;
        let mut m = ready;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            if self.stacks[l].len() == depth.0 && self.func[l] == func {
                if self.pc[l] == pc {
                    group |= 1 << l;
                } else if self.pc[l] > pc {
                    merge = merge.min(self.pc[l]);
                }
            }
        }
        self.group = group;
        self.gfunc = func;
        self.gdepth = depth.0 as u32;
        self.gpc = pc;
        self.merge_pc = merge;
        self.rbase = depth.0 * self.region;
        true
    }

    /// The deepest call level the register budget allows (at most [`MAX_DEPTH`]).
    pub fn max_depth(&self) -> usize {
        let level_bytes = self.region.max(1) * std::mem::size_of::<u64>();
        (REGISTER_STACK_BYTES / level_bytes).clamp(1, MAX_DEPTH)
    }

    /// Makes sure registers exist for call level `depth`; false if the host cannot provide them.
    pub fn ensure_depth(&mut self, depth: usize) -> bool {
        let needed = (depth + 1) * self.region;
        if self.regs.len() < needed {
            if self.regs.try_reserve(needed - self.regs.len()).is_err() {
                return false;
            }
            self.regs.resize(needed, 0);
        }
        true
    }

    /// Reads a source operand for `lane`.
    #[inline(always)]
    pub fn get(&self, src: Src, lane: usize) -> u64 {
        match src {
            Src::Reg(r) => self.regs[self.rbase + ((r as usize) << 5) + lane],
            Src::Imm(v) => v,
            Src::NotReg(r) => u64::from(self.regs[self.rbase + ((r as usize) << 5) + lane] == 0),
            Src::Frame(offset) => self.frame_base[lane] + offset,
            Src::Special(s) => self.special(s, lane),
        }
    }

    /// Reads a source operand for all 32 lanes (inactive lanes give whatever they hold).
    #[inline(always)]
    pub fn row(&self, src: Src) -> [u64; 32] {
        match src {
            Src::Reg(r) => {
                let base = self.rbase + ((r as usize) << 5);
                let mut out = [0u64; 32];
                out.copy_from_slice(&self.regs[base..base + 32]);
                out
            }
            Src::Imm(v) => [v; 32],
            other => std::array::from_fn(|lane| self.get(other, lane)),
        }
    }

    /// Writes `values` to register `d` for the lanes of `mask`.
    #[inline(always)]
    pub fn write_row(&mut self, d: u32, mask: u32, values: &[u64; 32]) {
        if d == SINK {
            return;
        }
        let base = self.rbase + ((d as usize) << 5);
        let dst: &mut [u64] = &mut self.regs[base..base + 32];
        if mask == u32::MAX {
            dst.copy_from_slice(values);
        } else {
            for (lane, (slot, value)) in dst.iter_mut().zip(values).enumerate() {
                if mask >> lane & 1 != 0 {
                    *slot = *value;
                }
            }
        }
    }

    /// Reads a predicate operand for `lane`.
    #[inline(always)]
    pub fn pred(&self, src: Src, lane: usize) -> bool {
        self.get(src, lane) & 1 != 0
    }

    /// Writes register `d` of `lane` (a sink is ignored).
    #[inline(always)]
    pub fn set(&mut self, d: u32, lane: usize, value: u64) {
        if d != SINK {
            self.regs[self.rbase + ((d as usize) << 5) + lane] = value;
        }
    }

    /// The absolute index of register `d` of `lane` at the current level.
    pub fn reg_index(&self, d: u32, lane: usize) -> usize {
        self.rbase + ((d as usize) << 5) + lane
    }

    /// The lanes of the group whose guard holds.
    #[inline(always)]
    pub fn guard_mask(&self, guard: Option<(u32, bool)>) -> u32 {
        let Some((reg, negated)) = guard else {
            return self.group;
        };
        let base = self.rbase + ((reg as usize) << 5);
        let mut mask = 0;
        let mut m = self.group;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            if (self.regs[base + l] & 1 != 0) != negated {
                mask |= 1 << l;
            }
        }
        mask
    }

    fn special(&self, s: Special, lane: usize) -> u64 {
        let l = lane as u32;
        match s {
            Special::Tid(c) => u64::from(self.tid[lane][usize::from(c.min(2))]),
            Special::Laneid => u64::from(l),
            Special::Warpid => u64::from(self.index),
            Special::LanemaskEq => 1 << l,
            Special::LanemaskLt => (1u64 << l) - 1,
            Special::LanemaskLe => (1u64 << (l + 1)) - 1,
            Special::LanemaskGt => u64::from(u32::MAX) & !((1u64 << (l + 1)) - 1),
            Special::LanemaskGe => u64::from(u32::MAX) & !((1u64 << l) - 1),
            Special::Ntid(c) => u64::from(self.env.ntid[usize::from(c.min(2))]),
            Special::Ctaid(c) => u64::from(self.env.ctaid[usize::from(c.min(2))]),
            Special::Nctaid(c) => u64::from(self.env.nctaid[usize::from(c.min(2))]),
            Special::Gridid => self.env.gridid,
            Special::WorkspaceHi => self.env.workspace >> 32,
            Special::WorkspaceLo => self.env.workspace & 0xffff_ffff,
            Special::Smid => u64::from(self.env.smid),
            Special::DynamicSmem => u64::from(self.env.dynamic_smem),
            Special::TotalSmem => u64::from(self.env.total_smem),
            Special::Cluster(c) => self.env.cluster_special(c),
            Special::Clock => self.lane_instructions & 0xffff_ffff,
            Special::Clock64 => self.lane_instructions,
            Special::Globaltimer => now_ns(),
            Special::GlobaltimerLo => now_ns() & 0xffff_ffff,
            Special::GlobaltimerHi => now_ns() >> 32,
        }
    }

    /// Grows lane `l`'s stack to `top`, failing past the limit.
    pub fn set_stack_top(&mut self, l: usize, top: u64) -> Result<(), ExecFault> {
        if top > STACK_LIMIT {
            return Err(ExecFault::new(
                FaultKind::StackOverflow,
                l as u32,
                format!("stack of {top} bytes exceeds the {STACK_LIMIT}-byte limit"),
            ));
        }
        let local = &mut self.local[l];
        let top_bytes = top as usize;
        if top_bytes > local.len() && local.try_reserve(top_bytes - local.len()).is_err() {
            return Err(ExecFault::new(
                FaultKind::StackOverflow,
                l as u32,
                format!("the host cannot provide a stack of {top} bytes"),
            ));
        }
        local.resize(top_bytes, 0);
        self.stack_top[l] = top;
        Ok(())
    }
}

/// Nanoseconds since the Unix epoch (`%globaltimer`).
fn now_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}
