//! Natural loops of a reducible graph: for each back edge `u → h` (where `h`
//! dominates `u`), the blocks that reach `u` without passing through `h`.
//! Also tells whether the graph is reducible at all: it is when every
//! retreating edge (in reverse postorder) goes to a block that dominates its
//! source.

use super::{Cfg, Dominators};
use crate::ir::{BlockId, Function};
use std::collections::BTreeSet;

pub struct Loops {
    /// Loop headers in reverse postorder, each with its blocks.
    pub loops: Vec<(BlockId, BTreeSet<BlockId>)>,
    /// A retreating edge whose target does not dominate its source.
    pub irreducible_edge: Option<(BlockId, BlockId)>,
}

impl Loops {
    pub fn compute(f: &Function, cfg: &Cfg, dom: &Dominators) -> Loops {
        let mut loops: Vec<(BlockId, BTreeSet<BlockId>)> = Vec::new();
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
                let body = match loops.iter_mut().find(|(x, _)| *x == h) {
                    Some((_, body)) => body,
                    None => {
                        loops.push((h, BTreeSet::from([h])));
                        &mut loops.last_mut().expect("just pushed").1
                    }
                };
                let mut work = vec![u];
                while let Some(x) = work.pop() {
                    if body.insert(x) {
                        work.extend(cfg.preds[x.index()].iter().copied());
                    }
                }
            }
        }
        loops.sort_by_key(|(h, _)| cfg.rank(*h));
        Loops {
            loops,
            irreducible_edge,
        }
    }

    pub fn is_header(&self, b: BlockId) -> bool {
        self.loops.iter().any(|(h, _)| *h == b)
    }

    pub fn body(&self, header: BlockId) -> Option<&BTreeSet<BlockId>> {
        self.loops
            .iter()
            .find(|(h, _)| *h == header)
            .map(|(_, b)| b)
    }

    /// Headers of the loops that contain `b`, outermost first.
    pub fn containing(&self, b: BlockId) -> impl Iterator<Item = BlockId> + '_ {
        self.loops
            .iter()
            .filter(move |(_, body)| body.contains(&b))
            .map(|(h, _)| *h)
    }
}
