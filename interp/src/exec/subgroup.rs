//! Sub-groups in lockstep (SIMT) and the cross-lane instructions (spec 18).
//!
//! A sub-group is up to 32 consecutive work-items of a work-group by local
//! linear id; lane `i` is `%laneid` `i`. Its lanes execute one instruction
//! at a time together, each through the same [`Exec::step`] as a lone
//! work-item, under a reconvergence stack (the classic post-dominator SIMT
//! stack):
//!
//! - An entry is a set of lanes and the position where they reconverge. The
//!   top entry runs; all its lanes are at the same position and have the
//!   same call stack. Its lanes are `%activemask`.
//! - When a `Branch`, a `call.cond` or an indirect call sends the entry's
//!   lanes to different places, they split: each new place gets an entry,
//!   and all reconverge at the branch's immediate post-dominator
//!   ([`crate::cfg::ipdoms`]; the function's exit means after the call in
//!   the caller) or at the instruction after the call. The entry itself
//!   waits there, unless it already reconverges at that same point: then
//!   the new entries replace it (a loop with a divergent exit does not grow
//!   the stack per iteration).
//! - Diverged paths run one after the other, the one whose first op comes
//!   first in the program (lower function index, then lower op index)
//!   first. Lanes already at the reconvergence point just wait.
//! - An entry whose lanes reach its reconvergence point is popped; lanes that
//!   return from the kernel leave every entry for good.

use super::{mask, set, sext, Exec, Item, Stop, Trap};
use crate::cfg::EXIT;
use crate::decode::{flag, Kind, Op};
use crate::float::{self, BinOp, FloatMode, FloatTy, UnOp};
use pisa_translator::ir::qualifier::Op as RedOp;
use pisa_translator::ir::Opcode;

/// Where a lane is: call depth (1 in the kernel), function and op index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pos {
    depth: u32,
    func: u32,
    pc: u32,
}

/// Past the end of the kernel: never a lane's position (lanes that return
/// from the kernel leave every mask), the reconvergence point of the
/// outermost entry.
const END: Pos = Pos {
    depth: 0,
    func: 0,
    pc: 0,
};

#[derive(Debug, Clone, Copy)]
struct Entry {
    /// Lanes (by `%laneid`), returned ones included until they are popped.
    mask: u32,
    /// Where these lanes rejoin the entry below.
    rpc: Pos,
}

/// The lockstep state of one sub-group.
#[derive(Debug)]
pub struct SubGroup {
    stack: Vec<Entry>,
    /// Lanes that have not returned from the kernel.
    live: u32,
    /// The deepest the stack has been (for tests).
    deepest: usize,
}

