//! Where the SIMT emitter's reconvergence could differ from the project's
//! definition, which is checked before a SIMT function is emitted.
//!
//! The definition (docs/spec-notes.md, "Sub-groups") reconverges the lanes
//! of a branch at its immediate post-dominator; the emitter ([`super::emit`])
//! lets lanes wait at the *structured* points of the IR's tree: the end of
//! an `if`, the target of a `break` (the end of a block or loop), the next
//! iteration for a `continue`, the end of the function for a `return`. The
//! two agree for every `if` without jumps out of it, and for the jumps
//! accepted here; for any other shape the lanes could meet at a sync point
//! in different groups, so the function is rejected as unsupported rather
//! than run with different results:
//!
//! - jumps out of an `if` go to one place only (its lanes would otherwise
//!   reconverge only where those places meet, farther than where the
//!   emitter rejoins each);
//! - a `return` (or the end of a function with a result) is that place: the
//!   post-dominator is the function's exit, as for the emitter;
//! - the end of a block or a loop (`break`) is that place when the block or
//!   loop has no other exit: then every path from the branch reaches it;
//! - the loop's next iteration (`continue`, a jump to the loop's header) is
//!   that place when either every lane of the branch starts the next
//!   iteration with no sync point between the `if` and the end of the
//!   iteration, or the lanes of one arm all continue while those of the
//!   other all leave the loop (which has no other exit) — in both cases the
//!   post-dominator is where the emitter rejoins them. A loop whose lanes
//!   could split between continuing and leaving on both paths (a jump into
//!   the middle of a loop, such as the dispatcher of an irreducible region,
//!   or an early `continue` with more exits after it) is rejected.
//!
//! Compilers route `continue` through a latch block (a jump to the end of a
//! block, accepted above), so what is rejected is rare in printed code.

use super::analysis::is_sync_point;
use crate::diag::Span;
use crate::ir::structurize::{Label, Node};
use crate::ir::{BlockId, Function, Inst, Program};
use std::collections::BTreeSet;

/// A shape the emitter cannot reconverge as the definition does.
#[derive(Debug)]
pub struct Hazard {
    /// The branch that splits the lanes.
    pub span: Span,
    pub why: &'static str,
}

/// Where a lane can go at the end of a path through a loop's iteration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    /// Falls through to what follows.
    Fall,
    /// Starts the loop's next iteration.
    Continue,
    /// Leaves the loop through its exit.
    Leave,
    /// A jump to `Label` (resolved by an enclosing level, or a hazard).
    Jump(Label),
    /// A `return`.
    Return,
    /// A sync point (only where the caller asked to see them).
    Sync,
}

struct Checker<'a> {
    program: &'a Program,
    simt: &'a [bool],
    f: &'a Function,
}

/// The first hazard of `tree` (the structured body of SIMT function `f`).
pub fn check(program: &Program, simt: &[bool], f: &Function, tree: &[Node]) -> Option<Hazard> {
    let cx = Checker { program, simt, f };
    let mut path = Vec::new();
    cx.walk(tree, &mut path)
}

/// One enclosing level of a node: the list it is in and its index there.
#[derive(Clone, Copy)]
struct Level<'a> {
    list: &'a [Node],
    index: usize,
}

impl<'a> Checker<'a> {
    fn block_syncs(&self, b: BlockId) -> bool {
        self.f.block(b).insts.iter().any(|i| match i {
            Inst::Pisa(p) => is_sync_point(self.program, self.simt, p),
            _ => false,
        })
    }

    fn syncs(&self, n: &Node) -> bool {
        crate::ir::stack_safe(|| match n {
            Node::Code(b) => self.block_syncs(*b),
            n => n.bodies().any(|body| body.iter().any(|n| self.syncs(n))),
        })
    }

    /// Every `if` of `nodes` (at any depth); `path`: the levels above.
    fn walk(&self, nodes: &'a [Node], path: &mut Vec<Level<'a>>) -> Option<Hazard> {
        crate::ir::stack_safe(|| {
            for (index, n) in nodes.iter().enumerate() {
                // a node without sync points that is only left through its
                // end runs natively: its lanes rejoin at its end as at the
                // post-dominator, unobserved in between
                if escapes(std::slice::from_ref(n)).is_empty() && !self.syncs(n) {
                    continue;
                }
                path.push(Level { list: nodes, index });
                if let Node::If { .. } = n {
                    if let Some(why) = self.if_hazard(n, path) {
                        let span = self.branch_span(nodes, index);
                        path.pop();
                        return Some(Hazard { span, why });
                    }
                }
                for body in n.bodies() {
                    if let Some(h) = self.walk(body, path) {
                        path.pop();
                        return Some(h);
                    }
                }
                path.pop();
            }
            None
        })
    }

