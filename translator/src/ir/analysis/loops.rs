//! Natural loops of a reducible graph: for each back edge `u → h` (where `h`
//! dominates `u`), the blocks that reach `u` without passing through `h`.
//! Also tells whether the graph is reducible at all: it is when every
//! retreating edge (in reverse postorder) goes to a block that dominates its
//! source. Natural loops of a reducible graph nest; the nesting is kept so
//! that "the loops around this block" costs its depth, not the loop count.

use super::{Cfg, Dominators};
use crate::ir::{BlockId, Function};
use std::collections::BTreeSet;

pub struct Loops {
    /// Loop headers in reverse postorder (outer loops first), each with its
    /// blocks.
    pub loops: Vec<(BlockId, BTreeSet<BlockId>)>,
    /// A retreating edge whose target does not dominate its source.
    pub irreducible_edge: Option<(BlockId, BlockId)>,
    /// Per block: the loop it heads (index into `loops`).
    headed: Vec<Option<usize>>,
    /// Per block: the innermost loop that contains it.
    innermost: Vec<Option<usize>>,
    /// Per loop: the loop around it.
    parent: Vec<Option<usize>>,
}

impl Loops {
    pub fn compute(f: &Function, cfg: &Cfg, dom: &Dominators) -> Loops {
        let mut loops: Vec<(BlockId, BTreeSet<BlockId>)> = Vec::new();
        let mut index: Vec<Option<usize>> = vec![None; f.blocks.len()];
        let mut irreducible_edge = None;
        for &u in &cfg.rpo {
            for h in f.successors(u) {
                if !cfg.is_retreating(u, h) {
                    continue;
                }
                if !dom.dominates(h, u) {
                    irreducible_edge.get_or_insert((u, h));
                    continue;
                }
                let i = *index[h.index()].get_or_insert_with(|| {
                    loops.push((h, BTreeSet::from([h])));
                    loops.len() - 1
                });
                let body = &mut loops[i].1;
                let mut work = vec![u];
                while let Some(x) = work.pop() {
                    if body.insert(x) {
                        work.extend(cfg.preds[x.index()].iter().copied());
                    }
                }
            }
        }
        // outer loops first: their headers come first in reverse postorder
        loops.sort_by_key(|(h, _)| cfg.rank(*h));
        let n = f.blocks.len();
        let mut headed = vec![None; n];
        let mut innermost: Vec<Option<usize>> = vec![None; n];
        let mut parent = Vec::with_capacity(loops.len());
        for (i, (h, body)) in loops.iter().enumerate() {
            headed[h.index()] = Some(i);
            parent.push(innermost[h.index()]);
            for b in body {
                innermost[b.index()] = Some(i);
            }
        }
        Loops {
            loops,
            irreducible_edge,
            headed,
            innermost,
            parent,
        }
    }

    pub fn is_header(&self, b: BlockId) -> bool {
        self.headed[b.index()].is_some()
    }

    pub fn body(&self, header: BlockId) -> Option<&BTreeSet<BlockId>> {
        self.headed[header.index()].map(|i| &self.loops[i].1)
    }

    /// Headers of the loops that contain `b`, outermost first.
    pub fn containing(&self, b: BlockId) -> impl Iterator<Item = BlockId> {
        let mut chain = Vec::new();
        let mut l = self.innermost[b.index()];
        while let Some(i) = l {
            chain.push(self.loops[i].0);
            l = self.parent[i];
        }
        chain.into_iter().rev()
    }
}
