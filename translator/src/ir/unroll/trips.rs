//! A proof that an innermost loop runs at most a few trips: the counted
//! loops `mov k, C0; head: [if k ≥ C goto end]; …; k += S; [if k < C goto head]`
//! that compilers and the fuzzer's generator write.
//!
//! How: the loop's counter `k` must be set to an immediate by the code
//! just before the loop (the only way into a loop of the structured tree)
//! and, inside the body, be written only by `mov.32b k, imm` and
//! `iadd.32b k, k, imm`. The body is then executed abstractly with `k`
//! known exactly and every predicate unknown unless it is a 32-bit `ucmp`
//! or `scmp` of `k` against an immediate: an `if` on an unknown predicate
//! takes both arms. The set of counter values that reach a `continue` of
//! the loop after trip `t` is what trip `t + 1` starts from; when it is
//! empty after at most [`super::MAX_FULL_TRIPS`] trips, no execution of
//! the loop makes more (every real path is among the abstract ones).
//! Anything else — another write to `k`, a nested loop, a call — gives no
//! bound.

use std::collections::BTreeMap;

use super::super::analysis::uniformity::destinations;
use super::super::qualifier::Cop;
use super::super::structurize::{Label, Node};
use super::super::view::{Role, Type};
use super::super::{BlockId, Function, Inst, Opcode, Operand, PisaInst, RegId};

/// Abstract paths followed at one point before giving up (unknown
/// predicates double them).
const MAX_PATHS: usize = 64;

/// The most trips loop `h` (body `body`, entered from the end of block
/// `before`) can make, if it is at most `max` and can be shown.
pub fn trip_bound(
    f: &Function,
    h: BlockId,
    before: Option<BlockId>,
    body: &[Node],
    max: u32,
) -> Option<u32> {
    initial_counters(f, before?)
        .into_iter()
        .filter_map(|(k, v)| bound_for(f, h, k, v, body, max))
        .min()
}

/// The registers that block `b` leaves holding an immediate set by a
/// `mov.32b` (the candidate counters), with their values.
fn initial_counters(f: &Function, b: BlockId) -> Vec<(RegId, u32)> {
    let mut known: BTreeMap<RegId, u32> = BTreeMap::new();
    for i in &f.block(b).insts {
        match i {
            Inst::Pisa(p) => {
                let set = mov_imm(p);
                for d in destinations(p) {
                    known.remove(&d);
                }
                if let Some((k, v)) = set {
                    known.insert(k, v);
                }
                if writes_unknown(p) {
                    known.clear();
                }
            }
            Inst::SetConst { dst, .. } | Inst::TestConst { dst, .. } => {
                known.remove(dst);
            }
            Inst::CheckAccess(_) => {}
            // after unrolling: none (the pass runs after `unroll`)
            Inst::Simt(_) => known.clear(),
        }
    }
    known.into_iter().collect()
}

fn bound_for(
    f: &Function,
    h: BlockId,
    k: RegId,
    init: u32,
    body: &[Node],
    max: u32,
) -> Option<u32> {
    let mut starts = vec![init];
    for trip in 1..=max {
        let mut sim = Sim {
            f,
            h,
            k,
            open: Vec::new(),
            merges: Vec::new(),
            continues: Vec::new(),
        };
        let states = starts.iter().map(|&k| State::new(k)).collect();
        // falling off the end of the body leaves the loop
        sim.seq(body, states)?;
        let mut next: Vec<u32> = sim.continues.iter().map(|s| s.k).collect();
        next.sort_unstable();
        next.dedup();
        if next.is_empty() {
            return Some(trip);
        }
        starts = next;
    }
    None
}

/// What is known on one abstract path: the counter, and the predicates
/// computed from it since.
#[derive(Clone, PartialEq)]
struct State {
    k: u32,
    preds: BTreeMap<RegId, bool>,
}

impl State {
    fn new(k: u32) -> State {
        State {
            k,
            preds: BTreeMap::new(),
        }
    }
}

struct Sim<'f> {
    f: &'f Function,
    h: BlockId,
    k: RegId,
    /// Labels of the blocks around the current point, inside the body.
    open: Vec<BlockId>,
    /// Paths that jumped to the end of an open block.
    merges: Vec<(BlockId, State)>,
    /// Paths that reached a `continue` of the loop.
    continues: Vec<State>,
}

