//! `shfl` inside a group of a whole warp (32 threads, eight `i32x4` per register): the
//! exchange is a permutation of the group's own vectors, with no offer, no wait and no
//! release. With immediate lane and clamp operands (as nvcc writes reductions and scans) each
//! result vector is one of the group's vectors, or a byte shuffle of two of them, chosen
//! while compiling; with operands in registers (the same in the 32 threads, the plan's rule)
//! the values go through a stack slot and each thread reads its source lane's word.

use chevron_ptx::ir::ShuffleMode;
use chevron_ptx::lowered::{Collective, Op, Src};
use cranelift_codegen::ir::{
    types, ConstantData, InstBuilder, StackSlotData, StackSlotKind, Value,
};

use super::{Lane, VectorEmitter};
use crate::codegen::mem;

/// Threads of a group whose shuffles are permutations: a whole warp.
pub(super) const WARP_GROUP: u8 = 32;

/// Thread `own`'s source lane of a `shfl` of `mode` with lane operand `b` and clamp operand
/// `c`, and whether it is in range (else the thread reads its own value): the scalar code's
/// `shuffle_source`, lane by lane as `shuffle_source_x4` computes it.
pub(super) fn source_lane(mode: ShuffleMode, own: i32, b: u32, c: u32) -> (i32, bool) {
    let bval = (b & 0x1f) as i32;
    let clamp = (c & 0x1f) as i32;
    let seg = ((c >> 8) & 0x1f) as i32;
    let outside = clamp & !seg;
    let min_lane = own & seg;
    let max_lane = min_lane | outside;
    let (j, ok) = match mode {
        ShuffleMode::Up => {
            let j = own - bval;
            (j, j >= max_lane)
        }
        ShuffleMode::Down => {
            let j = own + bval;
            (j, j <= max_lane)
        }
        ShuffleMode::Bfly => {
            let j = own ^ bval;
            (j, j <= max_lane)
        }
        ShuffleMode::Idx => {
            let j = min_lane | (bval & !seg);
            (j, j <= max_lane)
        }
    };
    (if ok { j } else { own }, ok)
}

impl VectorEmitter<'_, '_, '_> {
    /// The `shfl` at `pc` for a group of a whole warp; then the instruction after it.
    pub(super) fn shuffle_in_group(&mut self, pc: usize) {
        let Op::Warp {
            c:
                Collective::Shfl {
                    mode,
                    d,
                    p,
                    a,
                    b,
                    c,
                },
            ..
        } = &self.t.code.insts[pc].op
        else {
            unreachable!("the plan admits shuffles only");
        };
        let (mode, d, p, a, b, c) = (*mode, *d, *p, *a, *b, *c);
        let values: Vec<Value> = (0..self.p).map(|j| self.vec32(a, j)).collect();
        let mut results = Vec::new();
        if let (Src::Imm(b), Src::Imm(c)) = (b, c) {
            for j in 0..self.p {
                let lanes: Vec<(i32, bool)> = (0..4)
                    .map(|i| source_lane(mode, 4 * i32::from(j) + i, b as u32, c as u32))
                    .collect();
                let v = self.permuted(&values, &lanes);
                let ok = std::array::from_fn(|i| i32::from(lanes[i].1));
                let ok = self.vconst(ok);
                results.push((v, ok));
            }
        } else {
            let bv = self.lane0_32(b);
            let cv = self.lane0_32(c);
            let size = 16 * u32::from(self.p);
            let slot = (self.b).create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                size,
                4,
            ));
            let base = self.b.ins().stack_addr(types::I64, slot, 0);
            for (j, &v) in values.iter().enumerate() {
                self.b.ins().store(mem(), v, base, 16 * j as i32);
            }
            for j in 0..self.p {
                let first = 4 * i32::from(j);
                let own = self.vconst([first, first + 1, first + 2, first + 3]);
                let (source, in_range) = self.shuffle_source_x4(mode, own, bv, cv);
                let words: Vec<Value> = (0..4u8)
                    .map(|i| {
                        let s = self.b.ins().extractlane(source, i);
                        let s = self.b.ins().uextend(types::I64, s);
                        let at = self.b.ins().ishl_imm_u(s, 2);
                        let at = self.b.ins().iadd(base, at);
                        self.b.ins().load(types::I32, mem(), at, 0)
                    })
                    .collect();
                let v = self.gather(&words);
                let one = self.vconst([1; 4]);
                let ok = self.b.ins().band(in_range, one);
                results.push((v, ok));
            }
        }
        for (j, (v, ok)) in results.into_iter().enumerate() {
            // (No predicate: `p` is the sink, which `set` ignores.)
            self.set(d, Lane::Vector(j as u8), v);
            self.set(p, Lane::Vector(j as u8), ok);
        }
        self.jump_to_pc(pc + 1);
    }

    /// The `i32x4` whose lane `i` is the group's lane `lanes[i].0` of `values`: one of them
    /// whole, a byte shuffle of two, or lane by lane.
    fn permuted(&mut self, values: &[Value], lanes: &[(i32, bool)]) -> Value {
        let mut sources: Vec<usize> = lanes.iter().map(|&(s, _)| s as usize / 4).collect();
        sources.dedup();
        sources.sort_unstable();
        sources.dedup();
        let first = lanes[0].0;
        if sources.len() == 1 && first % 4 == 0 && (0..4).all(|i| lanes[i].0 == first + i as i32) {
            return values[sources[0]];
        }
        if sources.len() <= 2 {
            let (x, y) = (sources[0], *sources.last().unwrap_or(&sources[0]));
            let mask: Vec<u8> = lanes
                .iter()
                .flat_map(|&(s, _)| {
                    let from = if s as usize / 4 == x { 0 } else { 16 };
                    let byte = from + 4 * (s as u8 % 4);
                    [byte, byte + 1, byte + 2, byte + 3]
                })
                .collect();
            let mask = self.b.func.dfg.immediates.push(ConstantData::from(mask));
            let bytes =
                |e: &mut Self, v: Value| e.b.ins().bitcast(types::I8X16, super::ops::lanes(), v);
            let (vx, vy) = (bytes(self, values[x]), bytes(self, values[y]));
            let picked = self.b.ins().shuffle(vx, vy, mask);
            return self
                .b
                .ins()
                .bitcast(types::I32X4, super::ops::lanes(), picked);
        }
        let words: Vec<Value> = lanes
            .iter()
            .map(|&(s, _)| {
                let v = values[s as usize / 4];
                self.b.ins().extractlane(v, (s % 4) as u8)
            })
            .collect();
        self.gather(&words)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_lanes_follow_ptx_for_each_mode() {
        // down 16 over the whole warp: lanes 16.. read their own value.
        assert_eq!(source_lane(ShuffleMode::Down, 3, 16, 31), (19, true));
        assert_eq!(source_lane(ShuffleMode::Down, 20, 16, 31), (20, false));
        // up 1 with clamp 0: lane 0 keeps its own.
        assert_eq!(source_lane(ShuffleMode::Up, 0, 1, 0), (0, false));
        assert_eq!(source_lane(ShuffleMode::Up, 5, 1, 0), (4, true));
        // bfly 4.
        assert_eq!(source_lane(ShuffleMode::Bfly, 6, 4, 31), (2, true));
        // idx 7 in segments of 8 (c = 0x1807: clamp 7, segment mask 0x18).
        assert_eq!(source_lane(ShuffleMode::Idx, 13, 7, 0x1807), (15, true));
    }
}
