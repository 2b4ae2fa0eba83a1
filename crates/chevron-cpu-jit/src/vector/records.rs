//! Four-word records: each thread of a group reads (or writes) the four consecutive 32-bit
//! words of its own 16-byte record through four accesses of one address register whose
//! threads' values are 16 bytes apart, at offsets `m`, `m + 4`, `m + 8` and `m + 12` (the
//! tile scan's `in[base] .. in[base + 3]` and its four stores to `out`). One at a time, each
//! access is a strided gather or scatter: a scalar load or store per thread. Together the
//! group's records are `16 × W` consecutive bytes: the first of the four accesses checks them
//! all at once (else the group leaves there, as it would at that access), loads them as W
//! 16-byte vectors and transposes each four threads' four vectors into the four registers'
//! vectors, which the later loads take as they come; stores give their vectors to the last
//! of them, which transposes and stores them as W 16-byte vectors.
//!
//! The four must be a straight run that nothing else jumps into, with no write of the
//! address register between them; loads with no store or atomic between them (so memory
//! reads the same at the first as at each), stores with no other access and nothing that
//! may leave the vector code between them (so nothing observes or stops the deferred
//! stores). The records of two threads never overlap, so the stores' order between threads
//! does not matter.

use std::collections::BTreeMap;

use chevron_ptx::lowered::{AddrBase, Flow, Op, Space, Src};
use cranelift_codegen::ir::{types, ConstantData, InstBuilder, Value};

use super::access::Access;
use super::plan::Width;
use super::shapes::Shape;
use super::{mem, Lane, VectorEmitter};

/// Bytes from one thread's record to the next.
const RECORD: i64 = 16;

/// Instructions after the first access within which the other three must lie.
const LOOK: usize = 16;

/// What the later accesses of a record do (`VectorEmitter::records`).
#[derive(Default)]
pub(super) struct Records {
    /// Per later load: its register's vectors, read with the first access.
    loaded: BTreeMap<usize, Vec<Value>>,
    /// Per store of a record: the host address of the group's records, the store's word,
    /// and whether it is the last of the four.
    stores: BTreeMap<usize, (Value, usize, bool)>,
    /// The vectors the record's earlier stores gave, by word.
    words: [Option<Vec<Value>>; 4],
}

