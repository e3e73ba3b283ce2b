//! Sub-groups in lockstep (SIMT) and the cross-lane instructions (spec 18).
//!
//! A sub-group is up to 32 consecutive work-items of a work-group by local
//! linear id; lane `i` is `%laneid` `i`. Its lanes execute one instruction
//! at a time together, each through the same [`Exec::step`] as a lone
//! work-item, with structured reconvergence (docs/spec-notes.md,
//! "Sub-groups"):
//!
//! - Every lane has a *walk key* ([`crate::walk`]): per frame of its call
//!   stack, the loops of the function's structured tree it is in with its
//!   iteration of each, then the tree position of its op's block and the
//!   op's index (for a caller's frame: the call), the called function's
//!   index before the next frame.
//! - The lanes with the smallest key run the op they are at together; they
//!   are `%activemask`. Lanes with a larger key wait: those that took the
//!   other arm of an `if`, left a construct early (a `break` waits at the
//!   loop's end, a `continue` at the next iteration), returned from a
//!   called function before the others (they wait after the call), or
//!   skipped a call.
//! - Lanes that return from the kernel leave for good.
//!
//! So the lanes of a sub-group walk the same structured tree the Vulkan
//! back end's emulation walks (the `simt` pass, translator/src/ir/simt.rs), and the two
//! agree on every `%activemask` and cross-lane result.

use super::{mask, set, sext, Exec, Item, Stop, Trap};
use crate::decode::{flag, Kind, Op};
use crate::float::{self, BinOp, FloatMode, FloatTy, UnOp};
use crate::walk::LoopAt;
use pisa_translator::ir::qualifier::Op as RedOp;
use pisa_translator::ir::Opcode;

/// A loop a lane is in, and which iteration of it (from 0).
#[derive(Debug, Clone, Copy)]
struct InLoop {
    at: LoopAt,
    iteration: u64,
}

/// The lockstep state of one sub-group.
#[derive(Debug)]
pub struct SubGroup {
    /// Lanes that have not returned from the kernel.
    live: u32,
    /// Per lane, per frame of its call stack: the loops it is in.
    loops: Vec<Vec<Vec<InLoop>>>,
    /// Per lane: its walk key (current for live lanes).
    keys: Vec<Vec<u64>>,
}

impl SubGroup {
    /// A sub-group of `lanes` (1 to 32) work-items, all at the kernel's
    /// first instruction.
    pub fn new(lanes: usize) -> SubGroup {
        let n = lanes.min(32);
        SubGroup {
            live: mask(n as u32) as u32,
            loops: vec![Vec::new(); n],
            keys: vec![Vec::new(); n],
        }
    }

    /// Lanes that have not returned from the kernel.
    pub fn live(&self) -> u32 {
        self.live
    }
}

/// A trap in one lane of a sub-group (its index in the sub-group).
#[derive(Debug)]
pub struct LaneTrap {
    pub trap: Trap,
    pub lane: usize,
}

type L<T> = Result<T, LaneTrap>;

/// The lanes of a mask, lowest first.
fn lanes_of(mut m: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            l
        })
    })
}

