//! Immediate dominators (Cooper, Harvey and Kennedy, "A Simple, Fast
//! Dominance Algorithm", iterating over reverse postorder).

use super::Cfg;
use crate::ir::BlockId;

pub struct Dominators {
    /// Immediate dominator of each reachable block; the entry's is itself.
    pub idom: Vec<Option<BlockId>>,
}

impl Dominators {
    pub fn compute(cfg: &Cfg) -> Dominators {
        let n = cfg.order.len();
        let mut idom: Vec<Option<BlockId>> = vec![None; n];
        let Some(&entry) = cfg.rpo.first() else {
            return Dominators { idom };
        };
        idom[entry.index()] = Some(entry);
        let mut changed = true;
        while changed {
            changed = false;
            for &b in cfg.rpo.iter().skip(1) {
                let mut new: Option<BlockId> = None;
                // latest predecessors first: the running intersection then
                // only moves up, so a block with many predecessors along one
                // chain (every early exit of a function to one label) costs
                // linear time, not quadratic
                for &p in cfg.preds[b.index()].iter().rev() {
                    if idom[p.index()].is_none() {
                        continue;
                    }
                    new = Some(match new {
                        None => p,
                        Some(cur) => intersect(cfg, &idom, p, cur),
                    });
                }
                if new.is_some() && idom[b.index()] != new {
                    idom[b.index()] = new;
                    changed = true;
                }
            }
        }
        Dominators { idom }
    }

    /// `a` dominates `b` (every block dominates itself).
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        let mut x = b;
        loop {
            if x == a {
                return true;
            }
            match self.idom[x.index()] {
                Some(p) if p != x => x = p,
                _ => return false,
            }
        }
    }

    pub fn idom(&self, b: BlockId) -> Option<BlockId> {
        self.idom[b.index()].filter(|&p| p != b)
    }
}

fn intersect(cfg: &Cfg, idom: &[Option<BlockId>], mut a: BlockId, mut b: BlockId) -> BlockId {
    while a != b {
        while cfg.rank(a) > cfg.rank(b) {
            a = idom[a.index()].unwrap_or(a);
        }
        while cfg.rank(b) > cfg.rank(a) {
            b = idom[b.index()].unwrap_or(b);
        }
    }
    a
}