impl SubGroup {
    /// A sub-group of `lanes` (1 to 32) work-items, all at the kernel's
    /// first instruction.
    pub fn new(lanes: usize) -> SubGroup {
        let all = mask(lanes.min(32) as u32) as u32;
        SubGroup {
            stack: vec![Entry {
                mask: all,
                rpc: END,
            }],
            live: all,
            deepest: 1,
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

fn pos(item: &Item) -> Pos {
    match item.frames.last() {
        Some(f) => Pos {
            depth: item.frames.len() as u32,
            func: f.func,
            pc: f.pc,
        },
        None => END,
    }
}

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
        loop {
            // the top entry whose lanes have not reached its reconvergence point
            let (m, at) = loop {
                let Some(e) = sg.stack.last() else {
                    return Ok(Stop::Done);
                };
                let m = e.mask & sg.live;
                if m != 0 {
                    let at = pos(&lanes[m.trailing_zeros() as usize]);
                    if at != e.rpc {
                        break (m, at);
                    }
                }
                sg.stack.pop();
            };
            let op = &prog.functions[at.func as usize].ops[at.pc as usize];
            self.active = m;
            match op.kind {
                Kind::Pisa(
                    opcode @ (Opcode::Fred | Opcode::Ired | Opcode::Redfirstidx | Opcode::Shfl),
                ) => self.cross_lane(lanes, m, opcode, op)?,
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
                            lane: m.trailing_zeros() as usize,
                        });
                    }
                    for l in lanes_of(m) {
                        self.step(&mut lanes[l])
                            .map_err(|trap| LaneTrap { trap, lane: l })?;
                    }
                    return Ok(Stop::Barrier {
                        func: at.func,
                        pc: at.pc,
                    });
                }
                _ => {
                    let mut ended = 0u32;
                    for l in lanes_of(m) {
                        match self.step(&mut lanes[l]) {
                            Ok(Some(Stop::Done)) => ended |= 1 << l,
                            Ok(_) => {}
                            Err(trap) => return Err(LaneTrap { trap, lane: l }),
                        }
                    }
                    sg.live &= !ended;
                    if matches!(op.kind, Kind::Branch { .. } | Kind::Pisa(Opcode::Call)) {
                        self.diverge(lanes, sg, m & sg.live, at);
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

    /// After a branch or a call at `at`: splits the top entry when its
    /// lanes `m` went to different places.
    fn diverge(&self, lanes: &[Item], sg: &mut SubGroup, m: u32, at: Pos) {
        if m == 0 {
            return;
        }
        let first = m.trailing_zeros() as usize;
        let p0 = pos(&lanes[first]);
        if lanes_of(m).all(|l| pos(&lanes[l]) == p0) {
            return;
        }
        let f = &self.prog.functions[at.func as usize];
        let rpc = match f.ops[at.pc as usize].kind {
            Kind::Branch { .. } => match f.ipdom.get(at.pc as usize).copied().unwrap_or(EXIT) {
                EXIT if at.depth <= 1 => END,
                // the function's exit: after the call, in the caller
                // (whose frame's pc is already past the call)
                EXIT => {
                    let caller = &lanes[first].frames[at.depth as usize - 2];
                    Pos {
                        depth: at.depth - 1,
                        func: caller.func,
                        pc: caller.pc,
                    }
                }
                r => Pos { pc: r, ..at },
            },
            // a call some lanes skipped, or calls to different functions
            _ => Pos {
                pc: at.pc + 1,
                ..at
            },
        };
        let mut groups: Vec<(Pos, u32)> = Vec::new();
        for l in lanes_of(m) {
            let p = pos(&lanes[l]);
            match groups.iter_mut().find(|(q, _)| *q == p) {
                Some((_, g)) => *g |= 1 << l,
                None => groups.push((p, 1 << l)),
            }
        }
        groups.sort_by_key(|(p, _)| (p.func, p.pc));
        let e = sg.stack.pop().expect("the running entry");
        if e.rpc != rpc {
            // it waits at `rpc` for the paths below
            sg.stack.push(e);
        }
        // the first path on top; lanes already at `rpc` wait there
        for &(p, g) in groups.iter().rev() {
            if p != rpc {
                sg.stack.push(Entry { mask: g, rpc });
            }
        }
        sg.deepest = sg.deepest.max(sg.stack.len());
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
    use pisa_translator::{ir, spirv::layout};

    /// Runs a one-work-group kernel of `n` lanes, with no parameters, as
    /// one sub-group; returns its lanes and lockstep state.
    fn run(src: &str, n: u32) -> (Vec<Item>, SubGroup) {
        let m = pisa_translator::assemble("t.pisa", src).expect("assembles");
        let p = ir::build(&m);
        let l = layout::layout(&p);
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
        let mut lanes: Vec<Item> = (0..n).map(|x| Item::new([x, 0, 0], 0, frame, 0)).collect();
        let mut sg = SubGroup::new(n as usize);
        let stop = exec
            .run_subgroup(&mut lanes, &mut sg, u64::MAX)
            .expect("runs");
        assert_eq!(stop, Stop::Done);
        (lanes, sg)
    }

    #[test]
    fn a_loop_with_a_divergent_exit_does_not_grow_the_stack() {
        // lane l leaves after l + 1 iterations: 32 divergent exits
        let src = ".version 0.1;\n.target 100;\n.kernel @k()\n{\n\t.reg .32b %i, %l, %m;\n\t.pred %p;\n\tmov.32b %l, %laneid;\n\tmov.32b %i, 0;\nloop:\n\tmov.32b %m, %activemask;\n\tiadd.32b %i, %i, 1;\n\tucmp.le.32b %p, %i, %l;\n\tgoto.cond %p, loop;\n\treturn;\n}\n";
        let (lanes, sg) = run(src, 32);
        // the kernel's entry, the loop's exit, the loop's body
        assert!(sg.deepest <= 3, "stack depth {}", sg.deepest);
        // lane l: two movs and the fall-through into the loop, 4 per
        // iteration, the return
        for (l, item) in lanes.iter().enumerate() {
            assert_eq!(item.steps, 3 + 4 * (l as u64 + 1) + 1);
        }
    }
}