impl Exec<'_> {
    /// Runs a sub-group (`lanes`, by `%laneid`) until it stops at a barrier,
    /// ends, or has executed about `budget` lane-instructions.
    pub fn run_subgroup(&mut self, lanes: &mut [Item], sg: &mut SubGroup, budget: u64) -> L<Stop> {
        let prog = self.prog;
        let mut left = budget;
        for l in lanes_of(sg.live) {
            if sg.keys[l].is_empty() {
                self.follow(&lanes[l], sg, l, None);
            }
        }
        loop {
            // the lanes with the smallest walk key
            let Some(first) = lanes_of(sg.live).min_by(|&a, &b| sg.keys[a].cmp(&sg.keys[b])) else {
                return Ok(Stop::Done);
            };
            let m = lanes_of(sg.live)
                .filter(|&l| sg.keys[l] == sg.keys[first])
                .fold(0u32, |m, l| m | 1 << l);
            let Some(frame) = lanes[first].frames.last() else {
                // cannot happen: lanes without frames are not live
                sg.live &= !m;
                continue;
            };
            let (func, pc) = (frame.func, frame.pc);
            let op = &prog.functions[func as usize].ops[pc as usize];
            self.active = m;
            match op.kind {
                Kind::Pisa(
                    opcode @ (Opcode::Fred | Opcode::Ired | Opcode::Redfirstidx | Opcode::Shfl),
                ) => {
                    self.cross_lane(lanes, m, opcode, op)?;
                    for l in lanes_of(m) {
                        self.follow(&lanes[l], sg, l, None);
                    }
                }
                Kind::Pisa(Opcode::BarrierWorkgroup) => {
                    if m != sg.live {
                        return Err(LaneTrap {
                            trap: self.trap(
                                op,
                                format!(
                                    "barrier.workgroup reached by lanes {m:#010x} of a sub-group whose lanes {:#010x} have not returned (a barrier in divergent control flow)",
                                    sg.live
                                ),
                            ),
                            lane: first,
                        });
                    }
                    for l in lanes_of(m) {
                        self.step(&mut lanes[l])
                            .map_err(|trap| LaneTrap { trap, lane: l })?;
                        self.follow(&lanes[l], sg, l, None);
                    }
                    return Ok(Stop::Barrier { func, pc });
                }
                _ => {
                    let depth = lanes[first].frames.len();
                    let jumps = matches!(op.kind, Kind::Jump(_) | Kind::Branch { .. });
                    for l in lanes_of(m) {
                        match self.step(&mut lanes[l]) {
                            Ok(Some(Stop::Done)) => sg.live &= !(1 << l),
                            Ok(_) => self.follow(&lanes[l], sg, l, jumps.then_some(depth)),
                            Err(trap) => return Err(LaneTrap { trap, lane: l }),
                        }
                    }
                }
            }
            let n = m.count_ones() as u64;
            if left <= n {
                return Ok(Stop::Yield);
            }
            left -= n;
        }
    }

    /// Brings lane `l`'s loops and walk key up to date after it moved:
    /// frames it entered start outside every loop but those around their
    /// first op, frames it left are dropped, and `jumped` (the depth of a
    /// jump or branch it just took) moves it between the loops of its
    /// source and target: leaving some, entering others (iteration 0), or
    /// starting the next iteration of a loop whose header it jumped to
    /// from inside.
    fn follow(&self, item: &Item, sg: &mut SubGroup, l: usize, jumped: Option<usize>) {
        let loops = &mut sg.loops[l];
        let depth = item.frames.len();
        loops.truncate(depth);
        while loops.len() < depth {
            let f = &item.frames[loops.len()];
            let walk = &self.prog.functions[f.func as usize].walk;
            let pc = if loops.len() + 1 < depth {
                f.pc - 1
            } else {
                f.pc
            };
            loops.push(
                walk.loops(pc)
                    .iter()
                    .map(|&at| InLoop { at, iteration: 0 })
                    .collect(),
            );
        }
        if let (Some(d), Some(f)) = (jumped, item.frames.last()) {
            if d == depth {
                let walk = &self.prog.functions[f.func as usize].walk;
                let target = walk.loops(f.pc);
                let now = &mut loops[depth - 1];
                let kept = now
                    .iter()
                    .zip(target)
                    .take_while(|(a, b)| a.at == **b)
                    .count();
                now.truncate(kept);
                if let Some(inner) = now.last_mut() {
                    if kept == target.len() && inner.at.header == f.pc {
                        inner.iteration += 1;
                    }
                }
                now.extend(target[kept..].iter().map(|&at| InLoop { at, iteration: 0 }));
            }
        }
        let key = &mut sg.keys[l];
        key.clear();
        for (i, (f, in_loops)) in item.frames.iter().zip(loops.iter()).enumerate() {
            if i > 0 {
                key.push(f.func as u64);
            }
            for lp in in_loops {
                key.push(lp.at.order as u64);
                key.push(lp.iteration);
            }
            let pc = if i + 1 < depth { f.pc - 1 } else { f.pc };
            let walk = &self.prog.functions[f.func as usize].walk;
            key.push(walk.order(pc) as u64);
            key.push(pc as u64);
        }
    }

    /// `shfl`, `ired`, `fred`, `redfirstidx` (spec 18) for the lanes `m`:
    /// each lane evaluates the pseudo-code with its own operands, reading
    /// the others' `src0` as it was before the instruction.
    fn cross_lane(&mut self, lanes: &mut [Item], m: u32, opcode: Opcode, op: &Op) -> L<()> {
        let o = &op.ops;
        let ty = op.q.ty.unwrap_or_default();
        let total = ty.total().clamp(1, 64);
        let mut src0 = [0u64; 32];
        let mut out: [Option<u64>; 32] = [None; 32];
        if opcode != Opcode::Redfirstidx {
            for l in lanes_of(m) {
                src0[l] = self.get(&lanes[l], &o[1], total);
            }
        }
        for l in lanes_of(m) {
            let item = &lanes[l];
            out[l] = match opcode {
                Opcode::Redfirstidx => {
                    let part = self.get(item, &o[1], 32) as u32 & m;
                    if part == 0 {
                        return Err(LaneTrap {
                            trap: self.trap(
                                op,
                                format!(
                                    "redfirstidx with no participating lane (src0 & %activemask = 0 & {m:#010x}): the spec's loop never ends (undefined behaviour)"
                                ),
                            ),
                            lane: l,
                        });
                    }
                    Some(part.trailing_zeros() as u64)
                }
                Opcode::Shfl => {
                    let part = self.get(item, &o[3], 32) as u32 & m;
                    let src1 = self.get(item, &o[2], 32) as u32;
                    (part >> l & 1 != 0).then(|| shfl(op, l as u32, src1, part, &src0))
                }
                _ => {
                    let part = self.get(item, &o[2], 32) as u32 & m;
                    (part >> l & 1 != 0).then(|| {
                        if opcode == Opcode::Ired {
                            ired(op, part, &src0)
                        } else {
                            fred(op, part, &src0)
                        }
                    })
                }
            };
        }
        for l in lanes_of(m) {
            let item = &mut lanes[l];
            if let Some(v) = out[l] {
                set(item, &o[0], v);
            }
            item.steps += 1;
            if let Some(f) = item.frames.last_mut() {
                f.pc += 1;
            }
        }
        Ok(())
    }
}