impl VectorEmitter<'_, '_, '_> {
    /// Emits access `pc` (a load into `target`'s register or a store of its operand) as part of
    /// a record when it is one; false when it is not.
    pub(super) fn record_access(&mut self, pc: usize, target: Access) -> bool {
        if let Some(vectors) = self.records.loaded.remove(&pc) {
            if let Access::Load(d) = target {
                for (j, v) in vectors.into_iter().enumerate() {
                    self.set(d, Lane::Vector(j as u8), v);
                }
                return true;
            }
        }
        if let Some((host, word, last)) = self.records.stores.remove(&pc) {
            if let Access::Store(src) = target {
                let vectors = (0..self.p).map(|j| self.vec32(src, j)).collect();
                self.records.words[word] = Some(vectors);
                if last {
                    self.store_records(host);
                }
                return true;
            }
        }
        let Some((pcs, m)) = self.record_at(pc) else {
            return false;
        };
        let host = self.records_host(pc, m);
        let word = |pc_k: usize| pcs.iter().position(|&p| p == pc_k).expect("a word");
        match target {
            Access::Load(d) => {
                let rows: Vec<Value> = (0..self.group_width())
                    .map(|t| {
                        let at = (RECORD * i64::from(t)) as i32;
                        self.b.ins().load(types::I32X4, mem(), host, at)
                    })
                    .collect();
                let mut columns: [Vec<Value>; 4] = Default::default();
                for four in rows.chunks(4) {
                    let c = self.transpose([four[0], four[1], four[2], four[3]]);
                    for (k, v) in c.into_iter().enumerate() {
                        columns[k].push(v);
                    }
                }
                for (k, vectors) in columns.into_iter().enumerate() {
                    if pcs[k] == pc {
                        for (j, v) in vectors.into_iter().enumerate() {
                            self.set(d, Lane::Vector(j as u8), v);
                        }
                    } else {
                        self.records.loaded.insert(pcs[k], vectors);
                    }
                }
            }
            Access::Store(src) => {
                let last = *pcs.iter().max().expect("four");
                for &p in pcs.iter().filter(|&&p| p != pc) {
                    self.records.stores.insert(p, (host, word(p), p == last));
                }
                self.records.words = Default::default();
                let vectors = (0..self.p).map(|j| self.vec32(src, j)).collect();
                self.records.words[word(pc)] = Some(vectors);
            }
        }
        true
    }

    /// The accesses of the record whose first access is `pc`, by word, and the offset of the
    /// first word (`m`), if `pc` begins one.
    fn record_at(&self, pc: usize) -> Option<([usize; 4], i64)> {
        let insts = &self.t.code.insts;
        let part = |i: usize| -> Option<(bool, Space, u32, i64)> {
            let (store, space, addr) = match &insts[i].op {
                Op::Ld {
                    space: space @ (Space::Shared | Space::Global),
                    bits: 32,
                    addr,
                    ds,
                    ..
                } if ds.len() == 1
                    && self.width(ds[0]) == Width::W32
                    && self.t.plan.shapes.defs[i] == Shape::Varying =>
                {
                    (false, *space, addr)
                }
                Op::St {
                    space: space @ (Space::Shared | Space::Global),
                    bits: 32,
                    addr,
                    srcs,
                } if srcs.len() == 1 => (true, *space, addr),
                _ => return None,
            };
            let AddrBase::Reg(r) = addr.base else {
                return None;
            };
            let strided = self.t.plan.shapes.of(i, &Src::Reg(r)) == Shape::Affine(RECORD);
            (insts[i].guard.is_none() && strided).then_some((store, space, r, addr.offset))
        };
        let (store, space, r, offset) = part(pc)?;
        // A first load into its own address register would move the others' addresses (its
        // varying value leaves them no stride, so this only makes it explicit).
        if insts[pc].operands().writes.contains(&r) {
            return None;
        }
        let in_loop = (self.t.plan.loops.iter()).any(|l| l.head <= pc && pc <= l.end);
        if in_loop {
            return None;
        }
        let mut found = BTreeMap::from([(offset, pc)]);
        for (i, inst) in insts.iter().enumerate().skip(pc + 1).take(LOOK) {
            let ops = inst.operands();
            if self.targets.contains(&i) || ops.flow != Flow::Next || ops.meets.is_some() {
                break;
            }
            match part(i) {
                Some((s, sp, reg, off)) if s == store && sp == space && reg == r => {
                    if found.insert(off, i).is_some() {
                        return None;
                    }
                }
                _ => {
                    let memory = matches!(
                        inst.op,
                        Op::Ld { .. }
                            | Op::St { .. }
                            | Op::Atom { .. }
                            | Op::Bar { .. }
                            | Op::Warp { .. }
                    );
                    // Loads: no store, atomic or barrier between; stores: nothing that reads
                    // or writes memory or may leave the vector code.
                    let stops = match &inst.op {
                        Op::Ld { .. } => store,
                        _ if memory => true,
                        _ => store && self.t.plan.exits.contains(&i),
                    };
                    if stops || inst.guard.is_some() {
                        break;
                    }
                }
            }
            if ops.writes.contains(&r) || found.len() == 4 {
                break;
            }
        }
        let m = *found.keys().next()?;
        let offsets: Vec<i64> = found.keys().copied().collect();
        if offsets != [m, m + 4, m + 8, m + 12] {
            return None;
        }
        let pcs: Vec<usize> = found.values().copied().collect();
        Some(([pcs[0], pcs[1], pcs[2], pcs[3]], m))
    }

    /// The host address of thread 0's record (its word at offset `m` of access `pc`'s
    /// address register) when the group's records all lie in the shared memory or in the
    /// allocation of `pc`'s site, aligned; else the group leaves at `pc`.
    fn records_host(&mut self, pc: usize, m: i64) -> Value {
        let (space, r) = match &self.t.code.insts[pc].op {
            Op::Ld { space, addr, .. } | Op::St { space, addr, .. } => match addr.base {
                AddrBase::Reg(r) => (*space, r),
                _ => unreachable!("a record's address is a register"),
            },
            _ => unreachable!("a record's access"),
        };
        let first = self.lane64(Src::Reg(r), 0);
        let first = self.b.ins().iadd_imm_u(first, m);
        let span = RECORD * i64::from(self.group_width()) - 4;
        let last = self.b.ins().iadd_imm_u(first, span);
        if space == Space::Shared {
            self.shared_range(pc, first, last, 2)
        } else {
            self.global_range(pc, (first, last, false), 2)
        }
    }

    /// Stores the group's records at `host` from the four words' vectors its stores gave.
    fn store_records(&mut self, host: Value) {
        let [a, b, c, d] = std::mem::take(&mut self.records.words)
            .map(|w| w.expect("every word of the record is stored"));
        for j in 0..usize::from(self.p) {
            let rows = self.transpose([a[j], b[j], c[j], d[j]]);
            for (i, row) in rows.into_iter().enumerate() {
                let at = (RECORD * (4 * j + i) as i64) as i32;
                self.b.ins().store(mem(), row, host, at);
            }
        }
    }

    /// The transpose of four `i32x4` rows: vector `k` holds word `k` of each row.
    pub(super) fn transpose(&mut self, rows: [Value; 4]) -> [Value; 4] {
        let [r0, r1, r2, r3] = rows;
        let t0 = self.pick(r0, r1, [0, 4, 1, 5]);
        let t1 = self.pick(r2, r3, [0, 4, 1, 5]);
        let t2 = self.pick(r0, r1, [2, 6, 3, 7]);
        let t3 = self.pick(r2, r3, [2, 6, 3, 7]);
        [
            self.pick(t0, t1, [0, 1, 4, 5]),
            self.pick(t0, t1, [2, 3, 6, 7]),
            self.pick(t2, t3, [0, 1, 4, 5]),
            self.pick(t2, t3, [2, 3, 6, 7]),
        ]
    }

    /// The `i32x4` of words `words` of `x` (0 to 3) and `y` (4 to 7).
    fn pick(&mut self, x: Value, y: Value, words: [u8; 4]) -> Value {
        let mask: Vec<u8> = (words.iter())
            .flat_map(|&w| [4 * w, 4 * w + 1, 4 * w + 2, 4 * w + 3])
            .collect();
        let mask = self.b.func.dfg.immediates.push(ConstantData::from(mask));
        let bytes =
            |e: &mut Self, v: Value| e.b.ins().bitcast(types::I8X16, super::ops::lanes(), v);
        let (bx, by) = (bytes(self, x), bytes(self, y));
        let picked = self.b.ins().shuffle(bx, by, mask);
        self.b
            .ins()
            .bitcast(types::I32X4, super::ops::lanes(), picked)
    }
}
