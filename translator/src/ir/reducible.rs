//! Makes every function's control-flow graph reducible, so the structurizer
//! only ever sees natural loops.
//!
//! A strongly connected region with several entry blocks (an irreducible
//! cycle, legal in PISA: any `goto` may jump into a loop) gets one new entry,
//! a *dispatcher*: every edge into entry `eᵢ` instead sets a synthetic
//! `$state` register to `i` and goes to the dispatcher, which tests `$state`
//! and branches to `eᵢ` ("controlled node splitting" without copying code;
//! the state-variable form of Böhm–Jacopini, confined to the region). Edges
//! from inside and from outside the region use separate setter blocks, so
//! the dispatcher is the region's only entry. Repeats until reducible
//! (nested irreducible regions are fixed from the outside in).

use super::analysis::{Cfg, Dominators};
use super::*;
use std::collections::BTreeSet;

pub fn make_reducible(f: &mut Function) {
    if f.blocks.is_empty() {
        return;
    }
    detach_entry(f);
    // each round removes one multi-entry region; the bound only guards
    // against a bug turning into a hang
    for _ in 0..f.blocks.len() * 4 + 16 {
        let cfg = Cfg::compute(f);
        let dom = Dominators::compute(&cfg);
        let Some((u, h)) = irreducible_edge(f, &cfg, &dom) else {
            return;
        };
        let mut region: BTreeSet<BlockId> = cfg.rpo.iter().copied().collect();
        let mut cut: BTreeSet<BlockId> = BTreeSet::new();
        loop {
            let scc = scc_of(f, &cfg, &region, &cut, h);
            if !scc.contains(&u) {
                // cannot happen (see the module docs); give up rather than loop
                return;
            }
            let entries: Vec<BlockId> = cfg
                .rpo
                .iter()
                .copied()
                .filter(|b| scc.contains(b))
                .filter(|b| cfg.preds(*b).iter().any(|p| !scc.contains(p)))
                .collect();
            if entries.len() >= 2 {
                add_dispatcher(f, &cfg, &scc, &entries);
                break;
            }
            // a single-entry loop with an irreducible region inside: look
            // inside it, without the edges back to its header
            region = scc;
            cut.extend(entries);
        }
    }
}

/// A retreating edge whose target does not dominate its source (none: the
/// graph is reducible).
fn irreducible_edge(f: &Function, cfg: &Cfg, dom: &Dominators) -> Option<(BlockId, BlockId)> {
    cfg.rpo.iter().find_map(|&u| {
        f.successors(u)
            .find(|&h| cfg.is_retreating(u, h) && !dom.dominates(h, u))
            .map(|h| (u, h))
    })
}

/// Gives the entry block no predecessors (so it is never part of a cycle):
/// its contents move to a new block that it jumps to.
fn detach_entry(f: &mut Function) {
    let has_preds = f
        .blocks
        .iter()
        .any(|b| b.term.successors().any(|s| s == BlockId::ENTRY));
    if !has_preds {
        return;
    }
    let moved = BlockId(f.blocks.len() as u32);
    let entry = std::mem::replace(
        &mut f.blocks[0],
        Block {
            label: None,
            insts: Vec::new(),
            term: Terminator::Goto(moved),
            term_span: Span::default(),
        },
    );
    f.blocks.push(entry);
    for b in f.blocks.iter_mut().skip(1) {
        retarget(&mut b.term, BlockId::ENTRY, moved);
    }
}

fn retarget(t: &mut Terminator, from: BlockId, to: BlockId) {
    match t {
        Terminator::Goto(x) if *x == from => *x = to,
        Terminator::Branch {
            then, otherwise, ..
        } => {
            if *then == from {
                *then = to;
            }
            if *otherwise == from {
                *otherwise = to;
            }
        }
        _ => {}
    }
}

/// The strongly connected component of `start` in the graph restricted to
/// `region`, ignoring edges into the blocks of `cut`: the blocks both
/// reachable from `start` and reaching it, each found by walking only its
/// own edges (linear in the region's size).
fn scc_of(
    f: &Function,
    cfg: &Cfg,
    region: &BTreeSet<BlockId>,
    cut: &BTreeSet<BlockId>,
    start: BlockId,
) -> BTreeSet<BlockId> {
    let edge =
        |a: BlockId, b: BlockId| region.contains(&a) && region.contains(&b) && !cut.contains(&b);
    let reach = |next: &dyn Fn(BlockId) -> Vec<BlockId>| {
        let mut seen = BTreeSet::from([start]);
        let mut work = vec![start];
        while let Some(x) = work.pop() {
            for y in next(x) {
                if seen.insert(y) {
                    work.push(y);
                }
            }
        }
        seen
    };
    let fwd = reach(&|x| f.successors(x).filter(|&y| edge(x, y)).collect());
    let back = reach(&|x| {
        cfg.preds(x)
            .iter()
            .copied()
            .filter(|&y| edge(y, x))
            .collect()
    });
    fwd.intersection(&back).copied().collect()
}

fn add_dispatcher(f: &mut Function, cfg: &Cfg, scc: &BTreeSet<BlockId>, entries: &[BlockId]) {
    let state = f.new_reg(
        format!("$state{}", f.regs.len()),
        RegKind::Value(Ty::scalar(32)),
    );
    let is = f.new_reg(format!("$is{}", f.regs.len()), RegKind::Pred);
    let span = f.blocks[entries[0].index()].term_span;
    let first = BlockId(f.blocks.len() as u32);
    // the test chain: d_i sends state i to e_i; the last entry takes the rest
    let k = entries.len();
    for (i, &e) in entries.iter().enumerate().take(k - 1) {
        let next = if i + 2 < k {
            BlockId(first.0 + i as u32 + 1)
        } else {
            entries[k - 1]
        };
        f.blocks.push(Block {
            label: None,
            insts: vec![Inst::TestConst {
                dst: is,
                src: state,
                value: i as u32,
            }],
            term: Terminator::Branch {
                cond: Cond {
                    pred: is,
                    negate: false,
                },
                then: e,
                otherwise: next,
            },
            term_span: span,
        });
    }
    for (i, &e) in entries.iter().enumerate() {
        let setter = |f: &mut Function| {
            f.blocks.push(Block {
                label: None,
                insts: vec![Inst::SetConst {
                    dst: state,
                    value: i as u32,
                }],
                term: Terminator::Goto(first),
                term_span: span,
            });
            BlockId(f.blocks.len() as u32 - 1)
        };
        let inside = setter(f);
        let outside = setter(f);
        for &p in cfg.preds(e) {
            let to = if scc.contains(&p) { inside } else { outside };
            retarget(&mut f.blocks[p.index()].term, e, to);
        }
    }
}