/// `shfl` (18 §7.4) for lane `lane` (a participant): an out-of-bounds or
/// non-participating source lane gives the lane its own `src0`.
fn shfl(op: &Op, lane: u32, src1: u32, part: u32, src0: &[u64; 32]) -> u64 {
    let offset = src1 & 0x1F;
    let up = op.q.atom == Some(RedOp::Up);
    let (cval, segmask) = if op.q.has(flag::SG) {
        ((src1 >> 8) & 0x1F, (src1 >> 16) & 0x1F)
    } else {
        (if up { 0 } else { 0x1F }, 0)
    };
    let clamp = ((lane & segmask) | (cval & !segmask)) as i64;
    let min_lane = lane & segmask;
    let (lane_i, off_i) = (lane as i64, offset as i64);
    let src = match op.q.atom {
        Some(RedOp::Up) => lane_i - off_i,
        Some(RedOp::Dn) => lane_i + off_i,
        Some(RedOp::Xor) => (lane ^ offset) as i64,
        _ => (min_lane | (offset & !segmask)) as i64,
    };
    let in_bounds = if up { src >= clamp } else { src <= clamp };
    // `clamp` is within 0..=31, so an in-bounds source lane is too; the
    // range check only keeps the shift defined
    let from = if in_bounds && (0..32).contains(&src) && part >> src & 1 != 0 {
        src as usize
    } else {
        lane as usize
    };
    src0[from]
}

/// `ired` (18 §7.2) over the participating lanes `part`.
fn ired(op: &Op, part: u32, src0: &[u64; 32]) -> u64 {
    let bits = op.q.ty.map_or(32, |t| t.bits as u32).clamp(1, 64);
    let m = mask(bits);
    let s = |v: u64| sext(v, bits);
    // iabs: the most negative value's magnitude is 2^(bits-1), its own bit
    // pattern, so it is larger than every other as an unsigned value
    let abs = |v: u64| s(v).unsigned_abs() & m;
    let mut vals = lanes_of(part).map(|l| src0[l] & m);
    let first = vals.next().unwrap_or(0);
    let first = if op.q.atom == Some(RedOp::Absmax) {
        abs(first)
    } else {
        first
    };
    vals.fold(first, |acc, v| match op.q.atom {
        Some(RedOp::Sum) => acc.wrapping_add(v) & m,
        Some(RedOp::Smin) => {
            if s(v) < s(acc) {
                v
            } else {
                acc
            }
        }
        Some(RedOp::Smax) => {
            if s(v) > s(acc) {
                v
            } else {
                acc
            }
        }
        Some(RedOp::Umin) => acc.min(v),
        Some(RedOp::Umax) => acc.max(v),
        Some(RedOp::And) => acc & v,
        Some(RedOp::Or) => acc | v,
        Some(RedOp::Xor) => acc ^ v,
        _ => acc.max(abs(v)),
    })
}