impl Sim<'_> {
    /// Runs `nodes` from each of `states`; the paths that fall off the end.
    /// `None`: no bound (an unknown write of the counter, a nested loop,
    /// too many paths).
    fn seq(&mut self, nodes: &[Node], mut states: Vec<State>) -> Option<Vec<State>> {
        for n in nodes {
            if states.is_empty() {
                break;
            }
            if states.len() > MAX_PATHS {
                return None;
            }
            states = match n {
                Node::Code(b) => states
                    .into_iter()
                    .map(|s| self.code(*b, s))
                    .collect::<Option<Vec<_>>>()?,
                Node::Block { label, body, .. } => {
                    self.open.push(*label);
                    let mut out = self.seq(body, states)?;
                    self.open.pop();
                    let (mine, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.merges)
                        .into_iter()
                        .partition(|(l, _)| l == label);
                    self.merges = rest;
                    out.extend(mine.into_iter().map(|(_, s)| s));
                    out
                }
                Node::Loop { .. } => return None,
                Node::If {
                    cond,
                    then,
                    otherwise,
                } => {
                    let (mut t, mut e) = (Vec::new(), Vec::new());
                    for s in states {
                        match s.preds.get(&cond.pred) {
                            Some(&v) if v != cond.negate => t.push(s),
                            Some(_) => e.push(s),
                            None => {
                                t.push(s.clone());
                                e.push(s);
                            }
                        }
                    }
                    let mut out = self.seq(then, t)?;
                    out.extend(self.seq(otherwise, e)?);
                    out
                }
                Node::Br(Label::Loop(x)) if *x == self.h => {
                    self.continues.extend(states);
                    Vec::new()
                }
                Node::Br(Label::Merge(m)) if self.open.contains(m) => {
                    self.merges.extend(states.into_iter().map(|s| (*m, s)));
                    Vec::new()
                }
                // leaves the loop: a break, an outer loop's continue, a
                // jump past the loop, a return
                Node::Br(_) | Node::Return { .. } | Node::Unreachable => Vec::new(),
            };
        }
        Some(states)
    }

    fn code(&self, b: BlockId, mut s: State) -> Option<State> {
        for i in &self.f.block(b).insts {
            match i {
                Inst::Pisa(p) => {
                    if writes_unknown(p) {
                        return None;
                    }
                    let dsts = destinations(p);
                    if dsts.contains(&self.k) {
                        s.k = self.step(p, s.k)?;
                    }
                    let cmp = self.compare(p, s.k);
                    for d in dsts {
                        s.preds.remove(&d);
                    }
                    if let Some((pred, v)) = cmp {
                        s.preds.insert(pred, v);
                    }
                }
                Inst::SetConst { dst, .. } | Inst::TestConst { dst, .. } => {
                    if *dst == self.k {
                        return None;
                    }
                    s.preds.remove(dst);
                }
                Inst::CheckAccess(_) => {}
                // after unrolling: none (the pass runs after `unroll`)
                Inst::Simt(_) => return None,
            }
        }
        Some(s)
    }

    /// The counter after `p`, which writes it: only `mov.32b k, imm` and
    /// `iadd.32b k, k, imm` are understood.
    fn step(&self, p: &PisaInst, k: u32) -> Option<u32> {
        if let Some((r, v)) = mov_imm(p) {
            return (r == self.k).then_some(v);
        }
        if p.opcode != Opcode::Iadd || p.quals.ty != Some(Type::B32) || p.quals.dsat {
            return None;
        }
        let dst_k = plain_reg(p.operand(Role::Dst)?) == Some(self.k);
        let a = p.operand(Role::Src0)?;
        let b = p.operand(Role::Src1)?;
        let add = match (plain_reg(a), plain_reg(b)) {
            (Some(r), _) if r == self.k => imm32(b)?,
            (_, Some(r)) if r == self.k => imm32(a)?,
            _ => return None,
        };
        dst_k.then(|| k.wrapping_add(add))
    }

    /// `(pred, value)` where `p` is a 32-bit `ucmp`/`scmp` of the counter
    /// and an immediate into a predicate.
    fn compare(&self, p: &PisaInst, k: u32) -> Option<(RegId, bool)> {
        let signed = match p.opcode {
            Opcode::Ucmp => false,
            Opcode::Scmp => true,
            _ => return None,
        };
        if p.quals.ty != Some(Type::B32) {
            return None;
        }
        let pred = plain_reg(p.operand(Role::Pred)?)?;
        if pred == self.k {
            return None;
        }
        let a = p.operand(Role::Src0)?;
        let b = p.operand(Role::Src1)?;
        let (x, y) = match (plain_reg(a), plain_reg(b)) {
            (Some(r), _) if r == self.k => (k, imm32(b)?),
            (_, Some(r)) if r == self.k => (imm32(a)?, k),
            _ => return None,
        };
        let ord = if signed {
            (x as i32).cmp(&(y as i32))
        } else {
            x.cmp(&y)
        };
        let v = match p.quals.cop? {
            Cop::Eq => ord.is_eq(),
            Cop::Ne => ord.is_ne(),
            Cop::Lt => ord.is_lt(),
            Cop::Le => ord.is_le(),
            Cop::Gt => ord.is_gt(),
            Cop::Ge => ord.is_ge(),
        };
        Some((pred, v))
    }
}

/// Instructions whose writes [`destinations`] may not list: calls (their
/// results) — and the simulation gives up on them.
fn writes_unknown(p: &PisaInst) -> bool {
    p.opcode == Opcode::Call || p.operands.iter().any(|o| matches!(o, Operand::Call(_)))
}

/// `(k, v)` for `mov.32b k, v` with `v` an immediate.
fn mov_imm(p: &PisaInst) -> Option<(RegId, u32)> {
    if p.opcode != Opcode::Mov || p.quals.ty != Some(Type::B32) {
        return None;
    }
    Some((
        plain_reg(p.operand(Role::Dst)?)?,
        imm32(p.operand(Role::Src0)?)?,
    ))
}

/// A whole register (no swizzle).
fn plain_reg(o: &Operand) -> Option<RegId> {
    match o {
        Operand::Reg(r) if r.swizzle.is_none() => Some(r.reg),
        _ => None,
    }
}

/// A 32-bit integer immediate's bits (negative literals in two's complement).
fn imm32(o: &Operand) -> Option<u32> {
    match o {
        Operand::Int(l, _) => {
            let m = l.math();
            (i32::MIN as i128..=u32::MAX as i128)
                .contains(&m)
                .then_some(m as u32)
        }
        _ => None,
    }
}