    /// The span of the branch an `if` comes from: the terminator of the
    /// code before it (or the function's own span).
    fn branch_span(&self, nodes: &[Node], index: usize) -> Span {
        nodes[..index]
            .iter()
            .rev()
            .find_map(|n| match n {
                Node::Code(b) => Some(self.f.block(*b).term_span),
                _ => None,
            })
            .unwrap_or(self.f.span)
    }

    /// Why the `if` at the end of `path` may reconverge differently.
    fn if_hazard(&self, node: &'a Node, path: &[Level<'a>]) -> Option<&'static str> {
        let Node::If {
            then, otherwise, ..
        } = node
        else {
            return None;
        };
        let targets = escapes(std::slice::from_ref(node));
        let mut it = targets.iter();
        let (Some(target), None) = (it.next(), it.next()) else {
            return if targets.is_empty() {
                None
            } else {
                Some("lanes of this branch leave it for different places")
            };
        };
        let construct = |want: &dyn Fn(&Node) -> bool| {
            path.iter()
                .rev()
                .skip(1)
                .map(|l| &l.list[l.index])
                .position(want)
        };
        match *target {
            None => None,
            Some(Label::Merge(b)) => {
                let Some(at) =
                    construct(&|n| matches!(n, Node::Block { label, .. } if *label == b))
                else {
                    return Some("this branch leaves for a block that does not enclose it");
                };
                self.closed_at(path, at)
                    .then_some(())
                    .map_or(Some("the block this branch leaves has other exits"), |_| {
                        None
                    })
            }
            Some(Label::Exit(l)) => {
                let Some(at) = construct(&|n| matches!(n, Node::Loop { label, .. } if *label == l))
                else {
                    return Some("this branch leaves a loop that does not enclose it");
                };
                self.closed_at(path, at)
                    .then_some(())
                    .map_or(Some("the loop this branch leaves has other exits"), |_| {
                        None
                    })
            }
            Some(Label::Loop(l)) => {
                let Some(at) = construct(&|n| matches!(n, Node::Loop { label, .. } if *label == l))
                else {
                    return Some("this branch continues a loop that does not enclose it");
                };
                self.continue_hazard(l, then, otherwise, path, at)
            }
        }
    }

    /// Whether the construct `at` levels above the node at the end of
    /// `path` can only be left through its own end.
    fn closed_at(&self, path: &[Level<'a>], at: usize) -> bool {
        let l = path[path.len() - 2 - at];
        escapes(std::slice::from_ref(&l.list[l.index])).is_empty()
    }

    /// The `continue` rules of the module docs for an `if` of loop `l`
    /// (`at` levels above it).
    fn continue_hazard(
        &self,
        l: BlockId,
        then: &'a [Node],
        otherwise: &'a [Node],
        path: &[Level<'a>],
        at: usize,
    ) -> Option<&'static str> {
        // the levels from the `if` up to the loop's body, innermost first:
        // what runs after the `if` in this iteration
        let inner = &path[path.len() - 1 - at..];
        let mut rest: Vec<(&'a [Node], Option<BlockId>)> = Vec::new();
        for (k, lv) in inner.iter().enumerate().rev() {
            // the node at this level contains the `if` (or is it)
            let node = &lv.list[lv.index];
            if k + 1 < inner.len() {
                match node {
                    Node::If { .. } => {}
                    Node::Block { .. } => {}
                    // a `continue` out of an inner loop
                    _ => return Some("a `continue` of an outer loop from an inner one"),
                }
            }
            let label = match node {
                Node::Block { label, .. } if k + 1 < inner.len() => Some(*label),
                _ => None,
            };
            rest.push((&lv.list[lv.index + 1..], label));
        }
        // `rest[0]` follows the `if`; each later entry follows the level
        // that contains the previous one
        let closed = self.closed_at(path, at);
        let eval = |arm: &'a [Node], syncs: bool| -> BTreeSet<Outcome> {
            let mut chain = vec![(arm, None)];
            chain.extend(rest.iter().copied());
            self.chain_outcomes(&chain, l, syncs)
        };
        let both = {
            let mut s = eval(then, false);
            s.extend(eval(otherwise, false));
            s
        };
        // every lane starts the next iteration, no sync point after the `if`
        let rest_syncs = self.chain_outcomes(&rest, l, true).contains(&Outcome::Sync);
        if both.iter().all(|o| *o == Outcome::Continue) && !rest_syncs {
            return None;
        }
        // one arm continues, the other leaves
        let only = |s: &BTreeSet<Outcome>, o: Outcome| !s.is_empty() && s.iter().all(|x| *x == o);
        let split = |c: &'a [Node], o: &'a [Node]| {
            only(&self.seq_outcomes(c, l, false), Outcome::Continue)
                && only(&eval(o, false), Outcome::Leave)
        };
        if closed && (split(then, otherwise) || split(otherwise, then)) {
            return None;
        }
        Some("lanes that `continue` this loop here could meet the others at a sync point in other groups than the definition's")
    }

    /// The outcomes of running `chain` in loop `l`: each entry is a node
    /// sequence and the label of the block whose end it starts at (a jump
    /// there lands on it); falling off an entry reaches the next one. With
    /// `syncs`, a sync point is an outcome.
    fn chain_outcomes(
        &self,
        chain: &[(&'a [Node], Option<BlockId>)],
        l: BlockId,
        syncs: bool,
    ) -> BTreeSet<Outcome> {
        let mut out = BTreeSet::new();
        // reached[k]: some lane starts entry k (k = len: falls off the body)
        let mut reached = vec![false; chain.len() + 1];
        reached[0] = true;
        for (k, (nodes, _)) in chain.iter().enumerate() {
            if !reached[k] {
                continue;
            }
            for o in self.seq_outcomes(nodes, l, syncs) {
                let target = match o {
                    Outcome::Fall => Some(k + 1),
                    Outcome::Jump(Label::Merge(b)) => chain
                        .iter()
                        .enumerate()
                        .skip(k + 1)
                        .find(|(_, (_, label))| *label == Some(b))
                        .map(|(j, _)| j),
                    _ => None,
                };
                match target {
                    Some(j) => reached[j] = true,
                    None => {
                        out.insert(o);
                    }
                }
            }
        }
        if reached[chain.len()] {
            // falling off the end of the loop's body leaves it
            out.insert(Outcome::Leave);
        }
        out
    }

    /// The outcomes of a node sequence.
    fn seq_outcomes(&self, nodes: &[Node], l: BlockId, syncs: bool) -> BTreeSet<Outcome> {
        crate::ir::stack_safe(|| {
            let mut out = BTreeSet::new();
            for n in nodes {
                let s = self.node_outcomes(n, l, syncs);
                let falls = s.contains(&Outcome::Fall);
                out.extend(s.into_iter().filter(|o| *o != Outcome::Fall));
                if !falls {
                    return out;
                }
            }
            out.insert(Outcome::Fall);
            out
        })
    }

    fn node_outcomes(&self, n: &Node, l: BlockId, syncs: bool) -> BTreeSet<Outcome> {
        let mut out = BTreeSet::new();
        match n {
            Node::Code(b) => {
                if syncs && self.block_syncs(*b) {
                    out.insert(Outcome::Sync);
                }
                out.insert(Outcome::Fall);
            }
            Node::Br(Label::Loop(x)) if *x == l => {
                out.insert(Outcome::Continue);
            }
            Node::Br(Label::Exit(x)) if *x == l => {
                out.insert(Outcome::Leave);
            }
            Node::Br(t) => {
                out.insert(Outcome::Jump(*t));
            }
            Node::Return { .. } | Node::Unreachable => {
                out.insert(Outcome::Return);
            }
            Node::If {
                then, otherwise, ..
            } => {
                out.extend(self.seq_outcomes(then, l, syncs));
                out.extend(self.seq_outcomes(otherwise, l, syncs));
            }
            Node::Block { label, body, .. } => {
                for o in self.seq_outcomes(body, l, syncs) {
                    out.insert(match o {
                        Outcome::Jump(Label::Merge(m)) if m == *label => Outcome::Fall,
                        o => o,
                    });
                }
            }
            Node::Loop { label, body } => {
                for o in self.seq_outcomes(body, l, syncs) {
                    match o {
                        Outcome::Jump(Label::Exit(x)) if x == *label => {
                            out.insert(Outcome::Fall);
                        }
                        // the inner loop's next iteration
                        Outcome::Jump(Label::Loop(x)) if x == *label => {}
                        o => {
                            out.insert(o);
                        }
                    }
                }
            }
        }
        out
    }
}

/// Where the nodes can jump to outside themselves: labels they do not
/// define, and `None` for a return.
fn escapes(nodes: &[Node]) -> BTreeSet<Option<Label>> {
    let mut defined = BTreeSet::new();
    let mut jumps = BTreeSet::new();
    collect(nodes, &mut defined, &mut jumps);
    jumps
        .into_iter()
        .filter(|t| !matches!(t, Some(l) if defined.contains(l)))
        .collect()
}

fn collect(nodes: &[Node], defined: &mut BTreeSet<Label>, jumps: &mut BTreeSet<Option<Label>>) {
    crate::ir::stack_safe(|| {
        for n in nodes {
            match n {
                Node::Block { label, .. } => {
                    defined.insert(Label::Merge(*label));
                }
                Node::Loop { label, .. } => {
                    defined.insert(Label::Loop(*label));
                    defined.insert(Label::Exit(*label));
                }
                Node::Br(l) => {
                    jumps.insert(Some(*l));
                }
                Node::Return { .. } | Node::Unreachable => {
                    jumps.insert(None);
                }
                _ => {}
            }
            for body in n.bodies() {
                collect(body, defined, jumps);
            }
        }
    })
}