/// `fred` (18 §7.1) over the participating lanes `part`, element by element
/// for `.hfx2`/`.bfx2`: `fmin`/`fmax` of the float core folded in lane
/// order (−0 < +0). Without `.nanp` a NaN is ignored unless all are NaN;
/// with it any NaN wins. A NaN result is the lowest lane's NaN, quieted.
fn fred(op: &Op, part: u32, src0: &[u64; 32]) -> u64 {
    let ty = op.q.ty.unwrap_or_default();
    let ft = ty.float.unwrap_or(FloatTy::Single);
    let bits = ty.bits as u32;
    let mode = FloatMode {
        nanp: op.q.has(flag::NANP),
        ..FloatMode::default()
    };
    let (min, abs) = match op.q.atom {
        Some(RedOp::Min) => (true, false),
        Some(RedOp::Absmax) => (false, true),
        _ => (false, false),
    };
    let bop = if min { BinOp::Min } else { BinOp::Max };
    let mut out = 0u64;
    for i in 0..ty.lanes.max(1) as u32 {
        let elem = |l: usize| {
            let x = (src0[l] >> (i * bits)) & mask(bits);
            if abs {
                float::unary(UnOp::Abs, ft, x, FloatMode::default())
            } else {
                x
            }
        };
        let mut vals = lanes_of(part).map(elem);
        let first = vals.next().unwrap_or(0);
        // min/max of a value with itself: the value, a NaN quieted
        let first = float::binary(bop, ft, first, first, mode);
        let r = vals.fold(first, |acc, x| float::binary(bop, ft, acc, x, mode));
        out |= (r & mask(bits)) << (i * bits);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::NdInfo;
    use crate::memory::DeviceMemory;
    use pisa_translator::{abi, ir};

    /// Runs a one-work-group kernel of `n` lanes, with no parameters, as
    /// one sub-group; returns its lanes and lockstep state.
    fn run(src: &str, n: u32) -> (Vec<Item>, SubGroup) {
        let m = pisa_translator::assemble("t.pisa", src).expect("assembles");
        let p = ir::build(&m);
        let l = abi::layout(&p).unwrap();
        let d = crate::decode::decode(&p, src, &l, 0).expect("decodes");
        assert!(d.subgroups);
        let mut mem = DeviceMemory::default();
        let nd = NdInfo {
            global: [n as u64, 1, 1],
            offset: [0; 3],
            enqueued: [n, 1, 1],
            groups: [1; 3],
            dims: 1,
            printf_buffer: 0,
        };
        let mut shared = Vec::new();
        let mut exec = Exec {
            prog: &d,
            mem: &mut mem,
            args: &[],
            nd: &nd,
            group_id: [0; 3],
            group_size: [n, 1, 1],
            shared: &mut shared,
            active: 0,
        };
        let frame = d.functions[0].frame_bytes;
        let mut lanes: Vec<Item> = (0..n)
            .map(|x| Item::new([x, 0, 0], 0, frame, 0).expect("small"))
            .collect();
        let mut sg = SubGroup::new(n as usize);
        let stop = exec
            .run_subgroup(&mut lanes, &mut sg, u64::MAX)
            .expect("runs");
        assert_eq!(stop, Stop::Done);
        (lanes, sg)
    }

    #[test]
    fn a_loop_with_a_divergent_exit_runs_each_lane_to_its_exit() {
        // lane l leaves after l + 1 iterations: 32 divergent exits
        let src = ".version 0.1;\n.target 100;\n.kernel @k()\n{\n\t.reg .32b %i, %l, %m;\n\t.pred %p;\n\tmov.32b %l, %laneid;\n\tmov.32b %i, 0;\nloop:\n\tmov.32b %m, %activemask;\n\tiadd.32b %i, %i, 1;\n\tucmp.le.32b %p, %i, %l;\n\tgoto.cond %p, loop;\n\treturn;\n}\n";
        let (lanes, sg) = run(src, 32);
        assert_eq!(sg.live(), 0);
        // lane l: two movs and the fall-through into the loop, 4 per
        // iteration, the return
        for (l, item) in lanes.iter().enumerate() {
            assert_eq!(item.steps, 3 + 4 * (l as u64 + 1) + 1);
        }
    }
}
